#!/usr/bin/env python3
"""Are two report.json files the same run, apart from what differs on every run?

    scripts/same_report.py BEFORE/report.json AFTER/report.json

What differs on every run of one plan and model, and is therefore masked: timestamps (``createdAt``,
``startedAt``, ``finishedAt``), the experiment id, durations (``wallSeconds``, ``latencyMs``), run ids
(32 hex digits) and the random suffix of each trial's session id (``A/simple/1#f6e17d3a``), also where
they appear inside evidence lists, snapshot ids and check details. Everything else — statuses, pass
rates, checks, answers, tokens, findings, caveats, the difference panel — must be equal. Prints each
difference by JSON path and exits 1 when there is one, 0 when the two are the same (used to show that
a refactoring left the fixed plan's results unchanged).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

VOLATILE_KEYS = frozenset({"createdAt", "startedAt", "finishedAt", "experimentId", "wallSeconds", "latencyMs"})
SESSION_SUFFIX = re.compile(r"#[0-9a-f]{8}\b")
RUN_ID = re.compile(r"\b[0-9a-f]{32}\b")


def normalise(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: ("<volatile>" if k in VOLATILE_KEYS else normalise(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [normalise(v) for v in value]
    if isinstance(value, str):
        return RUN_ID.sub("<run>", SESSION_SUFFIX.sub("#<session>", value))
    return value


def differences(before: Any, after: Any, path: str = "$") -> list[str]:
    if type(before) is not type(after):
        return [f"{path}: {before!r} != {after!r}"]
    if isinstance(before, dict):
        only = sorted(before.keys() ^ after.keys())
        out = [f"{path}.{k}: only in {'before' if k in before else 'after'}" for k in only]
        for key in sorted(before.keys() & after.keys()):
            out += differences(before[key], after[key], f"{path}.{key}")
        return out
    if isinstance(before, list):
        out = [f"{path}: {len(before)} items != {len(after)} items"] if len(before) != len(after) else []
        for i, (a, b) in enumerate(zip(before, after, strict=False)):
            out += differences(a, b, f"{path}[{i}]")
        return out
    return [] if before == after else [f"{path}: {str(before)[:80]!r} != {str(after)[:80]!r}"]


def compare(before: Path, after: Path) -> list[str]:
    load = [normalise(json.loads(p.read_text(encoding="utf-8"))) for p in (before, after)]
    return differences(*load)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    found = compare(Path(argv[0]), Path(argv[1]))
    for line in found:
        print(line)
    print(f"{len(found)} difference(s)" if found else "same report (apart from timestamps, ids and durations)")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
