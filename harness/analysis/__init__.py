"""Analysis of an experiment's outcomes: statistics (X-41, X-52), findings rules (X-40, X-42 … X-44),
comparisons with the control and the baseline."""

from ._comparisons import Counts, compare, compare_with_baseline, compare_with_control
from ._findings import RULES, anomaly_verdict, derive_findings
from ._models import (
    BaselineComparison,
    Comparison,
    ConversationOutcome,
    Finding,
    FindingsResult,
    ModelKind,
    StageStatus,
)
from ._stats import ALPHA, Z_95, fisher_p, pass_hat_k, pass_hat_ks, separable, wilson_interval

__all__ = [
    "ALPHA", "RULES", "Z_95",
    "BaselineComparison", "Comparison", "ConversationOutcome", "Counts", "Finding", "FindingsResult", "ModelKind",
    "StageStatus",
    "anomaly_verdict", "compare", "compare_with_baseline", "compare_with_control", "derive_findings", "fisher_p",
    "pass_hat_k", "pass_hat_ks", "separable", "wilson_interval",
]
