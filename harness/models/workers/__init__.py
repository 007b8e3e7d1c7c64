"""Model workers: litellm's part of a run's model calls in other processes (``--model-workers N``).

The runner process keeps the engine, store, budget and persistence; each worker (forked from the runner, or
a fresh interpreter: ``HARNESS_WORKER_START``) runs ``LiteLLMModel.generate`` for many calls at once on its
own event loop, so a run against a fast server uses more than one core. ``scripted/*`` models stay in the
runner's process whatever the setting.
"""

from ._fork import START_ENV, StartError, start_method
from ._pool import ModelWorkers, WorkerDefect, WorkerModel, WorkersFailed, runs_in_workers, stays_in_process

__all__ = ["START_ENV", "ModelWorkers", "StartError", "WorkerDefect", "WorkerModel", "WorkersFailed", "runs_in_workers",
           "start_method", "stays_in_process"]
