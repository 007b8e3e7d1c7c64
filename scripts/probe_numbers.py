"""The numbers docs/results/local-placement-probe.md cites, from one run directory, as Markdown.

usage: .venv/bin/python scripts/probe_numbers.py RUN_DIR [--wall-seconds S] [--exit-code C]
           [--server-version TEXT] [--server-command TEXT] [--model-file PATH] [--machine TEXT] [--smoke R]

Everything comes from RUN_DIR/report.json and RUN_DIR/plan.json (the harness's own statistics: Wilson
intervals, the two-sided p of the plan's test and each comparison's p adjusted for the report's family,
rebuilt from the counts by the function the report used, with Fisher's p beside; the treatment of each
group's state message as the preflight read it from the local server). scripts/local_probe.sh runs it after the probe.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

from harness.analysis import TITLES, build_family, family_pairs, format_p, p_value, wilson_interval
from harness.plan import FindingsSpec, parse_plan
from harness.plan._analysis_spec import AnalysisSpec


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


def _comparisons(run_dir: Path, report: dict[str, Any], counts: dict[tuple[str, str], tuple[int, int]]) -> list[str]:
    """The family's comparisons (the report's own family, rebuilt from the counts by the same function) with p,
    adjusted p and verdict, then the comparisons with the placement control outside it (descriptions), each with
    Fisher's p beside."""
    if (run_dir / "plan.json").is_file():
        plan = parse_plan(json.loads((run_dir / "plan.json").read_text(encoding="utf-8")))[0]
        a, spec = plan.analysis, plan.findings
    else:  # a run directory without its plan: the report's rules, stages, alpha and test
        design = report.get("design") or {}
        rules = next((str(f["rule"]).split("/")[0] for f in report["findings"]
                      if str(f["rule"]).startswith("placement-")), "placement-v3")
        stages = list(dict.fromkeys(c["stage"] for c in report["comparisons"]))
        a = AnalysisSpec(alpha=design.get("alpha", 0.05), test=design.get("test", "boschloo"))
        spec = FindingsSpec(rules=rules, anomalyStages=stages or ["simple"])
    recorded = report.get("family") or {}
    name, method = recorded.get("name", a.family), recorded.get("method") or a.familyMethod
    by_group: dict[str, dict[str, tuple[int, int]]] = {}
    for (group, stage), c in counts.items():
        by_group.setdefault(group, {})[stage] = c
    family = build_family(spec, {None: by_group}, a.alpha, a.test, name, method)
    out = ["", f"The {family.summary.comparisons} comparisons of the report's family: {family.summary.line()}", "",
           f"| stage | comparison | passes | {TITLES[a.test]} p | adjusted p | separable (adjusted p < {a.alpha:g}) "
           "| Fisher p alone |", "|---|---|---|---|---|---|---|"]
    held = set()
    for (_, stage, pair), adjusted_p in family.adjusted.items():
        group, other = next((g, o) for g, o in family_pairs(spec) if frozenset((g, o)) == pair)
        held.add((stage, pair))
        (gp, gn), (op, on) = counts[(group, stage)], counts[(other, stage)]
        raw, fisher = p_value(gp, gn, op, on, a.test), p_value(gp, gn, op, on, "fisher")
        shown = "—" if name == "none" else format_p(adjusted_p, a.alpha)
        out.append(f"| {stage} | {group} vs {other} | {gp}/{gn} vs {op}/{on} | {format_p(raw, a.alpha)} | {shown} | "
                   f"{'yes' if adjusted_p < a.alpha else 'no'} | {format_p(fisher)} |")
    rest = [c for c in report["comparisons"] if c.get("pValue") is not None
            and (c["stage"], frozenset((c["group"], c["control"]))) not in held and c["stage"] in spec.anomalyStages]
    if rest:
        out += ["", "Outside the family (descriptions: no separability is claimed from them):", "",
                f"| stage | comparison | passes | {TITLES[a.test]} p | Fisher p |", "|---|---|---|---|---|"]
        out += [f"| {c['stage']} | {c['group']} vs {c['control']} | {c['groupPasses']}/{c['groupN']} vs "
                f"{c['controlPasses']}/{c['controlN']} | {format_p(c['pValue'], a.alpha)} | "
                f"{format_p(p_value(c['groupPasses'], c['groupN'], c['controlPasses'], c['controlN'], 'fisher'))} |"
                for c in rest]
    return out


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
    out += _comparisons(args.run_dir, report, counts)
    out += ["", "Findings:", ""]
    out += [f"- `{f['rule']}`: {f['statement']} {f['sentinelStatement']}\n  - does not show: {f['doesNotShow']}"
            for f in report["findings"]]
    out += ["", "Caveats:", ""] + [f"- {c}" for c in report["caveats"]]
    print("\n".join(out))


if __name__ == "__main__":
    main()
