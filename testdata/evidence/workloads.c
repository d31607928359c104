/*
 * Workloads for the DFTracer evidence traces (see make_evidence.sh and README.md).
 *
 *   workloads MODE DATA_DIR
 *
 * Every mode works on files under DATA_DIR only and prints nothing (stdout would be traced).
 * Random offsets come from a fixed-seed xorshift64*, so every run issues the same calls.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* glibc < 2.33 compiled stat() into a call of __xstat(); glibc 2.33+ exports a real stat() that
 * DFTracer 2.2 does not wrap. The legacy symbol is still exported, and DFTracer does wrap it. */
extern int __xstat(int ver, const char *path, struct stat *buf);

#define MIB (1024 * 1024)
#define FILE_SIZE (16 * MIB)
#define BLOCK 4096
#ifndef LSEEK_READS
#define LSEEK_READS 3000
#endif
#ifndef STORM_FILES
#define STORM_FILES 1200
#endif
#ifndef SMALL_WRITES
#define SMALL_WRITES 20000
#endif

static uint64_t rng_state;
static uint64_t rng_next(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545F4914F6CDD1DULL;
}

static void die(const char *what) {
  perror(what);
  exit(1);
}

static void xread(ssize_t got, size_t want, const char *what) {
  if (got < 0 || (size_t)got != want) die(what);
}

/* 16 MiB in 16 write() calls of 1 MiB, then close. */
static void make_big_file(const char *path) {
  char *buf = malloc(MIB);
  if (!buf) die("malloc");
  for (size_t i = 0; i < MIB; i++) buf[i] = (char)(i * 31 + 7);
  int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  if (fd < 0) die("open for write");
  for (int i = 0; i < FILE_SIZE / MIB; i++) xread(write(fd, buf, MIB), MIB, "write");
  if (close(fd) != 0) die("close");
  free(buf);
}

static int open_ro(const char *path) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) die("open for read");
  return fd;
}

static void random_pread(const char *file) {
  char buf[BLOCK];
  make_big_file(file);
  int fd = open_ro(file);
  rng_state = 0x9E3779B97F4A7C15ULL;
  for (int i = 0; i < 3000; i++) {
    off_t off = (off_t)(rng_next() % (FILE_SIZE / BLOCK)) * BLOCK;
    xread(pread(fd, buf, BLOCK, off), BLOCK, "pread");
  }
  close(fd);
}

static void strided_pread(const char *file) {
  char buf[BLOCK];
  make_big_file(file);
  int fd = open_ro(file);
  for (int i = 0; i < 2000; i++) xread(pread(fd, buf, BLOCK, (off_t)i * 8192), BLOCK, "pread");
  close(fd);
}

static void sequential_read(const char *file) {
  static char buf[64 * 1024];
  make_big_file(file);
  int fd = open_ro(file);
  for (int i = 0; i < FILE_SIZE / (int)sizeof buf; i++) xread(read(fd, buf, sizeof buf), sizeof buf, "read");
  close(fd);
}

static void lseek_read_random(const char *file, int n) {
  char buf[BLOCK];
  make_big_file(file);
  int fd = open_ro(file);
  rng_state = 0xD1B54A32D192ED03ULL;
  for (int i = 0; i < n; i++) {
    off_t off = (off_t)(rng_next() % (FILE_SIZE / BLOCK)) * BLOCK;
    if (lseek(fd, off, SEEK_SET) != off) die("lseek");
    xread(read(fd, buf, BLOCK), BLOCK, "read");
  }
  close(fd);
}

static void reverse_read(const char *file) {
  char buf[BLOCK];
  make_big_file(file);
  int fd = open_ro(file);
  for (int b = FILE_SIZE / BLOCK - 1; b >= 0; b--) xread(pread(fd, buf, BLOCK, (off_t)b * BLOCK), BLOCK, "pread");
  close(fd);
}

static void shared_interleaved_writes(const char *file) {
  enum { CHILDREN = 4, RECORDS = 500, REC = 1024 };
  int fd = open(file, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  if (fd < 0 || close(fd) != 0) die("create shared file");
  pid_t kids[CHILDREN];
  for (int c = 0; c < CHILDREN; c++) {
    kids[c] = fork();
    if (kids[c] < 0) die("fork");
    if (kids[c] == 0) {
      char buf[REC];
      memset(buf, 'a' + c, sizeof buf);
      int cfd = open(file, O_WRONLY);
      if (cfd < 0) die("child open");
      for (int i = 0; i < RECORDS; i++)
        xread(pwrite(cfd, buf, REC, (off_t)(i * CHILDREN + c) * REC), REC, "pwrite");
      close(cfd);
      exit(0); /* exit(), not _exit(): DFTracer flushes the child's trace at exit */
    }
  }
  for (int c = 0; c < CHILDREN; c++) {
    int status;
    if (waitpid(kids[c], &status, 0) != kids[c] || !WIFEXITED(status) || WEXITSTATUS(status) != 0) die("child");
  }
}

/* Untraced setup for unlink_stat_storm (make_evidence.sh runs it without LD_PRELOAD): the
 * directory and its empty files. Creating an inode costs far more than stat() or unlink() (on ext4
 * about 100-400 us against 1 and 9 us), so a traced create would hide the point of the trace. */
static void unlink_stat_storm_setup(const char *dir) {
  char path[4200];
  if (mkdir(dir, 0755) != 0) die("mkdir");
  for (int i = 0; i < STORM_FILES; i++) {
    snprintf(path, sizeof path, "%s/f%04d", dir, i);
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0 || close(fd) != 0) die("setup open");
  }
}

/* Traced: open each (O_CREAT, the file already exists), write 16 bytes, close; stat each file
 * twice; unlink each. */
static void unlink_stat_storm(const char *dir) {
  char path[4200];
  struct stat st;
  for (int i = 0; i < STORM_FILES; i++) {
    snprintf(path, sizeof path, "%s/f%04d", dir, i);
    int fd = open(path, O_CREAT | O_WRONLY, 0644);
    if (fd < 0) die("open");
    xread(write(fd, "0123456789abcdef", 16), 16, "write");
    close(fd);
  }
  /* Each pass stats every file through glibc's own stat(), which DFTracer 2.2 does not record,
   * and through the legacy __xstat() symbol, which it does. */
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < STORM_FILES; i++) {
      snprintf(path, sizeof path, "%s/f%04d", dir, i);
      if (stat(path, &st) != 0 || st.st_size != 16) die("stat");
      if (__xstat(1, path, &st) != 0 || st.st_size != 16) die("__xstat");
    }
  }
  for (int i = 0; i < STORM_FILES; i++) {
    snprintf(path, sizeof path, "%s/f%04d", dir, i);
    if (unlink(path) != 0) die("unlink");
  }
}

static void small_writes(const char *file, int n) {
  char buf[64];
  memset(buf, 'w', sizeof buf);
  int fd = open(file, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  if (fd < 0) die("open");
  for (int i = 0; i < n; i++) xread(write(fd, buf, sizeof buf), sizeof buf, "write");
  close(fd);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s MODE DATA_DIR\n", argv[0]);
    return 2;
  }
  const char *mode = argv[1];
  char file[4096];
  snprintf(file, sizeof file, "%s/%s.dat", argv[2], mode);
  if (!strcmp(mode, "random_pread")) random_pread(file);
  else if (!strcmp(mode, "strided_pread")) strided_pread(file);
  else if (!strcmp(mode, "sequential_read")) sequential_read(file);
  else if (!strcmp(mode, "lseek_read_random")) lseek_read_random(file, LSEEK_READS);
  else if (!strcmp(mode, "reverse_read")) reverse_read(file);
  else if (!strcmp(mode, "shared_interleaved_writes")) shared_interleaved_writes(file);
  else if (!strcmp(mode, "unlink_stat_storm")) {
    snprintf(file, sizeof file, "%s/storm", argv[2]);
    unlink_stat_storm(file);
  } else if (!strcmp(mode, "unlink_stat_storm_setup")) {
    snprintf(file, sizeof file, "%s/storm", argv[2]);
    unlink_stat_storm_setup(file);
  } else if (!strcmp(mode, "small_writes")) small_writes(file, SMALL_WRITES);
  else {
    fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
  }
  return 0;
}
