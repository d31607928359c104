"""The objects the package's functions return: an ``Analysis`` (DFAnalyzer's layer breakdown
and views as DataFrames), a ``Diagnosis`` (findings), ``Advice`` (checklist and proposals).
Each keeps the JSON the command line's ``--json`` prints (``to_json()``) and draws itself in
Jupyter (``_repr_html_``)."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from typing import Any, Optional

import pandas as pd
import pyarrow as pa

_KEYED_NUMERICALLY = {"time_range", "epoch", "step"}


def _table_html(frame: pd.DataFrame, title: str) -> str:
    return f"<h4>{html.escape(title)}</h4>" + frame.to_html(max_rows=30)


class Analysis:
    """The analysis of a run: what ``ioscout analyze --json`` prints, as DataFrames.

    - ``summary``: one row per layer of the main view (time, operations, bytes, bandwidth,
      files, processes, the unoverlapped shares and the overlap).
    - ``views[name]``: each view's rows in DFAnalyzer's wide layout, one row per key (time bin,
      process, file, ...) and one column per layer and metric (``posix_time_sum``,
      ``posix_read_count_sum``, ...).
    - ``tables[name]``: the same rows in long form, as ``analyze --out`` writes them.
    - ``raw_stats``, ``evidence``, ``scan`` (what was not read): dicts from the JSON.
    """

    def __init__(self, text: str, tables: dict[str, pa.RecordBatch], warnings: list[str]):
        self._text = text
        self.data: dict = json.loads(text)
        self.warnings = list(warnings)
        self.tables: dict[str, pd.DataFrame] = {name: batch.to_pandas() for name, batch in tables.items()}
        self.views: dict[str, pd.DataFrame] = {name: _wide(name, frame) for name, frame in self.tables.items()}

    @property
    def raw_stats(self) -> dict:
        """Job time, events, files, hosts and processes of the run (DFAnalyzer's raw_stats)."""
        return self.data["raw_stats"]

    @property
    def evidence(self) -> Optional[dict]:
        """The Darshan records derived from the trace (absent under ``dfanalyzer_compat``)."""
        return self.data.get("evidence")

    @property
    def scan(self) -> Optional[dict]:
        """What the scan read and what it could not (files skipped, problems)."""
        return self.data.get("scan")

    @property
    def summary(self) -> pd.DataFrame:
        """The main view's layer breakdown, one row per layer."""
        main = next(iter(self.data["views"].values()))
        layers = main["summary"]["layers"]
        rows = []
        for layer, values in layers.items():
            row = {"layer": layer}
            for key, value in values.items():
                if key == "overlap":
                    for part, share in value.items():
                        row[f"overlap_{part}"] = share
                else:
                    row[key] = value
            rows.append(row)
        return pd.DataFrame(rows).set_index("layer") if rows else pd.DataFrame()

    def to_json(self) -> str:
        """The JSON ``ioscout analyze --json`` prints for the same run."""
        return self._text

    def _repr_html_(self) -> str:
        raw = self.raw_stats
        head = (
            f"<p><b>ioscout analysis</b>: {raw['total_event_count']} events, "
            f"{raw['unique_process_count']} processes, job time {raw['job_time_s']:.3f} s, "
            f"preset {html.escape(str(self.data['ioscout']['preset']))}</p>"
        )
        return head + _table_html(self.summary, "Layers")

    def __repr__(self) -> str:
        raw = self.raw_stats
        return (
            f"<ioscout.Analysis: {raw['total_event_count']} events, job {raw['job_time_s']:.3f} s, "
            f"views {list(self.views)}>"
        )


def _wide(name: str, long: pd.DataFrame) -> pd.DataFrame:
    """A view's long table (key, layer, derived, metrics) as DFAnalyzer's wide frame."""
    if long.empty:
        return pd.DataFrame()
    metrics = [column for column in long.columns if column not in (name, "layer", "derived")]
    slot = long["layer"].where(long["derived"] == "", long["layer"] + "_" + long["derived"])
    keys = list(dict.fromkeys(long[name]))
    slots = list(dict.fromkeys(slot))
    frame = long.assign(_slot=slot).pivot(index=name, columns="_slot", values=metrics)
    frame = frame.reindex(index=keys)
    frame = frame.reindex(columns=[(metric, each) for each in slots for metric in metrics])
    frame.columns = [f"{each}_{metric}" for metric, each in frame.columns]
    if name in _KEYED_NUMERICALLY and all(str(key).lstrip("-").isdigit() for key in keys):
        frame.index = frame.index.astype("int64")
    frame.index.name = name
    return frame


@dataclass
class Finding:
    """One finding: the rule or pattern (``code``), how bad (``severity``, ``score`` 0-1), where
    (``scope``), why, and the numbers behind it (``evidence``)."""

    code: str
    title: str
    family: str
    severity: str
    score: float
    scope: dict
    why: str
    evidence: dict
    crossed: list
    pattern: Optional[str] = None
    confidence: Optional[float] = None
    fact_id: Optional[str] = None
    raw: dict = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, fact: dict) -> "Finding":
        evidence = fact.get("evidence") or {}
        severity = fact.get("severity") or {}
        return cls(
            code=fact.get("fact_type", ""),
            title=fact.get("title", ""),
            family=fact.get("family", ""),
            severity=severity.get("label", ""),
            score=severity.get("score", 0.0),
            scope=fact.get("scope") or {},
            why=evidence.get("why", ""),
            evidence=evidence.get("metrics") or {},
            crossed=evidence.get("crossed") or [],
            pattern=fact.get("pattern"),
            confidence=fact.get("confidence"),
            fact_id=fact.get("fact_id"),
            raw=fact,
        )


class Diagnosis:
    """The findings of ``ioscout diagnose --json`` (DFDiagnoser's fact envelope).

    - ``findings``: a list of ``Finding``, most severe first.
    - ``metric_to_optimise``: the metric to optimise and the reason (``{"metric", "reason"}``).
    - ``context``, ``severity_counts``, ``scan``: from the JSON.
    - ``to_pandas()``: one row per finding.
    """

    def __init__(self, text: str, warnings: list[str]):
        self._text = text
        self.data: dict = json.loads(text)
        self.warnings = list(warnings)
        self.findings = [Finding.of(fact) for fact in self.data.get("facts", [])]

    @property
    def context(self) -> dict:
        return self.data.get("context", {})

    @property
    def severity_counts(self) -> dict:
        return self.data.get("severity_counts", {})

    @property
    def scan(self) -> Optional[dict]:
        return self.data.get("scan")

    @property
    def metric_to_optimise(self) -> Optional[dict]:
        return self.context.get("metric_to_optimise")

    def to_pandas(self) -> pd.DataFrame:
        columns = ["code", "title", "family", "severity", "score", "why", "pattern", "scope", "evidence"]
        return pd.DataFrame(
            [{name: getattr(finding, name) for name in columns} for finding in self.findings], columns=columns
        )

    def to_json(self) -> str:
        """The JSON ``ioscout diagnose --json`` prints for the same input."""
        return self._text

    def _repr_html_(self) -> str:
        counts = ", ".join(f"{count} {label}" for label, count in self.severity_counts.items() if count)
        metric = self.metric_to_optimise or {}
        head = (
            f"<p><b>ioscout diagnosis</b>: {len(self.findings)} findings ({html.escape(counts)}); "
            f"metric to optimise: {html.escape(str(metric.get('metric', '')))}</p>"
        )
        frame = self.to_pandas()[["code", "severity", "score", "title", "why"]]
        return head + frame.to_html(index=False, max_rows=50)

    def __repr__(self) -> str:
        return f"<ioscout.Diagnosis: {len(self.findings)} findings, {self.severity_counts}>"


class Advice:
    """The checklist and the ranked, cited proposals of ``ioscout advise --json``."""

    def __init__(self, text: str, warnings: list[str]):
        self._text = text
        self.data: dict = json.loads(text)
        self.warnings = list(warnings)

    @property
    def proposals(self) -> pd.DataFrame:
        return pd.DataFrame(self.data.get("proposals", []))

    @property
    def checklist(self) -> pd.DataFrame:
        return pd.DataFrame(self.data.get("checklist", []))

    @property
    def metric_to_optimise(self) -> Any:
        return self.data.get("metric_to_optimise")

    def to_json(self) -> str:
        return self._text

    def _repr_html_(self) -> str:
        frame = self.proposals
        keep = [column for column in ("rank", "strategy", "layer", "dimension", "app_impact_pct") if column in frame]
        return "<p><b>ioscout advice</b></p>" + (frame[keep].to_html(index=False) if keep else "")

    def __repr__(self) -> str:
        return f"<ioscout.Advice: {len(self.data.get('proposals', []))} proposals>"
