"""Ask a local server what it renders (P-80): the chat template decides what a state message becomes.

A local OpenAI-compatible server turns the messages into one prompt with the model's chat template, so
whether a trailing assistant message is a prefill, a finished message followed by a new assistant turn,
or refused is the server's to say, not a rule of a provider table and never the model's name. The
harness asks it, once per run and group, before any call, and only on a loopback ``api_base``:

- **llama.cpp** answers ``GET /props`` with its ``chat_template`` (and ``build_info``; nothing about
  prefill) and renders a chat body with ``POST /apply-template`` → ``{"prompt": …}``, through the very code
  path of ``/v1/chat/completions`` without the inference, prefill and its errors included
  (tools/server/server-context.cpp ``post_apply_template``, server-common.cpp ``oaicompat_chat_params_parse``;
  llama.cpp as vendored by llama-cpp-python 0.3.36). ``--no-prefill-assistant`` turns the prefill off.
- **vLLM** answers ``GET /version`` and renders with ``POST /tokenize`` given ``messages`` (the chat request's
  ``add_generation_prompt`` and ``continue_final_message`` defaults), the prompt read back with
  ``POST /detokenize`` (docs.vllm.ai, vllm/entrypoints/serve/tokenize/protocol.py ``TokenizeChatRequest``).
- **SGLang** answers ``GET /get_model_info``; its ``/tokenize`` takes text only (sgl-project/sglang
  serving_tokenize.py), so nothing renders a chat: the verdict stays the route's rule.

The verdict comes from the rendered prompt (``read_prompt``): it ends inside the state message (``prefill``),
or the state message is closed and a new assistant turn opens after it (``new_turn``), or the state is a
message of its own among others (``own_message``) or joined to its neighbour without a turn marker
(``merged``); a template that raises is ``rejected`` with the server's error quoted. A server that answers
none of these leaves ``unknown``, said once for the run (``LocalServer.about``). Every request is bounded
(``TIMEOUT_S``) and never goes through a proxy.
"""

from __future__ import annotations

import hashlib
import json
import time
import urllib.error
import urllib.request
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field

from harness.models import is_loopback, is_template_refusal, public_api_base
from harness.wire import RULE_BY_ID, Verdict, WireView

TIMEOUT_S = 10.0
"""Seconds one request to the local server may take (a busy llama-server still answers these at once)."""
TAIL_CHARS = 1_200
"""Characters of a rendered prompt kept: its end, where the state message and what follows it sit."""
ServerKind = Literal["llama.cpp", "vllm", "sglang", "unknown"]
Reading = Literal["prefill", "new_turn", "own_message", "merged", "rejected", "unknown"]
_STATE_TAG = "[context_state]"


class ServerInfo(BaseModel):
    """What the local server said about itself, once per run (report.json ``localServer``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    apiBase: str
    kind: ServerKind = Field(description="llama.cpp, vllm, sglang, or unknown: answered none of the questions.")
    detectedBy: str = Field(description="The question it answered, e.g. GET /props.")
    renders: str | None = Field(description="The endpoint that renders a chat (null: none).")
    chatTemplateSha256: str | None = None
    chatTemplateChars: int | None = None
    buildInfo: str | None = None
    message: str = Field(description="What the harness can learn from this server, in one sentence.")


class Rendering(BaseModel):
    """One request as the local server renders it, and what the prompt makes of the state message."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    request: str = Field(description="Which request: first (the group's first) or tool_loop.")
    endpoint: str
    reading: Reading
    detail: str = Field(description="What the prompt shows, or the server's error quoted.")
    status: int | None = Field(None, description="The HTTP status of a refusal.")
    tail: str | None = Field(None, description=f"The prompt's last {TAIL_CHARS:,} characters (null: refused).")
    promptChars: int | None = None
    prompt: str | None = Field(None, exclude=True, description="The whole prompt (kept in the run directory's "
                                                                "rendered/ folder, not in report.json).")


class _Answer(BaseModel):
    status: int
    data: Any = None
    text: str = ""


def root_of(api_base: str) -> str:
    """``http://127.0.0.1:8080/v1`` → ``http://127.0.0.1:8080`` (the servers' own endpoints sit at the root)."""
    parts = urlsplit(api_base if "//" in api_base else f"http://{api_base}")
    path = parts.path.rstrip("/")
    if path.endswith("/v1"):
        path = path[: -len("/v1")]
    return urlunsplit((parts.scheme or "http", parts.netloc, path, "", ""))


def local_server(model: str, api_base: str | None) -> LocalServer | None:
    """The server to ask for ``model`` on ``api_base``: only a loopback one, never for a scripted model."""
    if api_base is None or model.startswith("scripted/") or not is_loopback(api_base):
        return None
    return LocalServer(api_base)


class LocalServer:
    """One local server, asked lazily: what it is (once), then how it renders each body."""

    def __init__(self, api_base: str, timeout: float = TIMEOUT_S) -> None:
        self.api_base, self.root, self.timeout = api_base, root_of(api_base), timeout
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        self._about: ServerInfo | None = None
        self.asked = 0
        """Requests made to the server (bounded: a few to identify it, one or two per rendered body)."""

    # transport -------------------------------------------------------------------------------
    def _ask(self, method: str, path: str, payload: dict[str, Any] | None = None) -> _Answer | None:
        """The server's answer, or None when it did not answer (refused, timed out, not HTTP)."""
        self.asked += 1
        data = None if payload is None else json.dumps(payload, ensure_ascii=False).encode("utf-8")
        request = urllib.request.Request(self.root + path, data=data, method=method,
                                         headers={"content-type": "application/json", "accept": "application/json"})
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                return _answer(response.status, response.read())
        except urllib.error.HTTPError as exc:
            try:
                body = exc.read()
            except OSError:
                body = b""
            return _answer(exc.code, body)
        except (OSError, ValueError):  # refused, reset, timed out, a malformed URL
            return None

    # what it is --------------------------------------------------------------------------------
    def about(self) -> ServerInfo:
        if self._about is None:
            self._about = self._identify()
        return self._about

    def _identify(self) -> ServerInfo:
        base = public_api_base(self.api_base) or self.api_base
        props = self._ask("GET", "/props")
        waited = 0.0
        while props is not None and props.status == 503 and waited < self.timeout:  # llama.cpp: "Loading model"
            time.sleep(1.0)
            waited += 1.0
            props = self._ask("GET", "/props")
        if props is None:
            return ServerInfo(apiBase=base, kind="unknown", detectedBy="no answer", renders=None,
                              message=f"the server at {self.root} did not answer GET /props (connection refused or "
                                      f"no answer within {self.timeout:g} s): what its chat template makes of the "
                                      "state message is unknown")
        if props.status == 200 and isinstance(props.data, dict) and isinstance(props.data.get("chat_template"), str):
            template = str(props.data["chat_template"])
            build = props.data.get("build_info")
            return ServerInfo(
                apiBase=base, kind="llama.cpp", detectedBy="GET /props (chat_template)", renders="POST /apply-template",
                chatTemplateSha256=hashlib.sha256(template.encode("utf-8")).hexdigest(),
                chatTemplateChars=len(template), buildInfo=str(build) if build is not None else None,
                message=f"llama.cpp server ({f'build {build}, ' if build else ''}answered GET /props): each group's "
                        "requests (the first, and a tool loop's) are rendered by POST /apply-template, the chat path "
                        "without the inference; /props says nothing about prefill, the rendered prompt does")
        version = self._ask("GET", "/version")
        if version is not None and version.status == 200 and isinstance(version.data, dict) \
                and isinstance(version.data.get("version"), str):
            return ServerInfo(apiBase=base, kind="vllm", detectedBy="GET /version", buildInfo=version.data["version"],
                              renders="POST /tokenize + POST /detokenize",
                              message=f"vLLM {version.data['version']} (answered GET /version): each group's "
                                      "requests are rendered by POST /tokenize with their messages and read back "
                                      "with POST /detokenize")
        info = self._ask("GET", "/get_model_info")
        if info is not None and info.status == 200 and isinstance(info.data, dict) and "model_path" in info.data:
            return ServerInfo(apiBase=base, kind="sglang", detectedBy="GET /get_model_info", renders=None,
                              message="SGLang (answered GET /get_model_info): it has no endpoint that renders a chat "
                                      "(its /tokenize takes text), so what its template makes of the state message "
                                      "is not read from it")
        return ServerInfo(apiBase=base, kind="unknown", detectedBy="none", renders=None,
                          message=f"the server at {self.root} answers none of GET /props (llama.cpp), GET /version "
                                  "(vLLM), GET /get_model_info (SGLang): what its chat template makes of the state "
                                  "message is unknown")

    # how it renders ----------------------------------------------------------------------------
    def render(self, body: dict[str, Any], which: str = "first") -> Rendering | None:
        """The server's rendering of a chat ``body`` (as litellm sends it) and its reading; None when this
        server renders nothing (``about().renders`` is null) or stopped answering."""
        kind = self.about().kind
        if kind == "llama.cpp":
            payload = {k: v for k, v in body.items() if k not in ("stream", "stream_options")}
            answer = self._ask("POST", "/apply-template", payload)
            endpoint = "POST /apply-template"
            prompt = answer.data.get("prompt") if answer and isinstance(answer.data, dict) else None
        elif kind == "vllm":
            answer, prompt = self._vllm_prompt(body)
            endpoint = "POST /tokenize"
        else:
            return None
        if answer is None:
            return Rendering(request=which, endpoint=endpoint, reading="unknown",
                             detail=f"the server did not answer {endpoint} within {self.timeout:g} s")
        if answer.status >= 400:
            return _refusal(which, endpoint, answer)
        if not isinstance(prompt, str):
            return Rendering(request=which, endpoint=endpoint, reading="unknown",
                             detail=f"{endpoint} answered {answer.status} without a prompt")
        reading, detail = read_prompt(prompt, list(body.get("messages") or []))
        return Rendering(request=which, endpoint=endpoint, reading=reading, detail=detail,
                         tail=prompt[-TAIL_CHARS:], promptChars=len(prompt), prompt=prompt)

    def _vllm_prompt(self, body: dict[str, Any]) -> tuple[_Answer | None, str | None]:
        payload = {"model": body.get("model"), "messages": body.get("messages") or [],
                   "add_generation_prompt": body.get("add_generation_prompt", True),
                   "continue_final_message": body.get("continue_final_message", False)}
        payload |= {k: body[k] for k in ("tools", "chat_template_kwargs") if body.get(k)}
        tokens = self._ask("POST", "/tokenize", payload)
        if tokens is None or tokens.status >= 400 or not isinstance(tokens.data, dict):
            return tokens, None
        text = self._ask("POST", "/detokenize", {"model": body.get("model"), "tokens": tokens.data.get("tokens")})
        if text is None or text.status >= 400:
            return text, None
        return text, text.data.get("prompt") if isinstance(text.data, dict) else None


def _answer(status: int, raw: bytes) -> _Answer:
    text = raw.decode("utf-8", errors="replace")
    try:
        data = json.loads(text) if text else None
    except ValueError:
        data = None
    return _Answer(status=status, data=data, text=text[:2000])


def _refusal(which: str, endpoint: str, answer: _Answer) -> Rendering:
    error = answer.data.get("error") if isinstance(answer.data, dict) else None
    message = (error.get("message") if isinstance(error, dict) else None) \
        or (answer.data.get("message") if isinstance(answer.data, dict) else None) or answer.text or "no message"
    message = str(message)
    if answer.status in (404, 405, 501):  # the endpoint is not there: nothing was rendered
        return Rendering(request=which, endpoint=endpoint, reading="unknown", status=answer.status,
                         detail=f"{endpoint} is not served here (HTTP {answer.status}: {message})")
    template = " (the chat template's own error)" if is_template_refusal(message) else ""
    return Rendering(request=which, endpoint=endpoint, reading="rejected", status=answer.status,
                     detail=f"HTTP {answer.status}: {quote(message)}{template}")


def quote(message: str, limit: int = 400) -> str:
    """A server's error in one line: llama.cpp's template errors span lines (the template source and a caret
    between the lead and the ``Error: Jinja Exception: …`` line); the lead and the error line are kept."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    if len(lines) > 1:
        last = next((line for line in reversed(lines) if "exception" in line.lower() or "error" in line.lower()),
                    lines[-1])
        text = lines[0] if last == lines[0] else f"{lines[0]} … {last}"
    else:
        text = lines[0] if lines else ""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _text(content: Any) -> str:
    parts = [content] if isinstance(content, str) else [p.get("text") for p in content or [] if isinstance(p, dict)]
    return "".join(str(p) for p in parts if p)


def read_prompt(prompt: str, messages: list[dict[str, Any]]) -> tuple[Reading, str]:
    """What the rendered ``prompt`` makes of the request's state message (the one whose text starts with
    ``[context_state]``): where its text sits and what the template put around it."""
    index = next((i for i in range(len(messages) - 1, -1, -1)
                  if _text(messages[i].get("content")).lstrip().startswith(_STATE_TAG)), None)
    if index is None:
        return "own_message", "the template renders the request (it carries no state message)"
    text = _text(messages[index].get("content"))
    at = prompt.rfind(text)
    if at < 0:
        text = text.strip()
        at = prompt.rfind(text)
    if at < 0:
        return "unknown", "the rendered prompt does not carry the state message's text (the template changed it)"
    after = prompt[at + len(text):]
    role = str(messages[index].get("role"))
    if index == len(messages) - 1:
        if not after.strip():
            return "prefill", "the rendered prompt ends with the state text, no end of turn after it"
        if role == "assistant":
            return "new_turn", f"the rendered prompt has {_short(after)} after the state text"
        return "own_message", f"the state is the last message ({role}), followed by {_short(after)}"
    gaps = []
    before = _text(messages[index - 1].get("content")) if index > 0 else ""
    if before.strip():
        end = prompt.rfind(before.strip(), 0, at)
        if end >= 0:
            gaps.append(prompt[end + len(before.strip()):at])
    following = _text(messages[index + 1].get("content")).strip()
    if following:
        start = prompt.find(following, at + len(text))
        if start >= 0:
            gaps.append(after[: start - at - len(text)])
    if any(not gap.strip() for gap in gaps):
        return "merged", "nothing but white space separates the state text from its neighbour's in the rendered prompt"
    later = len(messages) - 1 - index
    return "own_message", (f"the state is {_article(role)} {role} message {later} message(s) before the end, "
                           "with the template's turn markers around it")


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def _short(text: str, limit: int = 60) -> str:
    shown = json.dumps(text[:limit], ensure_ascii=False)
    return shown + ("…" if len(text) > limit else "")


_READING_RULE = {"prefill": "local-template-prefill", "new_turn": "local-template-new-turn",
                 "own_message": "local-template-own-message", "merged": "local-template-merged",
                 "rejected": "local-template-rejected", "unknown": "local-server-unrendered"}
_UNASKED = frozenset({"local-server-trailing-assistant", "local-server-roles-template"})
"""The table's rules for a local server nobody asked (offline): unknown. A server's answer replaces them."""


def rendered_verdicts(verdicts: list[Verdict], rendering: Rendering | None, wire: WireView,
                      server: ServerInfo) -> list[Verdict]:
    """The body's verdicts with the server's rendering in place of the unasked local-server rule: its reading
    on the state's turn (prefill, new_turn, own_message, merged), a template's refusal (rejected, the error
    quoted) or, when the server rendered nothing, ``unknown`` where the state's treatment hangs on it (the
    server's own answer is said once, in ``ServerInfo.message``, not per group)."""
    if rendering is None or rendering.reading == "unknown":
        if not any(v.rule in _UNASKED for v in verdicts):
            return verdicts
        why = rendering.detail if rendering is not None else None  # the server's own answer is said once
        return [_server_verdict("unknown", why, v.turn) if v.rule in _UNASKED else v for v in verdicts]
    kept = [v for v in verdicts if v.rule not in _UNASKED and (v.rule is not None or v.kind != "ok")]
    if rendering.reading == "rejected":
        return kept + [_server_verdict("rejected", rendering.detail, None)]
    if wire.state is None:  # no state message: the rendering shows the template takes the request's roles
        return kept or [Verdict(kind="ok", rule=None, message=f"the local server renders the request as it is built "
                                                              f"(it carries no state message): {rendering.detail}")]
    return kept + [_server_verdict(rendering.reading, rendering.detail, wire.state.turn)]


def _server_verdict(reading: Reading, detail: str | None, turn: int | None) -> Verdict:
    rule = RULE_BY_ID[_READING_RULE[reading]]
    return Verdict(kind=rule.kind, rule=rule.id, message=f"{rule.says}: {detail}" if detail else rule.says,
                   source=rule.source,
                   date=rule.date, turn=turn, treatment=rule.treatment)
