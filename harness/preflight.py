"""Provider preflight: can this protocol's request end with an assistant message on this model?

Placement A and unified@2 end every request with an assistant ``context_state`` message. What a
provider makes of that differs (see the litellm notes): Anthropic models with assistant prefill
continue that text; Claude 4.6+ and Gemini reject the request ("must end with a user message");
OpenAI-style chat APIs start a new assistant turn; llama.cpp's server treats it as prefill. The
runner calls :func:`preflight` before any model call and records the verdict; ``harness render
--model`` shows it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from protocols import AgentConfig, MessageDraft, Protocol, new_run_id
from protocols.store import MemoryStore

from .models import ensure_litellm, supports_assistant_prefill

Verdict = Literal["ok", "prefill", "rejected", "new_turn", "server_dependent", "unknown"]


class Preflight(BaseModel):
    model_config = ConfigDict(frozen=True)

    protocol: str
    placement: str | None
    model: str
    provider: str | None
    endsWith: Literal["user", "assistant", "tool"]
    verdict: Verdict
    flagged: bool
    """True when the request's meaning changes (prefill) or the provider refuses it."""
    message: str


def last_role(protocol: Protocol) -> str:
    """The role of the last message of a request this protocol builds (probed on a one-input session)."""
    store = MemoryStore()
    run_id = new_run_id()
    store.create_session("preflight", {"activeWindow": "main"})
    store.append("preflight", MessageDraft(run_id=run_id, window_id="main", role="user", kind="input",
                                           content="?", input_run=run_id))
    from protocols import FrozenView

    request = protocol.project(store, "preflight", FrozenView(revision=0, upper_bound=1, run_id=run_id),
                               AgentConfig(systemPrompt="{{context_protocol}}"))
    return str(request.messages[-1]["role"])


def _provider(model: str) -> str | None:
    if model.startswith("scripted/"):
        return "scripted"
    litellm, _ = ensure_litellm()
    try:
        return str(litellm.get_llm_provider(model)[1])
    except Exception:  # litellm raises BadRequestError for strings it cannot place
        return None


def preflight(protocol: Protocol, model: str, api_base: str | None = None) -> Preflight:
    ends = last_role(protocol)
    placement = protocol.state_placement
    provider = _provider(model)
    base = {"protocol": protocol.key, "placement": placement, "model": model, "provider": provider, "endsWith": ends}
    if ends != "assistant":
        return Preflight(**base, verdict="ok", flagged=False,
                         message=f"requests end with a {ends} message: every provider accepts them as a new turn")
    name = model.lower()
    if provider == "scripted":
        return Preflight(**base, verdict="ok", flagged=False,
                         message="scripted model: reads the trailing assistant message as the script decides")
    if provider == "gemini" or (provider and provider.startswith("vertex") and "gemini" in name):
        return Preflight(**base, verdict="rejected", flagged=True,
                         message="Gemini rejects a request that does not end with a user message (HTTP 400); "
                                 "such calls are provider_rejected, not model failures")
    if provider == "anthropic" or "claude" in name:
        prefill = supports_assistant_prefill(model)
        if prefill:
            return Preflight(**base, verdict="prefill", flagged=True,
                             message="Anthropic treats a trailing assistant message as prefill: the model "
                                     "continues the context_state text instead of answering the user")
        return Preflight(**base, verdict="rejected", flagged=True,
                         message="this Anthropic model has no assistant prefill (Claude 4.6+): the request is "
                                 "rejected with 400 'must end with a user message'")
    if api_base or provider in {"hosted_vllm", "ollama", "ollama_chat", "llamafile", "lm_studio"}:
        return Preflight(**base, verdict="server_dependent", flagged=True,
                         message="a local OpenAI-compatible server: llama.cpp's server treats a trailing "
                                 "assistant message as prefill, most chat templates start a new turn")
    if provider in {"openai", "azure", "openrouter", "groq", "together_ai", "deepseek", "mistral"}:
        return Preflight(**base, verdict="new_turn", flagged=False,
                         message="the chat API starts a new assistant turn after the trailing assistant message")
    return Preflight(**base, verdict="unknown", flagged=True,
                     message=f"unknown provider {provider!r}: check how it treats a trailing assistant message")
