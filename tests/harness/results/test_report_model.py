"""report.json model (O-2): versioned, schemaVersion first, every named field, round trip."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from harness.analysis import compare, derive_findings
from harness.plan import load_plan
from harness.results import (
    BudgetReport,
    CheckResult,
    GroupReport,
    ModelInfo,
    PlanRef,
    Report,
    ReportError,
    RunReport,
    Spent,
    StageReport,
    ToolCallRecord,
    TrialMetrics,
    TrialReport,
    read_report,
    write_report,
)
from protocols import resolve

PLAN = Path(__file__).resolve().parents[3] / "plans" / "unified-mapping-ab-20261005" / "experiment-plan.json"


def _trial(group: str, repeat: int, status: str) -> TrialReport:
    return TrialReport(
        id=f"{group}/simple/{repeat}", repeat=repeat, status=status, sessionId=f"s-{group}-{repeat}",  # type: ignore[arg-type]
        transcript=f"transcripts/{group}/simple/{repeat}.jsonl",
        runs=[RunReport(runId="0" * 32, turn=1, input="还剩多少预算？", finalAnswer="还剩 7650 元。",
                        status="completed", steps=1,
                        toolCalls=[ToolCallRecord(step=1, callId="c1", toolName="budget_lookup", argsSha256="a" * 64,
                                                  resultSha256="b" * 64, success=True)])],
        checks=[CheckResult(name="answer_contains", turn=1, result="passed" if status == "passed" else "failed",
                            detail="found number 7650", evidence=["snapshot:1"])],
        metrics=TrialMetrics(inputTokens=1000, cachedInputTokens=200, outputTokens=50, usd=0.001, llmCalls=2,
                             toolCalls=1),
    )


def build_report() -> Report:
    plan, sha = load_plan(PLAN)
    groups = []
    for spec in plan.groups[:2]:
        trials = [_trial(spec.id, r, "passed" if spec.id == "B" or r == 1 else "failed") for r in (1, 2, 3)]
        trials.append(_trial(spec.id, 4, "error"))
        stage = StageReport.summarise("simple", "passed" if spec.id == "B" else "failed", trials, label="simple")
        options = resolve(spec.protocol.id, spec.protocol.version, spec.protocol.options).resolved_options
        groups.append(GroupReport.from_spec(spec, options, [stage]))
    findings = derive_findings(plan.findings, {"A": {"simple": "failed"}}, counts={"A": {"simple": (1, 3)}},
                               maintenance_ran=False, model_kind="scripted")
    return Report(
        harnessVersion="0.1.0", createdAt=datetime(2026, 10, 5, 12, 0, tzinfo=UTC), experimentId="exp-1",
        status="completed", plan=PlanRef(id=plan.id, sha256=sha, path=str(PLAN)),
        model=ModelInfo(agent="scripted/oracle", maintainer="scripted/oracle", kind="scripted",
                        apiBase="https://user:secret@api.example.com:8443/v1?api_key=sk-123&region=eu",
                        sampling={"temperature": 0}),
        budget=BudgetReport(limits=plan.budget, spent=Spent(usd=0.01, inputTokens=8000, llmCalls=16)),
        groups=groups, comparisons=[compare("simple", "B", (3, 3), "A", (1, 3))],
        findings=findings.findings, caveats=findings.caveats,
    )


def test_o2_schema_version_first_and_round_trip(tmp_path: Path) -> None:
    report = build_report()
    path = write_report(report, tmp_path / "run" / "report.json")
    text = path.read_text(encoding="utf-8")
    assert text.startswith('{\n  "schemaVersion": 1,')
    assert "还剩 7650 元" in text  # UTF-8, not \u escapes
    assert read_report(path) == report
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".report-")]


def test_o2_every_named_field_present() -> None:
    data = json.loads(build_report().model_dump_json())
    assert list(data)[:7] == ["schemaVersion", "harnessVersion", "createdAt", "experimentId", "status", "stopReason",
                              "plan"]
    for key in ("model", "budget", "groups", "comparisons", "findings", "caveats"):
        assert key in data
    assert set(data["plan"]) == {"id", "sha256", "path"}
    assert {"agent", "maintainer", "kind", "apiBase", "sampling", "prices"} <= set(data["model"])
    assert set(data["budget"]) == {"limits", "spent", "notApplicable"}
    assert {"usd", "inputTokens", "cachedInputTokens", "outputTokens", "llmCalls", "wallSeconds"} <= set(
        data["budget"]["spent"])
    group = data["groups"][0]
    assert {"id", "label", "role", "protocol", "stages"} <= set(group)
    assert group["protocol"]["options"]["checkpointMaxCharacters"] == 3000  # resolved defaults
    stage = group["stages"][0]
    assert {"id", "status", "passHatK", "passRate", "trials"} <= set(stage)
    assert "wilson95" in stage["passRate"]
    trial = stage["trials"][0]
    assert {"id", "status", "sessionId", "runs", "checks", "metrics", "transcript"} <= set(trial)
    assert {"runId", "input", "finalAnswer", "status", "steps", "toolCalls"} <= set(trial["runs"][0])
    assert set(trial["checks"][0]) >= {"name", "result", "detail", "evidence"}
    assert set(trial["metrics"]) >= {"inputTokens", "cachedInputTokens", "outputTokens", "usd", "llmCalls",
                                     "toolCalls", "repeatedToolCalls", "duplicateSignatureCalls", "maintenanceRuns"}
    assert {"rule", "statement", "doesNotShow", "basis"} <= set(data["findings"][0])
    assert {"groupPasses", "controlPasses", "pValue", "separable"} <= set(data["comparisons"][0])


def test_x52_stage_summary_counts_verdict_trials_only() -> None:
    stage = build_report().groups[0].stages[0]  # A: 1 passed, 2 failed, 1 error
    assert (stage.passRate.passes, stage.passRate.n) == (1, 3)
    assert stage.passHatK == {1: pytest.approx(1 / 3), 2: 0.0, 3: 0.0}
    assert stage.metrics.llmCalls == 8 and stage.metrics.usd == pytest.approx(0.004)
    data = json.loads(build_report().model_dump_json())
    assert set(data["groups"][0]["stages"][0]["passHatK"]) == {"1", "2", "3"}


def test_o30_api_base_credentials_never_written() -> None:
    text = build_report().model_dump_json()
    assert "secret" not in text and "sk-123" not in text and "user" not in text.split('"apiBase"')[1][:60]
    assert json.loads(text)["model"]["apiBase"] == "https://api.example.com:8443/v1?region=eu"


def test_metrics_sum_keeps_unknown_cost_unknown() -> None:
    total = TrialMetrics(usd=0.5, llmCalls=1) + TrialMetrics(usd=None, llmCalls=2)
    assert total.usd is None and total.llmCalls == 3


def test_read_report_errors(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="no report"):
        read_report(tmp_path / "missing.json")
    bad = tmp_path / "r.json"
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(ReportError, match="cannot read"):
        read_report(bad)
    bad.write_text(json.dumps({"schemaVersion": 99}), encoding="utf-8")
    with pytest.raises(ReportError, match="schemaVersion 99"):
        read_report(bad)
    bad.write_text(json.dumps({"schemaVersion": 1, "status": "done"}), encoding="utf-8")
    with pytest.raises(ReportError, match="not a valid report"):
        read_report(bad)
