"""The numbers docs/results/local-placement-probe.md cites, from one run directory, as Markdown.

usage: .venv/bin/python scripts/probe_numbers.py RUN_DIR [--wall-seconds S] [--exit-code C]
           [--server-version TEXT] [--server-command TEXT] [--model-file PATH] [--machine TEXT] [--smoke R]

Everything comes from RUN_DIR/report.json (the harness's own statistics: Wilson intervals and the
two-sided p of both exact tests, Boschloo's and Fisher's, side by side, from harness.analysis; the
treatment of each group's state message as the preflight read it from the local server); the sentinel
comparison v2 vs v1 is added with the same functions. scripts/local_probe.sh runs it after the probe.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

from harness.analysis import format_p, p_value, wilson_interval


def _rate(passes: int, n: int) -> str:
    if n == 0:
        return "— | —"
    low, high = wilson_interval(passes, n)
    return f"{passes / n:.2f} | [{low:.2f}, {high:.2f}]"


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _server(report: dict[str, Any]) -> str:
    """What the preflight found the server to be and how it rendered the requests (report.json preflight)."""
    server = next((p["localServer"] for p in report.get("preflight") or [] if p.get("localServer")), None)
    if server is None:
        return "not asked (a report from before the harness asked local servers)"
    digest = server.get("chatTemplateSha256")
    template = f", chat template sha256 `{digest[:16]}…`" if digest else ""
    return f"{server['kind']} (`{server['detectedBy']}`{template}); {server['message']}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--wall-seconds", type=float)
    parser.add_argument("--exit-code", type=int)
    parser.add_argument("--server-version", default="not given")
    parser.add_argument("--server-command", default="not given")
    parser.add_argument("--model-file", default="")
    parser.add_argument("--machine", default="not given")
    parser.add_argument("--smoke", type=int, help="repeats of a smoke run: its numbers are labelled as such")
    args = parser.parse_args()
    report: dict[str, Any] = json.loads((args.run_dir / "report.json").read_text(encoding="utf-8"))
    out: list[str] = []
    title = "Local placement probe: measured numbers"
    if args.smoke:
        title += f" — SMOKE RUN ({args.smoke} repeats per group; not the probe's result)"
    out += [f"## {title}", ""]
    spent, model = report["budget"]["spent"], report["model"]
    wall = f"{args.wall_seconds:.0f} s" if args.wall_seconds is not None else "not measured"
    gguf = args.model_file
    out += [
        f"- plan: `{report['plan']['id']}` (sha256 `{report['plan']['sha256'][:16]}…`), status **{report['status']}**"
        + (f", stop reason `{report['stopReason']}`" if report.get("stopReason") else "")
        + (f", exit code {args.exit_code}" if args.exit_code is not None else ""),
        f"- model: `{model['agent']}` = `{Path(gguf).name if gguf else 'not given'}`"
        + (f" (sha256 `{_sha256(gguf)[:16]}…`)" if gguf and Path(gguf).is_file() else "")
        + f"; sampling {json.dumps(model.get('sampling'))}",
        f"- server: {args.server_version.strip()}; `{args.server_command.strip()}`",
        f"- harness {report['harnessVersion']} at commit `{_commit()}`",
        f"- machine: {args.machine}",
        f"- local server, as the harness asked it before the run: {_server(report)}",
        f"- wall time: {wall} for `harness run` (report: {spent['wallSeconds']:.0f} s of trials); "
        f"{spent['llmCalls']} model calls, {spent['inputTokens']:,} input + {spent['outputTokens']:,} output tokens "
        "(provider-reported); cost: "
        + ("price unknown (local model)" if spent.get("usd") is None else f"${spent['usd']:.4f}"),
        "",
        "| group | placement | the state message, read from the server | stage | passes / n | pass rate | Wilson 95% "
        "| failure modes | error trials | distinct answers |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    treatments = {p["group"]: p.get("treatment") or "—" for p in report.get("preflight") or []}
    counts: dict[tuple[str, str], tuple[int, int]] = {}
    for group in report["groups"]:
        for stage in group["stages"]:
            rate = stage["passRate"]
            counts[(group["id"], stage["id"])] = (rate["passes"], rate["n"])
            trials = stage["trials"]
            modes = Counter(t["failureMode"] or "unclassified" for t in trials if t["status"] == "failed")
            answers = {(t["runs"][-1]["finalAnswer"] or "") for t in trials if t["runs"] and t["status"] != "error"}
            protocol = group["protocol"]
            placement = (protocol.get("options") or {}).get("stateMessagePlacement") \
                or f"{protocol['id']}@{protocol['version']}"
            out.append(f"| {group['id']} | {placement} | {treatments.get(group['id'], '—')} | {stage['id']} | "
                       f"{rate['passes']}/{rate['n']} | "
                       f"{_rate(rate['passes'], rate['n'])} | "
                       f"{', '.join(f'{m} ×{k}' for m, k in modes.most_common()) or '—'} | "
                       f"{sum(t['status'] == 'error' for t in trials)} | {len(answers)} |")
    out += ["", "| stage | comparison | passes | Boschloo p | separable (p < 0.05) | Fisher p | separable (p < 0.05) |",
            "|---|---|---|---|---|---|---|"]
    pairs = [(c["stage"], c["group"], c["control"]) for c in report["comparisons"]]
    pairs += [(stage, "v2", "v1") for (g, stage) in counts if g == "v2" and ("v1", stage) in counts]  # sentinel
    for stage, group, control in pairs:
        (gp, gn), (cp, cn) = counts.get((group, stage), (0, 0)), counts.get((control, stage), (0, 0))
        if gn == 0 or cn == 0:
            out.append(f"| {stage} | {group} vs {control} | {gp}/{gn} vs {cp}/{cn} | — | not compared | — | "
                       "not compared |")
            continue
        both = [p_value(gp, gn, cp, cn, test) for test in ("boschloo", "fisher")]
        out.append(f"| {stage} | {group} vs {control} | {gp}/{gn} vs {cp}/{cn} | "
                   + " | ".join(f"{format_p(p)} | {'yes' if p < 0.05 else 'no'}" for p in both) + " |")
    out += ["", "Findings:", ""]
    out += [f"- `{f['rule']}`: {f['statement']} {f['sentinelStatement']}\n  - does not show: {f['doesNotShow']}"
            for f in report["findings"]]
    out += ["", "Caveats:", ""] + [f"- {c}" for c in report["caveats"]]
    print("\n".join(out))


if __name__ == "__main__":
    main()
