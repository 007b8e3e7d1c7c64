"""Write and read report.json (O-2): atomic writes, a clear error for anything unreadable."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from pydantic import ValidationError

from protocols import InvalidInput

from ._models import SCHEMA_VERSION, Report


class ReportError(InvalidInput):
    """A report.json that is missing, not JSON, of another schema version, or not a report."""


def write_report(report: Report, path: str | Path) -> Path:
    """Write ``report`` as UTF-8 JSON (two-space indent); readers never see a half-written file."""
    return write_json_atomic(report.model_dump_json(indent=2) + "\n", path)


def write_json_atomic(text: str, path: str | Path) -> Path:
    """Write ``text`` to ``path`` through a temporary file and a rename, fsynced."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".report-", suffix=".json", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def read_report(path: str | Path) -> Report:
    source = Path(path)
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ReportError(f"no report at {source}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ReportError(f"cannot read {source}: {exc}") from None
    if not isinstance(data, dict):
        raise ReportError(f"{source} is not a report (a JSON object is expected)")
    version = data.get("schemaVersion")
    if version != SCHEMA_VERSION:
        raise ReportError(f"{source} has schemaVersion {version!r}; this harness reads {SCHEMA_VERSION}")
    try:
        return Report.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ReportError(f"{source} is not a valid report ({exc.error_count()} problem(s); first: "
                          f"{where}: {first['msg']})") from None
