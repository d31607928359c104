#!/usr/bin/env bash
# Precision and recall of `ioscout diagnose` per rule family on the labelled validation set
# (testdata/validation), side by side with WisIO 0.2.2 on the same traces (the figures in
# BENCHMARKS.md).
#
#   bench/validation.sh [PEERS_DIR]
#
# A trace's patterns (testdata/validation/labels.json) count as found by ioscout when a finding at
# medium or above of a rule listed for the pattern exists, and by WisIO when one of its bottlenecks
# (percentile=0.9) gives the matching reason: Small reads / Small writes -> small_io, Excessive
# metadata access -> metadata, Random operations -> random_access (WisIO has no rule for small
# files or rank imbalance). A pattern found that the labels do not list is a false positive.
set -uo pipefail
cd "$(dirname "$0")/.."
peers=${1:-$HOME/.cache/ioscout-peers}
cargo build --release --locked --bin ioscout >/dev/null 2>&1
ioscout=$PWD/target/release/ioscout
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export USER=${USER:-root}
for folder in testdata/validation/*/; do
  name=$(basename "$folder")
  # The rules alone (each family's own verdict), and the default (the learned detector decides,
  # the rules explain: findings it does not confirm stay below medium).
  "$ioscout" diagnose --json --quiet --min-severity medium --detector rules "$folder" > "$scratch/$name.ioscout.json"
  "$ioscout" diagnose --json --quiet --min-severity medium "$folder" > "$scratch/$name.both.json"
  if [ -x "$peers/analyzer/bin/wisio" ]; then
    rm -rf "$scratch/copy"; cp -r "$folder" "$scratch/copy"
    timeout 300 "$peers/analyzer/bin/wisio" +analyzer=dftracer trace_path="$scratch/copy" percentile=0.9 \
      hydra.run.dir="$scratch/wisio-out-$name" > "$scratch/$name.wisio.txt" 2>&1
  fi
done
python3 - "$scratch" testdata/validation/labels.json <<'PY'
import json, os, sys
scratch, labels = sys.argv[1], json.load(open(sys.argv[2]))
patterns = labels["patterns"]
wisio_reasons = {"Small reads": "small_io", "Small writes": "small_io",
                 "Excessive metadata access": "metadata", "Random operations": "random_access"}
# The learned detector's own findings, by the validation set's pattern names.
detector_codes = {"DET-ACCESS-GRANULARITY": "small_io", "DET-ACCESS-PATTERN": "random_access",
                  "DET-METADATA-INTENSITY": "metadata", "DET-PARALLELISM-EFFICIENCY": "rank_imbalance"}
tally = {}
def add(tool, expected, found):
    t = tally.setdefault(tool, [0, 0, 0])
    t[0] += len(found & expected); t[1] += len(found - expected); t[2] += len(expected - found)
rows = []
for name, spec in sorted(labels["traces"].items()):
    expected = set(spec["patterns"])
    facts = json.load(open(os.path.join(scratch, f"{name}.ioscout.json")))["facts"]
    by_family = {}
    for fact in facts:
        for pattern, codes in patterns.items():
            if fact["fact_type"] in codes:
                by_family.setdefault(fact["family"], set()).add(pattern)
                by_family.setdefault("all", set()).add(pattern)
    for family in ["all", "wisio", "dfanalyzer", "drishti", "iosage", "pipeline"]:
        add("ioscout " + family, expected, by_family.get(family, set()))
    both = set()
    for fact in json.load(open(os.path.join(scratch, f"{name}.both.json")))["facts"]:
        for pattern, codes in patterns.items():
            if fact["fact_type"] in codes or detector_codes.get(fact["fact_type"]) == pattern:
                both.add(pattern)
    add("ioscout default (model + rules)", expected, both)
    wisio_path = os.path.join(scratch, f"{name}.wisio.txt")
    wisio = set()
    if os.path.exists(wisio_path):
        text = open(wisio_path, errors="replace").read()
        wisio = {pattern for reason, pattern in wisio_reasons.items() if f"[{reason}]" in text}
        add("WisIO 0.2.2", expected, wisio)
    rows.append((name, sorted(expected), sorted(by_family.get("all", set())), sorted(wisio)))
print("trace | expected | ioscout (all families, >= medium) | WisIO")
for row in rows:
    print(" | ".join([row[0]] + [", ".join(cell) or "-" for cell in row[1:]]))
print()
print("tool | TP | FP | FN | precision | recall")
for tool, (tp, fp, fn) in tally.items():
    precision = tp / (tp + fp) if tp + fp else float("nan")
    recall = tp / (tp + fn) if tp + fn else float("nan")
    print(f"{tool} | {tp} | {fp} | {fn} | {precision:.2f} | {recall:.2f}")
PY
