"""Exact statistics of two groups' pass counts (X-41, X-52): the two exact tests and their p-values for
every outcome, the maximum over the common pass rate certified, power and the n it needs, Wilson
intervals and pass^k, α spending and a sequential design's thresholds calibrated for its comparisons
together, size and power, and a family of comparisons held at α together (the exact closed test, Holm's adjustment).
Imports nothing of the harness; scipy only inside the functions that need it."""

from ._family import FAMILY_METHODS, METHOD_TITLES, Block, FamilyMethod, FirstStep, adjusted, first_step
from ._family_power import star_n_for_power, star_power, star_step, walk_to_target
from ._joint import SINGLE, Structure, against_one_control, both_roles, effect_rates, structure
from ._power import MAX_N, TARGET_POWER, complete_difference_p, n_for_power, n_separable, power, smallest_p
from ._pvalues import DEFAULT_TEST, TESTS, TITLES, TestName, fisher_p, fisher_p_grid, p_grid, p_value, rejected
from ._reliability import (
    ALPHA,
    Z_95,
    adjusted_text,
    format_p,
    p_text,
    pass_hat_k,
    pass_hat_ks,
    separable,
    verdict_text,
    wilson_interval,
)
from ._sequential import Figures, calibrated, sequential_figures
from ._sequential_power import Operating, operating, stop_chances
from ._spending import SPENDING, Spending, look_alphas, spent
from ._supremum import supremum

__all__ = [
    "ALPHA", "DEFAULT_TEST", "MAX_N", "SPENDING", "TARGET_POWER", "TESTS", "TITLES", "Z_95",
    "FAMILY_METHODS", "METHOD_TITLES", "Block", "FamilyMethod", "Figures", "FirstStep", "Spending", "TestName",
    "adjusted", "adjusted_text", "first_step", "star_n_for_power", "star_power", "star_step", "walk_to_target",
    "SINGLE", "Operating", "Structure", "against_one_control", "both_roles", "effect_rates", "stop_chances",
    "structure",
    "calibrated", "complete_difference_p", "fisher_p", "fisher_p_grid", "format_p", "look_alphas", "n_for_power",
    "n_separable", "operating", "p_grid", "p_text", "p_value", "pass_hat_k", "pass_hat_ks", "power", "rejected",
    "separable", "sequential_figures", "smallest_p", "spent", "supremum", "verdict_text", "wilson_interval",
]
