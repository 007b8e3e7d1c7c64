"""Analysis of an experiment's outcomes: findings rules (X-40, X-42 … X-44), comparisons with the control
and the baseline; and before a run, what its design can show (``harness.stats`` computes the exact
figures; its names used across the harness are re-exported here)."""

from harness.stats import (
    ALPHA,
    DEFAULT_TEST,
    MAX_N,
    SPENDING,
    TARGET_POWER,
    TESTS,
    TITLES,
    Z_95,
    Spending,
    TestName,
    adjusted_text,
    complete_difference_p,
    fisher_p,
    fisher_p_grid,
    format_p,
    look_alphas,
    n_for_power,
    n_separable,
    p_text,
    p_value,
    pass_hat_k,
    pass_hat_ks,
    power,
    separable,
    smallest_p,
    spent,
    verdict_text,
    wilson_interval,
)

from ._comparisons import Counts, compare, compare_with_baseline, compare_with_control
from ._design import review_design, sequential_review
from ._design_family import planned_pairs
from ._design_models import (
    DesignFinding,
    DesignKind,
    DesignReview,
    FamilyDesign,
    PlannedComparison,
    SequentialReview,
)
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
from ._family import (
    FAMILIES,
    Family,
    FamilyName,
    FamilyResult,
    FamilySummary,
    build_family,
    families,
    family_pairs,
    method_text,
    run_families,
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
from ._sequential import (
    LookComparison,
    SequentialDesign,
    SequentialLook,
    SequentialResult,
    boundary_text,
    design_text,
    evaluate_sequential,
    sequential_design,
    sequential_finding,
    size_text,
    small_p,
)
from ._sweep_family import model_findings, sweep_family
from ._sweep_findings import ModelEvidence, StageOutcome, SweepFinding, cross_model_findings
from ._wire_confounds import with_wire_confounds

__all__ = [
    "with_wire_confounds",
    "FAMILIES", "Family", "FamilyName", "FamilyResult", "FamilySummary", "build_family", "families", "family_pairs",
    "method_text", "run_families", "model_findings", "sweep_family",
    "ALPHA", "DEFAULT_TEST", "FAILURE_MODES", "MAX_N", "RATE_RULES", "RULES", "SPENDING", "TARGET_POWER", "TESTS",
    "TITLES", "Z_95", "TestName", "p_value", "SequentialReview", "sequential_review", "design_text",
    "sequential_design",
    "BaselineComparison", "CallEvidence", "Comparison", "ConversationOutcome", "Counts", "DesignFinding", "DesignKind",
    "DesignReview", "Diagnosis", "FamilyDesign", "FailureMode", "PlannedComparison", "planned_pairs", "review_design",
    "Finding", "FindingsResult", "ModelEvidence", "ModelKind", "PairEvidence", "StageOutcome", "StageStatus",
    "LookComparison", "SequentialDesign", "SequentialLook", "SequentialResult", "evaluate_sequential",
    "sequential_finding", "size_text", "small_p", "boundary_text", "verdict_text", "adjusted_text",
    "Spending", "SweepFinding", "TrialEvidence", "TurnEvidence",
    "anomaly_verdict", "answer_shape", "classify_failure", "compare", "complete_difference_p", "compare_with_baseline",
    "compare_with_control",
    "cross_model_findings", "derive_findings", "derive_rate_findings",
    "echo_source", "fisher_p", "fisher_p_grid", "format_p", "look_alphas", "mode_counts", "n_for_power",
    "n_separable", "p_text", "pass_hat_k", "pass_shape", "pass_hat_ks", "power", "separable", "smallest_p", "spent",
    "wilson_interval",
]
