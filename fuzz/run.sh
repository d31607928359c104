#!/usr/bin/env bash
# Runs every fuzz target (or the ones named) for SECONDS each, seeded from the repository's
# fixtures and the reproducers under testdata/fuzz-repro/; exits 1 when a target fails.
#
#   [FUZZ_JOBS=N] fuzz/run.sh SECONDS [TARGET...]
#
# Needs no cargo-fuzz and no nightly toolchain: the targets are built with the pinned stable
# compiler and libFuzzer's coverage instrumentation (the flags cargo-fuzz passes, without a
# sanitizer), with debug assertions and overflow checks on, as cargo-fuzz builds them. The
# corpus grown by earlier runs is kept under target/fuzz-corpus/ (not committed); a failing
# input is written to target/fuzz-artifacts/TARGET/ and printed.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:?usage: fuzz/run.sh SECONDS [TARGET...]}
shift
all=(decode_line parse_query inflate_members inflate_resumed analyze_lines read_darshan open_index)
targets=("$@")
[ "${#targets[@]}" -gt 0 ] || targets=("${all[@]}")

flags="--cfg fuzzing -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4"
flags+=" -Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table"
flags+=" -Cllvm-args=-sanitizer-coverage-trace-compares -Cdebug-assertions -Coverflow-checks"
# With an explicit --target, RUSTFLAGS reach the targets' code but not build scripts and
# procedural macros (which must not be instrumented), as with cargo-fuzz.
host=$(rustc -vV | sed -n 's/^host: //p')
RUSTFLAGS="$flags" cargo build --release --locked --manifest-path fuzz/Cargo.toml \
  --target-dir target/fuzz-build --target "$host" --bins
binaries=target/fuzz-build/$host/release

root=$PWD
seeds=$root/target/fuzz-seeds
rm -rf "$seeds"
mkdir -p "$seeds"
# Per target, a folder of seed inputs from the fixtures (rebuilt each run, never committed).
make_seeds() {
  local target=$1 folder=$seeds/$1
  mkdir -p "$folder"
  case $target in
    decode_line)
      local count=0
      for file in testdata/generations/ndjson-2.2.pfw testdata/generations/legacy-2023.pfw testdata/generations/v1-hashes.pfw; do
        while IFS= read -r line && [ $count -lt 200 ]; do
          printf '%s' "$line" > "$folder/line-$count"
          count=$((count + 1))
        done < "$file"
      done
      ;;
    parse_query)
      local index=0
      for text in 'cat == "POSIX" and name in ("read", "pread64") and dur > 1000' \
        'host == "node001" and file ~ "/data/train/" and args.ret < 4096' \
        'not (pid == 4242 or tid != 7) and ts >= -3' 'name !~ "^open" or ph == M'; do
        printf '%s' "$text" > "$folder/query-$index"
        index=$((index + 1))
      done
      ;;
    inflate_members | inflate_resumed)
      cp testdata/generations/*.pfw.gz testdata/bad/*.gz "$folder/" 2> /dev/null || true
      ;;
    analyze_lines)
      cp testdata/generations/*.pfw testdata/overlap/*.pfw "$folder/" 2> /dev/null || true
      ;;
    read_darshan)
      cp testdata/darshan/*.darshan "$folder/"
      ;;
  esac
  if [ -d "testdata/fuzz-repro/$target" ]; then
    cp "testdata/fuzz-repro/$target"/* "$folder/"
  fi
}

# Runs one target; its verdict line goes to target/fuzz-artifacts/TARGET.result.
run_target() {
  local target=$1
  local corpus=$root/target/fuzz-corpus/$target
  local artifacts=$root/target/fuzz-artifacts/$target/
  local log=$root/target/fuzz-artifacts/$target.log
  local result=$root/target/fuzz-artifacts/$target.result
  mkdir -p "$corpus" "$artifacts"
  if "$binaries/$target" "$corpus" "$seeds/$target" -max_total_time="$seconds" \
    -artifact_prefix="$artifacts" -print_final_stats=1 -max_len=65536 > "$log" 2>&1; then
    local runs stats per_second
    runs=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | tail -1 || true)
    stats=$(grep -E '^#[0-9]+\s+DONE' "$log" | tail -1 | sed -E 's/^#([0-9]+)\s+DONE\s+//' || true)
    per_second=$(grep -o 'exec/s: [0-9]*' "$log" | tail -1 || true)
    echo "fuzz $target: ok, ${runs:-?}; ${stats:-?}; ${per_second:-?}" > "$result"
  else
    {
      echo "fuzz $target: FAILED (log $log)"
      grep -E 'panicked|ERROR|SUMMARY|Test unit written' "$log" | head -20 || true
    } > "$result"
  fi
}

# FUZZ_JOBS targets at a time (default 1: a target's figures are then its own).
jobs=${FUZZ_JOBS:-1}
running=0
for target in "${targets[@]}"; do
  make_seeds "$target"
  rm -f "$root/target/fuzz-artifacts/$target.result"
  run_target "$target" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait || true
failed=()
for target in "${targets[@]}"; do
  result=$root/target/fuzz-artifacts/$target.result
  if [ -f "$result" ]; then
    cat "$result"
    grep -q ': ok,' "$result" || failed+=("$target")
  else
    echo "fuzz $target: no result"
    failed+=("$target")
  fi
done
if [ "${#failed[@]}" -gt 0 ]; then
  echo "fuzz: ${#failed[@]} of ${#targets[@]} targets failed: ${failed[*]}"
  exit 1
fi
echo "fuzz: ${#targets[@]} targets ran ${seconds} s each without a failure"
