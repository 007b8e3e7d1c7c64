"""One run of the host (E-1, E-3, E-5, E-6, E-12 … E-14): the step loop, tool dispatch, recovery of a pending
call, the capacity check and maintenance.

A step: freeze (KV revision, run id, upper bound) → the protocol builds the request → capacity
and budget pre-checks → model call (``RunCalls._call``) → the assistant message is written with its
frozen view → its first tool call is dispatched (the others answered ``tool_call_limit_exceeded``) →
the maintenance check → next step. Everything a step sends and receives is snapshotted.

An agent bound to the context maintainer (``AgentConfig.contextMaintainer``) is offered
``context_compress``; its dispatch runs the maintainer role of this run on the active window
(``MaintainerBinding``), recorded like any maintenance with ``trigger="agent"``.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from harness.models import ModelCallError, ModelOutput, ModelRequest
from protocols import CapacityExceeded, FrozenView, MaintainerBinding, MessageDraft, RawMessage, ToolCall
from protocols._maintenance import Maintainer, maintain_window, should_maintain

from ._call import RunCalls
from ._encode import message_pieces
from ._guard import BudgetExhausted
from ._maintainer import model_maintainer
from ._tokens import count_messages, segment_tokens
from ._tools import LIMIT_EXCEEDED, outcome, pending_calls, result_content
from ._types import MaintenanceRecord, MaintenanceTrigger, RunResult, ToolCallRecord


class Run(RunCalls):
    """One run: its loop, from the user's input to a final answer or a stop."""

    # the loop ------------------------------------------------------------------------------------
    async def start(self) -> RunResult:
        """Recover a pending call (E-12), take the input, loop. E-7, X-20: a model call that still fails
        after its retries, or that the budget refuses, ends the run, whichever role made it: the agent's
        step, the maintainer's page in threshold maintenance, in ``context_compress`` or in a recovery.
        A compression that did not finish wrote nothing (P-52), so its call stays pending for E-12."""
        try:
            await self.recover()
            self.e.store.append(self.session_id, MessageDraft(
                run_id=self.run_id, window_id=self.e.active_window(self.session_id), role="user", kind="input",
                content=self.text, input_run=self.run_id))
            return await self.loop()
        except BudgetExhausted as exc:
            return self.result("budget_exhausted", error=str(exc))
        except ModelCallError as exc:
            return self.result("error", error_class=exc.kind, error=exc.message)

    async def loop(self) -> RunResult:
        e, limits, consecutive_errors = self.e, self.limits, 0
        while self.steps < limits.max_steps:
            self.steps += 1
            store = e.store
            frozen = FrozenView(revision=store.revision(self.session_id), upper_bound=store.max_index(self.session_id),
                                run_id=self.run_id)
            projected = e.protocol.project(store, self.session_id, frozen, e.agent, e.host, e.business_schemas)
            # the parameters validated; the projection's messages and tools are its own, new at every step, and
            # validating them again only copied every message dict
            request = ModelRequest(
                messages=[], max_output_tokens=limits.max_output_tokens, temperature=limits.temperature,
                top_p=limits.top_p, seed=limits.seed, timeout_seconds=limits.timeout_seconds, extra=limits.extra,
            ).model_copy(update={"messages": projected.messages, "tools": projected.tools})
            try:
                self._check_capacity(projected.messages, projected.sources, projected.tools)
            except CapacityExceeded as exc:
                return self.result("capacity_exceeded", error=str(exc))
            # the tools' JSON once a step (the projection's, joined from texts it keeps), for the segments, the
            # reservation and the request hash
            tools_json = None
            if request.tools:
                tools_json = projected.tools_json or json.dumps(request.tools, ensure_ascii=False)
            # and each message's piece once a step, for the segments and the request's hash and snapshot
            pieces = message_pieces(request.messages, e._secrets)
            segments = segment_tokens(e.model_name, request.messages, list(projected.sources), request.tools,
                                      tools_json, pieces)
            output, snapshot = await self._call("agent", e.model, e.model_name, request, frozen,
                                                list(projected.sources), segments, tools_json, defer=True,
                                                pieces=pieces)
            assert snapshot is not None
            try:
                window = e.active_window(self.session_id)
                calls = tuple(ToolCall(id=c.id or f"call_{uuid.uuid4().hex[:16]}", name=c.name,
                                       arguments=c.arguments) for c in output.tool_calls)
                draft = MessageDraft(
                    run_id=self.run_id, window_id=window, role="assistant",
                    kind="tool_call" if calls else "text", content=output.content or "",
                    tool_calls=calls or None, frozen_view=frozen, reasoning=output.reasoning)
            except BaseException:  # the call's snapshot is kept whatever happens to its answer
                store.put_snapshot_json(self.session_id, *snapshot)
                raise
            # the call's snapshot and the answer in one write (the store keeps the snapshot if it refuses the
            # message), with no await between the call's return and this: what a crash can leave is unchanged
            message = store.append_after_snapshot(self.session_id, *snapshot, draft)
            if not calls:
                await self._maybe_maintain(output)
                return self.result("completed", answer=output.content or "")
            failed = await self._dispatch(message)
            consecutive_errors = consecutive_errors + 1 if failed else 0
            if consecutive_errors >= limits.max_consecutive_tool_errors:
                return self.result("error", error_class="model",
                                   error=f"{consecutive_errors} consecutive failing tool calls (X-32)")
            await self._maybe_maintain(output)
        return self.result("step_limit", error=f"no final answer within {limits.max_steps} steps")

    async def _dispatch(self, message: RawMessage, only: set[str] | None = None, record: bool = True) -> bool:
        """Execute the first call, answer the others (E-5); results stay in the call's window (P-44).

        ``only`` restricts the answers to those call ids (crash recovery); ``record`` adds the calls
        to this run's result. Returns whether the executed call failed.
        """
        e, failed = self.e, False
        assert message.tool_calls and message.frozen_view
        for pos, call in enumerate(message.tool_calls):
            if only is not None and call.id not in only:
                continue
            if pos == 0:
                done = await e.router.execute(e.store, self.session_id, call, message.frozen_view, self._binding())
                result, replayed = done.result, done.replayed
                if done.maintenance is not None:
                    m = done.maintenance
                    self.maintenance.append(MaintenanceRecord(
                        step=self.steps, window_id=m.window_id, status=m.status, reason=m.reason,
                        covered_through=m.through_index, compressed_folds=m.compressed_folds, trigger="agent",
                        call_id=call.id))
            else:
                result, replayed = LIMIT_EXCEEDED, False
            e.store.append(self.session_id, MessageDraft(
                run_id=message.run_id, window_id=message.window_id, role="tool", kind="tool_result",
                content=result_content(result), tool_call_id=call.id))
            success, code = outcome(result)
            if pos == 0:
                failed = not success
            if record:
                self.tool_calls.append(ToolCallRecord(
                    step=self.steps, call_id=call.id, name=call.name, arguments=call.arguments, success=success,
                    error_code=code, result=result, executed=pos == 0, window_id=message.window_id,
                    replayed=replayed))
        return failed

    async def recover(self) -> None:
        """E-12: a call whose result was never written (crash, archive) gets it now, in the call's window."""
        pending = pending_calls(self.e.store, self.session_id)
        if pending is not None:
            message, calls = pending
            await self._dispatch(message, only={c.id for c in calls}, record=False)

    # capacity (E-14, P-55) ---------------------------------------------------------------------------
    def _check_capacity(self, messages: list[dict[str, Any]], sources: Any, tools: list[dict[str, Any]]) -> None:
        capacity = self.e.capacity_tokens
        if capacity is None:
            return
        name = self.e.model_name
        parts: dict[str, int] = {"tool schemas": count_messages(name, [], tools) if tools else 0}
        for message, source in zip(messages, sources, strict=True):
            if source.type == "system":
                parts["system prompt"] = count_messages(name, [message])
            elif source.type == "context_header":
                parts["context header (task memory, window, checkpoint)"] = count_messages(name, [message])
            elif source.type == "raw" and message["role"] == "user":
                parts[f"user input {source.message_ids[0]}"] = count_messages(name, [message])
        largest = max(parts, key=lambda k: parts[k])
        if parts[largest] > capacity:
            raise CapacityExceeded(largest, parts[largest], capacity)
        total = sum(parts.values())
        if total > capacity:
            raise CapacityExceeded(f"the fixed parts together ({', '.join(parts)})", total, capacity)

    # maintenance (P-50, E-13) -------------------------------------------------------------------------
    async def _maybe_maintain(self, output: ModelOutput) -> None:
        threshold = self.e.host.maintenance.thresholdTokens
        if should_maintain(output.usage.input_tokens, threshold):
            await self.maintain(self.steps, trigger="threshold")

    def _maintainer(self) -> Maintainer:
        """The maintainer role (E-13): its calls are accounted and snapshotted like the agent's."""
        e = self.e

        async def generate(request: ModelRequest) -> ModelOutput:
            try:
                output, _ = await self._call("maintainer", e.maintainer_model, e.maintainer_name, request, None,
                                             None, None)
                return output
            except ModelCallError as exc:  # the run ends on it (start); say whose call it was
                raise ModelCallError(exc.kind, f"the maintainer's call: {exc.message}", exc.status_code,
                                     exc.retries) from exc

        return model_maintainer(generate, max_output_tokens=e.limits.maintainer_max_output_tokens,
                                timeout_seconds=e.limits.timeout_seconds, temperature=e.limits.maintainer_temperature)

    def _binding(self) -> MaintainerBinding | None:
        """What ``context_compress`` runs: this run's maintainer role, when the agent is bound to it (made once a
        run: it holds nothing but the run and the engine's settings)."""
        if not self.e.maintainer_bound:
            return None
        if self._bound is None:
            self._bound = MaintainerBinding(self._maintainer(),
                                            keep_recent_groups=self.e.host.maintenance.keepRecentGroups)
        return self._bound

    async def maintain(self, step: int, trigger: MaintenanceTrigger) -> MaintenanceRecord:
        e = self.e
        window = e.active_window(self.session_id)
        result = await maintain_window(e.protocol, e.store, self.session_id, window, self._maintainer(),
                                       keep_recent_groups=e.host.maintenance.keepRecentGroups)
        record = MaintenanceRecord(step=step, window_id=window, status=result.status, reason=result.reason,
                                   covered_through=result.through_index, compressed_folds=result.compressed_folds,
                                   trigger=trigger)
        self.maintenance.append(record)
        return record
