"""The experiment plan (X-1 … X-5, X-70) as pydantic models.

Field names are the plan file's own camelCase names (as ``protocols`` options are), so a JSON
path in an error is the attribute path in code. Every model forbids unknown keys. Structure is
checked here; references between parts (stage and group ids, protocol options, findings roles)
are checked by ``_semantics`` so each problem can be reported at its own JSON path.
"""

from __future__ import annotations

from collections import Counter
from typing import Annotated, Any, Literal
from urllib.parse import parse_qs, urlsplit

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator

from protocols import PLACEHOLDER, AgentConfig, MaintenanceOptions

from ._analysis_spec import AnalysisSpec
from ._checks_spec import SameSession, TrialCheck, TurnCheck
from ._expect import SYNTAX, parse_expectation
from ._sequential_spec import SequentialSpec

BUSINESS_TOOLS: tuple[str, ...] = ("quote_calculate", "schedule_plan", "budget_lookup")
BusinessTool = Literal["quote_calculate", "schedule_plan", "budget_lookup"]
GroupRole = Literal["control", "treatment", "sentinel", "baseline"]
ReasoningEffort = Literal["none", "minimal", "low", "medium", "high"]  # harness.models.REASONING_EFFORTS

_ID = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
"""Group and stage ids name directories (transcripts/<group>/<stage>/…): no slashes, no spaces."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


def _unique(values: list[str], what: str) -> list[str]:
    seen = {v for v, n in Counter(values).items() if n > 1}  # linear: a plan may list 100,000 ids
    if seen:
        raise ValueError(f"{what} listed twice: {', '.join(sorted(seen))}")
    return values


# agent -------------------------------------------------------------------------------------------
class ProjectData(_Model):
    """Plan data behind ``budget_lookup`` (e.g. ``"P-17": {"budget": 9000, "spent": 6900}``)."""

    budget: float = Field(ge=0)
    spent: float = Field(ge=0)


class AgentSpec(_Model):
    systemPrompt: str = Field(min_length=1, description=f"Must contain {PLACEHOLDER} (P-62).")
    inputs: dict[str, Any] = Field(default_factory=dict, description="Agent inputs shown in the header.")
    businessTools: list[BusinessTool] = Field(default_factory=list)
    projects: dict[str, ProjectData] = Field(default_factory=dict, description="Data for budget_lookup.")
    contextMaintainer: bool = Field(
        False, description="Bind the agent to the host's context maintainer: unified@1/2/3 then offer "
                           "context_compress (the maintainer compresses the active window when the agent asks). "
                           "prefix@2 never offers it.")

    @field_validator("systemPrompt")
    @classmethod
    def _placeholder(cls, value: str) -> str:
        if PLACEHOLDER not in value.replace(" ", ""):
            raise ValueError(f"must contain {PLACEHOLDER}, where the protocol prompt is rendered (P-62)")
        return value

    @field_validator("businessTools")
    @classmethod
    def _tools_unique(cls, value: list[str]) -> list[str]:
        return _unique(value, "business tool")

    def config(self) -> AgentConfig:
        """The agent as the protocols see it (prompt, inputs, maintainer binding)."""
        return AgentConfig(systemPrompt=self.systemPrompt, inputs=self.inputs, contextMaintainer=self.contextMaintainer)


# models ------------------------------------------------------------------------------------------
class Sampling(_Model):
    """Sent with every agent call (the maintainer samples at temperature 0). null: not sent, the
    provider's default applies."""

    temperature: float | None = Field(0.0, ge=0, le=2)
    topP: float | None = Field(None, gt=0, le=1, description="Nucleus sampling (top_p); null = not sent.")
    seed: int | None = Field(
        None,
        description="Sampling seed of the first repeat: repeat r (1-based) of every stage is sent seed + r - 1, "
        "so repeats are distinct draws, and a rerun asks for the same ones (whether it gets the same answers is "
        "the server's business: `harness compare` of two runs counts them). null = no seed sent. A provider that "
        "takes no seed gets none; each call records the sampling it was sent with (report.json trials' "
        "`sampling`, metrics.duckdb llm_calls temperature / top_p / seed).",
    )


class Price(_Model):
    """USD per million tokens; ``cachedInputPerMTok`` null = the input price."""

    inputPerMTok: float = Field(ge=0)
    cachedInputPerMTok: float | None = Field(None, ge=0)
    outputPerMTok: float = Field(ge=0)


class ModelsSpec(_Model):
    agent: str = Field("scripted/oracle", min_length=1, description="A litellm model string.")
    maintainer: str | None = Field(None, description="null = the agent's model.")
    apiBase: str | None = Field(None, description="OpenAI-compatible base URL; never with credentials.")
    sampling: Sampling = Sampling()
    prices: dict[str, Price] = Field(default_factory=dict, description="Per model string; overrides litellm.")
    capacityTokens: int | None = Field(None, ge=1, description="Override of the model's input capacity.")
    reasoningEffort: ReasoningEffort | None = Field(
        None, description="The agent's reasoning effort (litellm's reasoning_effort: Anthropic thinking, Gemini "
        "thinking levels or budgets, OpenAI reasoning_effort); null = not sent, the provider's default. Applies to "
        "the agent's calls; the maintainer's calls never take it. Where thinking takes a token budget, each call's "
        "output cap is maxOutputTokensPerCall plus that budget. Overridden by --reasoning-effort.")
    params: dict[str, Any] = Field(
        default_factory=dict, description="Other provider parameters of the agent's calls, passed to litellm as "
        "they are (e.g. {\"thinking\": {\"type\": \"enabled\", \"budget_tokens\": 2048}}). Never a credential "
        "and never a parameter the harness sets itself (model, messages, tools, max_tokens, temperature, ...).")

    @field_validator("apiBase")
    @classmethod
    def _no_credentials(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError("must be an http(s) URL, e.g. http://127.0.0.1:8000/v1")
        if parts.username or parts.password:
            raise ValueError("must not carry credentials; keys come from the environment (O-26, O-30)")
        if any("key" in k.lower() or "token" in k.lower() for k in parse_qs(parts.query)):
            raise ValueError("must not carry a key or token in its query; use the environment (O-30)")
        return value

    @property
    def maintainer_model(self) -> str:
        return self.maintainer or self.agent

    def agent_params(self) -> dict[str, Any]:
        """What the agent's calls send besides the harness's own parameters (``ModelRequest.extra``):
        ``params`` and ``reasoning_effort`` when set; {} for a plan that sets neither."""
        out = dict(self.params)
        if self.reasoningEffort is not None:
            out["reasoning_effort"] = self.reasoningEffort
        return out


# groups and stages -------------------------------------------------------------------------------
class ProtocolRef(_Model):
    id: str = Field(min_length=1, description="Catalog id, e.g. unified or prefix.")
    version: int = Field(ge=1)
    options: dict[str, Any] = Field(default_factory=dict, description="Validated by the catalog (P-61).")

    @property
    def key(self) -> str:
        return f"{self.id}@{self.version}"


class GroupSpec(_Model):
    id: str = Field(pattern=_ID)
    label: str = Field(min_length=1)
    role: GroupRole
    protocol: ProtocolRef


class Turn(_Model):
    input: str = Field(min_length=1)
    checks: list[TurnCheck] = Field(default_factory=list)


class StageSpec(_Model):
    id: str = Field(pattern=_ID)
    label: str = Field("", description="Human-readable name; defaults to the id in reports.")
    addition: bool = Field(False, description="Not in the source plan; labelled as an addition (X-70).")
    repeats: int = Field(ge=1, le=100)
    requires: list[str] = Field(default_factory=list, description="Stages a group must have passed.")
    groups: list[str] | None = Field(
        None, description="Groups taking part; null = every group that is not a baseline (X-10)."
    )
    failFast: bool = True
    sequential: SequentialSpec | None = Field(
        None, description="Opt-in sequential design: looks, α spending and the comparisons that stop the stage "
                          "early when every one has crossed its boundary; null = a fixed design (every repeat runs).")
    turns: list[Turn] = Field(min_length=1)
    trialChecks: list[TrialCheck] = Field(default_factory=list)

    @field_validator("requires")
    @classmethod
    def _requires_unique(cls, value: list[str]) -> list[str]:
        return _unique(value, "required stage")

    @field_validator("groups")
    @classmethod
    def _groups_unique(cls, value: list[str] | None) -> list[str] | None:
        return None if value is None else _unique(value, "group")

    @property
    def effective_trial_checks(self) -> list[Any]:
        """The trial checks, with ``same_session`` always on for multi-turn stages (X-11)."""
        checks = list(self.trialChecks)
        if len(self.turns) > 1 and not any(c.name == "same_session" for c in checks):
            checks.insert(0, SameSession(name="same_session"))
        return checks


# limits ------------------------------------------------------------------------------------------
class BudgetSpec(_Model):
    """Hard caps (X-20); null turns a cap off."""

    maxUsd: float | None = Field(None, gt=0)
    maxInputTokens: int | None = Field(None, ge=1)
    maxOutputTokens: int | None = Field(None, ge=1)
    maxTotalTokens: int | None = Field(None, ge=1)
    maxLlmCalls: int | None = Field(None, ge=1)
    maxWallSeconds: float | None = Field(None, gt=0)
    maxStepsPerRun: int | None = Field(None, ge=1)
    maxOutputTokensPerCall: int | None = Field(None, ge=1)
    timeoutSecondsPerCall: float | None = Field(None, gt=0)


class StopSpec(_Model):
    """Stop conditions (X-30 … X-32)."""

    maxInfraErrorRate: float | None = Field(None, gt=0, le=1)
    minCallsForInfraRate: int = Field(10, ge=1)
    maxConsecutiveToolErrors: int | None = Field(None, ge=1)
    infraRetries: int = Field(1, ge=0, le=10)


class FindingsSpec(_Model):
    """Which groups play which part in the findings rules (X-40)."""

    rules: Literal["placement-v3", "placement-rates"] = Field(
        "placement-v3", description="placement-v3: the X-40 table on stage outcomes (pass^k, with gating); "
        "placement-rates: pass rates compared with Fisher's exact test, for sampled repeats without gating.")
    controlGroup: str = Field("v1", description="F(control) → setup or model problem, no placement claim.")
    placementControl: str = Field("A", description="unified@3 trailing_assistant.")
    positionGroup: str = Field("B", description="unified@3 before_history_assistant (position only).")
    roleGroup: str = Field("C", description="unified@3 trailing_user (role only).")
    sentinelGroup: str = Field("v2", description="unified@2: did the original anomaly reproduce?")
    baselineGroup: str | None = Field(
        "prefix", description="The prefix@2 group each unified group is compared with on outcome, repeated tool "
                              "calls, tokens and cost (X-43); null = no baseline comparison.")
    anomalyStages: list[str] = Field(default_factory=lambda: ["simple", "tool_continuation"], min_length=1)
    baselineStage: str | None = Field(
        "conversation", description="The stage in which groups are compared with the baseline (X-43).")

    def term(self, group: str) -> str | None:
        """The one word every report uses for ``group``'s part (docs/evidence.md, "Words"); None: no part."""
        parts = ((self.placementControl, "placement control"), (self.positionGroup, "position treatment"),
                 (self.roleGroup, "role treatment"), (self.sentinelGroup, "sentinel"),
                 (self.controlGroup, "sentinel control"), (self.baselineGroup, "baseline"))
        return next((word for g, word in parts if g == group), None)

    def pairs(self) -> list[tuple[str, str]]:
        """The comparisons the rules make, (group, compared with): position and role against the placement
        control, the sentinel against the sentinel control."""
        return [(self.positionGroup, self.placementControl), (self.roleGroup, self.placementControl),
                (self.sentinelGroup, self.controlGroup)]


def _expectation_syntax(text: str) -> str:
    parse_expectation(text)  # a ValueError names the bad entry
    return text


ExpectText = Annotated[str, AfterValidator(_expectation_syntax),
                      Field(json_schema_extra={"pattern": r"^[^:=]+:[^:=]+=[a-z_]+$"})]


# the plan ----------------------------------------------------------------------------------------
class Plan(_Model):
    schema_: str | None = Field(None, alias="$schema", description="Path of plan.schema.json.")
    id: str = Field(pattern=_ID)
    title: str = Field(min_length=1)
    question: str = Field(min_length=1, description="The question this experiment answers.")
    agent: AgentSpec
    models: ModelsSpec = ModelsSpec()
    groups: list[GroupSpec] = Field(min_length=1)
    stages: list[StageSpec] = Field(min_length=1)
    budget: BudgetSpec = BudgetSpec()
    stop: StopSpec = StopSpec()
    maintenance: MaintenanceOptions = MaintenanceOptions()
    findings: FindingsSpec = FindingsSpec()
    analysis: AnalysisSpec = AnalysisSpec()
    expect: list[ExpectText] = Field(
        default_factory=list,
        description=f"Expected stage outcomes, {SYNTAX}: a run that misses one exits 4 (a CI gate). Statuses: "
                    "passed, failed, inconclusive, skipped, not_reached.")

    def group(self, group_id: str) -> GroupSpec:
        return next(g for g in self.groups if g.id == group_id)

    def stage(self, stage_id: str) -> StageSpec:
        return next(s for s in self.stages if s.id == stage_id)

    def participants(self, stage: StageSpec) -> list[GroupSpec]:
        """Groups taking part in ``stage``, in plan order; baselines only where named (X-10)."""
        if stage.groups is None:
            return [g for g in self.groups if g.role != "baseline"]
        named = set(stage.groups)
        return [g for g in self.groups if g.id in named]

    def required_stages(self, group_id: str, stage: StageSpec) -> list[str]:
        """The stages ``group_id`` must have passed before ``stage``: those of ``requires`` it takes
        part in (a baseline that enters only the conversation stage is gated by nothing)."""
        return [
            s for s in stage.requires if any(g.id == group_id for g in self.participants(self.stage(s)))
        ]
