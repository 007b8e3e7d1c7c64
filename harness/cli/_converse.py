"""``harness converse``: one conversation on one fresh root session, for reproducing a single case."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ._app import DOC_REASONING, ReasoningChoice, app, fail, parse_options, plain, user_errors

FIXED_PLAN = Path(__file__).resolve().parents[2] / "plans" / "unified-mapping-ab-20261005" / "experiment-plan.json"
"""The default --plan: the fixed plan of the repository the package is installed from (``pip install
-e``, as scripts/bootstrap.sh does), found from the package, never from the current folder."""


@app.command("converse")
def converse_cmd(
    protocol: Annotated[str, typer.Option("--protocol", help="Protocol, e.g. unified@3.")],
    model: Annotated[str, typer.Option("--model", help="litellm model string, e.g. scripted/oracle or "
                                       "openai/qwen with --api-base.")],
    inputs: Annotated[list[str], typer.Option("--input", help="One user turn (repeatable, in order).")],
    option: Annotated[list[str] | None, typer.Option("--option", help="Protocol option KEY=VALUE.")] = None,
    api_base: Annotated[str | None, typer.Option("--api-base", help="OpenAI-compatible server URL.")] = None,
    maintainer_model: Annotated[str | None, typer.Option(
        "--maintainer-model", help="Model of the maintainer role (default: the agent's).")] = None,
    plan: Annotated[Path | None, typer.Option(
        "--plan", help="Plan whose agent (prompt, inputs, tools, project data) is used; default: the repository's "
                       "fixed plan (plans/unified-mapping-ab-20261005/experiment-plan.json), from any folder.")] = None,
    threshold: Annotated[int | None, typer.Option(
        "--maintenance-threshold", help="Input tokens at which the host compresses the window (P-50).")] = None,
    max_steps: Annotated[int, typer.Option("--max-steps", help="Step limit per run.")] = 12,
    reasoning_effort: Annotated[ReasoningChoice | None, typer.Option(
        "--reasoning-effort", help=DOC_REASONING.replace(" Recorded in report.json as an override.", ""))] = None,
    out: Annotated[Path | None, typer.Option("--out", help="Output folder (default reports/converse/<UTC time>).")]
    = None,
) -> None:
    """Run the inputs as consecutive run_send_input calls on ONE fresh root session (E-1).

    Prints each run's result and writes state.json (O-40), snapshots.jsonl (every provider request
    and response, redacted) and runs.json into the output folder.

    Example: harness converse --protocol unified@3 --option stateMessagePlacement=trailing_user
    --model scripted/oracle --input "项目预算 12000 元，目前已支出 4350 元。还剩多少预算？"
    """
    from harness.business_tools import BusinessTools
    from harness.engine import Engine, RunLimits
    from harness.models import make_model
    from harness.plan import load_plan
    from harness.runner import agent_calls, refused_message
    from harness.scripted import get_scripted
    from protocols import HostOptions, MaintenanceOptions, dump_state, resolve_ref
    from protocols.store import MemoryStore

    if plan is None and not FIXED_PLAN.is_file():
        fail(f"no --plan given and the fixed plan is not at {FIXED_PLAN} (the package is not installed from its "
             "repository): pass --plan PLAN")
    with user_errors():
        proto = resolve_ref(protocol, parse_options(option))
        plan_model, _ = load_plan(plan or FIXED_PLAN)
    agent = plan_model.agent.config()
    effort = None if reasoning_effort is None else reasoning_effort.value
    if model.startswith("scripted/") and (effort is not None or plan_model.models.agent_params()):
        fail(f"--model {model}: scripted models take no provider parameters (--reasoning-effort, the plan's "
             "models.reasoningEffort and models.params); they never reason")
    calls = agent_calls(model, plan_model.models, RunLimits().max_output_tokens, effort, maintainer=maintainer_model)
    if calls.refused:  # a parameter the model does not take: named with its fix, before any call
        fail("; ".join(refused_message(model, u) for u in calls.refused))
    projects = {k: v.model_dump() for k, v in plan_model.agent.projects.items()}
    try:
        engine = Engine(
            store=MemoryStore(), protocol=proto, agent=agent,
            model=make_model(model, api_base=api_base, scripted=get_scripted), model_name=model,
            maintainer_model=(make_model(maintainer_model, api_base=api_base, scripted=get_scripted)
                              if maintainer_model else None),
            maintainer_name=maintainer_model,
            business=BusinessTools(projects) if plan_model.agent.businessTools else None,
            host=HostOptions(maintenance=MaintenanceOptions(thresholdTokens=threshold)),
            limits=RunLimits(max_steps=max_steps, max_output_tokens=calls.max_output_tokens, extra=calls.extra,
                             thinking_budget=calls.thinking_budget,
                             temperature=RunLimits().temperature if calls.sends("temperature") else None,
                             maintainer_temperature=None if calls.maintainer_unsent else 0.0),
        )
    except (ValueError, KeyError) as exc:
        fail(f"--model {model!r}: {exc}")
    results = asyncio.run(_converse(engine, inputs))
    folder = out or Path("reports/converse") / datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    folder.mkdir(parents=True, exist_ok=True)
    session_id = results[0].session_id
    state = dump_state(engine.store, session_id, agent, results[-1].run_id)
    (folder / "state.json").write_text(json.dumps(state, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    with (folder / "snapshots.jsonl").open("w", encoding="utf-8") as fh:
        for _, snap in engine.store.snapshots(session_id):
            fh.write(json.dumps(snap, ensure_ascii=False) + "\n")
    (folder / "runs.json").write_text(
        json.dumps([r.model_dump(mode="json") for r in results], ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    _print(results, folder)
    if any(r.status == "error" and r.error_class == "infrastructure" for r in results):
        raise typer.Exit(3)


async def _converse(engine, inputs: list[str]):
    session_id = engine.create_session()
    results = []
    for text in inputs:
        result = await engine.run_send_input(session_id, text)
        results.append(result)
        if result.status == "error" and result.error_class == "infrastructure":
            break
    return results


def _print(results, folder: Path) -> None:
    from harness.models import looks_like_unparsed_tool_call

    table = Table(title=f"session {results[0].session_id}", title_justify="left")
    for col in ("turn", "status", "steps", "tool calls", "tokens in/out", "cost", "final answer"):
        table.add_column(col, overflow="fold")
    for i, r in enumerate(results, 1):
        calls = ", ".join(f"{c.name}{'' if c.success else ' ✗' + str(c.error_code)}" for c in r.tool_calls)
        status = r.status + (f" ({r.error_class}: {r.error})" if r.error else "")
        # model text and errors are data, not Rich markup: "[context_state] ..." must print as written
        table.add_row(str(i), Text(status), str(r.steps), Text(calls),
                      f"{r.usage.input_tokens}/{r.usage.output_tokens}", _cost(r), Text(r.final_answer or ""))
    console = Console()
    console.print(table)
    for i, r in enumerate(results, 1):
        if looks_like_unparsed_tool_call(r.final_answer):
            console.print(f"[yellow]warning:[/] turn {i}'s final answer looks like a tool call written as text "
                          "(JSON in the answer), not a parsed tool call: the model or its server may not support "
                          "tool calls here. It was kept as the final answer.", markup=True)
    console.print(f"state, snapshots and runs written to [bold]{plain(folder)}[/]")


def _cost(result) -> str:
    """USD of the run's calls, or "price unknown" when any call had no price (never a silent $0)."""
    if result.usd is None or any(not c.price_known for c in result.calls):
        return "price unknown"
    return f"${result.usd:.6f}"
