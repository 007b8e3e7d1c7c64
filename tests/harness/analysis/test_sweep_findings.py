"""Findings across the models of a sweep: "A failed on 2 of 3 models (…); on M3 no group failed", with n and
p per model, never a rate pooled across models (X-40, X-41). Worded with Fisher's test (nothing at n = 3
separable) unless a test says otherwise; a model's identical repeats are compared on their distinct answers."""

from __future__ import annotations

import re

from harness.analysis import Finding, StageOutcome, cross_model_findings, derive_findings
from harness.plan import FindingsSpec

SPEC = FindingsSpec()
GROUPS = ["A", "B", "C", "v2", "v1", "prefix"]


def _model(failed: dict[str, int], control: str = "passed") -> dict[str, dict[str, StageOutcome]]:
    """Every group 3/3 on simple except ``failed`` (group → passes)."""
    out = {}
    for g in ("A", "B", "C", "v2", "v1"):
        passes = failed.get(g, 3)
        status = "failed" if passes < 3 else "passed"
        if g == "v1" and control != "passed":
            status, passes = control, 0 if control == "failed" else 3
        out[g] = {"simple": StageOutcome(status=status, passes=passes, n=3,  # type: ignore[arg-type]
                                         failure_modes={"state_echo": 3 - passes} if passes < 3 else {})}
    return out


def _findings(model: dict[str, dict[str, StageOutcome]]) -> list[Finding]:
    """The model's own report findings (X-40), from its outcomes and counts."""
    outcomes = {g: {s: o.status for s, o in stages.items()} for g, stages in model.items()}
    counts = {g: {s: (o.passes, o.n) for s, o in stages.items()} for g, stages in model.items()}
    spec = FindingsSpec(anomalyStages=["simple"])
    return derive_findings(spec, outcomes, counts=counts, maintenance_ran=True, model_kind="real",
                           test="fisher").findings


def test_A_failed_on_two_of_three_models_and_M3_had_no_failure() -> None:
    per_model = {"M1": _model({"A": 0}), "M2": _model({"A": 1, "v2": 0}), "M3": _model({})}
    findings = cross_model_findings(SPEC, per_model, GROUPS, {m: _findings(o) for m, o in per_model.items()},
                                    test="fisher")
    stage = findings[0]
    assert stage.rule == "sweep/simple/some-models-failed"
    assert "on M1 A failed" in stage.statement and "on M2 A, v2 failed" in stage.statement
    assert stage.statement.endswith("on M3 no group failed (A 3/3, B 3/3, C 3/3, v2 3/3, v1 3/3).")
    a = next(f for f in findings if f.group == "A")
    assert a.statement.startswith("A failed simple on 2 of 3 models: M1 (A failed 0/3 (failure modes: state_echo 3) "
                                  "vs v1 3/3, Fisher p = 0.10, not separable at this n); M2 (A failed 1/3")
    assert "It passed on M3 (A passed 3/3 vs v1 3/3, Fisher p = 1.0" in a.statement
    assert [e.n for e in a.perModel] == [3, 3, 3]  # per model: never 9 trials of one pooled sample
    assert "9" not in a.statement and "1/9" not in a.statement
    assert [f.group for f in findings if f.group] == ["A", "v2"]
    assert findings[-1].rule == "sweep/placement-rules" and "rules differ" in findings[-1].statement


def test_the_within_model_rules_name_the_n_and_p_each_rests_on() -> None:
    """Issue: "M: trailing-assistant-implicated" read as settled although it rests on A 0/3 vs B 3/3,
    p = 0.10 on that model; each model's rule now says how far it goes, with its comparisons."""
    per_model = {"M1": _model({"A": 0}), "M3": _model({})}
    rules = cross_model_findings(SPEC, per_model, GROUPS, {m: _findings(o) for m, o in per_model.items()},
                                 test="fisher")[-1]
    assert rules.rule == "sweep/placement-rules"
    assert re.search(r"M1: trailing-assistant-implicated, consistent with its trials, not shown at this n \(simple: "
                     r"A 0/3 vs B 3/3, Fisher p = 0\.10, adjusted p = 0\.\d+, not separable at this n; simple: A 0/3 "
                     r"vs C 3/3, Fisher p = 0\.10, adjusted p = 0\.\d+, not separable at this n\)", rules.statement)
    assert "M3: not-reproduced, no difference claimed (simple: A 3/3, B 3/3, C 3/3, v2 3/3, v1 3/3)" in rules.statement
    assert "9" not in rules.statement  # per model, never pooled
    for part in rules.statement.split(" | "):  # every model's part names n, and p where it compares
        assert re.search(r"\b\d/3\b", part) and ("vs" not in part or "Fisher p = " in part)


def test_no_model_failed_names_every_group_n_per_model() -> None:
    per_model = {"M1": _model({}), "M2": _model({})}
    m2 = per_model["M2"]
    m2["C"] = {"simple": StageOutcome(status="inconclusive", passes=0, n=0)}
    stage = cross_model_findings(SPEC, per_model, GROUPS, {}, test="fisher")[0]
    assert stage.rule == "sweep/simple/no-model-failed"
    assert stage.statement == ("simple across 2 models: on M1 no group failed (A 3/3, B 3/3, C 3/3, v2 3/3, v1 3/3); "
                               "on M2 no group failed, but not every group has a verdict (A 3/3, B 3/3, C "
                               "inconclusive (n = 0), v2 3/3, v1 3/3).")


def test_a_failing_control_on_a_model_is_named_as_no_placement_reading() -> None:
    per_model = {"M1": _model({"A": 0}, control="failed"), "M2": _model({})}
    a = next(f for f in cross_model_findings(SPEC, per_model, GROUPS, {}, test="fisher") if f.group == "A")
    assert "v1 failed too on this model: a setup or model problem" in a.statement


def test_a_group_failing_everywhere_and_groups_without_verdict() -> None:
    m1, m2 = _model({"C": 0}), _model({"C": 2})
    m2["A"] = {"simple": StageOutcome(status="inconclusive", passes=0, n=0)}
    findings = cross_model_findings(SPEC, {"M1": m1, "M2": m2}, GROUPS, {}, test="fisher")
    c = next(f for f in findings if f.group == "C")
    assert c.rule == "sweep/failed-on-every-model" and c.statement.startswith("C failed simple on 2 of 2 models")
    assert "M2 (C failed 2/3 (failure modes: state_echo 1) vs v1 3/3, Fisher p = 1.0" in c.statement
    assert "no per-model comparison of C with v1 is separable" in c.doesNotShow
    v1 = cross_model_findings(SPEC, {"M1": _model({"v1": 0})}, GROUPS, {}, test="fisher")
    control = next(f for f in v1 if f.group == "v1")
    assert control.perModel[0].comparator == "A"  # the control is compared with the placement control


def test_a_model_whose_counts_separate_but_whose_repeats_are_one_sample_is_not_called_shown() -> None:
    model = {g: {"simple": StageOutcome(status="failed" if g == "A" else "passed", passes=0 if g == "A" else 4, n=4)}
             for g in ("A", "B", "C", "v2", "v1")}
    outcomes = {g: {"simple": o["simple"].status} for g, o in model.items()}
    counts = {g: {"simple": (o["simple"].passes, 4)} for g, o in model.items()}
    one = {g: {"simple": (min(p, 1), 1)} for g, (p, _) in ((g, c["simple"]) for g, c in counts.items())}
    (finding,) = derive_findings(FindingsSpec(anomalyStages=["simple"]), outcomes, counts=counts, samples=one,
                                 maintenance_ran=True, model_kind="scripted", test="fisher", family="none").findings
    rules = cross_model_findings(SPEC, {"M": model}, GROUPS, {"M": [finding]}, test="fisher")[-1]
    assert "M: trailing-assistant-implicated, consistent with its trials, not shown (separable counts, but its " \
           "finding says why not: identical repeats are one sample repeated) (simple: A 0/4 vs B 4/4, Fisher " \
           "p = 0.029, separable (p < 0.05);" in rules.statement


def test_a_sweep_where_one_model_ran_says_one_model_and_claims_no_agreement() -> None:
    """With 1 of 2 models run the tester read "across 1 models" and "The same rule fired on every model"."""
    model = _model({"A": 0})
    findings = cross_model_findings(SPEC, {"M1": model}, GROUPS, {"M1": _findings(model)}, test="fisher")
    assert findings[0].statement.startswith("simple across 1 model: on M1 A failed")
    rules = findings[-1]
    assert "every model" not in rules.statement and "same rule" not in rules.statement
    assert rules.statement.endswith("Only M1 has findings, so no agreement between models can be read.")
    both = {"M1": model, "M2": _model({"A": 0})}
    two = cross_model_findings(SPEC, both, GROUPS, {m: _findings(o) for m, o in both.items()}, test="fisher")
    assert two[0].statement.startswith("simple across 2 models:")
    assert two[-1].statement.endswith("The same rule fired on each of the 2 models.")


def test_boschloo_per_model_and_one_sample_models_are_not_separable() -> None:
    """Boschloo's test (the default): A 0/3 vs v1 3/3 is p = 0.031, separable on a model that sampled its repeats;
    on one whose repeats were one answer each (temperature 0), 1/1 vs 0/1 is not."""
    drawn = _model({"A": 0})
    once = {g: {s: StageOutcome(o.status, o.passes, o.n, o.failure_modes, samples=(min(o.passes, 1), 1))
                for s, o in st.items()} for g, st in drawn.items()}
    found = cross_model_findings(SPEC, {"M1": drawn, "M2": once}, GROUPS, {})
    a = next(f for f in found if f.group == "A")
    first, second = a.perModel
    assert first.test == "boschloo" and first.separable is True and "Boschloo p = 0.031, separable" in first.clause
    assert second.separable is False and second.pValue == first.pValue
    assert "(identical repeats: on the distinct answers 0/1 vs 1/1, p = 0.50), not separable" in second.clause
