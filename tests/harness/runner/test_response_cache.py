"""The opt-in response cache (issue 13): ``--cache DIR`` keys a response by the exact request
(model, messages, tools, sampling, seed, repeat index); a second identical run calls no model, says
so in its report, and never counts cached responses as spent; no key ever reaches the cache (O-30)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.models import ChatModel, ModelOutput, ModelRequest, Usage, make_model
from harness.runner._cache import CachedModel, ResponseCache, enter_trial
from harness.scripted import get_scripted
from harness.server import fetch_stats, running_server
from tests.harness.runner._mounts import read_only
from tests.harness.runner._run import FIXED_PLAN, outcomes, plan_data, query, run_plan

PLANTED_KEY = "sk-planted-cache-test-key-5151515151"
SELECTION = {"groups": ["A", "v1", "prefix"], "stages": ["simple", "conversation"]}


def every_repeat() -> dict[str, Any]:
    """The fixed plan without fail-fast: the oracle's conversation trials fail until it folds (unexercised
    read-backs), and fail-fast must not make the two runs' trial sets differ by timing (cached is faster)."""
    data = plan_data()
    for stage in data["stages"]:
        stage["failFast"] = False
    return data


class Counting:
    """A model factory that counts every call that reaches a model."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, model: str, *args: Any, **kwargs: Any) -> ChatModel:
        kwargs.setdefault("scripted", get_scripted)  # as the run's default factory: alone, no test registered them
        inner, outer = make_model(model, *args, **kwargs), self

        class Counted:
            async def generate(self, request: ModelRequest) -> ModelOutput:
                outer.calls += 1
                return await inner.generate(request)

        return Counted()


def test_second_identical_run_calls_no_model_and_its_report_says_so(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first_calls, second_calls = Counting(), Counting()
    first = run_plan(tmp_path / "one", data=every_repeat(), cache_dir=cache, model_factory=first_calls, **SELECTION)
    assert first_calls.calls > 0 and first.report.budget.spent.llmCalls == first_calls.calls
    assert first.report.budget.spent.cachedResponses == 0
    assert len(list(cache.rglob("*.json"))) == first_calls.calls  # one entry per distinct request

    second = run_plan(tmp_path / "two", data=every_repeat(), cache_dir=cache, model_factory=second_calls, **SELECTION)
    assert second_calls.calls == 0  # counted where a model would be called
    spent = second.report.budget.spent
    assert (spent.llmCalls, spent.usd, spent.inputTokens, spent.outputTokens) == (0, 0.0, 0, 0)
    assert spent.cachedResponses == first_calls.calls
    assert outcomes(second) == outcomes(first)
    assert any(c.startswith(f"All {first_calls.calls} responses came from the response cache")
               for c in second.report.caveats)
    assert query(second.run_dir, "SELECT count(*), bool_and(cached), sum(usd) FROM llm_calls") == [
        (first_calls.calls, True, 0.0)]
    calls = [json.loads(line) for line in (second.run_dir / "calls.jsonl").read_text().splitlines()]
    assert calls and all(c["cached"] for c in calls)
    snapshots = [json.loads(line) for p in (second.run_dir / "transcripts").rglob("*.jsonl")
                 for line in p.read_text().splitlines()]
    assert snapshots and all(s["cacheKey"] for s in snapshots)


def test_a_run_mixing_cached_and_live_responses_names_where_they_mix(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    run_plan(tmp_path / "one", cache_dir=cache, groups=["A", "v1"], stages=["simple"])
    second = run_plan(tmp_path / "two", cache_dir=cache, groups=["A", "v1"], stages=["simple", "tool_continuation"])
    spent = second.report.budget.spent
    assert spent.cachedResponses == 6 and spent.llmCalls > 0
    caveat = next(c for c in second.report.caveats if "response cache" in c)
    assert "not comparable" in caveat and "A/simple" in caveat and "v1/simple" in caveat
    code = CliRunner().invoke(app, ["compare", str(tmp_path / "one"), str(tmp_path / "two")])
    assert code.exit_code == 0 and "mixes cached and live responses" in code.output.replace("\n", " ")


class _Sampler:
    """Answers with a fresh number on every call: a cache hit is visible as a repeated number."""

    def __init__(self) -> None:
        self.n = 0

    async def generate(self, request: ModelRequest) -> ModelOutput:
        self.n += 1
        return ModelOutput(content=f"sample {self.n}", usage=Usage(input_tokens=10, output_tokens=2), usd=0.01,
                           price_known=True)


def test_key_holds_model_messages_tools_sampling_seed_and_repeat(tmp_path: Path) -> None:
    inner = _Sampler()
    model = CachedModel(inner, ResponseCache(tmp_path), "openai/m", "http://user:pw@127.0.0.1:9/v1?api_key=zz")
    base = ModelRequest(messages=[{"role": "user", "content": "hi"}], temperature=0.7, max_output_tokens=50)

    async def ask(request: ModelRequest, repeat: int) -> str | None:
        enter_trial(repeat)
        return (await model.generate(request)).content

    async def go() -> list[str | None]:
        return [await ask(base, 1), await ask(base, 2), await ask(base, 1),
                await ask(base.model_copy(update={"temperature": 0.2}), 1),
                await ask(base.model_copy(update={"extra": {"seed": 7}}), 1),
                await ask(base.model_copy(update={"tools": [{"type": "function", "function": {"name": "t"}}]}), 1),
                await ask(base.model_copy(update={"messages": [{"role": "user", "content": "ho"}]}), 1)]

    answers = asyncio.run(go())
    assert answers == ["sample 1", "sample 2", "sample 1", "sample 3", "sample 4", "sample 5", "sample 6"]
    entries = [json.loads(p.read_text()) for p in tmp_path.rglob("*.json")]
    assert len(entries) == 6
    bases = {e["request"]["apiBase"] for e in entries}
    assert bases == {"http://127.0.0.1:9/v1"}  # credentials never enter the key material


def test_identical_requests_within_one_trial_are_distinct_entries(tmp_path: Path) -> None:
    inner = _Sampler()
    model = CachedModel(inner, ResponseCache(tmp_path), "scripted/x", None)
    request = ModelRequest(messages=[{"role": "user", "content": "again"}])

    async def trial() -> list[str | None]:
        enter_trial(1)
        return [(await model.generate(request)).content for _ in range(2)]

    assert asyncio.run(trial()) == ["sample 1", "sample 2"]
    assert asyncio.run(trial()) == ["sample 1", "sample 2"]  # replayed in order, from the cache
    assert inner.n == 2


def test_a_torn_entry_is_a_miss_and_is_written_again(tmp_path: Path) -> None:
    inner, cache = _Sampler(), ResponseCache(tmp_path)
    model = CachedModel(inner, cache, "scripted/x", None)
    request = ModelRequest(messages=[{"role": "user", "content": "q"}])
    enter_trial(1)
    asyncio.run(model.generate(request))
    entry = next(tmp_path.rglob("*.json"))
    entry.write_text('{"output": {"content": ', encoding="utf-8")
    enter_trial(1)
    out = asyncio.run(model.generate(request))
    assert out.cache_key is None and inner.n == 2 and json.loads(entry.read_text())["output"]["content"] == "sample 2"


def test_cli_second_run_over_http_reaches_the_server_zero_times_and_no_key_is_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", PLANTED_KEY)
    cache = tmp_path / "cache"
    with running_server(resolve_model=get_scripted, model="oracle") as url:
        args = ["run", str(FIXED_PLAN), "--model", "openai/oracle", "--api-base", url, "--price",
                "openai/oracle=0,0", "--group", "A", "--group", "v1", "--stage", "simple", "--cache", str(cache)]
        first = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "one")])
        assert first.exit_code == 0, first.output
        served = fetch_stats(url)["requests"]
        second = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "two")])
        assert second.exit_code == 0, second.output
        assert fetch_stats(url)["requests"] == served > 0  # the server saw nothing of the second run
    assert "0 model calls (6 responses from the cache, not counted)" in second.output
    report = (tmp_path / "two" / "report.md").read_text(encoding="utf-8")
    assert "All 6 responses came from the response cache" in report and "cachedResponses" in report
    for path in [*cache.rglob("*"), *(tmp_path / "two").rglob("*")]:  # O-30
        if path.is_file():
            assert PLANTED_KEY.encode() not in path.read_bytes(), path


def _refused(args: list[str], cache: Path, out: Path, reason: str) -> None:
    result = CliRunner().invoke(app, ["run", str(FIXED_PLAN), *args, "--stage", "simple", "--cache", str(cache),
                                      "--out", str(out)])
    text = " ".join(result.output.split())
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and "internal error" not in result.output
    assert f"error: cannot write to the response cache {cache}: {reason}" in text
    assert "no model was called; give a writable folder to --cache" in text
    assert not out.exists()  # found before the run directory was made, so before any model call


@pytest.mark.parametrize("sweep", [False, True], ids=["run", "sweep"])
def test_an_unusable_cache_is_exit_2_before_any_model_call(tmp_path: Path, sweep: bool) -> None:
    """A file where the cache folder should be, a folder to make inside a file, and (where mounting is
    permitted) a read-only folder: exit 2 naming the path, not a run stopped half-way (exit 3)."""
    models = ["--model", "scripted/oracle"] + (["--model", "scripted/prefill-continuer"] if sweep else [])
    a_file = tmp_path / "cache-file"
    a_file.write_text("not a folder\n", encoding="utf-8")
    _refused(models, a_file, tmp_path / "one", "File exists")
    _refused(models, a_file / "inside", tmp_path / "two", "Not a directory")
    (tmp_path / "source").mkdir()
    with read_only(tmp_path / "source", tmp_path / "ro") as ro:
        _refused(models, ro, tmp_path / "three", "Read-only file system")
        _refused(models, ro / "new", tmp_path / "four", "Read-only file system")
