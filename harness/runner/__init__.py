"""The plan runner (X-10 … X-81, O-1): executes a plan into a run directory — staged experiments with
gating, budgets, stop conditions, persistence and resume — and writes the directory's outputs."""

from ._budget import CAP_FIELDS, BudgetLedger, Spent, StopRequested
from ._execute import RunOutcome, RunRequest, check_params, execute, prepare_prices
from ._lock import RunLocked, exclusive, shared
from ._persist import MANIFEST, ResumeRefused, RunDir
from ._prices import PriceTable, PriceUnknown, build_price_table, parse_price
from ._reasoning import AgentCalls, ParamsRefused, agent_calls, refused_message
from ._resume import BudgetStop, RunChoices, budget_stop, read_settings, restore, resume_command
from ._runner import Experiment, Settings, default_out_dir
from ._storage import StorageError, storage_problem

__all__ = [
    "CAP_FIELDS", "MANIFEST", "AgentCalls", "BudgetLedger", "BudgetStop", "Experiment", "PriceTable", "PriceUnknown",
    "ResumeRefused", "RunChoices", "RunDir", "RunLocked", "RunOutcome", "RunRequest", "Settings", "Spent",
    "StopRequested", "StorageError", "ParamsRefused",
    "agent_calls", "budget_stop", "build_price_table", "default_out_dir", "exclusive", "execute", "parse_price",
    "check_params", "prepare_prices", "refused_message",
    "read_settings", "restore", "resume_command", "shared", "storage_problem",
]
