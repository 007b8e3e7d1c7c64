"""placement harness: engine, models, plan runner, metrics, reports and CLI.

litellm fetches its cost map over the network at import unless told not to; every harness
import path sets the offline switches first (see shared notes on litellm). ``import_litellm`` is how
the harness imports it.
"""

import gc
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
# litellm appends a prefilled GitHub bug-report link to some errors (litellm_core_utils/bug_report.py); the
# harness reports its own errors, so never that link (nor the "Give Feedback" banner: suppress_debug_info).
os.environ.setdefault("LITELLM_DISABLE_BUG_REPORT_LINK", "true")

__version__ = "0.1.0"


def import_litellm() -> None:
    """Import litellm (once) with the cyclic garbage collector paused, then freeze what is alive (Q-4).

    Called before every ``import litellm`` that can be a process's first. The import makes some 570,000
    objects that live as long as the process (modules, classes, pydantic schemas, the cost map). Left to
    the collector, the import pays full collections of its own and every later full collection walks
    them all again: about a sixth of the fixed plan's CPU with scripted/oracle (7.6 s -> 6.3 s).
    ``gc.freeze`` moves what is alive to the permanent generation, which collections skip; objects made
    later are collected as before. A setting of this Python process, not a change to litellm."""
    if "litellm" in sys.modules:
        return
    enabled = gc.isenabled()
    gc.disable()
    try:
        import litellm  # noqa: F401

        gc.freeze()
    finally:
        if enabled:
            gc.enable()


RUN_THRESHOLD = 200_000
"""New container objects between two young collections while a run makes calls (Python's default: 700)."""


@contextmanager
def run_collector(threshold: int = RUN_THRESHOLD) -> Iterator[None]:
    """Raise the cyclic garbage collector's first threshold to ``threshold`` (never lower it) for the
    ``with``'s span: a run's model calls, in the runner and in each model worker (Q-3).

    A run keeps what it makes for a while (stored messages, snapshots, trial records, litellm's response
    objects until their trial ends), so at Python's default first threshold (700 new container objects) the
    young collections find most objects still alive and promote them, and the older generations fill and are
    walked again and again. Measured on the Q-3 benchmark in one process (1,800 calls): 1,800 young, 164
    middle and 14 full collections, 1.3 s of CPU (0.7 ms a call); with a first threshold of 50,000, 6-9 young
    collections and nothing older, 0.19-0.26 s; with 200,000, one young collection, 0.09-0.12 s (0.06 ms a call
    less), for 16-18 MB more peak memory (402-404 MB -> 420 MB). Objects are still freed by their reference
    counts at once; only garbage cycles wait longer (at most one threshold's worth of new objects). A setting of
    this Python process for the span of the ``with``, restored after it; never a change to what a run records."""
    before = gc.get_threshold()
    gc.set_threshold(max(threshold, before[0]), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
