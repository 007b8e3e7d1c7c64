"""The limits README.md and the docs pages (docs/**/*.md) quote are the plan files' (the X-20 budgets a reader
sets expectations by), and the p-values the result pages quote are the counts' (X-41: two-sided exact tests).

Each quoted limit is a registered claim: a regex on its sentence whose named groups are read as
numbers and compared with the plan value the claim names. A claim whose sentence is gone fails (edit
the claim with the sentence); a number that disagrees with the plan fails. A sentence that quotes a
quantity (seconds, tokens, calls, steps, repeats) next to a plan budget key or limit wording ("the
limit is", "capped at", "s per call", "stops at") and no claim covers also fails, so a new limit
cannot be quoted untested. Every "a/n vs b/m, p = X" in the result pages is recomputed as the
reports print it, with the test it names (Boschloo's or, unnamed, Fisher's)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from harness.analysis import format_p, p_value

ROOT = Path(__file__).parents[2]
PROBE = "plans/local-placement-probe/experiment-plan.json"
FIXED = "plans/unified-mapping-ab-20261005/experiment-plan.json"
RESULTS = "docs/results/local-placement-probe.md"
LOCAL = "docs/local-server.md"
SWEEPS = "docs/sweeps.md"
BUDGET_KEYS = ("maxWallSeconds", "timeoutSecondsPerCall", "maxLlmCalls", "maxTotalTokens", "maxInputTokens",
               "maxOutputTokens", "maxStepsPerRun", "maxOutputTokensPerCall", "maxUsd")
QUANTITY = re.compile(r"\d[\d,.]*(\s*(M\s+)?(s|min|minutes|seconds|tokens?|calls|steps|repeats)\b|-token)")
LIMIT_WORDS = re.compile(r"\b(limit is|limit of|capped at|stops at|s per call|tokens per call)\b"
                         r"|`(" + "|".join(BUDGET_KEYS) + ")`")


@cache
def _plan(path: str) -> dict[str, Any]:
    return dict(json.loads((ROOT / path).read_text(encoding="utf-8")))


def _budget(path: str, key: str, scale: float = 1.0) -> Callable[[], float]:
    return lambda: float(_plan(path)["budget"][key]) / scale


def _repeats(path: str) -> Callable[[], float]:
    def value() -> float:
        (repeats,) = {stage["repeats"] for stage in _plan(path)["stages"]}  # one figure: every stage has it
        return float(repeats)
    return value


@dataclass(frozen=True)
class Claim:
    doc: str
    sentence: str
    """A regex (whitespace in it matches any run of whitespace, line breaks included)."""
    values: dict[str, Callable[[], float]]

    def pattern(self) -> re.Pattern[str]:
        return re.compile(re.sub(r"(\\ | )+", r"\\s+", self.sentence))


CLAIMS = [
    Claim(LOCAL, r"the local placement probe \((?P<groups>\d+) groups × (?P<repeats>\d+) sampled repeats",
          {"groups": lambda: float(len(_plan(PROBE)["groups"])), "repeats": _repeats(PROBE)}),
    Claim(LOCAL, r"the plan stops at (?P<wall>\d+) s \(`maxWallSeconds`\)",
          {"wall": _budget(PROBE, "maxWallSeconds")}),
    Claim(LOCAL, r"The fixed plan therefore allows (?P<fixed>\d+) s per call \(`timeoutSecondsPerCall`\), "
                       r"the probe plan (?P<probe>\d+) s",
          {"fixed": _budget(FIXED, "timeoutSecondsPerCall"), "probe": _budget(PROBE, "timeoutSecondsPerCall")}),
    Claim(LOCAL, r"the fixed plan's largest request with its (?P<out>[\d,]+)-token output cap",
          {"out": _budget(FIXED, "maxOutputTokensPerCall")}),
    Claim(SWEEPS, r"The fixed plan's (?P<tokens>[\d,]+) tokens fit one",
          {"tokens": _budget(FIXED, "maxTotalTokens")}),
    Claim(RESULTS, r"the `simple` question only, (?P<repeats>\d+) repeats per group, temperature (?P<t>[\d.]+), "
                   r"`models.sampling.seed` (?P<seed>\d+)",
          {"repeats": _repeats(PROBE), "t": lambda: float(_plan(PROBE)["models"]["sampling"]["temperature"]),
           "seed": lambda: float(_plan(PROBE)["models"]["sampling"]["seed"])}),
    Claim(RESULTS, r"at most (?P<steps>\d+) steps and (?P<out>\d+) output tokens per call, (?P<timeout>\d+) s per call "
                   r"\(`timeoutSecondsPerCall`\), capped at (?P<tokens>[\d.]+) M tokens, (?P<calls>\d+) calls "
                   r"and (?P<wall>\d+) s",
          {"steps": _budget(PROBE, "maxStepsPerRun"), "out": _budget(PROBE, "maxOutputTokensPerCall"),
           "timeout": _budget(PROBE, "timeoutSecondsPerCall"), "tokens": _budget(PROBE, "maxTotalTokens", 1e6),
           "calls": _budget(PROBE, "maxLlmCalls"), "wall": _budget(PROBE, "maxWallSeconds")}),
    Claim(RESULTS, r"the plan's limit is (?P<wall>\d+) s, `maxWallSeconds`",
          {"wall": _budget(PROBE, "maxWallSeconds")}),
]
DOCS = ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").rglob("*.md"))]


def _text(doc: str) -> str:
    return (ROOT / doc).read_text(encoding="utf-8")


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: f"{c.doc}:{c.sentence[:40]}")
def test_a_quoted_limit_is_the_plans(claim: Claim) -> None:
    matches = list(claim.pattern().finditer(_text(claim.doc)))
    assert matches, f"{claim.doc} no longer has the sentence {claim.sentence!r}: edit the claim with the sentence"
    for match in matches:
        for name, plan_value in claim.values.items():
            quoted = float(match.group(name).replace(",", ""))
            assert quoted == plan_value(), f"{claim.doc}: {match.group(0)!r} quotes {name} {quoted}, the plan has " \
                                           f"{plan_value()}"


def _sentences(text: str) -> list[tuple[int, int, str]]:
    """Sentences and table rows with their spans (a sentence ends at ". " / ": " or a blank line)."""
    out, start = [], 0
    for end in re.finditer(r"\.\s|\n\s*\n|\n\||\|\n", text):
        out.append((start, end.start(), text[start:end.start()]))
        start = end.end()
    out.append((start, len(text), text[start:]))
    return out


@pytest.mark.parametrize("doc", DOCS)
def test_every_sentence_quoting_a_limit_is_a_registered_claim(doc: str) -> None:
    text = _text(doc)
    covered = [m.span() for c in CLAIMS if c.doc == doc for m in c.pattern().finditer(text)]
    uncovered = [" ".join(sentence.split()) for start, end, sentence in _sentences(text)
                 if LIMIT_WORDS.search(sentence) and QUANTITY.search(sentence)
                 and not any(a < end and start < b for a, b in covered)]
    assert uncovered == [], f"{doc} quotes limits no claim in {Path(__file__).name} checks against a plan"


@pytest.mark.parametrize("doc", [d for d in DOCS if d.startswith("docs/results/")])
def test_every_quoted_p_is_the_counts(doc: str) -> None:
    quotes = re.findall(r"(\d+)/(\d+) vs (?:[A-Za-z0-9]+ )?(\d+)/(\d+)[,:] (?:(Fisher|Boschloo) )?p ([=<]) ([\d.]+)",
                        _text(doc))
    assert quotes, f"{doc} quotes no comparison"
    assert any(q[4] == "Boschloo" for q in quotes), f"{doc} states no result with Boschloo's test"

    def printed(q: tuple[str, ...]) -> str:  # a quote without a test's name is Fisher's (the pages' tables say so)
        test = "boschloo" if q[4] == "Boschloo" else "fisher"
        return format_p(p_value(int(q[0]), int(q[1]), int(q[2]), int(q[3]), test))  # type: ignore[arg-type]

    wrong = [(q, printed(q)) for q in quotes if printed(q) != (q[6] if q[5] == "=" else f"< {q[6]}")]
    assert wrong == []
