"""Real mounts for storage tests: a read-only bind mount, a small tmpfs. Skipped where mounting is
not permitted (root can write to any folder chmod makes read-only, so a mount is the honest test)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def mount(*args: str) -> None:
    done = subprocess.run(["mount", *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"mounting is not permitted here: {done.stderr.strip() or done.returncode}")


@contextmanager
def mounted(target: Path, *args: str) -> Iterator[Path]:
    target.mkdir(parents=True, exist_ok=True)
    mount(*args, str(target))
    try:
        yield target
    finally:
        subprocess.run(["umount", "-l", str(target)], check=False)


@contextmanager
def read_only(source: Path, target: Path) -> Iterator[Path]:
    """``source`` seen read-only at ``target`` (a read-only bind mount)."""
    with mounted(target, "--bind", str(source)) as ro:
        mount("-o", "remount,ro,bind", str(ro))
        yield ro
