"""Load and validate a plan file: every problem listed by JSON path, one ``PlanError`` (X-1, X-5, Q-14)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from protocols import InvalidInput, JsonRejected, canonical_json, loads_strict

from ._checks_spec import TRIAL_CHECKS, TURN_CHECKS
from ._models import Plan
from ._semantics import Loc, Problem, option_errors, reference_errors

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_CHECK_NAMES = frozenset(TURN_CHECKS + TRIAL_CHECKS)


class PlanError(InvalidInput):
    """An invalid plan; ``errors`` lists every problem as ``"$.json.path: reason"``."""

    def __init__(self, errors: list[str], source: str | None = None) -> None:
        self.errors = list(errors)
        self.source = source
        head = f"invalid plan {source}" if source else "invalid plan"
        super().__init__(f"{head} ({len(self.errors)} problem(s)):\n" + "\n".join(f"  {e}" for e in self.errors))


def json_path(loc: Loc) -> str:
    """``("groups", 2, "protocol", "options")`` → ``$.groups[2].protocol.options``."""
    out = "$"
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _IDENT.match(part):
            out += f".{part}"
        else:
            out += f"[{json.dumps(part, ensure_ascii=False)}]"
    return out


def plan_sha256(data: dict[str, Any]) -> str:
    """SHA-256 of the plan's canonical JSON (sorted keys, no whitespace), ``$schema`` left out:
    where the schema file lives does not change the experiment (X-5)."""
    body = {k: v for k, v in data.items() if k != "$schema"}
    return hashlib.sha256(canonical_json(body).encode("utf-8")).hexdigest()


def load_plan(path: str | Path) -> tuple[Plan, str]:
    """Read, parse and validate a plan file → ``(plan, sha256)``; raises ``PlanError``."""
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PlanError([f"$: no such file {source}"], source) from None
    except UnicodeDecodeError as exc:
        raise PlanError([f"$: not UTF-8 text ({exc.reason} at byte {exc.start})"], source) from None
    except OSError as exc:
        raise PlanError([f"$: cannot read {source}: {exc.strerror or exc}"], source) from None
    return parse_plan(parse_json(text, source), source)


def parse_json(text: str, source: str | None = None) -> Any:
    """Strict JSON (``protocols.loads_strict``): no duplicate keys (they would hide a value from the
    hash), no NaN/Infinity, no integer past 4,300 digits, no nesting past 64 levels."""
    try:
        return loads_strict(text)
    except JsonRejected as exc:
        raise PlanError([f"$: {exc.reason}"], source) from None


def parse_plan(data: Any, source: str | None = None) -> tuple[Plan, str]:
    """Validate already-parsed plan JSON → ``(plan, sha256)``; raises ``PlanError``."""
    if not isinstance(data, dict):
        raise PlanError([f"$: a plan is a JSON object, got {type(data).__name__}"], source)
    problems: list[Problem] = []
    plan: Plan | None = None
    try:
        plan = Plan.model_validate(data)
    except ValidationError as exc:
        problems += [_problem(err) for err in exc.errors()]
    problems += option_errors(data)
    if plan is not None:
        problems += reference_errors(plan)
    if problems:
        raise PlanError([f"{json_path(loc)}: {msg}" for loc, msg in problems], source)
    assert plan is not None
    return plan, plan_sha256(data)


def _problem(err: Any) -> Problem:
    loc = _strip_tags(tuple(err["loc"]))
    kind, ctx = err["type"], err.get("ctx") or {}
    if kind == "union_tag_invalid":
        return loc, _unknown_check(str(ctx.get("tag")), loc)
    if kind == "union_tag_not_found":
        return loc, "a check needs a name: " + ", ".join(_level_names(loc))
    if kind == "missing":
        return loc, "required"
    if kind == "extra_forbidden":
        return loc, "unknown key"
    msg = str(err["msg"]).removeprefix("Value error, ")
    if kind in ("value_error", "assertion_error"):
        return loc, msg
    shown = repr(err.get("input"))
    return loc, f"{msg} (got {shown[:80] + '…' if len(shown) > 80 else shown})"


def _strip_tags(loc: Loc) -> Loc:
    """pydantic puts the discriminator value into the location of a check; JSON has no such step."""
    out: list[str | int] = []
    for i, part in enumerate(loc):
        if isinstance(part, str) and part in _CHECK_NAMES and i > 0 and isinstance(loc[i - 1], int):
            continue
        out.append(part)
    return tuple(out)


def _level_names(loc: Loc) -> tuple[str, ...]:
    return TRIAL_CHECKS if "trialChecks" in loc else TURN_CHECKS


def _unknown_check(tag: str, loc: Loc) -> str:
    if "trialChecks" in loc and tag in TURN_CHECKS:
        return f"{tag!r} is a turn check: put it in a turn's checks"
    if "trialChecks" not in loc and tag in TRIAL_CHECKS:
        return f"{tag!r} is a trial check: put it in the stage's trialChecks"
    return f"unknown check {tag!r}; expected one of " + ", ".join(_level_names(loc))
