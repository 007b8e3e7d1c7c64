"""The report's plots (O-20, X-51, X-52), drawn with matplotlib's Agg backend into PNG bytes.
Output depends only on the data: no timestamps or software tags in the files."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

from ._data import SEGMENTS

if TYPE_CHECKING:
    from matplotlib.figure import Figure

SEGMENT_COLOURS = {"system": "#8c8c8c", "header": "#4c78a8", "state": "#e45756", "fold": "#f58518",
                   "history": "#54a24b", "tools": "#b279a2"}


def _figure(**kwargs: Any) -> Figure:
    """A figure of its own, drawn by the Agg canvas: no pyplot (its import and global figure registry
    cost more than a plot), matplotlib imported only when a report is drawn."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(**kwargs)
    FigureCanvasAgg(fig)
    return fig


def _png(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight", metadata={"Software": None})
    return buf.getvalue()


def pass_rates(report: dict[str, Any]) -> bytes:
    """X-52: pass rate per group and stage with its Wilson 95 % interval."""
    groups = report.get("groups", [])
    stages = list(dict.fromkeys(s["id"] for g in groups for s in g.get("stages", [])))
    fig = _figure(figsize=(8, 3.6))
    ax = fig.subplots()
    width = 0.8 / max(len(stages), 1)
    for j, stage in enumerate(stages):
        xs, ys, lo, hi, labels = [], [], [], [], []
        for i, g in enumerate(groups):
            st = next((s for s in g.get("stages", []) if s["id"] == stage), None)
            rate = (st or {}).get("passRate") or {}
            if rate.get("value") is None:
                continue
            low, high = rate.get("wilson95") or [rate["value"], rate["value"]]
            xs.append(i + (j - (len(stages) - 1) / 2) * width)
            ys.append(rate["value"])
            labels.append(f"{rate.get('passes')}/{rate.get('n')}")
            lo.append(max(rate["value"] - low, 0))
            hi.append(max(high - rate["value"], 0))
        ax.bar(xs, ys, width, yerr=[lo, hi], capsize=3, label=stage)
        for x, rate in zip(xs, labels, strict=True):
            ax.annotate(rate, (x, 0.01), ha="center", va="bottom", fontsize=7, rotation=90,  # legible over the
                        bbox={"boxstyle": "square,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.8})  # interval
    ax.set_xticks(range(len(groups)), [g["id"] for g in groups])
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("pass rate (Wilson 95 %)")
    ax.set_title("Pass rate per group and stage (bars: passes/n)")
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return _png(fig)


def by_segment(groups: list[str], tokens: dict[str, dict[str, float]], usd: dict[str, dict[str, float]]) -> bytes:
    """X-51: request tokens and cost per group, stacked by request segment."""
    fig = _figure(figsize=(11, 3.8), layout="constrained")
    axes = fig.subplots(1, 2)
    for ax, data, label in ((axes[0], tokens, "input tokens (estimated)"), (axes[1], usd, "USD (by token share)")):
        bottom = [0.0] * len(groups)
        for seg in SEGMENTS:
            vals = [data.get(g, {}).get(seg, 0.0) for g in groups]
            ax.bar(groups, vals, bottom=bottom, label=seg, color=SEGMENT_COLOURS[seg])
            bottom = [b + v for b, v in zip(bottom, vals, strict=True)]
        ax.set_ylabel(label)
        ax.set_title(f"{label} per group by segment")
        if not any(bottom):
            ax.set_ylim(0, 1)
            ax.text(0.5, 0.5, "nothing recorded (e.g. scripted model, price unknown)", ha="center",
                    transform=ax.transAxes)
    axes[0].legend(fontsize="small")
    return _png(fig)


def repeated_calls(groups: list[str], repeats: dict[str, dict[str, int]]) -> bytes:
    """X-50: repeated and duplicate-signature tool calls per group."""
    fig = _figure(figsize=(8, 3.2))
    ax = fig.subplots()
    xs = range(len(groups))
    ax.bar([x - 0.2 for x in xs], [repeats[g]["repeated"] for g in groups], 0.4, label="repeated")
    ax.bar([x + 0.2 for x in xs], [repeats[g]["duplicate_signature"] for g in groups], 0.4,
           label="duplicate signature")
    ax.set_xticks(list(xs), groups)
    ax.set_ylabel("tool calls")
    ax.set_title("Repeated tool calls per group")
    ax.legend(fontsize="small")
    return _png(fig)


def cached_tokens(groups: list[str], totals: dict[str, dict[str, float]]) -> bytes:
    """X-51: cached input tokens against all input tokens per group."""
    fig = _figure(figsize=(8, 3.2))
    ax = fig.subplots()
    xs = range(len(groups))
    ax.bar([x - 0.2 for x in xs], [totals[g]["input_tokens"] for g in groups], 0.4, label="input")
    ax.bar([x + 0.2 for x in xs], [totals[g]["cached_input_tokens"] for g in groups], 0.4, label="cached input")
    ax.set_xticks(list(xs), groups)
    ax.set_ylabel("tokens")
    ax.set_title("Cached input tokens per group")
    ax.legend(fontsize="small")
    return _png(fig)
