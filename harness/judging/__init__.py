"""Judging a trial (X-11, X-50, 03-experiments.md's check table): its checks, its verdict, a failed
trial's failure mode and its repeated tool calls, from what the run directory records."""

from ._checks import TrialView, trial_check, turn_check
from ._diagnose import diagnose, shape_of_pass
from ._judge import judge
from ._repeats import mark_calls
from ._stored import decode_snapshot, decode_snapshots

__all__ = ["TrialView", "decode_snapshot", "decode_snapshots", "diagnose", "judge", "mark_calls", "shape_of_pass",
           "trial_check", "turn_check"]
