"""A deterministic refusal is sent once per run (P-80, E-7): identical requests (but for the seed) that
other trials make are refused without a call; transient failures and answers let the others go."""

from __future__ import annotations

import asyncio

import pytest

from harness.models import ModelCallError, ModelOutput, ModelRequest, Usage
from harness.runner._refusals import RefusalMemo, deterministic


class Counting:
    """A model that answers after a pause, or raises what it was given; counts the calls it got."""

    def __init__(self, error: ModelCallError | None = None) -> None:
        self.error, self.calls = error, 0

    async def generate(self, request: ModelRequest) -> ModelOutput:
        self.calls += 1
        await asyncio.sleep(0.01)
        if self.error is not None:
            raise self.error
        return ModelOutput(content="ok", usage=Usage(input_tokens=1, output_tokens=1), finish_reason="stop")


def _request(seed: int, text: str = "hi") -> ModelRequest:
    return ModelRequest(messages=[{"role": "user", "content": text}], max_output_tokens=8, temperature=0, seed=seed)


async def _many(model: object, requests: list[ModelRequest]) -> list[object]:
    return await asyncio.gather(*(model.generate(r) for r in requests), return_exceptions=True)  # type: ignore[attr-defined]


def test_a_template_refusal_is_sent_once_for_all_repeats() -> None:
    inner = Counting(ModelCallError("provider_rejected", "Jinja Exception: Conversation roles must alternate", 500))
    memo = RefusalMemo()
    model = memo.wrap(lambda name, api_base=None: inner)("openai/gemma", api_base="http://127.0.0.1:1/v1")
    outcomes = asyncio.run(_many(model, [_request(seed) for seed in range(1, 6)]))  # five repeats, five seeds
    assert inner.calls == 1 and memo.spared == 4
    assert all(isinstance(o, ModelCallError) and o.kind == "provider_rejected" for o in outcomes)
    spared = [o for o in outcomes if isinstance(o, ModelCallError) and o.message.startswith("not sent")]
    assert len(spared) == 4 and all("HTTP 500" in o.message and o.retries == [] and not o.sent for o in spared)
    assert all(o.to_dict()["sent"] is False for o in spared)  # the snapshot says no request went out
    asyncio.run(_many(model, [_request(9, "another question")]))  # another request is sent
    assert inner.calls == 2


def test_answers_and_transient_failures_let_the_others_go() -> None:
    for inner in (Counting(), Counting(ModelCallError("infrastructure", "gave up after 3 attempts: timeout"))):
        model = RefusalMemo().wrap(lambda name, api_base=None, inner=inner: inner)("openai/q")
        asyncio.run(_many(model, [_request(seed) for seed in range(1, 4)]))
        assert inner.calls == 3


@pytest.mark.parametrize(("kind", "status", "message", "expected"), [
    ("provider_rejected", 400, "Expected last role User", True),
    ("provider_rejected", 500, "Jinja Exception: …", True),
    ("context_window", 400, "exceeds the available context size", True),
    ("infrastructure", 401, "invalid api key", True),
    ("infrastructure", 404, "model not found", True),
    ("infrastructure", 429, "gave up after 4 attempts: RateLimitError", False),
    ("infrastructure", 500, "gave up after 4 attempts: InternalServerError", False),
    ("infrastructure", None, "Missing credentials", False),
    ("unsupported_input", None, "the scripted model cannot read it", False),
])
def test_which_refusals_are_deterministic(kind: str, status: int | None, message: str, expected: bool) -> None:
    assert deterministic(ModelCallError(kind, message, status)) is expected  # type: ignore[arg-type]
