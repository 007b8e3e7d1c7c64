"""Local OpenAI-compatible servers (llama.cpp, vLLM, Ollama) on a loopback address.

litellm's OpenAI provider refuses a call without a key ("Missing credentials"), even when
``api_base`` points at a local server that takes none. For a loopback ``api_base`` with no key in
the environment the adapter passes :data:`PLACEHOLDER_KEY` instead: it is never read from or
written to anywhere, and redaction removes it from whatever the harness writes, like a real key.
"""

from __future__ import annotations

import ipaddress
import os
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

PLACEHOLDER_KEY = "placeholder-key-for-local-server"


@lru_cache(maxsize=64)
def is_loopback(api_base: str | None) -> bool:
    """True when ``api_base`` names this machine: ``localhost``, 127.0.0.0/8 or ``[::1]``. Cached: a function of
    the string alone, asked twice per model call (py-spy of Q-3: 1.3 % of the runner's own CPU per call)."""
    if not api_base:
        return False
    try:
        host = urlsplit(api_base if "//" in api_base else f"//{api_base}").hostname
    except ValueError:
        return False
    if host is None:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def needs_placeholder_key(model: str, api_base: str | None, litellm: Any) -> bool:
    """True when ``model`` goes to a loopback server and litellm would miss its provider's API key.

    Any key the user did set (``OPENAI_API_KEY`` for ``openai/...``) is left to litellm as usual. litellm's answer
    (``validate_environment``: which of the provider's variables are unset) is kept per model, API base and
    environment: ``os.environ``'s encoded items (``os.environ._data``, where every change through ``os.environ``
    goes), the same objects while nothing changed (asked once per model call: 8.6 us a call, 1.5 us kept).
    """
    if not is_loopback(api_base):
        return False
    data = getattr(os.environ, "_data", None)
    if type(data) is not dict:  # not CPython's os.environ: ask every time
        return _missing_key(model, api_base, litellm)
    return _missing_key_in(model, api_base, litellm, tuple(data.items()))


@lru_cache(maxsize=16)
def _missing_key_in(model: str, api_base: str | None, litellm: Any, environ: tuple[Any, ...]) -> bool:
    return _missing_key(model, api_base, litellm)


def _missing_key(model: str, api_base: str | None, litellm: Any) -> bool:
    try:
        env = litellm.validate_environment(model=model, api_base=api_base)
    except Exception:  # an unknown provider: litellm's own error comes with the call
        return False
    return any(str(k).endswith("API_KEY") for k in env.get("missing_keys") or ())
