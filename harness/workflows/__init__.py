"""Work on recorded runs and across runs: model sweeps (one run per model, one shared budget),
``harness rescore`` (re-judge a recorded run), and ``harness compare`` (runs side by side, replays)."""

from ._compare import RunSummary, load_runs, replays
from ._repro import Replay
from ._rescore import RescoreOutcome, RescoreRefused, rescore
from ._rescore_words import FAMILIES
from ._sweep import SweepOutcome, SweepRequest, execute_sweep, model_slug, prepare_sweep, sweep_errors

__all__ = [
    "FAMILIES", "Replay", "RescoreOutcome", "RescoreRefused", "RunSummary", "SweepOutcome", "SweepRequest",
    "execute_sweep", "load_runs", "model_slug", "prepare_sweep", "replays", "rescore", "sweep_errors",
]
