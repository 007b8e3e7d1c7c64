"""Every rule of the X-40 table, the sentinel statement beside it, and the X-42/X-44/P-91 caveats.

F(g) = g failed an anomaly stage. inconclusive / not_reached / skipped are not failures (X-12):
they limit the conclusion and are reported as such.
"""

from __future__ import annotations

import pytest

from harness.analysis import anomaly_verdict, derive_findings
from harness.plan import FindingsSpec

SPEC = FindingsSpec()
PASS = {"simple": "passed", "tool_continuation": "passed"}
FAIL = {"simple": "failed", "tool_continuation": "not_reached"}
FAIL_LATE = {"simple": "passed", "tool_continuation": "failed"}
INCONCLUSIVE = {"simple": "passed", "tool_continuation": "inconclusive"}


def outcomes(failed: set[str], v1: dict[str, str] = PASS, **overrides: dict[str, str]) -> dict[str, dict[str, str]]:
    out = {g: (FAIL if g in failed else PASS) for g in ("A", "B", "C", "v2")}
    out["v1"] = v1
    out["prefix"] = {"conversation": "passed"}
    out.update(overrides)
    return out


def counts_of(o: dict[str, dict[str, str]], n: int = 3) -> dict[str, dict[str, tuple[int, int]]]:
    """(passes, n) behind each status: a failed stage 0/n, a passed one n/n, no verdict 0/0."""
    table = {"failed": (0, n), "passed": (n, n)}
    return {g: {s: table.get(st, (0, 0)) for s, st in stages.items()} for g, stages in o.items()}


def derive(o: dict[str, dict[str, str]], spec: FindingsSpec = SPEC, **kw: object):  # type: ignore[no-untyped-def]
    kw.setdefault("maintenance_ran", True)
    kw.setdefault("model_kind", "real")
    kw.setdefault("test", "fisher")  # the wording at n = 3 where no outcome is separable (Boschloo's: test_boschloo_*)
    return derive_findings(spec, o, counts=counts_of(o), **kw)  # type: ignore[arg-type]


def rule_of(o: dict[str, dict[str, str]], **kw: object) -> tuple[str, object]:
    result = derive(o, **kw)
    assert len(result.findings) == 1
    f = result.findings[0]
    return f.rule.removeprefix("placement-v3/"), f


@pytest.mark.parametrize("failed, rule", [
    ({"A"}, "trailing-assistant-implicated"),
    ({"A", "C"}, "position-implicated"),
    ({"A", "B"}, "role-implicated"),
    ({"A", "B", "C"}, "every-placement-fails"),
    ({"v2"}, "not-reproduced-under-v3-prompt"),
    (set(), "not-reproduced"),
    ({"B"}, "placement-worse-than-control"),
    ({"C"}, "placement-worse-than-control"),
    ({"B", "C", "v2"}, "placement-worse-than-control"),
])
def test_x40_rule_table(failed: set[str], rule: str) -> None:
    got, finding = rule_of(outcomes(failed))
    assert got == rule
    assert finding.doesNotShow  # type: ignore[attr-defined]
    assert finding.basis["A"] == (FAIL if "A" in failed else PASS)  # type: ignore[attr-defined]


@pytest.mark.parametrize("failed", [set(), {"A"}, {"A", "B", "C", "v2"}])
def test_x40_control_failure_overrides_everything(failed: set[str]) -> None:
    """F(v1) → setup or model problem: no placement conclusion at all."""
    got, finding = rule_of(outcomes(failed, v1=FAIL))
    assert got == "control-failed"
    assert "No placement conclusion" in finding.statement  # type: ignore[attr-defined]


def test_x40_trailing_assistant_wording() -> None:
    """At n = 3 (A 0/3 vs B, C 3/3: p = 0.10, X-41) the reading is only consistent with the trials; the
    reading itself is stated where the comparisons are separable (test_findings_evidence)."""
    _, f = rule_of(outcomes({"A"}))
    assert "consistent with the trailing assistant placement being implicated" in f.statement  # type: ignore[attr-defined]
    assert "placement is implicated" not in f.statement and "each remove the failure" not in f.statement  # type: ignore[attr-defined]


def test_x40_not_reproduced_under_v3_prompt_makes_no_attribution() -> None:
    """What v3's groups share and v2 lacks is the prompt wording *and* the state text's view sentence
    (source, unified@3: "C 的 user 角色也不构成用户的新授权"): the finding names both, and attributes nothing
    to position or role."""
    _, f = rule_of(outcomes({"v2"}))
    assert ("consistent with the changes the unified@3 groups share (the prompt without v2's positional words, "
            "the state text's view sentence)") in f.statement  # type: ignore[attr-defined]
    assert "Any attribution to the position or role" in f.doesNotShow  # type: ignore[attr-defined]


def test_x40_placement_worse_names_the_failing_placement() -> None:
    _, f = rule_of(outcomes({"C"}))
    assert "but C failed simple (rests on simple: C 0/3 vs A 3/3" in f.statement  # type: ignore[attr-defined]
    assert "): consistent with that placement being worse" in f.statement  # type: ignore[attr-defined]
    _, f = rule_of(outcomes({"B", "C"}))
    assert "but B and C failed simple (rests on" in f.statement  # type: ignore[attr-defined]
    assert "): consistent with those placements being worse" in f.statement  # type: ignore[attr-defined]


@pytest.mark.parametrize("v2, reproduced, words", [
    (FAIL, True, "reproduced the anomaly in these trials: it failed simple"),
    (FAIL_LATE, True, "it failed tool_continuation"),
    (PASS, False, "did not reproduce"),
    (INCONCLUSIVE, None, "is unknown"),
])
def test_x40_sentinel_always_stated_beside_the_rule(v2: dict[str, str], reproduced: bool | None, words: str) -> None:
    _, f = rule_of(outcomes({"A"}, v2=v2))
    assert f.sentinelReproduced is reproduced  # type: ignore[attr-defined]
    assert words in f.sentinelStatement  # type: ignore[attr-defined]
    assert f.sentinelStatement in f.statement  # type: ignore[attr-defined]


def test_x12_failure_in_the_second_anomaly_stage_counts() -> None:
    got, _ = rule_of(outcomes(set(), A=FAIL_LATE))
    assert got == "trailing-assistant-implicated"


@pytest.mark.parametrize("status", ["inconclusive", "not_reached", "skipped"])
def test_x12_no_verdict_is_not_a_failure(status: str) -> None:
    """A without a verdict, B and C passing, v2 failing: either trailing-assistant or not-reproduced-
    under-v3 depending on A; the finding says so instead of calling A failed."""
    o = outcomes({"v2"}, A={"simple": status})
    got, f = rule_of(o)
    assert got == "inconclusive"
    assert "not-reproduced-under-v3-prompt" in f.statement and "trailing-assistant-implicated" in f.statement
    assert f.limitedBy == [f"A: simple {status} (n = 0)"]  # type: ignore[attr-defined]


def test_x40_rule_fires_when_every_possible_verdict_agrees() -> None:
    """A passed, C failed, B without a verdict: placement-worse whatever B did; B is named as a limit."""
    got, f = rule_of(outcomes({"C"}, B=INCONCLUSIVE))
    assert got == "placement-worse-than-control"
    assert "but C failed simple" in f.statement  # type: ignore[attr-defined]
    assert f.limitedBy == ["B: simple passed (3/3), tool_continuation inconclusive (n = 0)"]  # type: ignore[attr-defined]


def test_x40_unknown_sentinel_matters_only_when_nothing_else_failed() -> None:
    got, _ = rule_of(outcomes({"A", "B"}, v2=INCONCLUSIVE))
    assert got == "role-implicated"
    got, f = rule_of(outcomes(set(), v2=INCONCLUSIVE))
    assert got == "inconclusive"
    assert "not-reproduced / not-reproduced-under-v3-prompt" in f.statement  # type: ignore[attr-defined]


def test_x40_control_without_verdict_blocks_placement_conclusions() -> None:
    got, f = rule_of(outcomes({"A"}, v1=INCONCLUSIVE))
    assert got == "control-inconclusive"
    assert "cannot be excluded" in f.statement  # type: ignore[attr-defined]


def test_group_that_never_took_part_has_no_verdict() -> None:
    assert anomaly_verdict({}, ["simple"]) == "unknown"
    assert anomaly_verdict({"conversation": "failed"}, ["simple", "tool_continuation"]) == "unknown"
    assert anomaly_verdict({"simple": "passed"}, ["simple", "tool_continuation"]) == "passed"


def test_x42_scripted_caveat() -> None:
    caveats = derive(outcomes(set()), maintenance_ran=True, model_kind="scripted").caveats
    assert any("not LLM behaviour" in c for c in caveats)
    caveats = derive(outcomes(set()), maintenance_ran=True, model_kind="real").caveats
    assert not any("not LLM behaviour" in c for c in caveats)


def test_x44_and_p91_caveats() -> None:
    caveats = derive(outcomes(set()), maintenance_ran=False, model_kind="real",
                              baseline_maintenance_ran=False).caveats
    assert any("automatic compression was not exercised" in c and "X-44" in c for c in caveats)
    assert any("prefix@2 baseline never reached its compression threshold" in c for c in caveats)
    caveats = derive(outcomes(set()), maintenance_ran=True, model_kind="real",
                              baseline_maintenance_ran=True).caveats
    assert not any("X-44" in c or "P-91" in c for c in caveats)


def test_no_verdict_groups_listed_as_caveats() -> None:
    caveats = derive(outcomes({"C"}, B=INCONCLUSIVE), maintenance_ran=True,
                              model_kind="real").caveats
    assert any(c.startswith("No verdict for B: simple passed (3/3), tool_continuation inconclusive (n = 0)")
               for c in caveats)


def test_custom_group_names_are_used() -> None:
    spec = FindingsSpec(controlGroup="old", placementControl="ta", positionGroup="bh", roleGroup="tu",
                        sentinelGroup="sent")
    o = {"old": PASS, "ta": FAIL, "bh": PASS, "tu": FAIL, "sent": PASS}
    f = derive(o, spec).findings[0]
    assert f.rule == "placement-v3/position-implicated"
    assert f.statement.startswith("In these trials ta and tu")


def test_x40_placement_worse_does_not_show_names_what_happened_not_the_v2_anomaly() -> None:
    """With v2 passing (last-user-follower on the fixed plan) it said "Why the v2 anomaly occurred"."""
    _, f = rule_of(outcomes({"C"}))
    assert "v2" not in f.doesNotShow  # type: ignore[attr-defined]
    assert f.doesNotShow.startswith("Why C did worse than the placement control A (read the failure modes")  # type: ignore[attr-defined]
    _, f = rule_of(outcomes({"B", "C"}))
    assert f.doesNotShow.startswith("Why B and C each did worse than the placement control A")  # type: ignore[attr-defined]
