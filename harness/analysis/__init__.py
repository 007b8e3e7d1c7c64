"""Analysis of an experiment's outcomes: statistics (X-41, X-52), findings rules (X-40, X-42 … X-44),
comparisons with the control and the baseline."""

from ._comparisons import Counts, compare, compare_with_baseline, compare_with_control
from ._failure_modes import (
    FAILURE_MODES,
    CallEvidence,
    Diagnosis,
    FailureMode,
    TrialEvidence,
    TurnEvidence,
    answer_shape,
    classify_failure,
    echo_source,
    mode_counts,
    pass_shape,
)
from ._findings import RULES, anomaly_verdict, derive_findings
from ._models import (
    BaselineComparison,
    Comparison,
    ConversationOutcome,
    Finding,
    FindingsResult,
    ModelKind,
    PairEvidence,
    StageStatus,
)
from ._rate_findings import RATE_RULES, derive_rate_findings
from ._stats import ALPHA, Z_95, fisher_p, format_p, p_text, pass_hat_k, pass_hat_ks, separable, wilson_interval
from ._sweep_findings import ModelEvidence, StageOutcome, SweepFinding, cross_model_findings

__all__ = [
    "ALPHA", "FAILURE_MODES", "RATE_RULES", "RULES", "Z_95",
    "BaselineComparison", "CallEvidence", "Comparison", "ConversationOutcome", "Counts", "Diagnosis", "FailureMode",
    "Finding", "FindingsResult", "ModelEvidence", "ModelKind", "PairEvidence", "StageOutcome", "StageStatus",
    "SweepFinding", "TrialEvidence", "TurnEvidence",
    "anomaly_verdict", "answer_shape", "classify_failure", "compare", "compare_with_baseline", "compare_with_control",
    "cross_model_findings", "derive_findings", "derive_rate_findings",
    "echo_source", "fisher_p", "format_p", "mode_counts", "p_text", "pass_hat_k", "pass_shape", "pass_hat_ks",
    "separable", "wilson_interval",
]
