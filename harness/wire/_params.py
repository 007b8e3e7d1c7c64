"""Parameters a model does not take, found before any call by litellm's own validation (E-11, X-20).

A call's parameters go through litellm's provider transformation, which either refuses a value the model
does not take (it raises ``UnsupportedParamsError``: gpt-5 and the o-series take temperature 1 only while
reasoning, a model without reasoning takes no ``reasoning_effort``) or leaves it out of the body without a
word (a Kimi reasoning model's temperature; gpt-5's ``top_p``, which the adapter already leaves out where
litellm says the provider takes none). Both are found offline, by building the body the adapter would send
(``request_wire_body``) with and without each parameter the request sets: no hand-kept list of models
decides, so a new model or a litellm upgrade is read as litellm reads it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.models import ModelRequest

from ._build import WireBuildError, request_wire_body

SAMPLING: tuple[str, ...] = ("temperature", "top_p", "seed")
"""The sampling parameters, in litellm's names (``ModelRequest`` fields); any other is a provider parameter."""
_REFUSAL = "UnsupportedParamsError"


@dataclass(frozen=True)
class UnsentParam:
    """A parameter of the request that does not reach ``model``'s provider."""

    name: str
    """litellm's name: ``temperature``, ``top_p``, ``seed``, ``reasoning_effort`` or a ``models.params`` key."""
    value: Any
    refused: bool
    """True: litellm raises for it (every call would fail before it is sent); False: it leaves it out."""
    why: str
    """litellm's own message (its first line), or that the body is the same without it."""

    @property
    def sampling(self) -> bool:
        return self.name in SAMPLING


def unsent_params(model: str, request: ModelRequest, api_base: str | None = None) -> list[UnsentParam]:
    """The parameters of ``request`` that ``model`` does not take: first those litellm refuses (removed one at
    a time, each the one whose removal lets the body build or changes litellm's complaint), then those the
    body built without them equals. Empty when the body cannot be built for another reason (the preflight
    says why) or every parameter is sent."""
    found: list[UnsentParam] = []
    current = request
    while True:
        try:
            body = request_wire_body(model, current, api_base)
            break
        except (WireBuildError, ValueError) as exc:
            why = refusal(str(exc))
            if why is None:
                return found
            culprit = next((name for name in _set(current) if _relieves(model, _without(current, name), api_base, why)),
                           None)
            if culprit is None:
                return found
            found.append(UnsentParam(culprit, _value(current, culprit), True, why))
            current = _without(current, culprit)
    for name in _set(current):
        try:
            alone = request_wire_body(model, _without(current, name), api_base)
        except (WireBuildError, ValueError):
            continue
        if alone == body:
            found.append(UnsentParam(name, _value(current, name), False,
                                     f"litellm leaves it out of the body it builds for {model}"))
    return found


def refusal(message: str) -> str | None:
    """litellm's ``UnsupportedParamsError`` message in a build error, its first sentence-line; None: another error."""
    at = message.find(_REFUSAL)
    if at < 0:
        return None
    text = message[at + len(_REFUSAL):].lstrip(": ").splitlines()[0].strip()
    return text.split(" To drop ")[0].strip() or _REFUSAL


def _relieves(model: str, request: ModelRequest, api_base: str | None, why: str) -> bool:
    """Whether the request without one parameter builds, or fails with another complaint than ``why``."""
    try:
        request_wire_body(model, request, api_base)
    except (WireBuildError, ValueError) as exc:
        return refusal(str(exc)) not in (None, why)
    return True


def _set(request: ModelRequest) -> list[str]:
    """The parameters the request sets: sampling first, then the provider parameters in their order."""
    return [n for n in SAMPLING if getattr(request, n) is not None] + list(request.extra)


def _value(request: ModelRequest, name: str) -> Any:
    return getattr(request, name) if name in SAMPLING else request.extra.get(name)


def _without(request: ModelRequest, name: str) -> ModelRequest:
    if name in SAMPLING:
        return request.model_copy(update={name: None})
    return request.model_copy(update={"extra": {k: v for k, v in request.extra.items() if k != name}})
