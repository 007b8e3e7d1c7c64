"""``harness rescore RUN_DIR [--plan PLAN]``: re-judge a recorded run without any model call.

Every recorded trial with a verdict is judged again by the runner's own ``judge`` (the same checks,
verdict and failure-mode code a live run uses) from what the run directory holds: the trial
records (runs, answers, tool calls, per-turn window memories), the snapshots and the session store.
Stage outcomes are re-derived with the plan's gating, then comparisons, findings and caveats by the
report builder. Nothing in RUN_DIR is changed: the store is read from a copy (the read-back checks
probe it through the dispatcher), and the new report goes to ``RUN_DIR/rescored/<plan sha>-<time>/``
with its own report.json, metrics.duckdb, report.html / .md, a copy of the transcripts and
rescore.json (what changed). A plan whose groups, protocols, stages or turns differ from the
recorded ones is refused, every difference named (``_rescore_compat``). The p-values keep the test of
the report being re-scored (Fisher's for a report written before the test was a choice) unless asked
otherwise: ``test``, or a plan whose ``analysis.test`` is set. The family of comparisons held at α
together (X-41) is the recorded plan's (``findings`` for a run recorded before the family existed)
unless asked: ``family`` / ``family_method``, or a plan that sets ``analysis.family`` /
``familyMethod``; the first caveat says which test, family and method the new report used.

The report speaks today's words about the recording's facts (``_rescore_words``): what was sent and
spent stays as recorded, every sentence about it is derived again by today's code.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.judging import judge
from harness.judging._checks import TrialView
from harness.plan import Plan, PlanError, load_plan, parse_plan
from harness.results import Report, ReportError, read_report
from harness.results._assemble import build_report
from harness.results._caveats import unattributed_caveats
from harness.results._panel import GroupDifference
from harness.results._records import TrialRecord
from harness.runner._budget import BudgetLedger
from harness.runner._execute import RunRequest
from harness.runner._gating import entry_blocker, ran_to, stage_status, takes_part
from harness.runner._outputs import write_outputs
from harness.runner._persist import PLAN, STORE, RunDir
from harness.runner._runner import Experiment, Settings
from harness.runner._trial import now
from harness.stats import FamilyMethod, TestName
from protocols import InvalidInput, resolve
from protocols.store import SqliteStore

from ._rescore_compat import evidence_differences, plan_differences
from ._rescore_words import FamilyName, choose_analysis, head_caveat, kept_caveats, recorded_prices, today


class RescoreRefused(InvalidInput):
    """The run cannot be re-judged with this plan (exit 2); ``problems`` names each reason."""

    def __init__(self, message: str, problems: list[str] | None = None) -> None:
        self.problems = problems or []
        super().__init__(message + ("".join(f"\n  {p}" for p in self.problems)))


@dataclass
class RescoreOutcome:
    out_dir: Path
    report: Report
    changes: list[dict[str, Any]] = field(default_factory=list)
    """Stages whose status changed: group, stage, before, after."""
    trials_changed: int = 0
    render_error: str | None = None


@dataclass
class _Rescoring(Experiment):
    """A recorded run re-judged: no store, and the recording's difference panel, which the report builder
    restates in today's words (``results._differences.restate``)."""

    recorded_panel: list[GroupDifference] = field(default_factory=list)


def _no_model(*_args: Any, **_kwargs: Any) -> Any:
    raise AssertionError("harness rescore never calls a model")


def recorded_plan(run_dir: Path, manifest: dict[str, Any]) -> Plan:
    """The plan the run ran: its plan.json, else its plan file when that still has the recorded sha256."""
    try:
        return parse_plan(json.loads((run_dir / PLAN).read_text(encoding="utf-8")), str(run_dir / PLAN))[0]
    except FileNotFoundError:
        pass
    except (ValueError, PlanError) as exc:
        raise RescoreRefused(f"{run_dir / PLAN} cannot be read: {exc}") from None
    path, sha = manifest.get("planPath"), manifest.get("planSha256")
    try:
        plan, found = load_plan(str(path))
    except PlanError:
        plan, found = None, None
    if plan is None or found != sha:
        raise RescoreRefused(f"{run_dir} keeps no copy of its plan ({PLAN}) and {path} no longer has the recorded "
                             f"sha256 {sha}: the recorded plan is unknown, so no other plan can be checked against it")
    return plan


def _recorded_selection(report: Report, plan: Plan) -> tuple[list[str] | None, list[str] | None]:
    groups = [g.id for g in report.groups]
    stages = list(dict.fromkeys(s.id for g in report.groups for s in g.stages))
    return (None if groups == [g.id for g in plan.groups] else groups,
            None if set(stages) == {s.id for s in plan.stages} else [s.id for s in plan.stages if s.id in stages])


def _rejudge(plan: Plan, records: list[TrialRecord], store: SqliteStore) -> list[TrialRecord]:
    out, protocols = [], {g.id: resolve(g.protocol.id, g.protocol.version, g.protocol.options) for g in plan.groups}
    for record in records:
        if record.status not in ("passed", "failed") or record.sessionId is None:
            out.append(record)  # errors and skips have no verdict to re-judge
            continue
        new = record.model_copy(deep=True)
        view = TrialView(protocol=protocols[record.group], store=store, session_id=record.sessionId,
                         runs=new.runs, snapshots=[d for _, d in store.snapshots(record.sessionId)],
                         memories=new.memories or [])
        judge(new, plan.stage(record.stage), view)
        out.append(new)
    return out


def _outcomes(plan: Plan, records: list[TrialRecord], groups: list[str], stages: list[str] | None,
              original: Report) -> tuple[dict[tuple[str, str], Any], list[TrialRecord], list[str]]:
    """Stage outcomes under ``plan``'s gating, the records they count, and caveats on what gating changed."""
    recorded = {(g.id, s.id): s.status for g in original.groups for s in g.stages}
    outcomes: dict[tuple[str, str], Any] = {}
    kept: list[TrialRecord] = []
    notes: list[str] = []
    for gid in groups:
        for stage in plan.stages:
            if (stages is not None and stage.id not in stages) or not takes_part(plan, gid, stage):
                continue
            gate = dict(outcomes)
            for req in plan.required_stages(gid, stage):
                if stages is not None and req not in stages:
                    gate[(gid, req)] = "passed"  # as the run did: unselected requirements count as met
            mine = [r for r in records if r.group == gid and r.stage == stage.id]
            blocker = entry_blocker(plan, gid, stage, gate)
            if blocker is not None:
                outcomes[(gid, stage.id)] = "not_reached"
                if mine:
                    notes.append(f"{gid}'s {len(mine)} recorded {stage.id} trial(s) are not counted: with these "
                                 f"checks {gid} did not pass {blocker}, so it would not have entered {stage.id}.")
                continue
            if not mine and recorded.get((gid, stage.id)) in ("not_reached", None) and original.stopReason:
                outcomes[(gid, stage.id)] = "not_reached"
                continue
            outcomes[(gid, stage.id)] = stage_status(mine, ran_to(stage, records))
            kept += mine
            if not mine:
                notes.append(f"{gid} passes the requirements of {stage.id} with these checks, but the recording has "
                             f"no {stage.id} trial of it (the original checks stopped it): no verdict; run it to "
                             "decide.")
    return outcomes, kept, notes


def report_test(report: Report) -> TestName:
    """The test a report's p-values came from (Fisher's in a report written before the test was a choice)."""
    if report.design is not None:
        return report.design.test
    return report.comparisons[0].test if report.comparisons else "fisher"


def rescore(run_dir: Path, plan: Plan | None = None, plan_sha256: str | None = None, plan_path: str | None = None,
            out_dir: Path | None = None, render: bool = True, test: TestName | None = None,
            family: FamilyName | None = None, family_method: FamilyMethod | None = None) -> RescoreOutcome:
    """Re-judge ``run_dir``'s trials with ``plan`` (default: the recorded plan); see the module docstring.
    ``test``: the test of the new p-values; default: the plan's ``analysis.test`` when it sets one, else the
    original report's. ``family`` / ``family_method``: the family held at α together and how; default: the
    plan's ``analysis.family`` / ``familyMethod`` when it sets them, else the recorded plan's."""
    rd = RunDir(run_dir)
    manifest = rd.manifest()
    try:
        original = read_report(run_dir / "report.json")
    except ReportError as exc:
        raise RescoreRefused(f"{run_dir} has no finished report to compare with ({exc})") from None
    old = recorded_plan(run_dir, manifest)
    new = plan or old
    analysis = choose_analysis(plan, old, report_test(original), test, family, family_method)
    new = analysis.plan(new)
    records = rd.records()
    problems = plan_differences(new, old, records) or evidence_differences(new, records)
    if problems:
        raise RescoreRefused(f"this plan would not have run the trials recorded in {run_dir} ({len(problems)} "
                             "difference(s)); only checks, findings rules, labels, budget caps and stop conditions "
                             "may differ:", problems)
    if any(r.memories is None for r in records if r.finished) and any(
            c.name == "memory_preserved" for s in new.stages for c in s.effective_trial_checks):
        raise RescoreRefused(f"{run_dir} was recorded without per-turn window memories (an older harness), so "
                             "memory_preserved cannot be re-evaluated; re-run it")
    sha = plan_sha256 or str(manifest.get("planSha256"))
    stamp = now().replace(":", "").replace("-", "").replace(".", "")
    out = out_dir or run_dir / "rescored" / f"{sha[:12]}-{stamp}"
    if out.exists() and any(out.iterdir()):
        raise RescoreRefused(f"{out} already exists; choose another --out")
    with tempfile.TemporaryDirectory(prefix="rescore-") as tmp:
        for part in run_dir.glob(STORE + "*"):  # the database and any WAL / shared-memory files
            shutil.copy2(part, Path(tmp) / part.name)
        store = SqliteStore(Path(tmp) / STORE)
        try:
            judged = _rejudge(new, records, store)
        finally:
            store.close()
    groups = [g.id for g in original.groups]
    sel_groups, sel_stages = _recorded_selection(original, new)
    outcomes, kept, notes = _outcomes(new, judged, groups, sel_stages, original)
    out.mkdir(parents=True, exist_ok=True)
    settings = Settings(agent_model=original.model.agent, maintainer_model=original.model.maintainer,
                        api_base=original.model.apiBase, groups=sel_groups, stages=sel_stages, model_factory=_no_model)
    request = RunRequest(plan=new, plan_sha256=sha, plan_path=plan_path or str(run_dir / PLAN), settings=settings,
                         out_dir=out, render=render, overrides=list(original.overrides))  # today's caveat names them
    prices = recorded_prices(original)  # the recording's table: today's caveats say it
    exp = _Rescoring(plan=new, settings=settings, ledger=BudgetLedger(original.budget.limits, prices),
                     prices=prices, run_dir=RunDir(out), store=None, records=kept, outcomes=outcomes,
                     recorded_panel=list(original.groupDifferences))
    experiment_id = f"{original.experimentId}#rescored-{sha[:12]}-{stamp}"
    preflight = [p.model_dump(mode="json") for p in original.preflight]  # what was checked before the calls
    built = build_report(exp, request, experiment_id, original.status, original.stopReason, preflight)
    spent = original.budget.spent  # calls the recording counted that no recorded trial holds (kept or not)
    lost = unattributed_caveats(records, spent.llmCalls, spent.inputTokens + spent.outputTokens)
    head = head_caveat(run_dir, manifest.get("planSha256"), sha, analysis, new.analysis.alpha)
    report = built.model_copy(update={"model": original.model, "budget": original.budget,
                                      "caveats": [head, *notes, *filter(today, built.caveats),
                                                  *kept_caveats(original, prices), *lost],
                                      "overrides": original.overrides,  # the recording's, like its answers
                                      "infrastructure": original.infrastructure or built.infrastructure,
                                      "infraRetries": original.infraRetries,  # the retries the recording had
                                      "stopDetail": original.stopDetail})  # said when the run stopped
    if (run_dir / "transcripts").is_dir():
        shutil.copytree(run_dir / "transcripts", out / "transcripts", dirs_exist_ok=True)
    report, render_error = write_outputs(request, exp, experiment_id, original.status, original.stopReason, [],
                                         report=report)
    before = {(g.id, s.id): s.status for g in original.groups for s in g.stages}
    changes = [{"group": g.id, "stage": s.id, "before": before.get((g.id, s.id)), "after": s.status}
               for g in report.groups for s in g.stages if before.get((g.id, s.id)) != s.status]
    trials = _trial_changes(records, judged)
    summary = {"schemaVersion": 1, "createdAt": now(), "source": str(run_dir),
               "sourceExperimentId": original.experimentId, "recordedPlanSha256": manifest.get("planSha256"),
               "plan": {"id": new.id, "sha256": sha, "path": request.plan_path}, "modelCalls": 0,
               "analysis": {"test": analysis.test, "family": analysis.family, "familyMethod": analysis.method},
               "trials": len(records), "stageChanges": changes, "trialChanges": trials}
    (out / "rescore.json").write_text(json.dumps(summary, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return RescoreOutcome(out_dir=out, report=report, changes=changes,
                          trials_changed=sum(t["before"] != t["after"] for t in trials), render_error=render_error)


def _trial_changes(before: list[TrialRecord], after: list[TrialRecord]) -> list[dict[str, Any]]:
    """Trials whose verdict or any check result changed, with the checks that did."""
    old = {r.id: r for r in before}
    out = []
    for r in after:
        was = old[r.id]
        then = {(c.name, c.turn): c.result for c in was.checks}
        now_ = {(c.name, c.turn): c.result for c in r.checks}
        checks = [{"name": k[0], "turn": k[1], "before": then.get(k), "after": now_.get(k)}
                  for k in dict.fromkeys([*then, *now_]) if then.get(k) != now_.get(k)]
        if checks or was.status != r.status:
            out.append({"trial": r.id, "before": was.status, "after": r.status, "failureMode": r.failureMode,
                        "checks": checks})
    return out
