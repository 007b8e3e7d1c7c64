"""The plan runner (X-10 … X-81, O-1 … O-25): staged experiments with gating, budgets, stop
conditions, checks, persistence and resume, and the run directory's outputs."""

from ._budget import CAP_FIELDS, BudgetLedger, Spent, StopRequested
from ._execute import RunOutcome, RunRequest, execute, prepare_prices
from ._lock import RunLocked, exclusive, shared
from ._persist import MANIFEST, ResumeRefused, RunDir
from ._prices import PriceTable, PriceUnknown, build_price_table, parse_price
from ._records import CheckResult, TrialRecord, trial_id
from ._rescore import RescoreOutcome, RescoreRefused, rescore
from ._resume import BudgetStop, RunChoices, budget_stop, read_settings, restore, resume_command
from ._runner import Experiment, Settings, default_out_dir
from ._storage import StorageError, storage_problem
from ._sweep import SweepOutcome, SweepRequest, execute_sweep, model_slug, prepare_sweep, sweep_errors

__all__ = [
    "CAP_FIELDS", "MANIFEST", "BudgetLedger", "BudgetStop", "CheckResult", "Experiment", "PriceTable", "PriceUnknown",
    "ResumeRefused", "RescoreOutcome", "RescoreRefused", "RunChoices", "RunDir", "RunLocked", "RunOutcome",
    "RunRequest", "Settings", "Spent", "StopRequested", "StorageError", "SweepOutcome", "SweepRequest",
    "TrialRecord",
    "budget_stop", "build_price_table", "default_out_dir", "exclusive", "execute", "execute_sweep", "model_slug",
    "parse_price",
    "prepare_prices", "prepare_sweep", "read_settings", "rescore", "restore", "resume_command", "shared",
    "storage_problem", "sweep_errors",
    "trial_id",
]
