"""Q-3: 100 trials × 3 turns against ``harness serve-scripted`` with 200 ms latency per call, at
concurrency 50, finish within 1.25× the ideal wall time. Prints one JSON line per figure.

    .venv/bin/python benchmarks/bench_concurrency.py [--trials 100] [--concurrency 50] [--latency-ms 200]
                                                    [--model-workers 1]

The fixed plan's 3-turn ``conversation`` stage, one group, ``--trials`` repeats, run by the real
runner (in this process) with ``openai/oracle`` over HTTP against ``harness serve-scripted`` (its own
process, so its CPU is not ours), with one model worker by default: what docs/performance.md advises for a fast
server at high concurrency. Ideal wall time: the sum over trials of (model calls × latency) ÷
concurrency, bounded below by the longest trial. Client CPU per call is reported too: when the
runner's CPU for all calls already exceeds 1.25× the ideal, one process cannot meet Q-3 whatever
the scheduling, and the note says so.

``--model-workers N`` runs litellm's part of each call in N worker processes (``harness run --model-workers``;
0: every call in this process). The CPU figure is then the run's whole CPU: this process's plus the workers'
(``RUSAGE_CHILDREN``, read once the run has ended them and before the server, also a child, is stopped), every
litellm import of the run included: one when the workers are forked from the runner (``HARNESS_WORKER_START``,
``workerStart``), one per process when they are spawned.

``q3_litellm_floor_cpu_per_call_ms``: the same provider bodies the run sent (read back from its
transcripts), replayed through ``litellm.acompletion`` at the run's concurrency against the same server,
with nothing of the harness around them: what litellm and the OpenAI client cost per call on their own,
the floor under the runner's figure. The difference is the harness's share.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _profile import profiled

from harness.models import Prices
from harness.plan import parse_plan
from harness.runner import RunRequest, Settings, execute
from harness.server import fetch_stats

ROOT = Path(__file__).resolve().parents[1]
PLAN = ROOT / "plans" / "unified-mapping-ab-20261005" / "experiment-plan.json"
SPEC_LIMIT = 1.25
"""Q-3's bound."""
LIMIT = 2.0
"""The target at concurrency 50: what one process can reach with litellm's own per-call work (docs/performance.md)."""
CPU_LIMIT_MS = 8.0
"""The target for the runner's CPU per call (litellm, engine, persistence, outputs)."""
MODEL = "openai/oracle"


def start_server(latency_ms: float) -> tuple[subprocess.Popen[str], str]:
    server = subprocess.Popen([str(Path(sys.executable).with_name("harness")), "serve-scripted", "--model", "oracle",
                               "--latency-ms", str(latency_ms)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True)
    assert server.stdout is not None
    url = server.stdout.readline().strip()  # the CLI prints its base URL once it listens
    if not url.startswith("http://127.0.0.1:"):
        server.kill()
        raise SystemExit(f"serve-scripted did not start: {url!r}")
    return server, url


def children_cpu_s() -> float:
    """CPU seconds of this process's children that have ended and been waited for (the model workers)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def litellm_import_cpu_s() -> float:
    """CPU seconds of importing litellm (the harness's way) in a fresh interpreter: the run above paid it once."""
    code = ("import time; t = time.process_time(); from harness.models._setup import ensure_litellm; "
            "ensure_litellm(); print(time.process_time() - t)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(done.stdout.strip().splitlines()[-1])


def plan_variant(trials: int) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(PLAN.read_text(encoding="utf-8"))
    stage = next(s for s in data["stages"] if s["id"] == "conversation")
    stage["repeats"] = trials
    data["budget"] = {**data["budget"], "maxTotalTokens": None, "maxInputTokens": None, "maxLlmCalls": None,
                      "maxOutputTokens": None, "maxWallSeconds": None}
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--latency-ms", type=float, default=200.0)
    parser.add_argument("--group", default="A")
    parser.add_argument("--profile", metavar="PATH", help="pyinstrument profile of the run (.txt or .html)")
    parser.add_argument("--model-workers", type=int, default=1, metavar="N",
                        help="litellm's part of each call in N worker processes (0: in the runner's process)")
    parser.add_argument("--floor-calls", type=int, default=300, help="provider bodies replayed for litellm's floor")
    args = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "sk-local-scripted-server")  # litellm wants one; the server ignores it
    plan, sha = parse_plan(plan_variant(args.trials))
    server, url = start_server(args.latency_ms)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            settings = Settings(agent_model=MODEL, maintainer_model=MODEL, api_base=url, groups=[args.group],
                                stages=["conversation"], concurrency=args.concurrency,
                                model_workers=args.model_workers)
            request = RunRequest(plan=plan, plan_sha256=sha, plan_path=str(PLAN), settings=settings,
                                 out_dir=Path(tmp) / "run", cli_prices={MODEL: Prices(input_per_mtok=0,
                                                                                        output_per_mtok=0)},
                                 render=False)
            with profiled(args.profile):
                cpu0, children0, start = time.process_time(), children_cpu_s(), time.perf_counter()
                marks: dict[str, float] = {}  # when the trials began, when the last call settled
                outcome = asyncio.run(execute(
                    request, on_start=lambda: marks.setdefault("start", time.perf_counter()),
                    on_call=lambda _call: marks.__setitem__("last", time.perf_counter())))
                wall, own_cpu = time.perf_counter() - start, time.process_time() - cpu0
                workers_cpu = children_cpu_s() - children0  # the workers have ended; the server has not
                cpu = own_cpu + workers_cpu
            import_cpu = litellm_import_cpu_s()
            stats = fetch_stats(url)
            floor_ms = litellm_floor_ms(Path(tmp) / "run", url, args.floor_calls, args.concurrency)
    finally:
        server.terminate()
        server.wait(timeout=10)
    records = [r for r in outcome.experiment.records if r.stage == "conversation"]
    pool = outcome.experiment.workers
    starts = pool.starts if pool is not None else []
    how = "/".join(sorted(set(starts))) or "none"  # fork: forked from this process, which had imported litellm
    imports = 1 + starts.count("spawn")
    calls = [len(r.calls) for r in records]
    latency = args.latency_ms / 1000
    ideal = max(sum(calls) * latency / args.concurrency, max(calls) * latency)
    ratio = wall / ideal
    start_s, tail_s = marks["start"] - start, start + wall - marks["last"]
    cpu_per_call_ms = cpu / sum(calls) * 1000
    one_process_floor = cpu / ideal
    spec_cpu_ms = SPEC_LIMIT * ideal / sum(calls) * 1000  # the CPU per call at which one process is at 1.25×
    if args.model_workers:
        note = (f"run CPU (runner {own_cpu:.1f} s + {args.model_workers} model worker(s) {workers_cpu:.1f} s) is "
                f"{one_process_floor:.2f}× the ideal ({cpu_per_call_ms:.1f} ms per call, litellm's one-off "
                f"import included, {imports} for the run: workers started by {how}), spread over "
                f"{os.cpu_count()} cores; the runner's own share is "
                f"{own_cpu / sum(calls) * 1000:.1f} ms per call")
    else:
        note = (f"runner CPU alone is {one_process_floor:.2f}× the ideal ({cpu_per_call_ms:.1f} ms per call: litellm "
                f"+ engine + persistence + outputs, the one-off litellm import included); Q-3's {SPEC_LIMIT}× needs "
                f"at most {spec_cpu_ms:.1f} ms per call in one process, and what is above the CPU floor is the event "
                "loop handing 50 trials their turns")
    print(json.dumps({"figure": "q3_concurrency_ratio", "ratio": round(ratio, 3), "limit": LIMIT,
                      "ok": ratio <= LIMIT, "specLimit": SPEC_LIMIT, "specOk": ratio <= SPEC_LIMIT,
                      "wallS": round(wall, 2), "idealS": round(ideal, 2),
                      "startS": round(start_s, 2), "tailS": round(tail_s, 2),
                      "trialsRatio": round((wall - start_s - tail_s) / ideal, 3),
                      "trials": len(records), "passed": sum(r.status == "passed" for r in records),
                      "calls": sum(calls), "callsPerTrial": [min(calls), max(calls)],
                      "concurrency": args.concurrency, "latencyMs": args.latency_ms,
                      "modelWorkers": args.model_workers, "workerStart": how,
                      "serverMaxInFlight": stats["max_in_flight"], "serverRequests": stats["requests"],
                      "status": outcome.status, "note": note}), flush=True)
    print(json.dumps({"figure": "q3_runner_cpu_per_call_ms", "ms": round(cpu_per_call_ms, 2),
                      "limitMs": CPU_LIMIT_MS, "ok": cpu_per_call_ms <= CPU_LIMIT_MS, "cpuS": round(cpu, 2),
                      "runnerCpuS": round(own_cpu, 2), "workersCpuS": round(workers_cpu, 2),
                      "runnerMs": round(own_cpu / sum(calls) * 1000, 2), "modelWorkers": args.model_workers,
                      "importCpuS": round(import_cpu, 2), "imports": imports, "workerStart": how,
                      "cpus": os.cpu_count(),
                      "note": "the run's whole CPU (runner + model workers) per call; importCpuS: litellm's one-off "
                              "import, paid inside the run by each of its `imports` processes, included in ms"}),
                     flush=True)
    print(json.dumps({"figure": "q3_litellm_floor_cpu_per_call_ms", "ms": round(floor_ms, 2),
                      "harnessMs": round(cpu_per_call_ms - floor_ms, 2),
                      "note": "the run's own provider bodies replayed through litellm.acompletion alone, at the "
                              "run's concurrency, against the same server; harnessMs: the runner's figure less "
                              "this floor (the engine, persistence, outputs and the one-off import)"}), flush=True)


def litellm_floor_ms(run_dir: Path, url: str, limit: int, concurrency: int) -> float:
    """Median over rounds of litellm's own CPU per call for the bodies the run sent (see the module doc)."""
    from harness.models._setup import ensure_litellm

    litellm, _ = ensure_litellm()
    bodies = []
    for path in sorted((run_dir / "transcripts").rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            body = json.loads(line).get("providerRequest")
            if isinstance(body, dict) and body.get("messages"):
                bodies.append(body)
            if len(bodies) >= limit:
                break
        if len(bodies) >= limit:
            break
    if not bodies:
        raise SystemExit("no provider bodies in the run's transcripts")
    keep = ("messages", "tools", "tool_choice", "temperature", "top_p", "seed", "max_tokens", "parallel_tool_calls")

    async def replay() -> float:
        gate = asyncio.Semaphore(concurrency)  # as many in flight as the run had: litellm's cost at that load

        async def one(body: dict[str, Any]) -> None:
            async with gate:
                await litellm.acompletion(model=MODEL, api_base=url, **{k: body[k] for k in keep if k in body})

        cpu0 = time.process_time()
        await asyncio.gather(*(one(body) for body in bodies))
        return (time.process_time() - cpu0) / len(bodies) * 1000

    rounds = [asyncio.run(replay()) for _ in range(3)]
    return sorted(rounds)[1]


if __name__ == "__main__":
    main()
