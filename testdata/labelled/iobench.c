/*
 * iobench: a small MPI I/O benchmark used to make the configuration-labelled
 * DFTracer campaign (see make_campaign.py and README.md in this folder).
 *
 * Every run is one "mode" plus options; the options decide which I/O pattern
 * the run shows. The benchmark never looks at what it measured: the label of a
 * run comes from its command line only.
 *
 *   mpicc -O2 -o iobench iobench.c
 *   mpirun -np 4 ./iobench --mode fpp --dir /scratch/r1 --xfer 4096 --count 2000
 *
 * Modes
 *   fpp     one file per rank, COUNT transfers of XFER bytes, in sequential,
 *           shuffled (seeded permutation) or backward order; optional segments
 *           separated by GAP bytes (strided but still forward); optional sync
 *           after every write; optional rank skew (parallelism imbalance).
 *   shared  one file shared by all ranks, SEGMENTS blocks of XFER bytes per
 *           rank, interleaved between ranks or one contiguous range per rank,
 *           through POSIX pwrite/pread, independent MPI-IO (MPI_File_write_at)
 *           or collective MPI-IO (MPI_File_write_at_all).
 *   multi   NFILES data files per rank of FSIZE bytes each, written in XFER
 *           pieces and read back; in one directory or per-rank directories.
 *   tiny    NFILES tiny files per rank (FSIZE bytes): created, written, read
 *           back and removed.
 *   meta    NFILES empty files per rank: created (open+close), stat-ed and
 *           removed; with --passes K, K extra passes of stat/access/open/close
 *           over the existing files (an open/stat storm).
 *
 * Phases (--phases): w = write only, wr = write then read, r = read only.
 * A read-only run expects its files to exist already: run the same command
 * first with --phases w --keep 1 (without the tracer), then with --phases r.
 * Files are removed at the end of a run unless --keep 1 is given.
 *
 * Sizes accept the suffixes k, m, g (powers of 1024).
 *
 * Start-up reads (--imports N --import-dir IDIR), in every mode: before its
 * main work every rank reads the same N small files that already exist in
 * IDIR, the way an interpreter loads its modules or a code reads its config
 * files. The rank lists IDIR once (opendir/readdir/closedir), sorts the names
 * and takes the first N regular files (fewer than N is an error). A file whose
 * name ends in ".py" is read whole the way CPython's importer does it: open,
 * fstat, lseek(0, SEEK_CUR), one read of size+1 bytes (which returns the
 * file size), one read of 1 byte that returns 0, close. Any other file is
 * read the way a stdio-buffered config parser reads it: open, fstat, reads
 * of 4 KiB until one returns 0, close. The files are never written or
 * removed by iobench (the caller makes them), and the main phase is the same
 * with or without them.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include <dirent.h>

/* ---------------------------------------------------------------- options */

struct options {
    const char *mode;      /* fpp | shared | multi | tiny | meta            */
    const char *dir;       /* data directory (created if missing)           */
    const char *phases;    /* w | wr | r                                    */
    long long xfer;        /* write transfer size in bytes                  */
    long long rxfer;       /* read transfer size (default: xfer)            */
    long long count;       /* fpp: transfers per rank in the write phase    */
    const char *worder;    /* fpp write order: seq | shuffle | backward     */
    const char *rorder;    /* fpp read order:  seq | shuffle | backward     */
    const char *call;      /* POSIX calls: pwrite (pwrite/pread) or
                              write (lseek when needed + write/read)        */
    const char *sync;      /* sync after every write: none|fsync|fdatasync  */
    int fsync_end;         /* one fsync per file at the end of the writes   */
    int segments;          /* fpp: segments per file; shared: blocks/rank   */
    long long gap;         /* fpp: hole between segments (bytes)            */
    const char *skew;      /* fpp: none|heavy|only|linear|readheavy         */
    double factor;         /* fpp: skew factor for heavy / readheavy        */
    int heavy;             /* fpp: the rank that is heavy                   */
    const char *io;        /* shared: posix | indep | coll                  */
    const char *layout;    /* shared: interleaved | contiguous              */
    long long nfiles;      /* multi/tiny/meta: files per rank               */
    long long fsize;       /* multi/tiny: bytes per file                    */
    const char *dirs;      /* multi/tiny/meta: shared | rank                */
    int passes;            /* meta: extra stat/open passes                  */
    unsigned long seed;    /* seed for shuffled orders                      */
    int keep;              /* keep the files at the end                     */
    long long imports;     /* start-up reads: files to read from import_dir */
    const char *import_dir;/* directory holding the start-up files          */
};

static int rank, nprocs;

static void die(const char *what, const char *path)
{
    fprintf(stderr, "iobench rank %d: %s %s: %s\n", rank, what, path ? path : "",
            strerror(errno));
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static long long parse_size(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    switch (*end) {
    case 'k': case 'K': v *= 1024.0; break;
    case 'm': case 'M': v *= 1024.0 * 1024.0; break;
    case 'g': case 'G': v *= 1024.0 * 1024.0 * 1024.0; break;
    default: break;
    }
    return (long long)v;
}

static void usage(void)
{
    if (rank == 0)
        fprintf(stderr,
                "usage: iobench --mode fpp|shared|multi|tiny|meta --dir DIR [options]\n"
                "  --phases w|wr|r  --xfer B --rxfer B --count N --worder/--rorder seq|shuffle|backward\n"
                "  --call pwrite|write  --sync none|fsync|fdatasync  --fsync-end 0|1\n"
                "  --segments S --gap B  --skew none|heavy|only|linear|readheavy --factor F --heavy R\n"
                "  --io posix|indep|coll --layout interleaved|contiguous\n"
                "  --nfiles N --fsize B --dirs shared|rank --passes K --seed S --keep 0|1\n"
                "  --imports N --import-dir IDIR\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static void parse_options(int argc, char **argv, struct options *o)
{
    memset(o, 0, sizeof *o);
    o->mode = "fpp"; o->phases = "wr"; o->xfer = 1 << 20; o->count = 16;
    o->worder = "seq"; o->rorder = "seq"; o->call = "pwrite"; o->sync = "none";
    o->segments = 1; o->skew = "none"; o->factor = 1.0; o->io = "posix";
    o->layout = "interleaved"; o->nfiles = 1; o->fsize = 4096; o->dirs = "shared";
    o->seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *k = argv[i];
        if (i + 1 >= argc) usage();
        const char *v = argv[++i];
        if (!strcmp(k, "--mode")) o->mode = v;
        else if (!strcmp(k, "--dir")) o->dir = v;
        else if (!strcmp(k, "--phases")) o->phases = v;
        else if (!strcmp(k, "--xfer")) o->xfer = parse_size(v);
        else if (!strcmp(k, "--rxfer")) o->rxfer = parse_size(v);
        else if (!strcmp(k, "--count")) o->count = atoll(v);
        else if (!strcmp(k, "--worder")) o->worder = v;
        else if (!strcmp(k, "--rorder")) o->rorder = v;
        else if (!strcmp(k, "--call")) o->call = v;
        else if (!strcmp(k, "--sync")) o->sync = v;
        else if (!strcmp(k, "--fsync-end")) o->fsync_end = atoi(v);
        else if (!strcmp(k, "--segments")) o->segments = atoi(v);
        else if (!strcmp(k, "--gap")) o->gap = parse_size(v);
        else if (!strcmp(k, "--skew")) o->skew = v;
        else if (!strcmp(k, "--factor")) o->factor = atof(v);
        else if (!strcmp(k, "--heavy")) o->heavy = atoi(v);
        else if (!strcmp(k, "--io")) o->io = v;
        else if (!strcmp(k, "--layout")) o->layout = v;
        else if (!strcmp(k, "--nfiles")) o->nfiles = atoll(v);
        else if (!strcmp(k, "--fsize")) o->fsize = parse_size(v);
        else if (!strcmp(k, "--dirs")) o->dirs = v;
        else if (!strcmp(k, "--passes")) o->passes = atoi(v);
        else if (!strcmp(k, "--seed")) o->seed = strtoul(v, NULL, 10);
        else if (!strcmp(k, "--keep")) o->keep = atoi(v);
        else if (!strcmp(k, "--imports")) o->imports = atoll(v);
        else if (!strcmp(k, "--import-dir")) o->import_dir = v;
        else usage();
    }
    if (!o->dir || o->xfer <= 0 || o->segments < 1) usage();
    if (o->imports < 0 || (o->imports > 0 && !o->import_dir)) usage();
    if (o->rxfer <= 0) o->rxfer = o->xfer;
}

static int has_phase(const struct options *o, char p) { return strchr(o->phases, p) != NULL; }

/* ---------------------------------------------------------------- helpers */

/* A small deterministic generator (xorshift64*), so the shuffled orders do
 * not depend on the C library's rand(). */
static unsigned long long rng_state;
static void rng_seed(unsigned long long s) { rng_state = s * 0x9E3779B97F4A7C15ULL + 1; }
static unsigned long long rng_next(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}

/* order[i] = index of the i-th transfer: identity, reversed or a seeded
 * Fisher-Yates permutation (a different permutation on every rank). */
static long long *make_order(long long n, const char *how, unsigned long seed)
{
    long long *order = malloc((size_t)(n > 0 ? n : 1) * sizeof *order);
    for (long long i = 0; i < n; i++) order[i] = i;
    if (!strcmp(how, "backward")) {
        for (long long i = 0; i < n; i++) order[i] = n - 1 - i;
    } else if (!strcmp(how, "shuffle")) {
        rng_seed(seed * 1000003ULL + (unsigned long long)rank);
        for (long long i = n - 1; i > 0; i--) {
            long long j = (long long)(rng_next() % (unsigned long long)(i + 1));
            long long t = order[i]; order[i] = order[j]; order[j] = t;
        }
    } else if (strcmp(how, "seq")) {
        if (rank == 0) fprintf(stderr, "iobench: unknown order %s\n", how);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return order;
}

static char *make_buffer(long long size)
{
    char *buf = NULL;
    if (posix_memalign((void **)&buf, 4096, (size_t)size)) die("posix_memalign", NULL);
    for (long long i = 0; i < size; i++) buf[i] = (char)('a' + (i + rank) % 26);
    return buf;
}

/* One write of n bytes at off, through pwrite or lseek+write; then the
 * per-write sync if asked for. *pos tracks the file position for write(). */
static void put(const struct options *o, int fd, const char *buf, long long n, long long off,
                long long *pos, const char *path)
{
    ssize_t r;
    if (!strcmp(o->call, "write")) {
        if (*pos != off && lseek(fd, (off_t)off, SEEK_SET) < 0) die("lseek", path);
        r = write(fd, buf, (size_t)n);
        *pos = off + (r > 0 ? r : 0);
    } else {
        r = pwrite(fd, buf, (size_t)n, (off_t)off);
    }
    if (r != n) die("write", path);
    if (!strcmp(o->sync, "fsync")) { if (fsync(fd)) die("fsync", path); }
    else if (!strcmp(o->sync, "fdatasync")) { if (fdatasync(fd)) die("fdatasync", path); }
}

static void get(const struct options *o, int fd, char *buf, long long n, long long off,
                long long *pos, const char *path)
{
    ssize_t r;
    if (!strcmp(o->call, "write")) {
        if (*pos != off && lseek(fd, (off_t)off, SEEK_SET) < 0) die("lseek", path);
        r = read(fd, buf, (size_t)n);
        *pos = off + (r > 0 ? r : 0);
    } else {
        r = pread(fd, buf, (size_t)n, (off_t)off);
    }
    if (r < 0) die("read", path);
}

static void make_dir(const char *path)
{
    if (mkdir(path, 0755) && errno != EEXIST) die("mkdir", path);
}

/* Directory that holds this rank's files in multi/tiny/meta modes. */
static void rank_dir(const struct options *o, char *out, size_t len)
{
    if (!strcmp(o->dirs, "rank")) snprintf(out, len, "%s/r%03d", o->dir, rank);
    else snprintf(out, len, "%s/all", o->dir);
}

/* ---------------------------------------------------------------- fpp mode */

/* Transfers (of the write size) for this rank after the skew. */
static long long fpp_count(const struct options *o)
{
    long long c = o->count;
    if (!strcmp(o->skew, "heavy") && rank == o->heavy) c = (long long)(c * o->factor);
    else if (!strcmp(o->skew, "only") && rank != o->heavy) c = 0;
    else if (!strcmp(o->skew, "linear")) c = c * (rank + 1);
    return c;
}

/* File offset of record i of size rec, in a file made of segments of
 * seg_len bytes with o->gap bytes of hole after every segment. */
static long long fpp_offset(const struct options *o, long long i, long long rec, long long seg_len)
{
    long long pos = i * rec;
    return pos + (seg_len > 0 ? (pos / seg_len) * o->gap : 0);
}

static void run_fpp(const struct options *o)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/fpp.%05d", o->dir, rank);
    long long nw = fpp_count(o);
    long long bytes = nw * o->xfer;
    long long per_seg = nw / o->segments > 0 ? nw / o->segments : 1;
    long long seg_len = per_seg * o->xfer;
    char *buf = make_buffer(o->xfer > o->rxfer ? o->xfer : o->rxfer);

    if (has_phase(o, 'w') && nw > 0) {
        long long *order = make_order(nw, o->worder, o->seed);
        long long pos = 0;
        int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
        if (fd < 0) die("open", path);
        for (long long i = 0; i < nw; i++)
            put(o, fd, buf, o->xfer, fpp_offset(o, order[i], o->xfer, seg_len), &pos, path);
        if (o->fsync_end && fsync(fd)) die("fsync", path);
        if (close(fd)) die("close", path);
        free(order);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    if (has_phase(o, 'r') && nw > 0) {
        long long nr = bytes / o->rxfer;
        long long todo = nr;
        /* readheavy: the heavy rank reads its whole file, the others only
         * 1/factor of theirs. */
        if (!strcmp(o->skew, "readheavy") && rank != o->heavy && o->factor > 1.0)
            todo = (long long)(nr / o->factor);
        long long *order = make_order(nr, o->rorder, o->seed + 7);
        long long pos = 0;
        int fd = open(path, O_RDONLY);
        if (fd < 0) die("open", path);
        for (long long i = 0; i < todo; i++)
            get(o, fd, buf, o->rxfer, fpp_offset(o, order[i], o->rxfer, seg_len), &pos, path);
        if (close(fd)) die("close", path);
        free(order);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (!o->keep && nw > 0 && unlink(path)) die("unlink", path);
    free(buf);
}

/* ---------------------------------------------------------------- shared mode */

/* Offset of this rank's block s in the shared file. */
static MPI_Offset shared_offset(const struct options *o, int s)
{
    if (!strcmp(o->layout, "contiguous"))
        return ((MPI_Offset)rank * o->segments + s) * o->xfer;
    return ((MPI_Offset)s * nprocs + rank) * o->xfer;   /* interleaved */
}

static void run_shared(const struct options *o)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/shared.dat", o->dir);
    char *buf = make_buffer(o->xfer);

    if (!strcmp(o->io, "posix")) {
        long long pos = 0;
        if (has_phase(o, 'w')) {
            /* rank 0 creates the file, then everyone opens it */
            if (rank == 0) {
                int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
                if (fd < 0 || close(fd)) die("create", path);
            }
            MPI_Barrier(MPI_COMM_WORLD);
            int fd = open(path, O_WRONLY);
            if (fd < 0) die("open", path);
            for (int s = 0; s < o->segments; s++)
                put(o, fd, buf, o->xfer, shared_offset(o, s), &pos, path);
            if (o->fsync_end && fsync(fd)) die("fsync", path);
            if (close(fd)) die("close", path);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (has_phase(o, 'r')) {
            int fd = open(path, O_RDONLY);
            if (fd < 0) die("open", path);
            pos = 0;
            for (int s = 0; s < o->segments; s++)
                get(o, fd, buf, o->xfer, shared_offset(o, s), &pos, path);
            if (close(fd)) die("close", path);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (!o->keep && rank == 0 && unlink(path)) die("unlink", path);
    } else {
        /* MPI-IO: independent (write_at/read_at) or collective (_all) */
        int coll = !strcmp(o->io, "coll");
        MPI_File fh;
        MPI_Status st;
        if (has_phase(o, 'w')) {
            if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY,
                              MPI_INFO_NULL, &fh) != MPI_SUCCESS) die("MPI_File_open", path);
            for (int s = 0; s < o->segments; s++) {
                int rc = coll ? MPI_File_write_at_all(fh, shared_offset(o, s), buf, (int)o->xfer,
                                                      MPI_BYTE, &st)
                              : MPI_File_write_at(fh, shared_offset(o, s), buf, (int)o->xfer,
                                                  MPI_BYTE, &st);
                if (rc != MPI_SUCCESS) die("MPI_File_write_at", path);
            }
            if (o->fsync_end) MPI_File_sync(fh);
            MPI_File_close(&fh);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (has_phase(o, 'r')) {
            if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh)
                != MPI_SUCCESS) die("MPI_File_open", path);
            for (int s = 0; s < o->segments; s++) {
                int rc = coll ? MPI_File_read_at_all(fh, shared_offset(o, s), buf, (int)o->xfer,
                                                     MPI_BYTE, &st)
                              : MPI_File_read_at(fh, shared_offset(o, s), buf, (int)o->xfer,
                                                 MPI_BYTE, &st);
                if (rc != MPI_SUCCESS) die("MPI_File_read_at", path);
            }
            MPI_File_close(&fh);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (!o->keep && rank == 0) MPI_File_delete(path, MPI_INFO_NULL);
    }
    free(buf);
}

/* ---------------------------------------------------------------- multi / tiny */

/* multi: data files of fsize bytes written in xfer pieces.
 * tiny: the same with tiny files; both remove their files at the end. */
static void run_files(const struct options *o)
{
    char dir[4096], path[4200];
    rank_dir(o, dir, sizeof dir);
    if (!strcmp(o->dirs, "rank") || rank == 0) make_dir(dir);
    MPI_Barrier(MPI_COMM_WORLD);
    long long piece = o->xfer < o->fsize ? o->xfer : o->fsize;
    long long rpiece = o->rxfer < o->fsize ? o->rxfer : o->fsize;
    char *buf = make_buffer(piece > rpiece ? piece : rpiece);

    if (has_phase(o, 'w')) {
        for (long long f = 0; f < o->nfiles; f++) {
            snprintf(path, sizeof path, "%s/f.%05d.%05lld", dir, rank, f);
            int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
            if (fd < 0) die("open", path);
            long long pos = 0;
            for (long long off = 0; off < o->fsize; off += piece) {
                long long n = o->fsize - off < piece ? o->fsize - off : piece;
                put(o, fd, buf, n, off, &pos, path);
            }
            if (o->fsync_end && fsync(fd)) die("fsync", path);
            if (close(fd)) die("close", path);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (has_phase(o, 'r')) {
        for (long long f = 0; f < o->nfiles; f++) {
            snprintf(path, sizeof path, "%s/f.%05d.%05lld", dir, rank, f);
            int fd = open(path, O_RDONLY);
            if (fd < 0) die("open", path);
            long long pos = 0;
            for (long long off = 0; off < o->fsize; off += rpiece) {
                long long n = o->fsize - off < rpiece ? o->fsize - off : rpiece;
                get(o, fd, buf, n, off, &pos, path);
            }
            if (close(fd)) die("close", path);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (!o->keep) {
        for (long long f = 0; f < o->nfiles; f++) {
            snprintf(path, sizeof path, "%s/f.%05d.%05lld", dir, rank, f);
            if (unlink(path)) die("unlink", path);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (!strcmp(o->dirs, "rank") || rank == 0) rmdir(dir);
    }
    free(buf);
}

/* ---------------------------------------------------------------- meta mode */

/* Empty files: create (open O_CREAT + close) in the w phase; in the r phase
 * (or with --passes) stat / access / open / close storms over the existing
 * files; stat before removal; unlink at the end. No data is moved. */
static void run_meta(const struct options *o)
{
    char dir[4096], path[4200];
    struct stat sb;
    rank_dir(o, dir, sizeof dir);
    if (!strcmp(o->dirs, "rank") || rank == 0) make_dir(dir);
    MPI_Barrier(MPI_COMM_WORLD);

    if (has_phase(o, 'w')) {
        for (long long f = 0; f < o->nfiles; f++) {
            snprintf(path, sizeof path, "%s/e.%05d.%06lld", dir, rank, f);
            int fd = open(path, O_CREAT | O_WRONLY | O_EXCL, 0644);
            if (fd < 0) die("create", path);
            if (close(fd)) die("close", path);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* storm passes: only when asked (--passes), or always for read-only runs */
    int passes = o->passes;
    if (!has_phase(o, 'w') && passes < 1) passes = 1;
    if (has_phase(o, 'r') || !has_phase(o, 'w')) {
        for (int p = 0; p < passes; p++) {
            for (long long f = 0; f < o->nfiles; f++) {
                snprintf(path, sizeof path, "%s/e.%05d.%06lld", dir, rank, f);
                if (stat(path, &sb)) die("stat", path);
                if (access(path, R_OK)) die("access", path);
                int fd = open(path, O_RDONLY);
                if (fd < 0) die("open", path);
                if (close(fd)) die("close", path);
            }
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (!o->keep) {
        for (long long f = 0; f < o->nfiles; f++) {
            snprintf(path, sizeof path, "%s/e.%05d.%06lld", dir, rank, f);
            if (stat(path, &sb)) die("stat", path);
            if (unlink(path)) die("unlink", path);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (!strcmp(o->dirs, "rank") || rank == 0) rmdir(dir);
    }
}

/* ---------------------------------------------------------------- start-up reads */

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* Every rank reads the first o->imports files (by name) of o->import_dir:
 * ".py" files whole (CPython importer style), the others in 4 KiB pieces. */
static void run_imports(const struct options *o)
{
    DIR *d = opendir(o->import_dir);
    if (!d) die("opendir", o->import_dir);
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        if (e->d_type != DT_REG && e->d_type != DT_UNKNOWN) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 256;
            names = realloc(names, cap * sizeof *names);
            if (!names) die("realloc", NULL);
        }
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    if ((long long)n < o->imports) {
        fprintf(stderr, "iobench rank %d: %s holds %zu files, --imports asks for %lld\n",
                rank, o->import_dir, n, o->imports);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    qsort(names, n, sizeof *names, cmp_names);

    size_t bufsize = 64 * 1024;
    char *buf = malloc(bufsize);
    char path[4200];
    struct stat sb;
    for (long long i = 0; i < o->imports; i++) {
        snprintf(path, sizeof path, "%s/%s", o->import_dir, names[i]);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) die("open", path);
        if (fstat(fd, &sb)) die("fstat", path);
        if (!S_ISREG(sb.st_mode)) { errno = EINVAL; die("not a regular file", path); }
        if (ends_with(names[i], ".py")) {
            /* whole file: read(size + 1) returns size, the next read returns 0 */
            off_t pos = lseek(fd, 0, SEEK_CUR);
            if (pos < 0) die("lseek", path);
            size_t want = (size_t)(sb.st_size - pos) + 1;
            if (want > bufsize) {
                bufsize = want;
                buf = realloc(buf, bufsize);
                if (!buf) die("realloc", NULL);
            }
            ssize_t r = read(fd, buf, want);
            if (r != (ssize_t)(want - 1)) die("read", path);
            if (read(fd, buf, 1) != 0) die("read (end of file)", path);
        } else {
            /* stdio-buffer style: 4 KiB reads until one returns 0 */
            ssize_t r;
            long long got = 0;
            while ((r = read(fd, buf, 4096)) > 0) got += r;
            if (r < 0 || got != (long long)sb.st_size) die("read", path);
        }
        if (close(fd)) die("close", path);
    }
    free(buf);
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    struct options o;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    parse_options(argc, argv, &o);
    if (o.heavy >= nprocs) o.heavy = 0;
    if (o.imports > 0) run_imports(&o);     /* start-up reads, before the main work */

    if (rank == 0) make_dir(o.dir);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();

    if (!strcmp(o.mode, "fpp")) run_fpp(&o);
    else if (!strcmp(o.mode, "shared")) run_shared(&o);
    else if (!strcmp(o.mode, "multi") || !strcmp(o.mode, "tiny")) run_files(&o);
    else if (!strcmp(o.mode, "meta")) run_meta(&o);
    else usage();

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("iobench mode=%s phases=%s ranks=%d seconds=%.3f\n", o.mode, o.phases, nprocs,
               MPI_Wtime() - t0);
    MPI_Finalize();
    return 0;
}
