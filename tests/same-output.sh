#!/usr/bin/env bash
# Runs every command, in its --json and its text form, over the fixtures (testdata/) and, when it
# is beside the checkout, the shared corpus, with two builds of ioscout, and compares what they
# print byte for byte. A refactoring must pass it between the commit before and after.
#
#   tests/same-output.sh OLD_BIN NEW_BIN [--quick]
#
# --quick: the fixtures and three corpus folders only (a minute or two), instead of every corpus
# folder and all 109 Darshan logs. Prints one line per difference and the count of commands
# compared; exits 1 when anything differs.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
old=$(realpath "${1:?usage: tests/same-output.sh OLD_BIN NEW_BIN [--quick]}")
new=$(realpath "${2:?usage: tests/same-output.sh OLD_BIN NEW_BIN [--quick]}")
quick=${3:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/ioscout-same-XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$here"
unset COLUMNS

compared=0
differ=0
# Runs one command with both builds (stdout, stderr and exit code) and compares. Timing fields
# ("seconds": and "in 0.12 s") are the only thing normalised.
same() {
  local label=$1
  shift
  local index
  for index in old new; do
    local bin=$old
    [ "$index" = new ] && bin=$new
    "$bin" "$@" > "$work/$index.out" 2> "$work/$index.err"
    echo "exit $?" >> "$work/$index.err"
    sed -E -i 's/"seconds": [0-9.e-]+/"seconds": T/; s/ in [0-9]+\.[0-9]+ s$/ in T s/' "$work/$index.out" "$work/$index.err"
  done
  compared=$((compared + 1))
  if ! cmp -s "$work/old.out" "$work/new.out" || ! cmp -s "$work/old.err" "$work/new.err"; then
    differ=$((differ + 1))
    echo "DIFFERS: $label: ioscout $*"
    diff <(head -c 20000 "$work/old.out") <(head -c 20000 "$work/new.out") | head -8
    diff "$work/old.err" "$work/new.err" | head -4
  fi
}

# Trace inputs: every fixture folder, then the corpus.
traces=(testdata/sample testdata/generations testdata/overlap testdata/bad)
for folder in testdata/validation/*/; do
  traces+=("${folder%/}")
done
corpus=../shared/corpus
if [ -d "$corpus/dftracer" ]; then
  for folder in "$corpus"/dftracer/*/; do
    name=$(basename "$folder")
    if [ "$quick" = --quick ] && [[ ! "$name" =~ ^(cm1-48ranks-v1|dlio-unet3d-npz-2ranks|posix-small-files)$ ]]; then
      continue
    fi
    traces+=("${folder%/}")
  done
else
  echo "skipped: $corpus is absent: fixtures only"
fi

for input in "${traces[@]}"; do
  for json in "" --json; do
    same "count $json" count $json "$input"
    same "info $json" info $json "$input"
    same "analyze $json" analyze $json "$input"
    same "diagnose $json" diagnose $json "$input"
    same "advise $json" advise $json "$input"
  done
  same "analyze views" analyze --json --view time_range,proc_name,file_name,file_dir,epoch "$input"
  same "analyze binned" analyze --json --overlap binned "$input"
  same "analyze compat" analyze --json --compat dfanalyzer "$input"
  same "query rows" query --no-index "$input" --where 'cat == "POSIX" or dur > 1000'
  same "query csv" query --no-index "$input" --format csv --limit 50
  same "query groups" query --no-index "$input" --group-by name,cat --agg count,sum:dur,min:dur,max:dur,mean:size,p50:dur,p99:dur
  same "view" view "$input" --limit 200
  for format in parquet chrome-json; do
    "$old" export "$input" --format "$format" -o "$work/old.export" > /dev/null 2>&1
    "$new" export "$input" --format "$format" -o "$work/new.export" > /dev/null 2>&1
    compared=$((compared + 1))
    cmp -s "$work/old.export" "$work/new.export" || { differ=$((differ + 1)); echo "DIFFERS: export $format $input"; }
  done
  for format in csv parquet; do
    rm -rf "$work/old.details" "$work/new.details"
    "$old" analyze "$input" --view time_range,file_name --out "$work/old.details" --out-format "$format" > /dev/null 2>&1
    "$new" analyze "$input" --view time_range,file_name --out "$work/new.details" --out-format "$format" > /dev/null 2>&1
    compared=$((compared + 1))
    diff -r -q "$work/old.details" "$work/new.details" > /dev/null 2>&1 || { differ=$((differ + 1)); echo "DIFFERS: analyze --out-format $format $input"; }
  done
  for format in csv jsonl parquet; do
    "$old" view "$input" --format "$format" --select name,pid,ts,dur,file,args.size --limit 300 > "$work/old.view" 2>&1
    "$new" view "$input" --format "$format" --select name,pid,ts,dur,file,args.size --limit 300 > "$work/new.view" 2>&1
    compared=$((compared + 1))
    cmp -s "$work/old.view" "$work/new.view" || { differ=$((differ + 1)); echo "DIFFERS: view --select --format $format $input"; }
  done
  "$old" report "$input" -o "$work/old.html" --quiet > /dev/null 2>&1
  "$new" report "$input" -o "$work/new.html" --quiet > /dev/null 2>&1
  compared=$((compared + 1))
  cmp -s "$work/old.html" "$work/new.html" || { differ=$((differ + 1)); echo "DIFFERS: report $input"; }
done

# The index and indexed queries need a copy per build (the paths differ only by old/new).
for input in testdata/sample testdata/generations "testdata/validation/dlio_read_threads_1"; do
  for index in old new; do
    bin=$old
    [ "$index" = new ] && bin=$new
    rm -rf "$work/copy-$index"
    mkdir -p "$work/copy-$index"
    cp "$input"/*.pfw* "$work/copy-$index/" 2> /dev/null
    "$bin" index --json "$work/copy-$index" | sed -E 's/"seconds": [0-9.e-]+/"seconds": T/; s/copy-(old|new)/copy/g' > "$work/index-$index.out" 2>&1
    "$bin" query "$work/copy-$index" --where 'cat == "POSIX" and size > 0' > "$work/query-$index.out" 2>&1
    "$bin" query "$work/copy-$index" --group-by name,cat --agg count,sum:dur > "$work/groups-$index.out" 2>&1
    sed -E -i 's/copy-(old|new)/copy/g' "$work/query-$index.out" "$work/groups-$index.out"
  done
  for kind in index query groups; do
    compared=$((compared + 1))
    cmp -s "$work/$kind-old.out" "$work/$kind-new.out" || { differ=$((differ + 1)); echo "DIFFERS: $kind (indexed) $input"; }
  done
done

# Darshan logs: the fixtures, and the corpus (all of it, or a few with --quick).
logs=(testdata/darshan/*.darshan)
if [ -d "$corpus/darshan/logs" ]; then
  mapfile -t found < <(find "$corpus/darshan/logs" -name '*.darshan' | sort)
  if [ "$quick" = --quick ]; then
    found=("${found[@]:0:5}")
  fi
  logs+=("${found[@]}")
fi
for log in "${logs[@]}"; do
  same "darshan summary" darshan summary --json --partial "$log"
  same "darshan dump" darshan dump --all --partial "$log"
  same "darshan dxt" darshan dump --dxt --partial "$log"
  same "diagnose darshan" diagnose --json "$log"
  same "diagnose drishti" diagnose --rules drishti "$log"
  same "advise darshan" advise --json "$log"
done

# Everything else: the rule documentation, comparisons, the knowledge-base schema.
same "rules" rules --json
same "rules text" rules
for code in PIPE-OVERLAP-1 WIS-SMALL-READ P05 IOS-GRANULARITY DET-ACCESS-GRANULARITY access_pattern healthy; do
  same "explain $code" explain "$code"
  same "explain --json $code" explain --json "$code"
done
same "detect features list" detect features --list --json
same "detect features" detect features --json testdata/darshan/mpi-io-test-x86_64-3.1.3.darshan testdata/sample
same "compare" compare --json testdata/validation/dlio_read_threads_1 testdata/validation/dlio_read_threads_4
same "compare text" compare testdata/validation/dlio_read_threads_1 testdata/validation/dlio_read_threads_4
same "compare darshan" compare --json testdata/darshan/mpi-io-test-x86_64-3.1.3.darshan testdata/darshan/mpi-io-test-x86_64-3.5.0.darshan
same "compare replicates" compare --json testdata/validation/dlio_read_threads_1 testdata/validation/dlio_read_threads_4 testdata/validation/dlio_read_threads_1
same "darshan summary many" darshan summary --json --group-by exe testdata/darshan
if [ -d "$corpus/darshan/logs" ]; then
  same "darshan summary many corpus" darshan summary --json --group-by nprocs --by bytes testdata/darshan "$corpus/darshan/logs"
fi

# Texts the loops above do not reach: compare's CSV and replicates, the many-log survey's text,
# DXT segment counts, optimize on its mock surface, organize and reconstruct.
same "compare csv" compare --csv testdata/validation/dlio_read_threads_1 testdata/validation/dlio_read_threads_4
same "compare replicates text" compare testdata/validation/dlio_read_threads_1 testdata/validation/dlio_read_threads_4 testdata/validation/dlio_read_threads_1
same "darshan summary many text" darshan summary --group-by exe testdata/darshan
same "count logs" count testdata/darshan/*.darshan
same "count logs json" count --json testdata/darshan/*.darshan
for index in old new; do
  bin=$old
  [ "$index" = new ] && bin=$new
  rm -rf examples/optimize/mock-tiny-writes-runs examples/optimize/tune-runs
  for form in "" --json; do
    "$bin" optimize --no-kb $form examples/optimize/mock.toml 2>&1 | sed -E 's/opt[0-9]+/optN/g; s/"seconds": [0-9.e-]+/"seconds": T/' >> "$work/optimize-$index.out"
  done
  rm -rf examples/optimize/mock-tiny-writes-runs examples/optimize/tune-runs
  rm -rf "$work/organized-$index" "$work/rebuilt-$index"
  "$bin" organize testdata/validation/dlio_read_threads_1 -o "$work/organized-$index" > "$work/organize-$index.out" 2>&1
  "$bin" reconstruct "$work/organized-$index" -o "$work/rebuilt-$index" >> "$work/organize-$index.out" 2>&1
  "$bin" organize testdata/sample -o "$work/organized-$index" --group 'bad:cat ==' >> "$work/organize-$index.out" 2>&1
  "$bin" organize testdata/sample -o "$work/organized-$index" >> "$work/organize-$index.out" 2>&1
  sed -E -i "s/(organized|rebuilt)-$index/\1/g" "$work/organize-$index.out"
done
for kind in optimize organize; do
  compared=$((compared + 1))
  cmp -s "$work/$kind-old.out" "$work/$kind-new.out" || { differ=$((differ + 1)); echo "DIFFERS: $kind"; diff "$work/$kind-old.out" "$work/$kind-new.out" | head -6; }
done
compared=$((compared + 1))
diff -r -q "$work/rebuilt-old" "$work/rebuilt-new" > /dev/null 2>&1 \
  && cmp -s "$work/organized-old/provenance.json" "$work/organized-new/provenance.json" \
  || { differ=$((differ + 1)); echo "DIFFERS: organize's provenance or reconstruct's files"; }

# The run-directory artifacts advise writes (opt<n>/: the context, each layer's results, the L2
# environment).
for index in old new; do
  bin=$old
  [ "$index" = new ] && bin=$new
  rm -rf "$work/run-$index"
  "$bin" advise testdata/sample --run-dir "$work/run-$index" > /dev/null 2>&1
  "$bin" advise testdata/darshan/mpi-io-test-x86_64-3.1.3.darshan --run-dir "$work/run-$index" > /dev/null 2>&1
done
compared=$((compared + 1))
diff -r "$work/run-old" "$work/run-new" > /dev/null 2>&1 && [ -f "$work/run-new/opt2/opt_l2_results.json" ] \
  || { differ=$((differ + 1)); echo "DIFFERS: advise --run-dir artifacts"; diff -r "$work/run-old" "$work/run-new" | head -6; }
# tune on its mock surface, each strategy (and one it does not know), text and JSON.
for strategy in ofat grid random tpe nonesuch; do
  same "tune $strategy" tune --no-kb --strategy "$strategy" examples/tune/mock.toml
  same "tune --json $strategy" tune --no-kb --json --strategy "$strategy" examples/tune/mock.toml
done
rm -rf examples/tune/tune-runs examples/tune/*-runs

echo "same-output: $compared outputs compared, $differ differ"
[ "$differ" -eq 0 ]
