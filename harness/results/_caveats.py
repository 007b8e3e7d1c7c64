"""Caveats about the evidence itself: checks not exercised, repeats that are not
independent draws, and trials a scripted model could not read. Pure functions of the report's
groups and the trial records."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.models import thinking_refuses
from harness.plan import ModelsSpec

from ._models import GroupReport
from ._records import TrialRecord

UNSUPPORTED = "unsupported_input"


def not_exercised_caveats(groups: list[GroupReport]) -> list[str]:
    """One sentence per check: where it was not exercised, and whether that kept trials from passing."""
    where: dict[tuple[str, bool], list[str]] = {}
    for g in groups:
        for s in g.stages:
            for item in s.notExercised:
                trials = f"{item.trials} trial{'' if item.trials == 1 else 's'}"
                where.setdefault((item.check, item.required), []).append(f"{g.id}/{s.id} ({trials})")
    out = []
    for (check, required), cells in where.items():
        effect = ("those trials did not pass (failure mode not_exercised)" if required
                  else "it is not required there, so those trials were judged without it")
        out.append(f"{check} was not exercised (its precondition never occurred) in {', '.join(cells)}: "
                   f"it verified nothing there; {effect}.")
    return out


def repeat_caveats(groups: list[GroupReport], sampling: dict[str, Any]) -> list[str]:
    """Group × stages whose repeats gave fewer distinct answers than trials (X-52 assumes independent draws)."""
    cells = [(g.id, s.id, s.distinctAnswers, s.passRate.n) for g in groups for s in g.stages
             if s.passRate.n >= 2 and s.distinctAnswers is not None and s.distinctAnswers < s.passRate.n]
    if not cells:
        return []
    temperature, seed = sampling.get("temperature"), sampling.get("seed")
    how = (f" at temperature {temperature:g}" if isinstance(temperature, int | float) else "") + \
        (f" (seed {seed} + repeat - 1)" if seed is not None else "")
    listed = ", ".join(f"{g}/{s} {d} distinct of {n}" for g, s, d, n in cells)
    if isinstance(temperature, int | float) and temperature > 0:
        # sampled repeats may agree by chance (a model sure of its answer); they are independent draws
        # only if the server really sampled: one that ignores temperature or seed repeats one sample
        return [f"Identical repeats{how}: {listed}. Sampled repeats that agree count as independent draws in "
                "the Wilson interval and Fisher p only if the server honoured the temperature and seed; if it "
                "did not, they describe one sample repeated, and the independent samples are at most the "
                "distinct answers."]
    return [f"Identical repeats{how}: {listed}. Where repeats gave the same answer, their Wilson interval and "
            "Fisher p describe one sample repeated, not independent draws: the independent samples are at most "
            "the distinct answers."]


def unsupported_input_caveats(records: list[TrialRecord], model: str) -> list[str]:
    """A scripted model that could not read the plan's wording: set-up errors, not model failures."""
    errors = [r for r in records if r.status == "error" and r.runs and r.runs[-1].error_class == UNSUPPORTED]
    if not errors:
        return []
    first = errors[0]
    cells = sorted({f"{r.group}/{r.stage}" for r in errors})
    return [f"The scripted model {model} does not support this plan's wording: {len(errors)} trial(s) ended as "
            f"set-up errors ({UNSUPPORTED}), not model failures, in {', '.join(cells)}; e.g. {first.id}: "
            f"{first.runs[-1].error}. Those stages have no verdict and nothing here is evidence about the "
            "protocols; reword the plan or widen the scripted model's reading (harness/scripted/_tasks.py)."]


def pass_shape_caveats(groups: list[GroupReport]) -> list[str]:
    """Passes whose answer looks like a failure: the answer check found what it wanted inside a text
    tool call or an echo, so a pass rate should not be read as well-formed answers."""
    cells = []
    for g in groups:
        for s in g.stages:
            shaped = [t for t in s.trials if t.status == "passed" and t.passShape]
            if shaped:
                modes = sorted({str(t.passShape).split(":", 1)[0] for t in shaped})
                cells.append(f"{g.id}/{s.id} {len(shaped)} of {s.passRate.passes} ({', '.join(modes)})")
    if not cells:
        return []
    return [f"Passed trials whose answer has a failure's shape: {'; '.join(cells)}. The answer checks found what "
            "they look for inside a tool call written as text or an echo of a derived message; read these passes "
            "as 'the expected value appeared', not as well-formed answers (each trial's passShape says what the "
            "classifier saw)."]


def unattributed_caveats(records: list[TrialRecord], spent_calls: int, spent_tokens: int) -> list[str]:
    """Model calls the budget counted that no recorded trial holds: attempts a kill or crash ended
    before their record was written (the budget log is written per call, a trial's record at its end)."""
    live = [c for r in records for c in r.calls if not c.cached]
    extra = spent_calls - len(live)
    if extra <= 0:
        return []
    tokens = max(0, spent_tokens - sum(c.inputTokens + c.outputTokens for c in live))
    return [f"{extra} model call(s) ({tokens:,} tokens) counted as spent belong to no recorded trial: attempts that a "
            "kill or crash ended before they finished. They count against the budget; their trials ran again on "
            "resume, and pass rates and per-group costs rest on recorded trials only."]


def cache_caveats(calls: list[tuple[str, str, bool]], cache_dir: str | None = None) -> list[str]:
    """What a reader must know when responses came from the cache. ``calls``: (group, stage, cached)."""
    cached = sum(c for _, _, c in calls)
    if not cached:
        return []
    where = f" ({cache_dir})" if cache_dir else ""
    live = len(calls) - cached
    if not live:
        return [f"All {cached} responses came from the response cache{where}: no model was called and nothing was "
                "spent. The responses repeat recorded ones, they are not new samples; their tokens are as "
                "recorded, their cost here is $0."]
    mixed = sorted({(g, s) for g, s, c in calls if c} & {(g, s) for g, s, c in calls if not c})
    cached_only = sorted({(g, s) for g, s, c in calls if c} - {(g, s) for g, s, c in calls if not c})
    text = (f"{cached} of {len(calls)} responses came from the response cache{where} (no model call, $0, "
            f"recorded tokens); {live} were live calls. Costs and latencies of cached and live calls are not "
            "comparable: USD and latency differences in comparisons mixing them are not evidence.")
    if cached_only:
        text += " Served entirely from the cache: " + ", ".join(f"{g}/{s}" for g, s in cached_only) + "."
    if mixed:
        text += " Mixing cached and live responses: " + ", ".join(f"{g}/{s}" for g, s in mixed) + "."
    return [text]


THINKING_CAVEAT = "models.sampling."
"""How a caveat about sampling a thinking Claude model refuses begins (a rescore carries it over)."""


def thinking_caveats(model: str, models: ModelsSpec, extra: dict[str, Any]) -> list[str]:
    """The plan's sampling that ``model`` with thinking on refuses, which the agent's calls did not send."""
    planned = {"temperature": models.sampling.temperature, "top_p": models.sampling.topP}
    fields = {"temperature": "temperature", "top_p": "topP"}
    return [f"{THINKING_CAVEAT}{fields[name]} {value:g} was not sent to {model}: with thinking on, Claude refuses "
            f"it (Anthropic, extended thinking: temperature 1 only, top_p 0.95 to 1), so the agent's calls sampled "
            "at the provider's default; each call's sampling records what was sent"
            for name, value in thinking_refuses(model, extra, planned).items()]


UNSENT_NAMES = {"temperature": "models.sampling.temperature", "top_p": "models.sampling.topP",
                "seed": "models.sampling.seed"}


def unsent_caveats(agent: str, maintainer: str, unsent: Sequence[Any], maintainer_unsent: Sequence[Any]) -> list[str]:
    """The sampling values a model of the run does not take, found before the run by litellm's own validation
    (``harness.wire.unsent_params``), which its calls did not send."""
    out = [f"{UNSENT_NAMES.get(u.name, u.name)} {u.value:g} was not sent to {agent}: litellm "
           f"{'refuses' if u.refused else 'leaves out'} it for this model ({u.why}), so the agent's calls sampled at "
           "the provider's default; each call's sampling records what was sent"
           for u in unsent if u.name in UNSENT_NAMES]
    out += [f"the maintainer's temperature {u.value:g} was not sent to {maintainer}: litellm "
            f"{'refuses' if u.refused else 'leaves out'} it for this model ({u.why}); its calls sampled at the "
            "provider's default" for u in maintainer_unsent]
    return out
