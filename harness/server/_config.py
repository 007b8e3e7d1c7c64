"""Settings of the scripted-model server and its deterministic fault plan (X-64)."""

from __future__ import annotations

import random
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

FaultKind = Literal["429", "500", "timeout", "drop", "malformed", "context"]
TRANSIENT_FAULTS: tuple[FaultKind, ...] = ("429", "500", "timeout", "drop", "malformed")
"""The default draw at ``fault_rate``: faults a client may retry."""
FAULT_KINDS: tuple[FaultKind, ...] = (*TRANSIENT_FAULTS, "context")
"""``context``: llama.cpp's HTTP 400 ``exceed_context_size_error`` (a set-up error, never retried)."""
LOOPBACK = "127.0.0.1"


class ServerConfig(BaseModel):
    """``host`` exists only to be checked: anything but 127.0.0.1 is refused (Q-22)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    host: str = LOOPBACK
    port: int = Field(default=0, ge=0, le=65535)
    model: str = "oracle"
    latency_ms: float = Field(default=0.0, ge=0)
    fault_rate: float = Field(default=0.0, ge=0, le=1)
    fault_kinds: tuple[FaultKind, ...] = TRANSIENT_FAULTS
    fault_schedule: dict[int, FaultKind] = Field(default_factory=dict)
    seed: int = 0
    retry_after_s: float = Field(default=1.0, ge=0)
    timeout_fault_s: float = Field(default=30.0, gt=0, le=600)
    reject_trailing_assistant: bool = False
    context_window_tokens: int | None = Field(default=None, gt=0)
    usage_scale: float = Field(default=1.0, gt=0, le=100)
    """Reported usage = the server's own count × this (a tokenizer or chat template that counts more
    or less than litellm's estimate); completion tokens stay within ``max_tokens``."""

    @field_validator("host")
    @classmethod
    def _loopback_only(cls, value: str) -> str:
        if value != LOOPBACK:
            raise ValueError(f"serve-scripted binds to {LOOPBACK} only (Q-22); refusing host {value!r}")
        return value

    @model_validator(mode="after")
    def _kinds_present(self) -> ServerConfig:
        if self.fault_rate > 0 and not self.fault_kinds:
            raise ValueError("fault_rate > 0 needs at least one fault kind")
        return self

    def fault_for(self, request_number: int) -> FaultKind | None:
        """The fault (or None) for the n-th request (1-based): the schedule first, else a draw that
        depends only on ``seed`` and ``n``, so a rerun injects the same faults in the same places."""
        if request_number in self.fault_schedule:
            return self.fault_schedule[request_number]
        if self.fault_rate <= 0:
            return None
        rng = random.Random(f"{self.seed}:{request_number}")
        if rng.random() >= self.fault_rate:
            return None
        return rng.choice(self.fault_kinds)


def parse_fault_kinds(text: str) -> tuple[FaultKind, ...]:
    """``"429,500,timeout"`` → kinds; raises ValueError naming the unknown one."""
    kinds = [k.strip() for k in text.split(",") if k.strip()]
    for kind in kinds:
        if kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {kind!r}; choose from {', '.join(FAULT_KINDS)}")
    return tuple(kinds)  # type: ignore[arg-type]


def parse_fault_schedule(text: str) -> dict[int, FaultKind]:
    """``"3:429,5:drop"`` → ``{3: "429", 5: "drop"}`` (request numbers are 1-based)."""
    schedule: dict[int, FaultKind] = {}
    for item in (i.strip() for i in text.split(",")):
        if not item:
            continue
        number, sep, kind = item.partition(":")
        if not sep or not number.strip().isdigit() or int(number) < 1:
            raise ValueError(f"fault schedule entry {item!r}: expected N:KIND with N >= 1")
        schedule[int(number)] = parse_fault_kinds(kind)[0] if kind.strip() else _missing(item)
    return schedule


def _missing(item: str) -> FaultKind:
    raise ValueError(f"fault schedule entry {item!r}: missing fault kind")
