#!/usr/bin/env bash
# IOSage's Table IV for the learned detector, ioscout's rules, Drishti 0.8 and WisIO 0.2.2 on the
# configuration-labelled Darshan logs and DFTracer traces, split by configuration (the figures in
# BENCHMARKS.md, "Learned detection"). See bench/detector.py for what each row means.
#
#   bench/detector.sh [PEERS_DIR] [TRACES_DIR]
#
# PEERS_DIR: ../shared/bench/setup-peers.sh's (default ~/.cache/ioscout-peers; WisIO also needs
# `pip install darshan==3.5.0` in its analyzer venv to read Darshan logs). TRACES_DIR: the traces of
# `python3 testdata/labelled/make_campaign.py TRACES_DIR` (default /work/campaign/dftracer-labelled).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${IOSCOUT_TRAIN_VENV:-$HOME/.cache/ioscout-train}
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q -r crates/ioscout-detect/train/requirements.txt
fi
cargo build --release --locked --bin ioscout >/dev/null 2>&1
exec "$venv/bin/python" bench/detector.py "$@"
