"""Quick overrides of a plan from the command line: ``--temperature``, ``--seed``,
``--repeats STAGE=N``, ``--reasoning-effort``.

They are applied to the plan before it runs and the result is validated like any plan (every
rule, every range), so an override can never make a plan the validator would refuse. The plan's
sha256 stays the plan file's (X-5: it names the file a reader can open); the overrides are the
second half of a run's identity. They are kept in run.json (and sweep.json), and ``--resume``
refuses a directory that ran with other overrides; a resume that gives none reuses the recorded
ones, so trials of two settings are never mixed in one run.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from harness.plan import Plan, PlanError, parse_plan
from harness.results import Override
from protocols import InvalidInput

from ._persist import ResumeRefused


class OverrideError(InvalidInput):
    """An override the plan cannot take (exit 2); the message names the option."""


class OverrideSpec(BaseModel):
    """The overrides as given, in the form run.json keeps them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    temperature: float | None = None
    seed: int | None = None
    repeats: dict[str, int] = Field(default_factory=dict)
    reasoning_effort: str | None = None
    """The agent's ``models.reasoningEffort`` (validated by the plan it is applied to)."""

    @property
    def given(self) -> bool:
        return (self.temperature is not None or self.seed is not None or bool(self.repeats)
                or self.reasoning_effort is not None)

    def options(self) -> list[str]:
        """The command-line spelling, e.g. ``["--temperature 0.7", "--repeats simple=5"]``."""
        out = [] if self.temperature is None else [f"--temperature {self.temperature:g}"]
        out += [] if self.seed is None else [f"--seed {self.seed}"]
        out += [f"--repeats {stage}={n}" for stage, n in self.repeats.items()]
        return out + ([] if self.reasoning_effort is None else [f"--reasoning-effort {self.reasoning_effort}"])

    def stored(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True, exclude_defaults=True)


def parse_repeats(values: list[str] | None) -> dict[str, int]:
    """``["simple=5"]`` → ``{"simple": 5}``; ``OverrideError`` naming a malformed value."""
    out: dict[str, int] = {}
    for value in values or []:
        stage, eq, number = value.partition("=")
        if not eq or not stage.strip():
            raise OverrideError(f"--repeats {value}: expected STAGE=N, e.g. simple=5")
        try:
            n = int(number.strip())
        except ValueError:
            raise OverrideError(f"--repeats {value}: {number.strip()!r} is not a whole number") from None
        if stage.strip() in out and out[stage.strip()] != n:
            raise OverrideError(f"--repeats {value}: stage {stage.strip()} is already given {out[stage.strip()]}")
        out[stage.strip()] = n
    return out


def _relabel(label: str | None, planned: int, ran: int) -> str | None:
    """A stage label that counts the plan's repeats ("simple question, 3 repeats") counts the ones that
    ran (``--repeats simple=8``: "simple question, 8 repeats"); a label that names no count is kept."""
    if not label:
        return label
    return re.sub(rf"\b{planned} repeats?\b", f"{ran} repeat{'' if ran == 1 else 's'}", label)


def apply_overrides(plan: Plan, spec: OverrideSpec) -> tuple[Plan, list[Override]]:
    """The plan with ``spec`` applied, validated, and one ``Override`` per replaced value."""
    if not spec.given:
        return plan, []
    data = plan.model_dump(mode="json", by_alias=True)
    sampling = data["models"]["sampling"]
    changes: list[tuple[str, str, Any, Any]] = []  # path, option, plan value, new value
    if spec.temperature is not None:
        changes.append(("$.models.sampling.temperature", f"--temperature {spec.temperature:g}",
                        sampling["temperature"], spec.temperature))
        sampling["temperature"] = spec.temperature
    if spec.seed is not None:
        changes.append(("$.models.sampling.seed", f"--seed {spec.seed}", sampling["seed"], spec.seed))
        sampling["seed"] = spec.seed
    if spec.reasoning_effort is not None:
        changes.append(("$.models.reasoningEffort", f"--reasoning-effort {spec.reasoning_effort}",
                        data["models"].get("reasoningEffort"), spec.reasoning_effort))
        data["models"]["reasoningEffort"] = spec.reasoning_effort
    index = {s["id"]: i for i, s in enumerate(data["stages"])}
    for stage, n in spec.repeats.items():
        if stage not in index:
            raise OverrideError(f"--repeats {stage}={n}: no such stage (the plan has {', '.join(index)})")
        i = index[stage]
        looks = (data["stages"][i].get("sequential") or {}).get("looks") or []
        if looks and n != looks[-1]:
            raise OverrideError(f"--repeats {stage}={n}: {stage} is a sequential stage (looks "
                                f"{', '.join(map(str, looks))}): its repeats are its last look, {looks[-1]}; change "
                                "its looks in the plan instead")
        changes.append((f"$.stages[{i}].repeats", f"--repeats {stage}={n}", data["stages"][i]["repeats"], n))
        data["stages"][i]["repeats"] = n
        data["stages"][i]["label"] = _relabel(data["stages"][i].get("label"), changes[-1][2], n)
    try:
        new, _ = parse_plan(data, "the plan with its overrides")
    except PlanError as exc:
        by_path = {path: option for path, option, _, _ in changes}
        named = [next((f"{o}: {e}" for p, o in by_path.items() if e.startswith(p + ":")), e) for e in exc.errors]
        raise OverrideError("; ".join(named)) from None
    return new, [Override(path=p, option=o, plan=old, value=new_value) for p, o, old, new_value in changes]


def _recorded(recorded: dict[str, Any] | None, where: str) -> OverrideSpec:
    try:
        return OverrideSpec.model_validate(recorded or {})
    except ValueError:
        raise ResumeRefused(f"{where} records overrides this harness cannot read: {recorded!r}") from None


def _refusal(where: str, before: OverrideSpec, now: OverrideSpec) -> ResumeRefused:
    ran = ", ".join(before.options()) or "no overrides"
    return ResumeRefused(f"{where} ran with {ran}; this resume gives {', '.join(now.options()) or 'none'}: a run "
                         "never mixes trials of two settings (give the same overrides, or none to reuse the "
                         "recorded ones, or start a new run)")


def resume_overrides(recorded: dict[str, Any] | None, given: OverrideSpec, where: str) -> OverrideSpec:
    """The overrides a resumed run uses: the recorded ones when none are given, else the given ones
    when they are the same; a difference is refused (``ResumeRefused``) naming both."""
    before = _recorded(recorded, where)
    if not given.given or given == before:
        return before
    raise _refusal(where, before, given)


def check_same_overrides(recorded: dict[str, Any] | None, spec: OverrideSpec, where: str) -> None:
    """``ResumeRefused`` unless the run directory ran with exactly ``spec`` (the runner's own guard)."""
    before = _recorded(recorded, where)
    if before != spec:
        raise _refusal(where, before, spec)
