#!/usr/bin/env python3
"""Train ioscout's detector: one gradient-boosted tree ensemble per IOSage pattern.

    python3 train.py table LABELS.json [LABELS.json ...] --out TABLE.json [--ioscout PATH]
    python3 train.py fit TABLE.json [TABLE.json ...] --out MODEL.json [--predictions OUT.json] [--seed 7]
    python3 train.py evaluate TABLE.json [...] [--split config,nprocs] [--test TABLE.json] [--report OUT.json]

`table` reads the runs of each LABELS.json: it maps a run (a Darshan log, or a trace file or
directory, relative to the LABELS.json's folder) to an object with `labels` (IOSage's names:
access_granularity, metadata_intensity, parallelism_efficiency, access_pattern,
interface_choice, file_strategy, throughput_utilization, healthy) and optionally `params` (used
only to group runs for `evaluate`, never as features): the shape of
../shared/corpus/darshan-labelled/labels.json. The features come from
`ioscout detect features --json` (each run's counters, normalised in
crates/ioscout-detect/src/features.rs); nothing here reads a command line, an executable or a
file name. The table holds per run its features, labels and parameters.

`fit` trains on tables and writes the model file `ioscout diagnose --model FILE` loads (format:
crates/ioscout-detect/src/model.rs). Every real number is written as a string in Python's
shortest round-trip form, so Rust reads the same doubles; with the same tables and --seed the
file is the same byte for byte. --predictions writes scikit-learn's margins on the training runs,
which the Rust test holds the Rust evaluation to.

`evaluate` trains and tests on splits by configuration, never at random: `config` deals each
scenario's primary parameter values (transfer size, files per rank, imbalance factor, ...) to
three folds, so a test run's value was never seen in training for its scenario; `nprocs` holds
out each process count in turn. With --test, it trains on the tables and scores the --test
table instead. It prints IOSage's Table IV metrics (micro-F1, macro-F1, Hamming loss, subset
accuracy). A run is labelled `healthy` when no pattern reaches the threshold.

Requirements: requirements.txt beside this file.
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys

import numpy as np
import sklearn
from sklearn.ensemble import GradientBoostingClassifier

PATTERNS = [
    "access_granularity",
    "metadata_intensity",
    "parallelism_efficiency",
    "access_pattern",
    "interface_choice",
    "file_strategy",
    "throughput_utilization",
    "healthy",
]

# Fixed hyperparameters: shallow trees, shrinkage, row subsampling (stochastic boosting), so a
# few hundred runs do not get memorised.
PARAMETERS = dict(n_estimators=150, max_depth=3, learning_rate=0.1, subsample=0.8, min_samples_leaf=1, max_features=0.5)
if os.environ.get("IOSCOUT_TRAIN_PARAMETERS"):
    PARAMETERS.update(json.loads(os.environ["IOSCOUT_TRAIN_PARAMETERS"]))


def text(value):
    """Python's shortest round-trip form of a double."""
    return repr(float(value))


def read_labels(paths):
    """(run path, labels, params, source file) for every run of every LABELS.json."""
    runs = []
    for labels_path in paths:
        base = os.path.dirname(os.path.abspath(labels_path))
        with open(labels_path) as handle:
            entries = json.load(handle)
        for name in sorted(entries):
            entry = entries[name]
            unknown = [label for label in entry["labels"] if label not in PATTERNS]
            if unknown:
                sys.exit(f"{labels_path}: {name}: unknown labels {unknown}")
            params = dict(entry.get("params", {}))
            for key in ("scenario", "nprocs"):
                if key in entry and key not in params:
                    params[key] = entry[key]
            runs.append((os.path.join(base, name), sorted(entry["labels"]), params, labels_path))
    return runs


def write_table(runs, names, x, path):
    with open(path, "w") as handle:
        json.dump({
            "format": "ioscout-detector-table",
            "features": names,
            "runs": [
                {"run": os.path.relpath(run, os.path.dirname(os.path.abspath(source))),
                 "labels": labels, "params": params, "source": os.path.basename(os.path.dirname(os.path.abspath(source))),
                 "values": [text(v) for v in row]}
                for (run, labels, params, source), row in zip(runs, x)
            ],
        }, handle, indent=None, separators=(",", ":"), sort_keys=True)
        handle.write("\n")


def read_tables(paths):
    """(runs, names, x) of the tables, concatenated; every table must name the same features."""
    runs, rows, names = [], [], None
    for path in paths:
        with open(path) as handle:
            table = json.load(handle)
        if names is not None and table["features"] != names:
            sys.exit(f"{path}: another feature list than the tables before it; rebuild the tables")
        names = table["features"]
        for run in table["runs"]:
            runs.append((run["run"], run["labels"], run["params"], run["source"]))
            rows.append([float(v) for v in run["values"]])
    return runs, names, np.array(rows, dtype=np.float64)


def features_of(runs, ioscout, cache_dir):
    """The feature names and one vector per run, from `ioscout detect features --json`."""
    vectors = {}
    names = None
    todo = []
    for path, *_ in runs:
        cached = None
        if cache_dir:
            key = hashlib.sha256(os.path.abspath(path).encode()).hexdigest()[:24]
            cached = os.path.join(cache_dir, key + ".json")
            if os.path.exists(cached):
                with open(cached) as handle:
                    value = json.load(handle)
                names = names or value["features"]
                if value["features"] == names:
                    vectors[path] = value["values"]
                    continue
        todo.append((path, cached))
    batch = 64
    for start in range(0, len(todo), batch):
        chunk = todo[start : start + batch]
        output = subprocess.run(
            [ioscout, "detect", "features", "--json", *[path for path, _ in chunk]],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        value = json.loads(output)
        if names is not None and value["features"] != names:
            sys.exit("the feature list changed while reading; clear the cache")
        names = value["features"]
        for (path, cached), run in zip(chunk, value["runs"]):
            vectors[path] = run["values"]
            if cached:
                os.makedirs(cache_dir, exist_ok=True)
                with open(cached, "w") as handle:
                    json.dump({"features": names, "values": run["values"]}, handle)
        print(f"features: {min(start + batch, len(todo))}/{len(todo)} runs read", file=sys.stderr)
    return names, np.array([vectors[path] for path, *_ in runs], dtype=np.float64)


def targets(runs):
    return np.array([[1 if pattern in labels else 0 for pattern in PATTERNS] for _, labels, _, _ in runs])


def fit(x, y, seed):
    """One classifier per pattern (None where the training runs have only one class)."""
    models = []
    for index, _ in enumerate(PATTERNS):
        column = y[:, index]
        if column.min() == column.max():
            models.append(None)
            continue
        model = GradientBoostingClassifier(random_state=seed, **PARAMETERS)
        model.fit(x, column)
        models.append(model)
    return models


def predict(models, x):
    probabilities = np.zeros((x.shape[0], len(PATTERNS)))
    for index, model in enumerate(models):
        if model is not None:
            probabilities[:, index] = model.predict_proba(x)[:, 1]
    return probabilities


HEALTHY = PATTERNS.index("healthy")


def decide(probabilities, threshold=0.5):
    """The labels of each run: the patterns at or above the threshold; `healthy` when no
    pattern is (as ioscout decides it: a run is healthy when it has no pattern)."""
    present = (probabilities >= threshold).astype(int)
    others = np.delete(present, HEALTHY, axis=1)
    present[:, HEALTHY] = (others.sum(axis=1) == 0).astype(int)
    return present


def scores(truth, predicted):
    """IOSage's Table IV metrics over the eight labels."""
    truth = truth.astype(bool)
    predicted = predicted.astype(bool)
    tp = (truth & predicted).sum(axis=0)
    fp = (~truth & predicted).sum(axis=0)
    fn = (truth & ~predicted).sum(axis=0)
    micro = 2 * tp.sum() / max(2 * tp.sum() + fp.sum() + fn.sum(), 1)
    per_label = [2 * t / (2 * t + f + n) if (2 * t + f + n) else 1.0 for t, f, n in zip(tp, fp, fn)]
    present = [i for i in range(len(PATTERNS)) if truth[:, i].any() or predicted[:, i].any()]
    macro = float(np.mean([per_label[i] for i in present])) if present else 1.0
    hamming = float((truth != predicted).mean())
    subset = float((truth == predicted).all(axis=1).mean())
    return {
        "micro_f1": round(float(micro), 4),
        "macro_f1": round(macro, 4),
        "hamming_loss": round(hamming, 4),
        "subset_accuracy": round(subset, 4),
        "runs": int(truth.shape[0]),
        "per_label": {
            PATTERNS[i]: {"f1": round(per_label[i], 4), "tp": int(tp[i]), "fp": int(fp[i]), "fn": int(fn[i])}
            for i in range(len(PATTERNS))
        },
    }


def size_class(params):
    size = params.get("transfer_size") or params.get("write_transfer_size") or params.get("read_transfer_size") or 0
    if not size:
        return "none"
    return "small" if size < (1 << 20) else f"{size >> 20}MiB"


# The parameters that set a scenario's size (the Darshan campaign's names, then the trace
# campaign's); a scenario's folds follow the one of them with the most values.
PRIMARY = ["transfer_size", "write_bytes_per_file", "factor", "items_per_rank", "read_transfer_size", "block_size",
           "xfer", "nfiles", "fsize", "rxfer", "passes", "files_total", "nprocs"]


def config_folds(runs, folds=3):
    """Per scenario, its primary parameter's distinct values dealt round-robin to folds: a test
    fold holds runs whose value of that parameter no training run of the scenario has."""
    seen_by_key = {}
    for _, _, params, _ in runs:
        for key in PRIMARY:
            if params.get(key) is not None:
                seen_by_key.setdefault((params.get("scenario", "?"), key), set()).add(str(params[key]))
    values = {}
    for _, _, params, _ in runs:
        scenario = params.get("scenario", "?")
        candidates = [key for key in PRIMARY if len(seen_by_key.get((scenario, key), ())) >= 2]
        if candidates:
            # The size parameter with the most values, so the folds are of similar sizes.
            key = max(candidates, key=lambda key: (len(seen_by_key[(scenario, key)]), -PRIMARY.index(key)))
            values[scenario] = (key, seen_by_key[(scenario, key)])
    groups = []
    for _, _, params, _ in runs:
        scenario = params.get("scenario", "?")
        key, seen = values.get(scenario, (None, set()))
        order = sorted(seen, key=lambda v: (len(v), v))
        groups.append(str(order.index(str(params[key])) % folds) if key else "0")
    return groups


def groups_of(runs, how):
    if how == "config":
        return config_folds(runs)
    if how == "nprocs":
        return [str(params.get("nprocs", "?")) for _, _, params, _ in runs]
    if how == "size":
        return [size_class(params) for _, _, params, _ in runs]
    if how == "scenario":
        return [params.get("scenario", "?").split("_")[0] + ":" + source for _, _, params, source in runs]
    sys.exit(f"unknown --evaluate {how!r} (config, nprocs, size, scenario)")


def evaluate(runs, x, y, how, seed):
    groups = groups_of(runs, how)
    predicted = np.zeros_like(y)
    for group in sorted(set(groups)):
        test = np.array([g == group for g in groups])
        if test.all():
            continue
        models = fit(x[~test], y[~test], seed)
        predicted[test] = decide(predict(models, x[test]))
        print(f"  held out {how}={group}: {test.sum()} runs, subset accuracy "
              f"{(predicted[test] == y[test]).all(axis=1).mean():.3f}", file=sys.stderr)
        for index in np.flatnonzero(test):
            if (predicted[index] != y[index]).any():
                got = [PATTERNS[i] for i in np.flatnonzero(predicted[index])]
                print(f"    {os.path.basename(runs[index][0])} {runs[index][2].get('scenario')}: "
                      f"{runs[index][1]} -> {got}", file=sys.stderr)
    return scores(y, predicted)


def export_tree(tree):
    t = tree.tree_
    return {
        "feature": [int(f) if l >= 0 else -2 for f, l in zip(t.feature, t.children_left)],
        "threshold": [text(v) if l >= 0 else "-2" for v, l in zip(t.threshold, t.children_left)],
        "left": [int(v) for v in t.children_left],
        "right": [int(v) for v in t.children_right],
        "value": [text(v[0][0]) for v in t.value],
    }


def cards(names, x, y, models):
    """Per pattern: its training runs' quartiles of the features that matter most to its model."""
    result = {}
    for index, pattern in enumerate(PATTERNS):
        mask = y[:, index] == 1
        model = models[index]
        if model is None or not mask.any():
            continue
        order = np.argsort(-model.feature_importances_, kind="stable")[:6]
        typical = []
        for feature in order:
            if model.feature_importances_[feature] <= 0:
                continue
            values = x[mask, feature]
            others = x[~mask, feature]
            q1, median, q3 = np.percentile(values, [25, 50, 75])
            typical.append({
                "feature": names[feature],
                "q1": round(float(q1), 4),
                "median": round(float(median), 4),
                "q3": round(float(q3), 4),
                "others_median": round(float(np.median(others)), 4) if others.size else 0.0,
            })
        result[pattern] = {"runs": int(mask.sum()), "typical": typical}
    return result


def fit_and_write(runs, names, x, seed, out, predictions):
    y = targets(runs)
    models = fit(x, y, seed)
    missing = [PATTERNS[i] for i, model in enumerate(models) if model is None]
    if missing:
        sys.exit(f"every pattern needs runs with and without it; not so for {missing}")
    patterns = []
    for pattern, model in zip(PATTERNS, models):
        init = model._raw_predict_init(x[:1])[0, 0]
        patterns.append({
            "pattern": pattern,
            "threshold": text(0.5),
            "init": text(init),
            "learning_rate": text(model.learning_rate),
            "trees": [export_tree(stage[0]) for stage in model.estimators_],
        })
    sources = {}
    for _, _, _, source in runs:
        sources[source] = sources.get(source, 0) + 1
    model_file = {
        "format": "ioscout-detector",
        "version": 1,
        "features": names,
        "trained": {
            "healthy": "present when no other pattern reaches its threshold",
            "library": f"scikit-learn {sklearn.__version__}, numpy {np.__version__}",
            "estimator": "GradientBoostingClassifier (log loss), one per pattern",
            "parameters": PARAMETERS,
            "seed": seed,
            "runs": len(runs),
            "sources": dict(sorted(sources.items())),
            "labels": {p: int(y[:, i].sum()) for i, p in enumerate(PATTERNS)},
        },
        "patterns": patterns,
        "cards": cards(names, x, y, models),
    }
    with open(out, "w") as handle:
        json.dump(model_file, handle, separators=(",", ":"))
        handle.write("\n")
    print(f"wrote {out} ({os.path.getsize(out)} bytes)", file=sys.stderr)
    if predictions:
        margins = np.column_stack([model.decision_function(x) for model in models])
        probabilities = predict(models, x)
        with open(predictions, "w") as handle:
            json.dump({
                "features": names,
                "patterns": PATTERNS,
                "runs": [
                    {"values": [text(v) for v in row], "margins": [text(m) for m in margin],
                     "probabilities": [text(p) for p in probability]}
                    for row, margin, probability in zip(x, margins, probabilities)
                ],
            }, handle, separators=(",", ":"))
            handle.write("\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["table", "fit", "evaluate"])
    parser.add_argument("inputs", nargs="+", help="LABELS.json files (table) or tables (fit, evaluate)")
    parser.add_argument("--out")
    parser.add_argument("--ioscout", default=os.environ.get("IOSCOUT", "ioscout"))
    parser.add_argument("--features-cache")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--predictions", help="write the training runs' margins (for the Rust test)")
    parser.add_argument("--split", default="config,nprocs", help="evaluate: config, nprocs, size, scenario")
    parser.add_argument("--test", action="append", help="evaluate: score these tables, trained on the inputs")
    parser.add_argument("--report", help="evaluate: write the scores as JSON")
    arguments = parser.parse_args()

    if arguments.command == "table":
        if not arguments.out:
            sys.exit("table: --out is required")
        runs = read_labels(arguments.inputs)
        names, x = features_of(runs, arguments.ioscout, arguments.features_cache)
        write_table(runs, names, x, arguments.out)
        y = targets(runs)
        print(f"{arguments.out}: {len(runs)} runs, {len(names)} features; labels: "
              + ", ".join(f"{p} {int(y[:, i].sum())}" for i, p in enumerate(PATTERNS)), file=sys.stderr)
        return

    runs, names, x = read_tables(arguments.inputs)
    y = targets(runs)
    if arguments.command == "fit":
        if not arguments.out:
            sys.exit("fit: --out is required")
        fit_and_write(runs, names, x, arguments.seed, arguments.out, arguments.predictions)
        return

    if arguments.test:
        test_runs, test_names, test_x = read_tables(arguments.test)
        if test_names != names:
            sys.exit("the --test tables name other features than the training tables")
        models = fit(x, y, arguments.seed)
        predicted = decide(predict(models, test_x))
        truth = targets(test_runs)
        for index in range(len(test_runs)):
            if (predicted[index] != truth[index]).any():
                got = [PATTERNS[i] for i in np.flatnonzero(predicted[index])]
                print(f"    {test_runs[index][0]} {test_runs[index][2].get('scenario')}: {test_runs[index][1]} -> {got}",
                      file=sys.stderr)
        report = {"test": scores(truth, predicted)}
    else:
        report = {how: evaluate(runs, x, y, how, arguments.seed) for how in arguments.split.split(",")}
    print(json.dumps(report, indent=1))
    if arguments.report:
        with open(arguments.report, "w") as handle:
            json.dump(report, handle, indent=1)


if __name__ == "__main__":
    main()
