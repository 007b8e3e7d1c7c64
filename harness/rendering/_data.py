"""What a report shows, read from a run directory alone (O-3): report.json, metrics.duckdb and the
transcripts the runner wrote. Nothing here calls a model or looks at the clock."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb

from harness.metrics import table_columns
from protocols import InvalidInput

SEGMENTS = ("system", "header", "state", "fold", "history", "tools")


class ReportInputError(InvalidInput):
    """The directory is not a run directory the report can be rendered from (exit 2)."""


def load_report(run_dir: Path) -> dict[str, Any]:
    path = run_dir / "report.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ReportInputError(f"{run_dir} is not a run directory: no report.json") from None
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ReportInputError(f"{path} cannot be read: {exc}") from None
    if not isinstance(data, dict) or "groups" not in data:
        raise ReportInputError(f"{path} is not a report (O-2): no groups")
    return data


def _rows(con: duckdb.DuckDBPyConnection, sql: str) -> list[dict[str, Any]]:
    cur = con.execute(sql)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


_TOKENS_SQL = """
SELECT t.group_id, c.role, count(*) AS calls, sum(c.input_tokens) AS input_tokens,
       sum(c.cached_input_tokens) AS cached_input_tokens, sum(c.output_tokens) AS output_tokens,
       {reasoning} AS reasoning_tokens, {writes} AS cache_write_tokens,
       CASE WHEN bool_or(c.usd IS NULL) THEN NULL ELSE sum(c.usd) END AS usd  -- a call priced nowhere: unknown
FROM llm_calls c JOIN trials t USING (experiment_id, trial_id)
GROUP BY t.group_id, c.role ORDER BY t.group_id, c.role
"""
_SEGMENTS_SQL = """
SELECT t.group_id, s.segment, sum(s.tokens) AS tokens
FROM request_segments s JOIN trials t USING (experiment_id, trial_id)
GROUP BY t.group_id, s.segment ORDER BY t.group_id, s.segment
"""
_USD_SEGMENT_SQL = """
SELECT t.group_id, s.segment,
       sum(CASE WHEN seg_total.total > 0 THEN c.usd * s.tokens / seg_total.total ELSE 0 END) AS usd
FROM request_segments s
JOIN trials t USING (experiment_id, trial_id)
JOIN llm_calls c ON c.experiment_id = s.experiment_id AND c.trial_id = s.trial_id AND c.call_seq = s.call_seq
JOIN (SELECT experiment_id, trial_id, call_seq, sum(tokens) AS total FROM request_segments
      GROUP BY ALL) seg_total
  ON seg_total.experiment_id = s.experiment_id AND seg_total.trial_id = s.trial_id
 AND seg_total.call_seq = s.call_seq
GROUP BY t.group_id, s.segment ORDER BY t.group_id, s.segment
"""
_REPEATS_SQL = """
SELECT t.group_id, count(*) AS tool_calls, count(*) FILTER (WHERE tc.repeated) AS repeated,
       count(*) FILTER (WHERE tc.duplicate_signature) AS duplicate_signature
FROM tool_calls tc JOIN trials t USING (experiment_id, trial_id)
GROUP BY t.group_id ORDER BY t.group_id
"""
_REPEATED_SQL = """
SELECT t.group_id, t.stage_id, tc.trial_id, tc.tool_name, count(*) AS times
FROM tool_calls tc JOIN trials t USING (experiment_id, trial_id)
WHERE tc.repeated OR tc.duplicate_signature
GROUP BY t.group_id, t.stage_id, tc.trial_id, tc.tool_name
ORDER BY t.group_id, t.stage_id, tc.trial_id, tc.tool_name
"""


def _tokens_sql(con: duckdb.DuckDBPyConnection) -> str:
    """The per-group token totals; reasoning and cache-write tokens read as 0 from a database written
    before they were recorded (migration m007)."""
    columns = set(table_columns(con, "llm_calls"))
    return _TOKENS_SQL.format(**{key: f"sum(c.{column})" if column in columns else "0"
                                 for key, column in (("reasoning", "reasoning_tokens"),
                                                     ("writes", "cache_write_tokens"))})


def load_metrics(run_dir: Path) -> dict[str, Any]:
    """Per-group tokens, cost and repeated tool calls from metrics.duckdb (O-10), read-only."""
    path = run_dir / "metrics.duckdb"
    if not path.exists():
        raise ReportInputError(f"{run_dir} has no metrics.duckdb")
    try:
        con = duckdb.connect(str(path), read_only=True)
    except duckdb.Error as exc:
        raise ReportInputError(f"{path} cannot be opened: {exc}") from None
    try:
        return {"tokens": _rows(con, _tokens_sql(con)), "segments": _rows(con, _SEGMENTS_SQL),
                "segmentUsd": _rows(con, _USD_SEGMENT_SQL), "repeats": _rows(con, _REPEATS_SQL),
                "repeated": _rows(con, _REPEATED_SQL)}
    except duckdb.Error as exc:
        raise ReportInputError(f"{path} does not hold the metrics tables (trials, llm_calls, …; O-10): {exc}") from None
    finally:
        con.close()


def group_ids(report: dict[str, Any]) -> list[str]:
    return [str(g["id"]) for g in report.get("groups", [])]


def segment_table(metrics: dict[str, Any], groups: list[str], key: str, field: str) -> dict[str, dict[str, float]]:
    """group → segment → value (0 where nothing was counted), for every group of the report."""
    out: dict[str, dict[str, float]] = {g: dict.fromkeys(SEGMENTS, 0.0) for g in groups}
    for row in metrics[key]:
        g = str(row["group_id"])
        out.setdefault(g, dict.fromkeys(SEGMENTS, 0.0))[str(row["segment"])] = float(row[field] or 0)
    return out


def token_totals(metrics: dict[str, Any], groups: list[str]) -> dict[str, dict[str, float | None]]:
    """group → totals over agent and maintainer calls (calls, input, cached, output, reasoning, cache writes,
    usd); usd is None when a call's price is unknown (a local model), never a partial sum."""
    names = ("calls", "input_tokens", "cached_input_tokens", "output_tokens", "reasoning_tokens", "cache_write_tokens",
             "usd")
    out: dict[str, dict[str, float | None]] = {g: dict.fromkeys(names, 0.0) for g in groups}
    for row in metrics["tokens"]:
        g = out.setdefault(str(row["group_id"]), dict.fromkeys(names, 0.0))
        for n in names:
            before = g[n]
            g[n] = None if before is None or (n == "usd" and row[n] is None) else before + float(row[n] or 0)
    return out


def repeat_totals(metrics: dict[str, Any], groups: list[str]) -> dict[str, dict[str, int]]:
    names = ("tool_calls", "repeated", "duplicate_signature")
    out: dict[str, dict[str, int]] = {g: dict.fromkeys(names, 0) for g in groups}
    for row in metrics["repeats"]:
        out[str(row["group_id"])] = {n: int(row[n] or 0) for n in names}
    return out
