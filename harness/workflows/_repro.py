"""Did a rerun replay the first run? (``harness compare``.)

Two runs of one plan send, trial for trial, the same first request when nothing but time lies between
them: the same prompt, tools and sampling, the same per-repeat seed. Whether the answers then agree
decides what the second run is worth: identical answers make it a replay (no new sample: pooling it
with the first counts every trial twice); differing answers to byte-identical requests mean the server
did not replay its sampling (a seed it ignores, or batching that is not deterministic, as llama.cpp
with several slots), so a rerun is a new sample and a single trial's outcome is not reproducible.

A trial is its group, stage and repeat, at its final attempt; its fingerprint is the sha256 of its
first agent request (llm_calls.request_sha256), its final answers turn by turn, and its status.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import duckdb

TrialKey = tuple[str, str, int]


@dataclass(frozen=True)
class Fingerprint:
    request_sha256: str | None
    answers: tuple[str, ...]
    status: str


VERDICTS = ("passed", "failed")
"""Only trials that ran to a verdict in both runs are compared: a trial cut short (a cap, an interrupt)
or ended by an infrastructure error has a partial answer or none, which says nothing about sampling."""


@dataclass(frozen=True)
class Replay:
    """Two runs' trials that sent the same first request, and how many of them answered alike."""

    first: str
    second: str
    same_request: dict[str, int]
    """group → trials with a verdict in both runs whose first request was byte-identical."""
    identical_answers: dict[str, int]
    same_outcome: dict[str, int]
    left_out: int = 0
    """Trials with the same first request that lack a verdict in either run (skipped, error)."""
    same_plan: bool = True
    """False: the plans differ (e.g. in a check), so outcomes are judged differently and not compared."""

    def totals(self) -> tuple[int, int, int]:
        return (sum(self.same_request.values()), sum(self.identical_answers.values()),
                sum(self.same_outcome.values()))

    def wire(self) -> dict[str, Any]:
        n, same, outcome = self.totals()
        return {"runs": [self.first, self.second], "sameRequest": n, "identicalAnswers": same,
                "sameOutcome": outcome if self.same_plan else None, "leftOut": self.left_out,
                "samePlan": self.same_plan,
                "byGroup": {g: {"sameRequest": k, "identicalAnswers": self.identical_answers.get(g, 0),
                                "sameOutcome": self.same_outcome.get(g, 0) if self.same_plan else None}
                            for g, k in self.same_request.items()}}

    def sentence(self) -> str:
        n, same, outcome = self.totals()
        groups = ", ".join(f"{g} {self.identical_answers.get(g, 0)}/{k}" for g, k in self.same_request.items())
        head = (f"{self.second} against {self.first}: {n} trials with a verdict in both runs sent byte-identical "
                f"first requests (prompt, tools, sampling and seed); their answers were identical in {same} ({groups})")
        head += (f" and the outcome the same in {outcome}" if self.same_plan else
                 "; the two runs' plans differ, so their checks may too and outcomes are not compared")
        if self.left_out:
            were = "was" if self.left_out == 1 else "were"
            head += (f" ({self.left_out} more sent the same request but {were} cut short or ended in an error in one "
                     "run: left out)")
        if same == n:
            return (head + ". Every answer was replayed (temperature 0, an honoured seed or the response cache): "
                    "the second run adds no new sample, and pooling the two would count each trial twice.")
        return (head + ". The same request got different answers, so the server did not replay its sampling (a "
                       "seed it ignores, or batching that is not deterministic): a rerun is a new sample, and one "
                       "trial's outcome is not reproducible, only rates are comparable.")


def fingerprints(con: duckdb.DuckDBPyConnection, alias: str) -> dict[TrialKey, Fingerprint]:
    """Each trial's final attempt: its first agent request's sha256, its answers by turn, its status."""
    rows = con.execute(f"""
        WITH last AS (
            SELECT group_id, stage_id, repeat, max(attempt) AS attempt FROM {alias}.trials
            GROUP BY group_id, stage_id, repeat
        )
        SELECT t.group_id, t.stage_id, t.repeat, t.status,
               (SELECT c.request_sha256 FROM {alias}.llm_calls c
                 WHERE c.trial_id = t.trial_id AND c.role = 'agent' ORDER BY c.call_seq LIMIT 1),
               (SELECT list(coalesce(r.final_answer, '') ORDER BY r.turn) FROM {alias}.runs r
                 WHERE r.trial_id = t.trial_id)
        FROM {alias}.trials t JOIN last USING (group_id, stage_id, repeat, attempt)
    """).fetchall()
    return {(g, s, int(r)): Fingerprint(sha, tuple(answers or ()), status)
            for g, s, r, status, sha, answers in rows}


def replay(first: str, a: dict[TrialKey, Fingerprint], second: str, b: dict[TrialKey, Fingerprint],
           same_plan: bool = True) -> Replay | None:
    """How ``b`` answered the requests it shares with ``a``; None when no trial with a verdict in both
    sent the same request."""
    same_request: Counter[str] = Counter()
    identical: Counter[str] = Counter()
    outcome: Counter[str] = Counter()
    left_out = 0
    for key, fa in a.items():
        fb = b.get(key)
        if fb is None or fa.request_sha256 is None or fa.request_sha256 != fb.request_sha256:
            continue
        if fa.status not in VERDICTS or fb.status not in VERDICTS:
            left_out += 1
            continue
        group = key[0]
        same_request[group] += 1
        identical[group] += fa.answers == fb.answers
        outcome[group] += fa.status == fb.status
    if not same_request:
        return None
    order = list(dict.fromkeys(k[0] for k in a))
    ordered = {g: same_request[g] for g in order if g in same_request}
    return Replay(first, second, ordered, dict(identical), dict(outcome), left_out, same_plan)
