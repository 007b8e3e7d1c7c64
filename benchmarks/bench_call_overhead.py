"""Q-2: harness overhead per model call with a scripted model, for a 200-message window.

One engine turn whose model answers at once is one model call. Its time, minus the scripted
model's own ``reply``, is the harness overhead Q-2 bounds (≤ 5 ms median). The same request sent
straight through ``LiteLLMModel.generate`` (litellm + the scripted provider, no engine) separates
the engine's share from litellm's per-call cost; the engine's parts are timed one by one so a hot
spot shows with its number. Prints one JSON line per figure.

    .venv/bin/python benchmarks/bench_call_overhead.py [--repeats 40] [--store sqlite|memory]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _profile import profiled

import harness  # noqa: F401  (litellm's offline switches, before anything imports litellm)
from harness.business_tools import BusinessTools
from harness.engine import Engine, count_messages, segment_tokens
from harness.engine._encode import EncodedRequest, snapshot_json
from harness.models import ModelRequest, Prices, make_model, redact, scripted_resolver
from harness.models._scripted_call import count_tokens
from harness.models._tokens import _one
from harness.plan import BudgetSpec
from harness.runner import BudgetLedger, PriceTable
from harness.runner._prices import PriceEntry
from protocols import AgentConfig, FrozenView, MessageDraft, new_run_id, resolve_ref
from protocols.store import MemoryStore, SessionStore, SqliteStore

WINDOW = 200
LIMIT_MS = 5.0
"""Q-2's bound for the whole turn (litellm's per-call work included)."""
ENGINE_LIMIT_MS = 3.0
"""The target for what the engine adds to a call (projection, counts, budget, snapshot, store)."""
MODEL = "scripted/bench"
PROTOCOL = "unified@3"
AGENT = AgentConfig(systemPrompt="You are a planner.\n\n{{context_protocol}}", inputs={"customer": "ACME"})
PROJECTS = {"P-17": {"budget": 9000, "spent": 6900}}


class Answer:
    """The scripted model: answers at once, so one turn is one call."""

    def __init__(self) -> None:
        self.seconds: list[float] = []

    def reply(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        start = time.perf_counter()
        out = {"content": f"the answer to {str(messages[-1].get('content'))[:20]}", "tool_calls": []}
        self.seconds.append(time.perf_counter() - start)
        return out


def fill(store: SessionStore, engine: Engine) -> str:
    """A session whose main window holds ``WINDOW`` messages: user questions and answers in turn."""
    session = engine.create_session()
    for i in range(WINDOW // 2):
        run_id = new_run_id()
        store.append(session, MessageDraft(run_id=run_id, window_id="main", role="user", kind="input",
                                           content=f"question {i}: what is the quote for {i} units?",
                                           input_run=run_id))
        store.append(session, MessageDraft(run_id=run_id, window_id="main", role="assistant", kind="text",
                                           content=f"answer {i}: " + "the quote is within budget. " * 6))
    return session


def median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 3)


def timed(fn: Callable[[], object], repeats: int) -> list[float]:
    fn()
    out = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def next_steps(store: SessionStore, session: str, run_id: str, engine: Engine, repeats: int) -> list[float]:
    """The projection of the window at the next step of the same session (one more message each time):
    what a run's second and later steps pay, with the rows and previews read at the step before kept."""
    out = []
    for i in range(repeats + 1):
        store.append(session, MessageDraft(run_id=run_id, window_id="main", role="assistant", kind="text",
                                           content=f"step {i}"))
        frozen = FrozenView(revision=store.revision(session), upper_bound=store.max_index(session), run_id=run_id)
        start = time.perf_counter()
        engine.protocol.project(store, session, frozen, AGENT, engine.host, engine.business_schemas)
        out.append(time.perf_counter() - start)
    return out[1:]


def emit(figure: str, **fields: Any) -> None:
    print(json.dumps({"figure": figure, **fields}, ensure_ascii=False), flush=True)


async def main_async(repeats: int, backend: str, tmp: Path, profile: str | None = None) -> None:
    answer = Answer()
    with scripted_resolver(lambda name: answer):
        store: SessionStore = MemoryStore() if backend == "memory" else SqliteStore(tmp / "bench.sqlite")
        model = make_model(MODEL, prices=Prices(input_per_mtok=0, output_per_mtok=0))
        ledger = BudgetLedger(BudgetSpec(maxUsd=1000), PriceTable({MODEL: PriceEntry(Prices(input_per_mtok=1,
                                                                                        output_per_mtok=1), "cli")}))
        engine = Engine(store=store, protocol=resolve_ref(PROTOCOL), agent=AGENT, model=model, model_name=MODEL,
                        business=BusinessTools(PROJECTS), guard=ledger)
        sessions = [fill(store, engine) for _ in range(repeats + 2)]
        # the request the engine builds for such a window (its last session is kept for this)
        session = sessions.pop()
        frozen = FrozenView(revision=store.revision(session), upper_bound=store.max_index(session),
                            run_id=new_run_id())
        protocol = engine.protocol
        projected = protocol.project(store, session, frozen, AGENT, engine.host, engine.business_schemas)
        # the parameters the engine's turn sends (its run limits), so that the difference is the engine's work
        # and not litellm handling a parameter only one of the two sends
        limits = engine.limits
        request = ModelRequest(messages=projected.messages, tools=projected.tools,
                               max_output_tokens=limits.max_output_tokens, temperature=limits.temperature,
                               top_p=limits.top_p, seed=limits.seed, timeout_seconds=limits.timeout_seconds,
                               extra=limits.extra)
        visible = len(projected.messages)

        # 1. a whole engine turn (one call) on a fresh 200-message window, and 2. the same kind of
        # request straight through litellm and the scripted provider (no engine), taken in turn so
        # that machine noise hits both alike; the first of each warms caches.
        turn: list[float] = []
        direct: list[float] = []
        for i, fresh in enumerate(sessions):
            answer.seconds.clear()
            start = time.perf_counter()
            result = await engine.run_send_input(fresh, "what is the quote now?")
            elapsed = time.perf_counter() - start - sum(answer.seconds)
            assert result.status == "completed" and len(result.calls) == 1, result.status
            answer.seconds.clear()
            start = time.perf_counter()
            await model.generate(request)
            alone = time.perf_counter() - start - sum(answer.seconds)
            if i:
                turn.append(elapsed)
                direct.append(alone)
        if profile is not None:  # more engine turns of the same kind, under the profiler (not timed)
            extra = [fill(store, engine) for _ in range(repeats)]
            with profiled(profile):
                for fresh in extra:
                    await engine.run_send_input(fresh, "what is the quote now?")

    # 3. the engine's parts, one at a time
    sources = list(projected.sources)
    parts = {
        "project": timed(lambda: protocol.project(store, session, frozen, AGENT, engine.host,
                                                  engine.business_schemas), repeats),
        "segment_tokens_cached": timed(lambda: segment_tokens(MODEL, projected.messages, sources, projected.tools),
                                       repeats),
        "reserve_count_messages": timed(lambda: count_messages(MODEL, projected.messages, projected.tools),
                                        repeats),
        "provider_count_tokens": timed(lambda: count_tokens(projected.messages, projected.tools, "ok", []),
                                       repeats),
    }

    wire = {"model": MODEL, "messages": request.messages, "tools": request.tools,
            "params": {"max_tokens": request.max_output_tokens, "temperature": request.temperature,
                       "timeout": request.timeout_seconds}}
    body = {"model": MODEL, "messages": request.messages, "tools": request.tools,
            "max_tokens": request.max_output_tokens, "temperature": request.temperature}
    secrets = engine._secrets
    parts["request_sha256"] = timed(lambda: EncodedRequest(wire, secrets).sha256, repeats)  # and its snapshot text
    parts["redact_provider_request"] = timed(lambda: redact(body, secrets), repeats)  # adapter, per call
    snapshot = {"id": "s/1", "request": wire, "sources": None, "providerRequest": body}
    encoded = EncodedRequest(wire, secrets)
    parts["snapshot_json"] = timed(lambda: snapshot_json(snapshot, sources, secrets, encoded), repeats)

    def uncached() -> None:
        _one.cache_clear()
        segment_tokens(MODEL, projected.messages, sources, projected.tools)

    parts["segment_tokens_uncached"] = timed(uncached, repeats)
    parts["project_next_step"] = next_steps(store, session, frozen.run_id, engine, repeats)
    for name, samples in parts.items():
        emit("q2_part_ms", part=name, medianMs=median_ms(samples), requestMessages=visible, store=backend)
    turn_ms, direct_ms = median_ms(turn), median_ms(direct)
    emit("q2_direct_scripted_call_ms", medianMs=direct_ms, requestMessages=visible,
         note="LiteLLMModel.generate → litellm.acompletion → scripted provider (which also counts the prompt's "
              "tokens, as a server would); no engine")
    engine_ms = round(turn_ms - direct_ms, 3)
    # each turn and the direct call right after it are a pair: the median of their differences is the same
    # estimate, less moved by a machine whose other work comes and goes between the two series
    paired_ms = median_ms([t - d for t, d in zip(turn, direct, strict=True)])
    emit("q2_engine_overhead_ms", medianMs=engine_ms, limitMs=ENGINE_LIMIT_MS, ok=engine_ms <= ENGINE_LIMIT_MS,
         pairedMedianMs=paired_ms, requestMessages=visible, store=backend,
         note="engine turn minus the direct call: projection, budget reservation count, segment counts, "
              "snapshot, store writes; pairedMedianMs: the median of each turn's difference to the direct call "
              "taken right after it")
    emit("q2_harness_overhead_ms", medianMs=turn_ms, limitMs=LIMIT_MS, ok=turn_ms <= LIMIT_MS,
         requestMessages=visible, store=backend,
         note="whole engine turn minus the scripted model's own reply(); includes litellm's per-call cost")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=40)
    parser.add_argument("--store", choices=["sqlite", "memory"], default="sqlite")
    parser.add_argument("--profile", metavar="PATH", help="pyinstrument profile of the engine turns (.txt or .html)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(main_async(args.repeats, args.store, Path(tmp), args.profile))


if __name__ == "__main__":
    main()
