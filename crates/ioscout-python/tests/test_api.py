"""Every function of the package against the command line's ``--json`` on the same input
(``testdata/`` and, when present, the corpus): the same service computes both, so the values
must be equal, not close."""

import json
import subprocess

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import ioscout
from conftest import TESTDATA, binary, cli_json, corpus

SAMPLE = str(TESTDATA / "sample")
DARSHAN_LOG = str(TESTDATA / "darshan" / "mpi-io-test-x86_64-3.5.0.darshan")


def test_count_and_info_equal_the_cli():
    assert ioscout.count(SAMPLE) == cli_json("count", SAMPLE)
    assert ioscout.info(SAMPLE) == cli_json("info", SAMPLE)
    assert ioscout.info(DARSHAN_LOG) == cli_json("info", DARSHAN_LOG)


@pytest.mark.parametrize("folder", ["dlio-cosmoflow-hdf5", "posix-small-files", "legacy-2023"])
def test_corpus_folders_equal_the_cli(folder):
    path = str(corpus("dftracer", folder))
    assert ioscout.count(path) == cli_json("count", path)
    assert json.loads(ioscout.analyze(path).to_json()) == cli_json("analyze", path)
    assert json.loads(ioscout.diagnose(path).to_json()) == cli_json("diagnose", path)


def test_a_corpus_darshan_log_diagnoses_as_the_cli():
    root = corpus("darshan", "logs")
    for log in sorted(root.rglob("*.darshan"))[:5]:
        assert json.loads(ioscout.diagnose(log).to_json()) == cli_json("diagnose", str(log))


def test_paths_may_be_a_list_or_path_objects():
    files = sorted((TESTDATA / "sample").glob("*.pfw.gz"))
    assert ioscout.count(files) == cli_json("count", *map(str, files))


@pytest.mark.parametrize("views", [None, ["time_range", "proc_name", "file_name"]])
def test_analyze_equals_the_cli(views):
    arguments = ["analyze", SAMPLE] + (["--view", ",".join(views)] if views else [])
    analysis = ioscout.analyze(SAMPLE, views=views)
    expected = cli_json(*arguments)
    assert json.loads(analysis.to_json()) == expected
    assert analysis.raw_stats == expected["raw_stats"]
    assert list(analysis.views) == list(expected["views"])
    assert list(analysis.views)[0] == (views or ["time_range"])[0]


def test_analysis_tables_equal_the_cli_detail_tables(tmp_path):
    views = ["time_range", "proc_name", "file_name"]
    subprocess.run(
        [binary(), "analyze", SAMPLE, "--view", ",".join(views), "--out", str(tmp_path), "--out-format", "parquet"],
        check=True,
        capture_output=True,
    )
    analysis = ioscout.analyze(SAMPLE, views=views)
    for view in views:
        expected = pq.read_table(tmp_path / f"{view}.parquet").to_pandas()
        pd.testing.assert_frame_equal(analysis.tables[view], expected)


def test_views_are_wide_with_dfanalyzer_column_names():
    analysis = ioscout.analyze(SAMPLE, views=["time_range", "proc_name"])
    frame = analysis.views["time_range"]
    assert frame.index.name == "time_range"
    assert frame.index.dtype == "int64"
    long = analysis.tables["time_range"]
    row = long.iloc[0]
    slot = row["layer"] if row["derived"] == "" else f"{row['layer']}_{row['derived']}"
    assert frame.loc[int(row["time_range"]), f"{slot}_time_sum"] == row["time_sum"]
    assert frame.loc[int(row["time_range"]), f"{slot}_count_sum"] == row["count_sum"]
    summary = analysis.summary
    layers = analysis.data["views"]["time_range"]["summary"]["layers"]
    assert list(summary.index) == list(layers)
    for layer, values in layers.items():
        assert summary.loc[layer, "time_s"] == values["time_s"]
        assert summary.loc[layer, "count"] == values["count"]
    assert "<table" in analysis._repr_html_()


def test_dfanalyzer_compat_and_options_pass_through():
    analysis = ioscout.analyze(SAMPLE, preset="dlio", overlap="binned", time_granularity=0.5, dfanalyzer_compat=True)
    expected = cli_json("analyze", SAMPLE, "--preset", "dlio", "--overlap", "binned", "--time-granularity", "0.5", "--compat", "dfanalyzer")
    assert json.loads(analysis.to_json()) == expected
    assert analysis.evidence is None


@pytest.mark.parametrize("path", [SAMPLE, DARSHAN_LOG])
def test_diagnose_equals_the_cli(path):
    diagnosis = ioscout.diagnose(path)
    expected = cli_json("diagnose", path)
    assert json.loads(diagnosis.to_json()) == expected
    assert [finding.code for finding in diagnosis.findings] == [fact["fact_type"] for fact in expected["facts"]]
    first = diagnosis.findings[0]
    assert first.severity == expected["facts"][0]["severity"]["label"]
    assert first.evidence == expected["facts"][0]["evidence"]["metrics"]
    frame = diagnosis.to_pandas()
    assert list(frame["code"]) == [finding.code for finding in diagnosis.findings]
    assert "<table" in diagnosis._repr_html_()


def test_diagnose_options_pass_through():
    diagnosis = ioscout.diagnose(SAMPLE, rules=["dfanalyzer", "pipeline"], min_severity="medium", detector="rules")
    expected = cli_json("diagnose", SAMPLE, "--rules", "dfanalyzer,pipeline", "--min-severity", "medium", "--detector", "rules")
    assert json.loads(diagnosis.to_json()) == expected
    assert diagnosis.metric_to_optimise == expected["context"]["metric_to_optimise"]


def test_advise_and_compare_equal_the_cli():
    assert ioscout.advise(SAMPLE).data == cli_json("advise", SAMPLE)
    before = str(TESTDATA / "validation" / "dlio_read_threads_1")
    after = str(TESTDATA / "validation" / "dlio_read_threads_4")
    assert ioscout.compare(before, after) == cli_json("compare", before, after)


def test_compare_of_three_runs_equals_the_cli_and_writes_the_page(tmp_path):
    runs = [str(TESTDATA / "validation" / name) for name in ("dlio_read_threads_1", "dlio_read_threads_4", "dlio_read_threads_4_one_epoch")]
    page = tmp_path / "runs.html"
    ours = ioscout.compare(*runs, labels=["one", "four", "short"], baseline="four", sort="job-time", html=page)
    expected = cli_json("compare", *runs, "--labels", "one,four,short", "--baseline", "four", "--sort", "job-time")
    assert ours == expected
    assert ours["baseline"] == "four" and ours["doing_less"] == ["short"]
    assert 'id="job-time"' in page.read_text()
    with pytest.raises(ioscout.RequestError):
        ioscout.compare(*runs, labels=["one"])
    with pytest.raises(ioscout.RequestError):
        ioscout.compare(*runs, sort="fastest")
    with pytest.raises(ioscout.Error, match="two or more runs"):
        ioscout.compare(runs[0])


def test_report_writes_the_page(tmp_path):
    out = tmp_path / "report.html"
    summary = ioscout.report(SAMPLE, out)
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") or page.lstrip().lower().startswith("<!doctype html>")
    assert summary["bytes"] == len(page.encode())
    assert summary["charts"] > 0
    assert summary["scan"]["complete"] is True


def cli_parquet(tmp_path, *arguments):
    out = tmp_path / "rows.parquet"
    with open(out, "wb") as sink:
        subprocess.run([binary(), "query", *arguments, "--format", "parquet"], check=True, stdout=sink)
    return pq.read_table(out).to_pandas()


@pytest.mark.parametrize(
    "where,select",
    [
        (None, None),
        ('cat == "POSIX"', ["name", "dur", "ts", "file"]),
        ('name == "read" and dur > 10', "pid,tid,args.size,args.fhash"),
    ],
)
def test_query_equals_the_parquet_the_cli_writes(tmp_path, where, select):
    arguments = [SAMPLE]
    if where:
        arguments += ["--where", where]
    if select:
        arguments += ["--select", select if isinstance(select, str) else ",".join(select)]
    table = ioscout.query(SAMPLE, where=where, select=select)
    assert isinstance(table, pa.Table)
    pd.testing.assert_frame_equal(table.to_pandas(), cli_parquet(tmp_path, *arguments))
    scan = json.loads(table.schema.metadata[b"ioscout.scan"])
    assert scan["complete"] is True


def test_query_on_a_corpus_folder_equals_the_cli(tmp_path):
    folder = str(corpus("dftracer", "posix-small-files"))
    table = ioscout.query(folder, where='cat == "POSIX"', select="name,ts,dur,file", limit=5000)
    expected = cli_parquet(tmp_path, folder, "--where", 'cat == "POSIX"', "--select", "name,ts,dur,file", "--limit", "5000")
    pd.testing.assert_frame_equal(table.to_pandas(), expected)


def test_group_by_equals_the_cli_rows():
    table = ioscout.query(SAMPLE, group_by=["name", "cat"], agg=["count", "sum:dur", "p50:dur"])
    done = subprocess.run(
        [binary(), "query", SAMPLE, "--group-by", "name,cat", "--agg", "count,sum:dur,p50:dur", "--format", "jsonl"],
        check=True,
        capture_output=True,
        text=True,
    )
    expected = [json.loads(line) for line in done.stdout.splitlines()]
    assert table.to_pylist() == expected


def test_scan_batches_yield_the_query_rows_in_order():
    stream = ioscout.scan_batches(SAMPLE, where='cat == "POSIX"', select=["name", "ts", "dur"])
    batches = list(stream)
    assert batches and all(isinstance(batch, pa.RecordBatch) for batch in batches)
    joined = pa.Table.from_batches(batches)
    expected = ioscout.query(SAMPLE, where='cat == "POSIX"', select=["name", "ts", "dur"])
    assert joined.to_pylist() == expected.to_pylist()
    assert stream.scan == json.loads(expected.schema.metadata[b"ioscout.scan"])


def test_scan_batches_warn_about_skipped_input():
    bad = str(TESTDATA / "bad" / "garbage-line.pfw")
    stream = ioscout.scan_batches(bad)
    with pytest.warns(ioscout.InputWarning):
        list(stream)
    assert stream.scan["problem_count"] > 0


def test_an_empty_group_by_keeps_its_columns():
    table = ioscout.query(SAMPLE, where='name == "no such call"', group_by="name", agg="count,sum:dur")
    assert table.num_rows == 0
    assert table.column_names == ["name", "count", "sum:dur"]


def test_rules_and_explain():
    rules = ioscout.rules()
    codes = [rule["code"] for rule in (rules["rules"] if isinstance(rules, dict) else rules)]
    assert "DFA-FETCH-PRESSURE" in codes
    assert "fetch" in ioscout.explain("DFA-FETCH-PRESSURE").lower()


def test_report_and_index_say_what_the_cli_says(tmp_path):
    import shutil

    ours_folder, cli_folder = tmp_path / "ours", tmp_path / "cli"
    shutil.copytree(TESTDATA / "sample", ours_folder)
    shutil.copytree(TESTDATA / "sample", cli_folder)
    ours = ioscout.index(ours_folder)
    expected = cli_json("index", str(cli_folder))
    for built, listed in zip(ours["directories"], expected["directories"]):
        for key in ("indexed_files", "unchanged_files", "chunks", "index_bytes", "trace_bytes"):
            assert built[key] == listed[key], key
    assert ours["scan"]["files_read"] == expected["scan"]["files_read"] == 6
    again = ioscout.index(ours_folder)
    assert again["directories"][0]["unchanged_files"] == 6


def test_index_then_query_uses_it(tmp_path):
    import shutil

    folder = tmp_path / "run"
    shutil.copytree(TESTDATA / "sample", folder)
    built = ioscout.index(folder)
    assert built["directories"][0]["chunks"] > 0
    table = ioscout.query(folder, where='cat == "POSIX"', select="name")
    notes = json.loads(table.schema.metadata[b"ioscout.notes"])
    assert not any("no usable index" in note for note in notes), notes
    assert table.num_rows == ioscout.query(SAMPLE, where='cat == "POSIX"', select="name").num_rows


def test_progress_true_draws_a_tqdm_bar(capsys):
    pytest.importorskip("tqdm")
    ioscout.count(SAMPLE, progress=True)
    assert "ioscout" in capsys.readouterr().err


def test_the_readme_example_runs(monkeypatch):
    from conftest import ROOT

    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Python") :]
    code = section[section.index("```python") + len("```python") : section.index("```", section.index("```python") + 9)]
    monkeypatch.chdir(ROOT)
    exec(compile(code, "README.md", "exec"), {})
