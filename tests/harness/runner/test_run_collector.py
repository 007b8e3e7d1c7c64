"""The collector's first threshold is raised while a run makes calls, and restored after it (Q-3)."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from harness import RUN_THRESHOLD, run_collector
from tests.harness.runner._run import run_plan


@pytest.fixture
def default_threshold() -> object:
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*before)


def test_raised_inside_and_restored_after_an_error(default_threshold: object) -> None:
    with pytest.raises(RuntimeError), run_collector():
        assert gc.get_threshold() == (RUN_THRESHOLD, 10, 10)
        raise RuntimeError("the run failed")
    assert gc.get_threshold() == (700, 10, 10)


def test_never_lowered(default_threshold: object) -> None:
    gc.set_threshold(RUN_THRESHOLD * 2, 5, 7)
    with run_collector():
        assert gc.get_threshold() == (RUN_THRESHOLD * 2, 5, 7)
    assert gc.get_threshold() == (RUN_THRESHOLD * 2, 5, 7)


def test_a_run_calls_with_the_raised_threshold(tmp_path: Path, default_threshold: object) -> None:
    seen: list[int] = []
    outcome = run_plan(tmp_path / "run", groups=["A"], stages=["simple"],
                       on_trial=lambda *_: seen.append(gc.get_threshold()[0]))
    assert outcome.status == "completed"
    assert seen and set(seen) == {RUN_THRESHOLD}
    assert gc.get_threshold() == (700, 10, 10)


class _Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the cyclic collector frees it


def test_garbage_cycles_are_still_collected_within_one_threshold(default_threshold: object) -> None:
    """Raising the threshold only delays the cyclic collector: a cycle made inside the span is freed once at
    most one threshold's worth of new container objects has been made after it."""
    import weakref

    gc.collect()
    with run_collector():
        first = _Node()
        gone = weakref.ref(first)
        del first
        assert gone() is not None  # a cycle outlives its last outside reference until a collection
        for _ in range(RUN_THRESHOLD + 1_000):  # each node at least one new container object
            _Node()
        assert gone() is None
