"""A strict loopback emulator of Gemini generateContent (``POST /v1beta/models/{model}:generateContent``).

It enforces the documented rules (ai.google.dev Gemini API: function calling, thought signatures,
latest-model changes; shared notes, providers.md), answering 400 ``INVALID_ARGUMENT`` as the API
does:
- an API key (``x-goog-api-key`` or ``?key=``); non-empty ``contents`` with roles user / model and parts;
- a function call turn comes right after a user turn or a function response turn; a function response
  turn comes right after a function call turn and answers each of its calls;
- a trailing model turn is rejected by Gemini 3.5 Flash-Lite and every model from 3.6 on, taken as
  prefill by the others;
- Gemini 3 and later: the first function call of every model turn of the current turn (everything since
  the last user text) must carry the thought signature this server minted for it (HMAC); litellm's
  ``skip_thought_signature_validator`` placeholder counts as missing unless ``accept_placeholder``.
It plays the scripted oracle (``_policy``), thinks (thought parts when ``includeThoughts``) and reports
``usageMetadata.thoughtsTokenCount``.
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from ._anthropic import Exchange, Rejected
from ._policy import UnreadableInput, decide, function_tool
from ._signing import Signer

PLACEHOLDER = base64.b64encode(b"skip_thought_signature_validator").decode()
_VERSION = re.compile(r"gemini-(\d+)(?:\.(\d+))?-([a-z]+(?:-lite)?)")


def _version(model: str) -> tuple[int, int, str]:
    match = _VERSION.search(model)
    return (int(match.group(1)), int(match.group(2) or 0), match.group(3)) if match else (0, 0, "")


def _get(part: dict[str, Any], snake: str, camel: str) -> Any:
    return part.get(snake, part.get(camel))


@dataclass
class GeminiEmulator:
    accept_placeholder: bool = False
    signer: Signer = field(default_factory=Signer)
    exchanges: list[Exchange] = field(default_factory=list)

    @property
    def rejections(self) -> list[str]:
        return [e.error for e in self.exchanges if e.error]

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/v1beta/models/{target}", self.generate)
        return app

    async def generate(self, request: web.Request) -> web.Response:
        body: dict[str, Any] = {}
        model, _, method = request.match_info["target"].partition(":")
        try:
            if method != "generateContent":
                raise Rejected(f"method {method!r} is not emulated", 404, "NOT_FOUND")
            if not request.headers.get("x-goog-api-key") and not request.query.get("key"):
                raise Rejected("API key not valid. Please pass a valid API key.", 400, "INVALID_ARGUMENT")
            body = await request.json()
            self.check(model, body)
            reply = self.respond(model, body)
        except Rejected as exc:
            self.exchanges.append(Exchange(body, exc.status, exc.message))
            status = "INVALID_ARGUMENT" if exc.kind == "invalid_request_error" else exc.kind
            return web.json_response({"error": {"code": exc.status, "message": exc.message, "status": status}},
                                     status=exc.status)
        self.exchanges.append(Exchange(body, 200, response=reply))
        return web.json_response(reply)

    def check(self, model: str, body: dict[str, Any]) -> None:
        contents = body.get("contents")
        if not isinstance(contents, list) or not contents:
            raise Rejected("* GenerateContentRequest.contents: contents is not specified")
        for index, content in enumerate(contents):
            if content.get("role") not in ("user", "model") or not content.get("parts"):
                raise Rejected(f"* GenerateContentRequest.contents[{index}]: role must be user or model, with parts")
        for index, content in enumerate(contents):
            calls = _calls(content)
            responses = [p for p in content["parts"] if _get(p, "function_response", "functionResponse")]
            previous = contents[index - 1] if index else None
            if calls and (previous is None or previous["role"] != "user"):
                raise Rejected("Please ensure that function call turn comes immediately after a user turn or after a "
                               "function response turn.")
            if responses and (previous is None or not _calls(previous)):
                raise Rejected("Please ensure that function response turn comes immediately after a function call "
                               "turn.")
            if responses and previous is not None and len(responses) != len(_calls(previous)):
                raise Rejected("Please ensure that the number of function response parts is equal to the number of "
                               "function call parts of the function call turn.")
            following = contents[index + 1] if index + 1 < len(contents) else None
            if calls and following is not None and not any(
                    _get(p, "function_response", "functionResponse") for p in following["parts"]):
                raise Rejected("Please ensure that function response turn comes immediately after a function call "
                               "turn.")
        major, minor, family = _version(model)
        if contents[-1]["role"] == "model" and ((major, minor) >= (3, 6) or (major, minor, family) == (
                3, 5, "flash-lite")):
            raise Rejected("Requests ending with a model turn are not supported unless the last part is a function "
                           "response.")
        if major >= 3:
            self._signatures(contents)

    def _signatures(self, contents: list[dict[str, Any]]) -> None:
        start = max((i for i, c in enumerate(contents) if c["role"] == "user" and any(
            "text" in p for p in c["parts"])), default=0)
        for index in range(start, len(contents)):
            calls = _calls(contents[index])
            if not calls:
                continue
            first = calls[0]
            call = _get(first, "function_call", "functionCall")
            signature = _get(first, "thought_signature", "thoughtSignature")
            if signature is None or (signature == PLACEHOLDER and not self.accept_placeholder):
                raise Rejected(f"Function call is missing a thought_signature in functionCall parts. This is required "
                               f"for tools to work correctly, and missing thought_signature may lead to degraded model "
                               f"performance. Additional data, function call `default_api:{call.get('name')}` , "
                               f"position {index + 1}.")
            if signature != PLACEHOLDER and not self.signer.verify(signature, "call", call.get("name"),
                                                                    call.get("args") or {}):
                raise Rejected("Corrupted thought signature.")

    def respond(self, model: str, body: dict[str, Any]) -> dict[str, Any]:
        tools = [function_tool(d.get("name"), d.get("description"), d.get("parameters"))
                 for group in body.get("tools") or [] for d in _get(group, "function_declarations",
                                                                     "functionDeclarations") or []]
        try:
            decision = decide(to_openai(body), tools)
        except UnreadableInput as exc:
            raise Rejected(f"the emulated model cannot read this request: {exc.message}") from None
        config = _get(body, "generation_config", "generationConfig") or {}
        thinking_config = config.get("thinkingConfig") or config.get("thinking_config") or {}
        major = _version(model)[0]
        thinks = major >= 3 or thinking_config.get("thinkingBudget", 0) != 0
        parts: list[dict[str, Any]] = []
        thought = "Reading the request; " + (f"calling {decision.call[0]}." if decision.call else "answering.")
        if thinks and thinking_config.get("includeThoughts"):
            parts.append({"text": thought, "thought": True})
        if decision.call is not None:
            name, args = decision.call
            part: dict[str, Any] = {"functionCall": {"name": name, "args": args}}
            if major >= 3:
                part["thoughtSignature"] = self.signer.sign("call", name, args)
            parts.append(part)
        else:
            parts.append({"text": decision.text or ""})
        thoughts = len(thought) // 4 + 1 if thinks else 0
        prompt = len(json.dumps(body, ensure_ascii=False)) // 4
        candidates = sum(len(json.dumps(p, ensure_ascii=False)) for p in parts) // 4 + 1
        return {
            "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": prompt, "candidatesTokenCount": candidates,
                              "thoughtsTokenCount": thoughts, "totalTokenCount": prompt + candidates + thoughts},
            "modelVersion": model,
        }


def _calls(content: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for p in content.get("parts") or [] if _get(p, "function_call", "functionCall")]


def to_openai(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The request as OpenAI-shaped messages, one per part (what the oracle reads)."""
    system = _get(body, "system_instruction", "systemInstruction") or {}
    text = "".join(str(p.get("text", "")) for p in system.get("parts") or [])
    out: list[dict[str, Any]] = [{"role": "system", "content": text}] if text else []
    pending: list[str] = []
    for index, content in enumerate(body["contents"]):
        role = "assistant" if content["role"] == "model" else "user"
        for pos, part in enumerate(content["parts"]):
            call = _get(part, "function_call", "functionCall")
            response = _get(part, "function_response", "functionResponse")
            if call:
                call_id = str(call.get("id") or f"fc_{index}_{pos}")
                pending.append(call_id)
                out.append({"role": "assistant", "content": "", "tool_calls": [{"id": call_id, "type": "function",
                            "function": {"name": call.get("name"), "arguments": json.dumps(call.get("args") or {})}}]})
            elif response:
                call_id = str(response.get("id") or (pending.pop(0) if pending else ""))
                out.append({"role": "tool", "tool_call_id": call_id,
                            "content": json.dumps(response.get("response"), ensure_ascii=False)})
            elif "text" in part and not part.get("thought") and str(part["text"]).strip():
                out.append({"role": role, "content": part["text"]})
    return out
