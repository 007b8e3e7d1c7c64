"""report.json (O-2): a versioned pydantic model, ``schemaVersion`` first, camelCase names.

The runner fills it; ``harness report`` re-renders HTML/Markdown from it (O-3). Besides the fields
O-2 names, a trial carries its ``transcript`` path (relative to the run directory) and every run
its ``toolCalls``, so a reader can go from a verdict to the evidence.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, field_validator, model_serializer

from harness.analysis import (
    BaselineComparison,
    Comparison,
    DesignReview,
    FailureMode,
    FamilySummary,
    Finding,
    ModelKind,
    SequentialResult,
    StageStatus,
    mode_counts,
    pass_hat_ks,
    wilson_interval,
)
from harness.models import public_api_base
from harness.plan import BudgetSpec, GroupSpec

from ._panel import GroupDifference
from ._preflight import PreflightEntry
from ._workflow import ExpectationResult, GroupInfrastructure, Override

SCHEMA_VERSION: Literal[1] = 1

ReportStatus = Literal["completed", "stopped", "failed"]
TrialStatus = Literal["passed", "failed", "error", "skipped"]
CheckOutcome = Literal["passed", "failed", "not_exercised", "not_applicable"]
"""``not_exercised``: the check's precondition never occurred (no fold, nothing stored, no mismatch): it has
not passed. ``not_applicable``: the protocol lacks the capability (window checks on prefix@2)."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PlanRef(_Model):
    id: str
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    path: str


PriceSource = Literal["cli", "plan", "scripted-builtin", "litellm", "litellm-gateway", "local-unknown", "unknown"]


class ModelPrice(_Model):
    """One row of the price table (X-22): USD per million tokens and where it came from. The prices
    are null when it is unknown: ``local-unknown`` (a model on a loopback server: run, cost unknown,
    maxUsd not applicable) or ``unknown`` (a remote model run without a USD cap)."""

    inputPerMTok: float | None = None
    outputPerMTok: float | None = None
    cachedInputPerMTok: float | None = None
    source: PriceSource | None = Field(None, description="cli, plan, scripted-builtin, litellm (its price map), "
                                                         "litellm-gateway (its price map, for a hosted model's name "
                                                         "served through a loopback gateway), local-unknown or "
                                                         "unknown; null in reports written before.")
    gateway: str | None = Field(None, description="litellm-gateway: the host:port of the loopback gateway.")

    @property
    def known(self) -> bool:
        return self.inputPerMTok is not None and self.outputPerMTok is not None


def unknown_usd(report: dict[str, Any]) -> str:
    """How an unknown USD figure of a report (as JSON) reads: "price unknown (local model)" when a
    model on a loopback server is the reason, else "price unknown". Never "$0"."""
    entries = ((report.get("model") or {}).get("prices") or {}).values()
    local = any(isinstance(p, dict) and p.get("source") == "local-unknown" for p in entries)
    return "price unknown (local model)" if local else "price unknown"


class ModelInfo(_Model):
    agent: str
    maintainer: str
    kind: ModelKind
    apiBase: str | None = None
    sampling: dict[str, Any] = Field(default_factory=dict)
    prices: dict[str, ModelPrice] = Field(default_factory=dict,
                                          description="The price table used, per model, with its source (X-22).")
    reasoningEffort: str | None = Field(
        None, description="The agent's reasoning effort (models.reasoningEffort or --reasoning-effort); null: not "
                          "sent. The maintainer's calls never take it.")
    params: dict[str, Any] = Field(default_factory=dict,
                                   description="The agent's other provider parameters (models.params).")
    thinkingBudgetTokens: int | None = Field(
        None, description="The thinking token budget litellm sends for these settings (Anthropic budget_tokens, "
                          "Gemini 2.5 thinkingBudget); each agent call's output cap is maxOutputTokensPerCall plus "
                          "it. null: no budget (thinking off, adaptive, or a Gemini 3 thinking level).")
    notSent: dict[str, str] = Field(
        default_factory=dict, description="The plan's sampling parameters the agent's model does not take, found "
                                          "before the run by litellm's own validation (offline): name (litellm's: "
                                          "temperature, top_p, seed) → why. The agent's calls did not send them.")
    maintainerNotSent: dict[str, str] = Field(
        default_factory=dict, description="The maintainer's temperature 0, when its model does not take it: not sent.")

    def unpriced(self) -> list[str]:
        """The models of this run whose USD cost is unknown."""
        used = sorted({self.agent, self.maintainer})
        return [m for m in used if m not in self.prices or not self.prices[m].known]

    @field_validator("apiBase")
    @classmethod
    def _strip_credentials(cls, value: str | None) -> str | None:
        """O-30: user info and key/token query parameters never reach the report."""
        return public_api_base(value)


class Spent(_Model):
    usd: float | None = Field(0.0, description="null when a model of the run has no known price (a local model): "
                                               "the total is unknown, never $0.")
    inputTokens: int = 0
    cachedInputTokens: int = 0
    outputTokens: int = 0
    llmCalls: int = 0
    wallSeconds: float = 0.0
    cachedResponses: int = Field(0, description="Responses served from the response cache (--cache): no call, $0.")


class BudgetReport(_Model):
    limits: BudgetSpec
    spent: Spent = Spent()
    notApplicable: dict[str, str] = Field(
        default_factory=dict, description="Caps that did not apply to some calls, and why (e.g. maxUsd: price "
                                          "unknown (local model) for openai/qwen). Token and call caps always apply.")


class ProtocolInfo(_Model):
    id: str
    version: int
    options: dict[str, Any] = Field(description="Resolved options: the version's defaults filled in (P-61).")


class CheckResult(_Model):
    name: str
    turn: int | None = Field(None, description="1-based turn of a turn check; null for a trial check.")
    result: CheckOutcome
    detail: str
    evidence: list[str] = Field(default_factory=list, description="Snapshot / message references proving it.")
    required: bool = Field(
        True, description="A not_exercised result keeps the trial from passing (the plan check's `required`).")


class ToolCallRecord(_Model):
    step: int
    callId: str
    toolName: str
    argsSha256: str
    resultSha256: str | None = None
    success: bool
    errorCode: str | None = None
    repeated: bool = False
    duplicateSignature: bool = False


class RunReport(_Model):
    runId: str
    turn: int = Field(ge=1)
    input: str
    finalAnswer: str | None
    status: str = Field(description="The engine's run status, e.g. completed, budget_exhausted, failed.")
    steps: int = Field(ge=0)
    toolCalls: list[ToolCallRecord] = Field(default_factory=list)


class TrialMetrics(_Model):
    inputTokens: int = 0
    cachedInputTokens: int = 0
    outputTokens: int = 0
    reasoningTokens: int = Field(0, description="Of outputTokens, the model's reasoning (thinking) tokens, as the "
                                                "provider reported them (billed as output).")
    cacheWriteTokens: int = Field(0, description="Of inputTokens, those written to the provider's prompt cache "
                                                 "(Anthropic cache_creation_input_tokens).")
    usd: float | None = Field(0.0, description="null when a price was unknown.")
    llmCalls: int = 0
    toolCalls: int = 0
    repeatedToolCalls: int = 0
    duplicateSignatureCalls: int = 0
    maintenanceRuns: int = 0
    cachedResponses: int = Field(0, description="Of llmCalls, answered from the response cache (no model call).")

    def __add__(self, other: TrialMetrics) -> TrialMetrics:
        values: dict[str, Any] = {}
        for name in type(self).model_fields:
            a, b = getattr(self, name), getattr(other, name)
            values[name] = None if a is None or b is None else a + b
        return TrialMetrics(**values)


class TrialReport(_Model):
    id: str = Field(description="<group>/<stage>/<repeat> (X-80).")
    repeat: int = Field(ge=1)
    attempt: int = Field(0, ge=0, description="0 for the first try; n for the n-th infrastructure retry (X-12).")
    status: TrialStatus
    sessionId: str | None = None
    transcript: str | None = Field(None, description="transcripts/<group>/<stage>/<repeat>.jsonl, run-relative.")
    startedAt: datetime | None = None
    finishedAt: datetime | None = None
    error: str | None = Field(None, description="Why an error or skipped trial ended, or which checks failed.")
    failureMode: FailureMode | None = Field(
        None, description="Why a failed trial failed, by the classifier of harness.analysis (null unless failed).")
    failureDetail: str | None = Field(None, description="The turn and the answer or check the failure mode rests on.")
    passShape: str | None = Field(
        None, description="A passed trial whose answer has a failure's shape (a tool call written as text, an echo "
        "of the state block or a tool description) that its answer checks let through: mode and detail.")
    sampling: dict[str, Any] | None = Field(
        None, description="What the trial's agent calls asked for: temperature, topP, seed (repeat r: the plan's "
        "seed + r - 1); each call's effective sampling is in metrics.duckdb llm_calls.")
    runs: list[RunReport] = Field(default_factory=list)
    checks: list[CheckResult] = Field(default_factory=list)
    metrics: TrialMetrics = TrialMetrics()


class PassRate(_Model):
    passes: int = Field(ge=0)
    n: int = Field(ge=0, description="Trials with a verdict (passed or failed).")
    value: float | None
    wilson95: tuple[float, float]

    @classmethod
    def of(cls, passes: int, n: int) -> PassRate:
        return cls(passes=passes, n=n, value=passes / n if n else None, wilson95=wilson_interval(passes, n))


class NotExercised(_Model):
    """A check whose precondition never occurred in some trials of a group × stage (it did not pass there)."""

    check: str
    required: bool = Field(description="true: those trials did not pass (failure mode not_exercised).")
    trials: int = Field(ge=1, description="Trials with a verdict in which the check was not exercised.")
    detail: str = Field(description="Why, from the first such trial.")


def distinct_answers(trials: list[TrialReport]) -> int:
    """Distinct final answers among the trials with a verdict: a trial's answer is the tuple of its
    turns' final answers (whitespace at the ends ignored), so multi-turn trials compare turn by turn."""
    return len({tuple((r.finalAnswer or "").strip() for r in t.runs)
                for t in trials if t.status in ("passed", "failed")})


def not_exercised(trials: list[TrialReport]) -> list[NotExercised]:
    found: dict[str, NotExercised] = {}
    for t in trials:
        if t.status not in ("passed", "failed"):
            continue
        for c in t.checks:
            if c.result != "not_exercised":
                continue
            seen = found.get(c.name)
            found[c.name] = (NotExercised(check=c.name, required=c.required, trials=1, detail=c.detail) if seen is None
                             else seen.model_copy(update={"trials": seen.trials + 1}))
    return list(found.values())


class StageReport(_Model):
    id: str
    label: str = ""
    addition: bool = Field(False, description="Not in the source plan (X-70).")
    status: StageStatus
    passHatK: dict[int, float] = Field(default_factory=dict, description="k → pass^k over the verdict trials.")
    passRate: PassRate
    failureModes: dict[str, int] = Field(
        default_factory=dict, description="failure mode → failed trials of this group and stage.")
    distinctAnswers: int | None = Field(
        None, ge=0, description="Distinct final answers among the trials with a verdict (a multi-turn trial's answer "
        "is the tuple of its turns' answers). Below passRate.n, some repeats gave identical answers: the Wilson "
        "interval and Fisher p then describe one sample repeated, not independent draws. Null only in reports "
        "written before it was recorded.")
    notExercised: list[NotExercised] = Field(
        default_factory=list, description="Checks whose precondition never occurred in some trials: not passed.")
    trials: list[TrialReport] = Field(default_factory=list)
    metrics: TrialMetrics = TrialMetrics()

    @classmethod
    def summarise(cls, stage_id: str, status: StageStatus, trials: list[TrialReport], *, label: str = "",
                  addition: bool = False) -> StageReport:
        """Pass rate, pass^k and summed metrics from the trials (errors and skips are not in n)."""
        verdicts = [t for t in trials if t.status in ("passed", "failed")]
        passes = sum(t.status == "passed" for t in verdicts)
        metrics = sum((t.metrics for t in trials), TrialMetrics())
        return cls(id=stage_id, label=label, addition=addition, status=status,
                   passHatK=pass_hat_ks(passes, len(verdicts)), passRate=PassRate.of(passes, len(verdicts)),
                   failureModes=mode_counts([t.failureMode for t in trials if t.status == "failed"]),
                   distinctAnswers=distinct_answers(trials), notExercised=not_exercised(trials),
                   trials=trials, metrics=metrics)


class GroupReport(_Model):
    id: str
    label: str
    role: Literal["control", "treatment", "sentinel", "baseline"]
    term: str | None = Field(None, description="The group's part in the findings, in the reports' words: placement "
                                               "control, position treatment, role treatment, sentinel, sentinel "
                                               "control, baseline (docs/evidence.md, Words); null: no part.")
    protocol: ProtocolInfo
    stages: list[StageReport] = Field(default_factory=list)
    metrics: TrialMetrics = Field(TrialMetrics(), description="The group's stages summed (tokens, reasoning "
                                                              "tokens, cache writes, USD, calls).")

    @classmethod
    def from_spec(cls, group: GroupSpec, resolved_options: dict[str, Any],
                  stages: list[StageReport] | None = None, term: str | None = None) -> GroupReport:
        return cls(id=group.id, label=group.label, role=group.role, term=term, stages=stages or [],
                   protocol=ProtocolInfo(id=group.protocol.id, version=group.protocol.version,
                                         options=resolved_options),
                   metrics=sum((st.metrics for st in stages or []), TrialMetrics()))


class Report(_Model):
    schemaVersion: Literal[1] = SCHEMA_VERSION
    harnessVersion: str
    createdAt: datetime
    experimentId: str = Field(description="The experiment_id of every metrics.duckdb row of this run.")
    status: ReportStatus
    stopReason: str | None = Field(None, description="e.g. budget_exhausted:usd, provider_unhealthy, interrupted, "
                                                     "context_limit.")
    plan: PlanRef
    model: ModelInfo
    budget: BudgetReport
    groups: list[GroupReport] = Field(default_factory=list)
    comparisons: list[Comparison] = Field(default_factory=list)
    family: FamilySummary | None = Field(
        None, description="The family of comparisons the findings' claims of difference are held in at alpha together "
                          "(analysis.family), how (method), how many, and its first-step cut-off and family-wise "
                          "size; null in reports written before the family.")
    baselineComparisons: list[BaselineComparison] = Field(default_factory=list)
    findings: list[Finding] = Field(default_factory=list)
    caveats: list[str] = Field(default_factory=list)
    expectations: list[ExpectationResult] = Field(
        default_factory=list, description="The CI gate: the plan's expect and --expect, each met or not (exit 4).")
    overrides: list[Override] = Field(
        default_factory=list, description="Plan values replaced on the command line (--temperature, --seed, "
                                          "--repeats); the plan sha256 is the file's, these come on top.")
    infrastructure: list[GroupInfrastructure] = Field(
        default_factory=list, description="Per group: failed call attempts by kind, retries, calls that gave up, "
                                          "error trials (none of it a model failure).")
    infraRetries: int | None = Field(
        None, description="The recorded run's stop.infraRetries: new trials an errored repeat may get (null in "
                          "reports from before it was kept).")
    stopDetail: str | None = Field(None, description="What the stop means and how to fix it, when the reason "
                                                     "needs more than its name (context_limit).")
    preflight: list[PreflightEntry] = Field(
        default_factory=list, description="Per group × model: the provider preflight of its first request (P-80).")
    groupDifferences: list[GroupDifference] = Field(
        default_factory=list, description="What each group's first request differs in from the placement "
                                          "control's, on the first stage both ran (the difference panel).")
    design: DesignReview | None = Field(
        None, description="The design review of the plan as run (after command-line overrides): what each planned "
                          "comparison can show at its n, and the design problems (null in reports written before).")
    sequential: list[SequentialResult] | None = Field(
        None, description="Each sequential stage: its design (looks, spending, boundaries, comparisons), every look "
                          "evaluated (n per group, p per comparison, boundary, crossed) and where it stopped; left "
                          "out when the plan has no sequential stage.")

    @model_serializer(mode="wrap")
    def _without_empty_sequential(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """A plan without a sequential stage writes the report it always wrote (no ``sequential`` key)."""
        data: dict[str, Any] = handler(self)
        if data.get("sequential") is None:
            data.pop("sequential", None)
        return data
