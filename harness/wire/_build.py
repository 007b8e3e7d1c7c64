"""The provider body a request becomes, built offline by litellm's own transformation (E-11).

``litellm.utils.return_raw_request`` runs the provider transformation and stops before the HTTP
call. The parameters are the adapter's own (``LiteLLMModel``: ``tool_choice``, one tool call per
step, ``max_tokens``, sampling), so the body built here is the body a real call sends. Only the body
is kept: litellm's headers carry the key. The key litellm is handed is its own placeholder
(``return_raw_request`` passes one), Bedrock gets dummy AWS credentials, and whatever comes back is
redacted and checked for them before it is returned.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from harness.models import LiteLLMModel, ModelRequest, ensure_litellm, redact, secrets_from_env

# Credentials never go into ``extra``: the body is built with placeholders only.
_CREDENTIAL_PARAMS = frozenset({
    "api_key", "aws_access_key_id", "aws_secret_access_key", "aws_session_token", "aws_bearer_token",
    "vertex_credentials", "azure_ad_token", "extra_headers", "headers",
})
# Dummy AWS credentials: litellm signs the Bedrock request (SigV4) before it stops, and needs some.
_DUMMY_AWS = {
    "aws_access_key_id": "AKIAWIREBODYDUMMY0000",
    "aws_secret_access_key": "wire-body-dummy-secret-not-a-key",
    "aws_region_name": "us-east-1",
}
_LITELLM_PLACEHOLDER = "my-fake-api-key"  # the key return_raw_request passes itself
_VERTEX_STUB = ("wire-body-stub-token", "wire-body-stub-project")
_AZURE_PLACEHOLDER = "https://wire-body-placeholder.openai.azure.com"
_VERTEX = frozenset({"vertex_ai", "vertex_ai_beta"})
_QUIET = threading.Lock()


class WireBuildError(Exception):
    """litellm could not build the provider body for this model (unknown provider, missing SDK)."""


def build_wire_body(
    model: str,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None = None,
    api_base: str | None = None,
    extra: dict[str, Any] | None = None,
    *,
    max_output_tokens: int | None = None,
) -> dict[str, Any]:
    """The JSON body litellm would send to ``model``'s provider for this request, without sending it.

    ``extra`` is what ``ModelRequest.extra`` carries (e.g. ``reasoning_effort``); adapter-owned and
    credential parameters are refused. Raises :class:`WireBuildError` when litellm cannot build it.
    """
    request = ModelRequest(messages=messages, tools=list(tools or []), extra=dict(extra or {}),
                           max_output_tokens=max_output_tokens)
    return request_wire_body(model, request, api_base)


def request_wire_body(model: str, request: ModelRequest, api_base: str | None = None) -> dict[str, Any]:
    """The body a :class:`ModelRequest` becomes for ``model``, sampling included, as the adapter sends it.

    A parameter litellm refuses for this model (e.g. ``temperature`` on Gemini 3.6+) is a
    :class:`WireBuildError`, as the call would be, before any request."""
    clash = sorted(_CREDENTIAL_PARAMS.intersection(request.extra))
    if clash:
        raise ValueError(f"extra may not carry credentials: {', '.join(clash)}")
    litellm, capture = ensure_litellm()
    # the adapter's own parameter assembly: the offline body must be the body a call sends
    params = LiteLLMModel(model, api_base=api_base)._params(request, litellm)
    provider = _provider(litellm, model)
    if provider == "bedrock":
        params.update(_DUMMY_AWS)
    if provider == "azure" and api_base is None and not os.environ.get("AZURE_API_BASE"):
        params["api_base"] = _AZURE_PLACEHOLDER
    call_id = f"wire-{uuid.uuid4().hex}"
    params["litellm_call_id"] = call_id
    from litellm.types.utils import CallTypes
    from litellm.utils import return_raw_request

    try:
        with _quiet(), _vertex_token(provider in _VERTEX):
            raw = return_raw_request(CallTypes.completion, params)
    finally:
        capture.pop(call_id)
    secrets = secrets_from_env() | {_LITELLM_PLACEHOLDER, *_VERTEX_STUB, *_DUMMY_AWS.values()} - {
        _DUMMY_AWS["aws_region_name"]}
    body = raw.get("raw_request_body")
    if not isinstance(body, dict):
        message = redact(first_line(str(raw.get("error") or "no body")), secrets)
        raise WireBuildError(f"litellm could not build the {provider or 'unknown'} body for {model}: {message}")
    clean: dict[str, Any] = redact(json.loads(json.dumps(body, default=str)), secrets)
    return clean


def first_line(message: str) -> str:
    """litellm's error without the traceback and debug notes it appends."""
    return message.strip().splitlines()[0] if message.strip() else message


@contextmanager
def _quiet() -> Iterator[None]:
    """litellm's loggers silent for the duration of an offline build (it logs a traceback for a failed auth)."""
    loggers = [logging.getLogger(name) for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy")]
    with _QUIET:
        levels = [lg.level for lg in loggers]
        for lg in loggers:
            lg.setLevel(logging.CRITICAL + 1)
        try:
            yield
        finally:
            for lg, level in zip(loggers, levels, strict=True):
                lg.setLevel(level)


@contextmanager
def _vertex_token(stub: bool) -> Iterator[None]:
    """Vertex AI's access token stubbed while the body is built: no credentials and no network (the body is
    the same, only the Authorization header, which is never kept, differs)."""
    if not stub:
        yield
        return
    from litellm.llms.vertex_ai.vertex_llm_base import VertexBase

    original = VertexBase.get_access_token

    def stubbed(self: Any, credentials: Any = None, project_id: Any = None, *args: Any, **kwargs: Any
                ) -> tuple[str, str]:
        return _VERTEX_STUB[0], project_id or _VERTEX_STUB[1]

    with _VERTEX_LOCK:
        setattr(VertexBase, "get_access_token", stubbed)  # noqa: B010 (a method swapped for the build's duration)
        try:
            yield
        finally:
            setattr(VertexBase, "get_access_token", original)  # noqa: B010


_VERTEX_LOCK = threading.Lock()


def provider_of(model: str) -> str | None:
    """litellm's provider name for ``model`` (``anthropic``, ``gemini``, ``bedrock``, ``openai`` ...);
    None when litellm cannot place it."""
    litellm, _ = ensure_litellm()
    return _provider(litellm, model)


def _provider(litellm: Any, model: str) -> str | None:
    try:
        return str(litellm.get_llm_provider(model)[1])
    except Exception:  # litellm raises BadRequestError for strings it cannot place
        return None


def thinking_budget(model: str, extra: dict[str, Any] | None) -> int | None:
    """The thinking token budget litellm sends to ``model`` for these parameters (e.g. ``reasoning_effort``),
    read from the body it builds: Anthropic's ``thinking.budget_tokens`` (also inside Bedrock's
    ``additionalModelRequestFields``), Gemini 2.5's ``thinkingBudget``. None when the body sets no budget
    (no thinking, adaptive thinking, Gemini 3 thinking levels)."""
    if not extra:
        return None
    body = build_wire_body(model, [{"role": "user", "content": "?"}], extra=extra, max_output_tokens=1)
    thinking = body.get("thinking") or (body.get("additionalModelRequestFields") or {}).get("thinking") or {}
    config = (body.get("generationConfig") or {}).get("thinkingConfig") or {}
    budget = thinking.get("budget_tokens") if isinstance(thinking, dict) else None
    budget = budget if budget is not None else config.get("thinkingBudget")
    return budget if isinstance(budget, int) and budget > 0 else None


def output_cap(model: str, max_output_tokens: int, extra: dict[str, Any] | None) -> int:
    """The output cap to send: the answer's cap plus the thinking budget where thinking takes one
    (Anthropic refuses ``max_tokens`` <= ``budget_tokens``; the budget is spent before the answer)."""
    return max_output_tokens + (thinking_budget(model, extra) or 0)
