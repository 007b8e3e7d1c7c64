"""The one error a model call raises.

    ModelCallError(kind, message, status_code, retries)
      kind = "infrastructure"     provider unreachable / rate-limited / 5xx / timeout after retries,
                                  or the harness's credentials or endpoint are wrong (X-31)
      kind = "provider_rejected"  the provider refused this request (HTTP 400 other than context
                                  window), e.g. "must end with a user message"; not a model failure
      kind = "context_window"     the request does not fit the model's context
      kind = "unsupported_input"  a scripted model cannot interpret the request (its task reading does
                                  not cover the plan's wording): a set-up error, deterministic, so
                                  never retried, never a model failure, never counted as unhealthy

``sent`` is False when no request went out at all: the run's memo of deterministic refusals
(``harness.runner._refusals``) refused it because the provider had refused the very same request; such
a call is no model call (not counted, no attempt) but ends its trial like the refusal it repeats.

Anything else escaping the adapter is a host defect.
"""

from __future__ import annotations

from ._types import ErrorKind, RetryRecord


class ModelCallError(Exception):
    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        status_code: int | None = None,
        retries: list[RetryRecord] | None = None,
        sent: bool = True,
    ) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind: ErrorKind = kind
        self.message = message
        self.status_code = status_code
        self.retries: list[RetryRecord] = list(retries or [])
        self.sent = sent

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "kind": self.kind,
            "message": self.message,
            "status_code": self.status_code,
            "retries": [r.model_dump() for r in self.retries],
        }
        if not self.sent:
            out["sent"] = False
        return out


class UnreadableInput(Exception):
    """A scripted model cannot interpret the request it was given: its task reading does not cover
    the plan's wording. A set-up problem of the experiment, never a model failure: ``run_scripted``
    turns it into a ``ModelCallError("unsupported_input")``, the trial ends ``error`` and is not
    retried (the same input gives the same error)."""

    def __init__(self, text: str, reason: str, model: str | None = None) -> None:
        self.text = text
        self.reason = reason
        self.model = model
        super().__init__(self.message)

    @property
    def message(self) -> str:
        who = f"scripted/{self.model}" if self.model else "the scripted model"
        shown = " ".join(self.text.split())
        shown = shown if len(shown) <= 160 else shown[:159] + "…"
        return f"{who} cannot read its input {shown!r}: {self.reason}"

    def named(self, model: str) -> UnreadableInput:
        """The same error naming the model that raised it."""
        return UnreadableInput(self.text, self.reason, model)
