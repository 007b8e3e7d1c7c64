"""A run directory that cannot be written: a full disk, a read-only ``--out``, a lost mount.

These are the environment's problems, not the harness's: ``StorageError`` names the folder and the
operating system's reason, and the CLI exits 2 with it (never "internal error" and a traceback).
Before a run starts nothing is lost. Once it started, the run stops like any other stop (no new
trial or model call; what is on disk stays as written), the partial report is written if the disk
lets it (exit 3), and ``harness run PLAN --resume DIR`` continues once there is space again: a trial
whose record could not be written has no record, so it runs again (a model call whose line in
calls.jsonl the disk refused is not in the restored budget: the disk had no room to say it).

``storage_problem(exc)`` tells such failures (by errno, SQLite result code or DuckDB's I/O error)
from the host defects that must still raise.
"""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

import duckdb

_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EIO, errno.EFBIG,
                     errno.ENOTDIR, errno.EEXIST, errno.ENAMETOOLONG, errno.ENOENT})
_SQLITE_CODES = frozenset({8, 10, 13, 14})  # SQLITE_READONLY, SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN


class StorageError(Exception):
    """``directory`` cannot be written (exit 2, or 3 once a partial report is written)."""

    def __init__(self, directory: Path, cause: BaseException, what: str = "the run directory") -> None:
        self.directory = directory
        self.cause = cause
        self.what = what
        super().__init__(f"cannot write to {what} {directory}: {describe(cause)}")


def describe(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.errno is not None:
        where = f" ({exc.filename})" if exc.filename else ""
        return f"{exc.strerror or errno.errorcode.get(exc.errno, exc.errno)}{where}"
    return str(exc) or type(exc).__name__


def storage_problem(exc: BaseException) -> bool:
    """Whether ``exc`` is the disk's doing (full, read-only, gone), not a defect."""
    if isinstance(exc, StorageError):
        return True
    if isinstance(exc, OSError):
        return exc.errno in _ERRNOS
    if isinstance(exc, sqlite3.Error):
        code = getattr(exc, "sqlite_errorcode", None)
        return code is not None and (code & 0xFF) in _SQLITE_CODES
    return isinstance(exc, duckdb.IOException)  # its class lives in ``_duckdb``: match the class, not its module
