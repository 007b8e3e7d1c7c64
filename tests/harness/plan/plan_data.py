"""The fixed plan as data, for tests that change one thing in it."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

FIXED_PLAN = Path(__file__).resolve().parents[3] / "plans" / "unified-mapping-ab-20261005" / "experiment-plan.json"


def fixed_plan_data() -> dict[str, Any]:
    return copy.deepcopy(json.loads(FIXED_PLAN.read_text(encoding="utf-8")))
