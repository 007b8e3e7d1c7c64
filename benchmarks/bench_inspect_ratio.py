"""Q-2 side by side: the harness's cost per model call against inspect_ai's agent loop on the same tool
loop, measured one right after the other in one process. Prints one JSON line per figure.

    .venv/bin/pip install -e '.[inspect]'        # the optional extra; not a test dependency
    .venv/bin/python benchmarks/bench_inspect_ratio.py [--trials 40] [--tool-calls 4]

The tool loop: one user question, the model calls ``quote_calculate`` ``--tool-calls`` times (each call
answered with the tool's result), then answers: ``--tool-calls`` + 1 model calls per trial. Both models
decide from the request they receive (the number of tool results in it), and both answer at once.

- harness: ``Engine.run_send_input`` on a fresh session (unified@3, the fixed plan's business tools, the
  budget ledger, a SqliteStore), the model ``scripted/loop`` through litellm's real path (E-4).
- inspect_ai: ``eval`` of a task whose solver is the ``react`` agent (``submit=False``: it ends when the
  model stops calling tools) with the same tool, the model ``mockllm/model`` with a callable output.

Each side runs ``--trials`` trials twice over: the per-call figure is the marginal cost (second batch minus
first batch) divided by the calls, so each side's fixed start-up (inspect's task and log set-up, the
harness's engine) is left out. Trials run one at a time, so wall time is CPU time; both are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import harness  # noqa: F401  (litellm's offline switches, before anything imports litellm)
from harness.business_tools import BusinessTools
from harness.engine import Engine
from harness.models import Prices, ensure_litellm, make_model, scripted_resolver
from harness.plan import BudgetSpec
from harness.runner import BudgetLedger, PriceTable
from harness.runner._prices import PriceEntry
from protocols import AgentConfig, resolve_ref
from protocols.store import SqliteStore

MODEL = "scripted/loop"
QUESTION = "Quote 3 units at 2000 each with an installation fee of 300 per unit, checking it a few times."
ARGS = {"unitPrice": 2000, "quantity": 3, "installFeePerUnit": 300}


def emit(figure: str, **fields: Any) -> None:
    print(json.dumps({"figure": figure, **fields}, ensure_ascii=False), flush=True)


class Looper:
    """The harness side's scripted model: a tool call until ``n`` tool results are in the request."""

    def __init__(self, n: int) -> None:
        self.n = n

    def reply(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        done = sum(1 for m in messages if m.get("role") == "tool")
        if done < self.n:
            return {"content": "", "tool_calls": [{"id": f"call_{done}", "name": "quote_calculate",
                                                   "arguments": json.dumps(ARGS)}]}
        return {"content": "The total is 6900.", "tool_calls": []}


def measured(run: Callable[[], Any]) -> tuple[float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    run()
    return time.perf_counter() - wall, time.process_time() - cpu


def harness_side(trials: int, tool_calls: int, tmp: Path) -> tuple[list[tuple[float, float]], int]:
    looper = Looper(tool_calls)
    batches: list[tuple[float, float]] = []
    calls = 0
    with scripted_resolver(lambda name: looper):
        store = SqliteStore(tmp / "harness.sqlite")
        ledger = BudgetLedger(BudgetSpec(maxUsd=1000), PriceTable({MODEL: PriceEntry(Prices(
            input_per_mtok=0, output_per_mtok=0), "cli")}))
        engine = Engine(store=store, protocol=resolve_ref("unified@3"),
                        agent=AgentConfig(systemPrompt="You are a planner.\n\n{{context_protocol}}"),
                        model=make_model(MODEL, prices=Prices(input_per_mtok=0, output_per_mtok=0)),
                        model_name=MODEL, business=BusinessTools({}), guard=ledger)

        async def batch() -> int:
            made = 0
            for _ in range(trials):
                result = await engine.run_send_input(engine.create_session(), QUESTION)
                assert result.status == "completed" and len(result.calls) == tool_calls + 1, result.status
                made += len(result.calls)
            return made

        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(batch())  # warm: litellm's import and first-call set-up
            for _ in range(2):
                batches.append(measured(lambda: loop.run_until_complete(batch())))
            calls = trials * (tool_calls + 1)
        finally:
            loop.close()
            store.close()
    return batches, calls


def inspect_side(trials: int, tool_calls: int, tmp: Path) -> tuple[list[tuple[float, float]], int] | None:
    try:
        from inspect_ai import Task, eval
        from inspect_ai.agent import react
        from inspect_ai.dataset import Sample
        from inspect_ai.model import ModelOutput, get_model
        from inspect_ai.tool import tool
    except ImportError:
        return None
    litellm, _ = ensure_litellm()  # litellm points tiktoken at the encodings it ships (on its first count):
    litellm.token_counter(model="gpt-4o", text="offline")  # inspect_ai's o200k_base then loads offline too

    @tool
    def quote_calculate() -> Any:
        async def execute(unitPrice: float, quantity: int, installFeePerUnit: float) -> str:  # noqa: N803
            """Compute a quote: equipment = unitPrice × quantity, installation = installFeePerUnit × quantity.

            Args:
                unitPrice: Price of one unit of equipment.
                quantity: Number of units.
                installFeePerUnit: Installation fee per unit.
            """
            equipment, installation = unitPrice * quantity, installFeePerUnit * quantity
            return json.dumps({"equipment": equipment, "installation": installation,
                               "total": equipment + installation})

        return execute

    def output(messages: list[Any], tools: list[Any], tool_choice: Any, config: Any) -> ModelOutput:
        done = sum(1 for m in messages if m.role == "tool")
        if done < tool_calls:
            return ModelOutput.for_tool_call(model="mockllm/model", tool_name="quote_calculate",
                                             tool_arguments=ARGS, tool_call_id=f"call_{done}")
        return ModelOutput.from_content(model="mockllm/model", content="The total is 6900.")

    model = get_model("mockllm/model", custom_outputs=output, memoize=False)
    batches: list[tuple[float, float]] = []

    def one(n: int, name: str) -> None:
        task = Task(dataset=[Sample(input=QUESTION, id=i) for i in range(n)],
                    solver=react(tools=[quote_calculate()], submit=False), name=name)
        logs = eval(task, model=model, log_dir=str(tmp / "inspect-logs"), display="none", max_samples=1,
                    log_level="error")
        assert logs[0].status == "success", (logs[0].status, logs[0].error)

    one(2, "warm")
    for size, name in ((trials, "first"), (2 * trials, "second")):
        batches.append(measured(lambda: one(size, name)))  # noqa: B023
    return batches, trials * (tool_calls + 1)


def per_call_ms(batches: list[tuple[float, float]], calls: int, marginal: bool) -> tuple[float, float]:
    """(wall, cpu) ms per call: the second batch's cost beyond the first, over the calls it added."""
    if marginal:  # inspect: the second eval ran twice the samples; its extra is trials × calls
        wall, cpu = batches[1][0] - batches[0][0], batches[1][1] - batches[0][1]
    else:  # harness: two equal batches on one engine, no per-batch set-up: their mean
        wall, cpu = (batches[0][0] + batches[1][0]) / 2, (batches[0][1] + batches[1][1]) / 2
    return round(wall / calls * 1000, 3), round(cpu / calls * 1000, 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=40)
    parser.add_argument("--tool-calls", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        h_batches, h_calls = harness_side(args.trials, args.tool_calls, Path(tmp))
        h_wall, h_cpu = per_call_ms(h_batches, h_calls, marginal=False)
        emit("q2_loop_harness_per_call_ms", wallMs=h_wall, cpuMs=h_cpu, calls=h_calls,
             note="Engine.run_send_input: projection, counts, budget, litellm + scripted provider, snapshot, store")
        inspected = inspect_side(args.trials, args.tool_calls, Path(tmp))
    if inspected is None:
        emit("q2_loop_inspect_per_call_ms", skipped=True,
             note="inspect_ai is not installed: .venv/bin/pip install -e '.[inspect]' to measure it side by side")
        return
    i_batches, i_calls = inspected
    i_wall, i_cpu = per_call_ms(i_batches, i_calls, marginal=True)
    emit("q2_loop_inspect_per_call_ms", wallMs=i_wall, cpuMs=i_cpu, calls=i_calls,
         note="inspect_ai eval: react agent, mockllm/model, one sample at a time; marginal cost of the second "
              "eval's extra samples")
    emit("q2_loop_ratio", wall=round(h_wall / i_wall, 2) if i_wall > 0 else None,
         cpu=round(h_cpu / i_cpu, 2) if i_cpu > 0 else None,
         note="harness per call ÷ inspect_ai per call on the same tool loop (1.0: as cheap as inspect's loop)")


if __name__ == "__main__":
    main()
