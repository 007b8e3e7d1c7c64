"""``--profile PATH`` for the benchmarks: pyinstrument (the dev extra) samples the measured part.

The text summary (``PATH``, or ``PATH.txt`` next to an ``.html`` page) is what a commit message
quotes; ``async_mode="disabled"`` samples the stack that runs, so with many trials in flight the
event loop's idle wait shows as ``select``, and the harness's own CPU as everything else.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def profiled(path: str | None) -> Iterator[None]:
    if path is None:
        yield
        return
    try:
        from pyinstrument import Profiler
    except ImportError:
        raise SystemExit("--profile needs pyinstrument: .venv/bin/pip install -e '.[dev]'") from None
    profiler = Profiler(interval=0.0005, async_mode="disabled")
    profiler.start()
    try:
        yield
    finally:
        profiler.stop()
        out = Path(path)
        if out.suffix == ".html":
            out.write_text(profiler.output_html(), encoding="utf-8")
            out = out.with_suffix(".txt")
        out.write_text(profiler.output_text(unicode=True, show_all=False), encoding="utf-8")
        if profiler.last_session is not None:  # for a closer look: pyinstrument --load PATH.pyisession
            profiler.last_session.save(str(out.with_suffix(".pyisession")))
