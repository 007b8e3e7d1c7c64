"""One run's records and its model calls (E-7, E-11, X-20): each call reserved and settled with the budget's
guard, accounted to the run and snapshotted, whether it answered or failed."""

from __future__ import annotations

from typing import Any

from harness.models import ChatModel, ModelCallError, ModelOutput, ModelRequest, Usage, cap_output
from protocols import FrozenView, MaintainerBinding, ProjectionSource

from ._encode import EncodedRequest, _Piece
from ._host import EngineBase
from ._tokens import count_messages
from ._types import CallRecord, MaintenanceRecord, RunLimits, RunResult, ToolCallRecord


class RunCalls:
    """The records of one run while its loop goes on, and its model calls."""

    def __init__(self, engine: EngineBase, session_id: str, run_id: str, text: str,
                 limits: RunLimits | None = None) -> None:
        self.e = engine
        self.limits = limits or engine.limits
        self.session_id = session_id
        self.run_id = run_id
        self.text = text
        self.tool_calls: list[ToolCallRecord] = []
        self.calls: list[CallRecord] = []
        self.maintenance: list[MaintenanceRecord] = []
        self.snapshot_ids: list[str] = []
        self.usage = Usage()
        self.usd: float | None = 0.0
        self.steps = 0
        self._bound: MaintainerBinding | None = None

    def result(self, status: str, answer: str | None = None, error_class: str | None = None,
               error: str | None = None) -> RunResult:
        return RunResult.model_validate(dict(
            session_id=self.session_id, run_id=self.run_id, input=self.text, final_answer=answer, status=status,
            error_class=error_class, error=error, steps=self.steps, tool_calls=self.tool_calls, calls=self.calls,
            maintenance=self.maintenance, usage=self.usage, usd=self.usd, snapshot_ids=self.snapshot_ids))

    def _account(self, output: ModelOutput) -> None:
        self.usage = self.usage + output.usage
        if self.usd is not None:
            self.usd = None if output.usd is None else self.usd + output.usd

    # model calls -----------------------------------------------------------------------------------
    async def _call(self, role: str, model: ChatModel, model_name: str, request: ModelRequest,
                    frozen: FrozenView | None, sources: list[ProjectionSource] | None,
                    segments: dict[str, int] | None, tools_json: str | None = None,
                    defer: bool = False, pieces: list[_Piece] | None = None,
                    ) -> tuple[ModelOutput, tuple[str, str] | None]:
        """One model call, accounted and snapshotted. ``tools_json``: ``json.dumps(request.tools,
        ensure_ascii=False)`` when the caller has it (the step's one encoding of the tools). With ``defer``
        an answer's snapshot is returned (its id and JSON) for the caller to write with the answer's message
        (``append_after_snapshot``) instead of written here; a failed call's is always written here. ``pieces``:
        ``message_pieces(request.messages)``, when the caller has them."""
        e = self.e
        reservation = None
        if e.guard is not None:
            # the per-message counts are cached; their sum slightly over-counts, which a worst case may
            prompt_tokens = (sum(segments.values()) if segments
                             else count_messages(model_name, request.messages, request.tools, tools_json))
            reservation = await e.guard.reserve(role, model_name, request, prompt_tokens)
        seq = e.next_seq(self.session_id)
        params: dict[str, Any] = {"max_tokens": request.max_output_tokens, "temperature": request.temperature,
                                  "timeout": request.timeout_seconds}
        params |= {k: v for k, v in (("top_p", request.top_p), ("seed", request.seed)) if v is not None}
        if request.extra:  # only when set: a request without provider parameters hashes as it always did
            params["extra"] = request.extra
        wire_request = {"model": model_name, "messages": request.messages, "tools": request.tools, "params": params}
        encoded = EncodedRequest(wire_request, e._secrets, tools_json, pieces)  # the hash and the snapshot's request
        base = {"seq": seq, "role": role, "runId": self.run_id, "step": self.steps, "model": model_name,
                "frozenView": frozen.wire() if frozen else None, "request": wire_request, "sources": None,
                "segments": segments, "requestSha256": encoded.sha256}
        try:
            output = cap_output(await model.generate(request))  # an answer over the caps is cut, marked
        except ModelCallError as exc:
            if e.guard is not None:
                await e.guard.settle(reservation, None, exc)
            status = exc.kind
            snap = e.snapshot(self.session_id, {**base, "response": None, "error": exc.to_dict(),
                                                "retries": [r.model_dump() for r in exc.retries]}, sources, encoded)
            self.snapshot_ids.append(snap)
            self.calls.append(CallRecord(seq=seq, role=role, model=model_name, snapshot_id=snap, usage=Usage(),
                                         usd=0.0, price_known=True, latency_ms=0.0, retries=len(exc.retries),
                                         status=status, request_sha256=base["requestSha256"],
                                         segments=segments or {}))
            raise
        except BaseException:  # a defect or a cancellation: free the reservation (and the model's probe slot)
            if e.guard is not None:
                await e.guard.settle(reservation, None)
            raise
        if e.guard is not None:
            await e.guard.settle(reservation, output)
        self._account(output)
        snap, text = e.snapshot_text(self.session_id, {
            **base,
            "response": {"content": output.content, "toolCalls": [c.model_dump() for c in output.tool_calls],
                         "finishReason": output.finish_reason, **({"cut": output.cut} if output.cut else {})},
            "error": None, "usage": output.usage.model_dump(), "usd": output.usd, "priceKnown": output.price_known,
            "latencyMs": output.latency_ms, "retries": [r.model_dump() for r in output.retries],
            "providerRequest": output.provider_request_json, "cacheKey": output.cache_key, "sampling": output.sampling,
        }, sources, encoded)
        if not defer:
            e.store.put_snapshot_json(self.session_id, snap, text)
        self.snapshot_ids.append(snap)
        self.calls.append(CallRecord(
            seq=seq, role=role, model=model_name, snapshot_id=snap, usage=output.usage, usd=output.usd,
            price_known=output.price_known, latency_ms=output.latency_ms, retries=len(output.retries), status="ok",
            request_sha256=base["requestSha256"], segments=segments or {}))
        return output, (snap, text) if defer else None
