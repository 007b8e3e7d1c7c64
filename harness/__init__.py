"""placement harness: engine, models, plan runner, metrics, reports and CLI.

litellm fetches its cost map over the network at import unless told not to; every harness
import path sets the offline switches first (see shared notes on litellm). ``import_litellm`` is how
the harness imports it.
"""

import gc
import os
import sys

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
