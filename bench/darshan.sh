#!/usr/bin/env bash
# Times ioscout's native Darshan reader beside PyDarshan 3.5.0, and `ioscout diagnose --rules
# drishti` beside Drishti 0.8, on every Darshan log of the corpus, one run each; prints wall seconds
# and peak RSS (the figures in BENCHMARKS.md).
#
#   bench/darshan.sh [PEERS_DIR]
#
# PEERS_DIR (default ~/.cache/ioscout-peers) is what ../shared/bench/setup-peers.sh made.
# Reading: PyDarshan loads every module's records of every log (DarshanReport(read_all=True)) in
# one Python process; ioscout reads and summarises every log in one process (`darshan summary
# --json`). Diagnosis: Drishti runs once per log (its CLI takes one log), the wall times summed;
# ioscout diagnoses every log in one process. Logs Drishti crashes on still count their time.
set -uo pipefail
cd "$(dirname "$0")/.."
peers=${1:-$HOME/.cache/ioscout-peers}
shared=../shared
cargo build --release --locked --bin ioscout >/dev/null 2>&1
ioscout=$PWD/target/release/ioscout
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mapfile -t logs < <(find "$shared/corpus/darshan/logs" -name '*.darshan' | sort)
bytes=$(cat "${logs[@]}" | wc -c)
echo "== ${#logs[@]} logs, $bytes bytes (label wall_s peak_MB)"
measure() {  # label, command...
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$scratch/time" "$@" >"$scratch/out" 2>"$scratch/err"
  local status=$?
  read -r wall rss < <(tail -1 "$scratch/time")
  if [ $status -ne 0 ]; then echo "$label failed($status) $wall $((rss / 1024))"; else echo "$label $wall $((rss / 1024))"; fi
}
cat >"$scratch/read.py" <<'PY'
import sys, darshan
records = 0
for path in sys.argv[1:]:
    report = darshan.DarshanReport(path, read_all=True)
    records += sum(len(report.records[m]) for m in report.records)
print(records)
PY
measure "pydarshan-read-all" "$peers/tools/bin/python" "$scratch/read.py" "${logs[@]}"
measure "ioscout-read-all" "$ioscout" darshan summary --json --partial "${logs[@]}"
measure "ioscout-diagnose-drishti" "$ioscout" diagnose --rules drishti --json --quiet "${logs[@]}"
measure "ioscout-diagnose-all" "$ioscout" diagnose --json --quiet "${logs[@]}"
total=0
peak=0
crashed=0
for log in "${logs[@]}"; do
  (cd "$scratch" && /usr/bin/time -f "%e %M" -o "$scratch/time" "$peers/tools/bin/drishti" --csv "$log" >/dev/null 2>&1)
  status=$?
  read -r wall rss < <(tail -1 "$scratch/time")
  [ $status -ne 0 ] && crashed=$((crashed + 1))
  total=$(echo "$total + $wall" | bc)
  [ "$rss" -gt "$peak" ] && peak=$rss
done
echo "drishti-all-logs $total $((peak / 1024)) (one process per log; $crashed exited non-zero)"
