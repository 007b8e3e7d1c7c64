"""One-time litellm set-up, done lazily on first model use (the import takes seconds).

The offline switches are already in the environment (``harness/__init__.py``) before this import.
``LITELLM_MODIFY_PARAMS`` / ``modify_params`` are never set: they silently repair tool pairing.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import TYPE_CHECKING, Any

import harness

from ._scripted_call import ResolveModel, unregistered

if TYPE_CHECKING:
    from ._capture import RequestCapture
    from ._scripted_provider import ScriptedProvider

READONLY_WARNING = r".*on TypedDict class .* using the `ReadOnly` qualifier"

_LOCK = threading.Lock()
_STATE: dict[str, Any] = {}


def ensure_litellm() -> tuple[ModuleType, RequestCapture]:
    """Import and configure litellm once; return it with the request-capture logger."""
    with _LOCK:
        if "litellm" not in _STATE:
            harness.import_litellm()  # collector paused, then frozen
            import litellm

            # litellm builds some pydantic schemas lazily, on the first call down a given path;
            # pydantic warns about their ReadOnly TypedDict items each time. Harmless, but noisy
            # on stderr and fatal wherever warnings are errors (pytest has a matching ignore).
            warnings.filterwarnings("ignore", message=READONLY_WARNING, category=UserWarning)

            from ._capture import RequestCapture
            from ._scripted_provider import PROVIDER, ScriptedProvider

            litellm.disable_hf_tokenizer_download = True
            litellm.suppress_debug_info = True  # no "Give Feedback" banners on stdout
            capture = RequestCapture()
            litellm.input_callback.append(capture)
            handler = ScriptedProvider()
            others = [e for e in litellm.custom_provider_map if e.get("provider") != PROVIDER]
            litellm.custom_provider_map = [*others, {"provider": PROVIDER, "custom_handler": handler}]
            _STATE.update(litellm=litellm, capture=capture, handler=handler)
        return _STATE["litellm"], _STATE["capture"]


def _handler() -> ScriptedProvider:
    ensure_litellm()
    handler: ScriptedProvider = _STATE["handler"]
    return handler


@contextmanager
def scripted_resolver(resolve_model: ResolveModel) -> Iterator[None]:
    """Route ``scripted/<name>`` (through litellm) to another registry for the duration (tests); a
    ``use_scripted`` meanwhile records its registry for afterwards without replacing this one."""
    handler = _handler()
    previous = handler.resolve_model
    _STATE["overrides"] = _STATE.get("overrides", 0) + 1
    handler.resolve_model = resolve_model
    try:
        yield
    finally:
        _STATE["overrides"] -= 1
        handler.resolve_model = _STATE.get("registry", previous) if previous is unregistered else previous


def use_scripted(resolve_model: ResolveModel) -> None:
    """Route ``scripted/<name>`` (through litellm) to this registry from now on, process-wide. The
    callers that build models hand it in (``harness.scripted.get_scripted``): the model layer knows
    no scripted model of its own. Inside ``scripted_resolver`` the override stays in force."""
    handler = _handler()
    _STATE["registry"] = resolve_model
    if not _STATE.get("overrides"):
        handler.resolve_model = resolve_model


def scripted_registered() -> bool:
    return _handler().resolve_model is not unregistered


def resolve_scripted(name: str) -> Any:
    """The scripted model ``scripted/<name>`` will reach (KeyError when unknown)."""
    return _handler().resolve_model(name)
