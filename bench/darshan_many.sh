#!/usr/bin/env bash
# `ioscout darshan summary --group-by exe` over many Darshan logs beside a PyDarshan 3.5 loop
# doing the same sums (bench/darshan_many.py), one run each (the figures in BENCHMARKS.md):
# the 109 corpus logs, then the same logs 20 times over (2,180 links in one folder).
#
#   bench/darshan_many.sh [PEERS_DIR]
#
# PEERS_DIR (default ~/.cache/ioscout-peers) is what ../shared/bench/setup-peers.sh made.
set -uo pipefail
cd "$(dirname "$0")/.."
peers=${1:-$HOME/.cache/ioscout-peers}
cargo build --release --quiet -p ioscout-cli
mapfile -t logs < <(find ../shared/corpus/darshan/logs -name '*.darshan' | sort)
many=$(mktemp -d)
index=0
for _ in $(seq 20); do
  for log in "${logs[@]}"; do
    index=$((index + 1))
    ln -s "$(realpath "$log")" "$many/log$index.darshan"
  done
done
for set in corpus many; do
  if [ "$set" = corpus ]; then inputs=("${logs[@]}"); else inputs=("$many"/*.darshan); fi
  echo "== ${#inputs[@]} logs"
  "$peers/tools/bin/python" bench/darshan_many.py "${inputs[@]}" 2>/dev/null | tail -1
  /usr/bin/time -f "ioscout: %e s, %M KB peak" target/release/ioscout darshan summary --group-by exe "${inputs[@]}" > /dev/null
done
rm -rf "$many"
