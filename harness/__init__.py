"""placement harness: engine, models, plan runner, metrics, reports and CLI.

litellm fetches its cost map over the network at import unless told not to; every harness
import path sets the offline switches first (see shared notes on litellm).
"""

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
# litellm appends a prefilled GitHub bug-report link to some errors (litellm_core_utils/bug_report.py); the
# harness reports its own errors, so never that link (nor the "Give Feedback" banner: suppress_debug_info).
os.environ.setdefault("LITELLM_DISABLE_BUG_REPORT_LINK", "true")

__version__ = "0.1.0"
