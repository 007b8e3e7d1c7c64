"""Rows of a metrics.duckdb table given column by column (O-10, O-12), checked as their row models check them.

``checked_columns(table, columns)`` validates each column once, as a list, against the type of its field in the
table's row model (``ROW_MODELS``): one pydantic validation per column instead of one model per row, the same types
and the same coercions (the field's own annotation and constraints, in pydantic's default lax mode). A column the
row model does not have is refused (the models forbid extras), as is a required one left out or columns of unequal
length; a column left out that has a default is filled with it, row by row, as the model would (so every column is
written, as ``model_dump`` writes every field).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import cache
from typing import Annotated, Any, get_args

from pydantic import TypeAdapter, ValidationError
from pydantic.fields import FieldInfo

from ._rows import ROW_MODELS


@cache
def datetime_columns(table: str) -> frozenset[str]:
    """The columns of ``table`` whose row model field holds a ``datetime`` (possibly None)."""
    fields = ROW_MODELS[table].model_fields
    return frozenset(name for name, field in fields.items() if _holds(field.annotation, datetime))


def _holds(annotation: Any, kind: type) -> bool:
    return annotation is kind or any(_holds(arg, kind) for arg in get_args(annotation))


@cache
def _fields(table: str) -> dict[str, tuple[TypeAdapter[list[Any]], FieldInfo]]:
    out: dict[str, tuple[TypeAdapter[list[Any]], FieldInfo]] = {}
    for name, field in ROW_MODELS[table].model_fields.items():
        kind: Any = Annotated[(field.annotation, *field.metadata)] if field.metadata else field.annotation
        out[name] = (TypeAdapter(list[kind]), field)
    return out


def checked_columns(table: str, columns: Mapping[str, Sequence[Any]]) -> dict[str, list[Any]]:
    """``columns`` (name → one value per row) checked against ``table``'s row model, with the defaults of the
    columns left out; ``ValueError`` naming the table and column for a value or column its row model refuses."""
    if table not in ROW_MODELS:
        raise ValueError(f"unknown metrics table {table!r}; tables are {', '.join(ROW_MODELS)}")
    fields = _fields(table)
    unknown = set(columns) - set(fields)
    if unknown:
        raise ValueError(f"{table} has no column(s) {', '.join(sorted(unknown))}")
    lengths = {len(values) for values in columns.values()}
    if len(lengths) > 1:
        raise ValueError(f"{table}: columns of unequal length {sorted(lengths)}")
    n = lengths.pop() if lengths else 0
    out: dict[str, list[Any]] = {}
    for name, (adapter, field) in fields.items():
        if name not in columns:
            if field.is_required():
                raise ValueError(f"{table}.{name} is required")
            out[name] = [field.get_default(call_default_factory=True) for _ in range(n)]
            continue
        try:
            out[name] = adapter.validate_python(columns[name])
        except ValidationError as exc:
            raise ValueError(f"{table}.{name}: {exc}") from None
    return out
