#!/usr/bin/env python3
"""IOSage's Table IV for ioscout's learned detector, its rules, Drishti 0.8 and WisIO 0.2.2, on
configuration-labelled Darshan logs and DFTracer traces, split by configuration (never at random).

    bench/detector.sh [PEERS_DIR] [TRACES_DIR] [--skip drishti,wisio]   (the wrapper builds ioscout)

The runs are the training tables of crates/ioscout-detect/model (the Darshan logs of
../shared/corpus/darshan-labelled, the traces of testdata/labelled/make_campaign.py in
TRACES_DIR). Every figure comes from ioscout's command line on runs held out of training:

* model, split by configuration: each scenario's size parameter values (transfer size, files
  per rank, imbalance factor, ...) are dealt to three folds; a fold is scored by a model trained
  (train.py, same parameters and seed as the shipped one) on the other folds of both campaigns,
  through `ioscout diagnose --json --model FOLD.json`. Split by process count likewise.
* model, across campaigns: trained on the traces alone and scored on every log (other
  benchmarks, another tracer, another MPI-IO implementation), and the other way round.
* rules: `ioscout diagnose --detector rules`, a pattern found when a finding of the family that
  speaks for it (`ioscout rules --json`, field `pattern`) is at medium or above.
* Drishti 0.8: `drishti --csv --code`, a code's pattern as ioscout maps it (IOSage's mapping).
* WisIO 0.2.2: its reasons Small reads/writes -> access_granularity, Excessive metadata access
  -> metadata_intensity, Random operations -> access_pattern (it has no rule for the others).

A run with no pattern found is `healthy`. Metrics over the eight labels as IOSage reports them.
"""

import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "crates/ioscout-detect/train"))
import numpy as np  # noqa: E402
import train  # noqa: E402

PATTERNS = train.PATTERNS
IOSCOUT = os.path.join(ROOT, "target/release/ioscout")
LABEL_ORDER = ["none", "low", "medium", "high", "critical"]


def run_json(arguments):
    output = subprocess.run([IOSCOUT, *arguments], capture_output=True, text=True)
    if output.returncode not in (0, 1):
        raise RuntimeError(f"ioscout {' '.join(arguments)}: {output.stderr}")
    return json.loads(output.stdout)


def reports(paths, arguments):
    """One diagnose report per run: logs in one call, traces one call each."""
    logs = [p for p in paths if p.endswith(".darshan")]
    result = {}
    for start in range(0, len(logs), 64):
        chunk = logs[start : start + 64]
        value = run_json(["diagnose", "--json", "-q", *arguments, *chunk])
        value = value if isinstance(value, list) else [value]
        result.update(zip(chunk, value))
    for path in paths:
        if not path.endswith(".darshan"):
            result[path] = run_json(["diagnose", "--json", "-q", *arguments, path])
    return result


def at_least(fact, label):
    return LABEL_ORDER.index(fact["severity"]["label"]) >= LABEL_ORDER.index(label)


def found_by_families(report, families):
    found = set()
    for fact in report["facts"]:
        if fact.get("pattern") and fact["pattern"] != "healthy" and at_least(fact, "medium"):
            if families is None or fact["family"] in families:
                found.add(fact["pattern"])
    return found


def vector(found):
    found = set(found) - {"healthy"}
    return [1 if p in found else 0 for p in PATTERNS[:-1]] + [0 if found else 1]


def truth_vector(labels):
    return [1 if p in labels else 0 for p in PATTERNS]


def score(rows):
    truth = np.array([t for t, _ in rows])
    predicted = np.array([p for _, p in rows])
    return train.scores(truth, predicted)


def fit_model(runs, names, x, seed, path):
    with open(os.devnull, "w") as null:
        stderr, sys.stderr = sys.stderr, null
        try:
            train.fit_and_write(runs, names, x, seed, path, None)
        finally:
            sys.stderr = stderr


def main():
    arguments = sys.argv[1:]
    skip = set()
    if "--skip" in arguments:
        at = arguments.index("--skip")
        skip = set(arguments[at + 1].split(","))
        del arguments[at : at + 2]
    peers = arguments[0] if arguments else os.path.expanduser("~/.cache/ioscout-peers")
    traces_dir = arguments[1] if len(arguments) > 1 else "/work/campaign/dftracer-labelled"
    model_dir = os.path.join(ROOT, "crates/ioscout-detect/model")
    logs_dir = os.path.join(ROOT, "../shared/corpus/darshan-labelled")
    log_runs, names, log_x = train.read_tables([os.path.join(model_dir, "detector-v1.logs.json")])
    trace_runs, _, trace_x = train.read_tables([os.path.join(model_dir, "detector-v1.traces.json")])
    location = {}
    for run in log_runs:
        location[id(run)] = os.path.join(logs_dir, run[0])
    for run in trace_runs:
        location[id(run)] = os.path.join(traces_dir, run[0])
    runs = log_runs + trace_runs
    x = np.vstack([log_x, trace_x])
    paths = [location[id(run)] for run in runs]
    missing = [p for p in paths if not os.path.exists(p)]
    if missing:
        sys.exit(f"{len(missing)} runs are absent (first: {missing[0]}); give TRACES_DIR")
    domain = ["logs" if p.endswith(".darshan") else "traces" for p in paths]
    truth = [truth_vector(run[1]) for run in runs]
    results = {}
    healthy_quiet = {}
    scratch = tempfile.mkdtemp(prefix="ioscout-detector-bench-")

    # The model on held-out folds.
    for how in ["config", "nprocs"]:
        groups = train.groups_of(runs, how)
        predicted = [None] * len(runs)
        quiet = [None] * len(runs)
        for group in sorted(set(groups)):
            test = [i for i, g in enumerate(groups) if g == group]
            keep = [i for i, g in enumerate(groups) if g != group]
            model = os.path.join(scratch, f"{how}-{group}.json")
            fit_model([runs[i] for i in keep], names, x[keep], 7, model)
            out = reports([paths[i] for i in test], ["--model", model])
            for i in test:
                report = out[paths[i]]
                predicted[i] = vector(report["context"]["detector"]["detected"])
                quiet[i] = not found_by_families(report, None)
            print(f"model {how}={group}: {len(test)} runs scored", file=sys.stderr)
        for name in ["logs", "traces"]:
            rows = [(truth[i], predicted[i]) for i in range(len(runs)) if domain[i] == name]
            results[f"model, split by {how}", name] = score(rows)
            healthy = [quiet[i] for i in range(len(runs)) if domain[i] == name and runs[i][1] == ["healthy"]]
            healthy_quiet[f"split by {how}", name] = (sum(healthy), len(healthy))

    # Across campaigns.
    for train_on, test_on in [("traces", "logs"), ("logs", "traces")]:
        keep = [i for i in range(len(runs)) if domain[i] == train_on]
        test = [i for i in range(len(runs)) if domain[i] == test_on]
        model = os.path.join(scratch, f"only-{train_on}.json")
        fit_model([runs[i] for i in keep], names, x[keep], 7, model)
        out = reports([paths[i] for i in test], ["--model", model])
        rows = [(truth[i], vector(out[paths[i]]["context"]["detector"]["detected"])) for i in test]
        results[f"model, trained on the {train_on} only", test_on] = score(rows)
        healthy = [not found_by_families(out[paths[i]], None) for i in test if runs[i][1] == ["healthy"]]
        healthy_quiet[f"trained on the {train_on} only", test_on] = (sum(healthy), len(healthy))

    # The rules alone.
    rules = reports(paths, ["--detector", "rules"])
    for label, families in [("ioscout rules, all families", None), ("ioscout rules, IOSage family", {"iosage"}),
                            ("ioscout rules, Drishti family", {"drishti"})]:
        for name in ["logs", "traces"]:
            rows = [(truth[i], vector(found_by_families(rules[paths[i]], families)))
                    for i in range(len(runs)) if domain[i] == name]
            results[label, name] = score(rows)

    # Drishti 0.8 on the logs.
    codes = {rule["code"]: rule["pattern"] for rule in run_json(["rules", "--json"])}
    drishti = os.path.join(peers, "tools/bin/drishti")
    if os.path.exists(drishti) and "drishti" not in skip:
        rows, failed = [], 0
        work = os.path.join(scratch, "drishti")
        os.makedirs(work, exist_ok=True)
        for i in [i for i in range(len(runs)) if domain[i] == "logs"]:
            subprocess.run([drishti, "--csv", "--code", paths[i]], cwd=work, capture_output=True)
            csv = os.path.join(work, os.path.basename(paths[i]).replace(".darshan", ".csv"))
            found = set()
            if os.path.exists(csv):
                header, values = open(csv).read().splitlines()[:2]
                for code, value in zip(header.split(","), values.split(",")):
                    if value == "True" and codes.get(code):
                        found.add(codes[code])
            else:
                failed += 1
            rows.append((truth[i], vector(found)))
        results["Drishti 0.8", "logs"] = score(rows)
        results["Drishti 0.8", "logs"]["unreadable"] = failed

    # WisIO 0.2.2: the logs without DXT (it cannot read these logs' DXT module), and a stratified
    # sample of the traces (it takes several seconds a run).
    wisio = os.path.join(peers, "analyzer/bin/wisio")
    reasons = {"Small reads": "access_granularity", "Small writes": "access_granularity",
               "Excessive metadata access": "metadata_intensity", "Random operations": "access_pattern"}
    if os.path.exists(wisio) and "wisio" not in skip:
        env = dict(os.environ, USER=os.environ.get("USER", "root"))
        for name in ["logs", "traces"]:
            chosen, per_label = [], {}
            for i in range(len(runs)):
                if domain[i] != name:
                    continue
                if name == "logs" and runs[i][2].get("dxt_enabled"):
                    continue
                key = tuple(runs[i][1])
                if name == "traces" and per_label.get(key, 0) >= 4:
                    continue
                per_label[key] = per_label.get(key, 0) + 1
                chosen.append(i)
            rows, failed = [], 0
            for i in chosen:
                out_dir = os.path.join(scratch, f"wisio-{i}")
                target = paths[i]
                arguments = [wisio, f"+analyzer={'darshan' if name == 'logs' else 'dftracer'}",
                             f"trace_path={target}", "percentile=0.9", f"hydra.run.dir={out_dir}"]
                if name == "logs":
                    arguments.append("view_types=[file_name,proc_name]")
                else:
                    copy = os.path.join(scratch, f"copy-{i}")
                    subprocess.run(["cp", "-r", target, copy])
                    arguments[2] = f"trace_path={copy}"
                output = subprocess.run(arguments, capture_output=True, text=True, env=env, timeout=600)
                text = output.stdout + output.stderr
                if output.returncode != 0:
                    failed += 1
                found = {pattern for reason, pattern in reasons.items() if f"[{reason}]" in text}
                rows.append((truth[i], vector(found)))
            results["WisIO 0.2.2", name] = score(rows)
            results["WisIO 0.2.2", name]["unreadable"] = failed
            print(f"wisio {name}: {len(rows)} runs, {failed} failed", file=sys.stderr)

    # Cost of the model per run: the 104 logs diagnosed in one process, with and without it.
    logs = [paths[i] for i in range(len(runs)) if domain[i] == "logs"]
    timing = {}
    for mode in ["rules", "both", "rules", "both", "rules", "both"]:
        start = time.perf_counter()
        subprocess.run([IOSCOUT, "diagnose", "--json", "-q", "--detector", mode, *logs], capture_output=True)
        timing.setdefault(mode, []).append(time.perf_counter() - start)
    per_run_ms = (min(timing["both"]) - min(timing["rules"])) / len(logs) * 1000

    print("| method | input | runs | micro-F1 | macro-F1 | Hamming loss | subset accuracy |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for (method, name), value in results.items():
        note = f" ({value['unreadable']} unreadable)" if value.get("unreadable") else ""
        print(f"| {method} | {name} | {value['runs']}{note} | {value['micro_f1']:.3f} | {value['macro_f1']:.3f} | "
              f"{value['hamming_loss']:.3f} | {value['subset_accuracy']:.3f} |")
    print()
    for (how, name), (quiet, total) in healthy_quiet.items():
        print(f"healthy runs with no pattern at medium or above, {how}, {name}: {quiet} of {total}")
    print(f"model cost per run: {per_run_ms:.2f} ms (diagnose of {len(logs)} logs, best of 3: "
          f"rules {min(timing['rules']):.3f} s, both {min(timing['both']):.3f} s)")
    with open(os.path.join(scratch, "report.json"), "w") as handle:
        json.dump({f"{m} | {n}": v for (m, n), v in results.items()}, handle, indent=1)
    print(f"per-label counts: {os.path.join(scratch, 'report.json')}")


if __name__ == "__main__":
    main()
