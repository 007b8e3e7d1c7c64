"""Views for the usual questions (O-11).

``group_stage_summary``: per experiment, group and stage: trials by status, pass rate over the
trials with a verdict (errors and skips excluded, X-12), pass^k with k = n (1 when every verdict
trial passed), tokens, USD (null if any call's price was unknown), tool calls and repeated tool
calls (X-50). A retried trial id counts once, with its last attempt's status; its calls all count.

``cost_by_segment``: per experiment, group, stage and request segment: tokens, number of requests
and the segment's share of that group's and stage's request tokens (X-51).
"""

from __future__ import annotations

GROUP_STAGE_SUMMARY = """
CREATE OR REPLACE VIEW group_stage_summary AS
WITH latest AS (
    SELECT * FROM trials
    QUALIFY row_number() OVER (PARTITION BY experiment_id, trial_id ORDER BY attempt DESC) = 1
), calls AS (
    SELECT experiment_id, trial_id, count(*) AS llm_calls,
           count(*) FILTER (WHERE role = 'maintainer') AS maintainer_calls,
           sum(input_tokens) AS input_tokens, sum(cached_input_tokens) AS cached_input_tokens,
           sum(output_tokens) AS output_tokens, sum(usd) AS usd, bool_or(usd IS NULL) AS usd_unknown
    FROM llm_calls GROUP BY experiment_id, trial_id
), tools AS (
    SELECT experiment_id, trial_id, count(*) AS tool_calls,
           count(*) FILTER (WHERE repeated) AS repeated_tool_calls,
           count(*) FILTER (WHERE duplicate_signature) AS duplicate_signature_calls
    FROM tool_calls GROUP BY experiment_id, trial_id
)
SELECT
    t.experiment_id, t.group_id, t.stage_id,
    count(*) AS trials,
    count(*) FILTER (WHERE t.status = 'passed') AS passed,
    count(*) FILTER (WHERE t.status = 'failed') AS failed,
    count(*) FILTER (WHERE t.status = 'error') AS errors,
    count(*) FILTER (WHERE t.status = 'skipped') AS skipped,
    passed + failed AS n,
    CASE WHEN n > 0 THEN passed / n END AS pass_rate,
    n AS k,
    CASE WHEN n > 0 THEN CASE WHEN passed = n THEN 1.0 ELSE 0.0 END END::DOUBLE AS pass_hat_k,
    coalesce(sum(c.llm_calls), 0)::BIGINT AS llm_calls,
    coalesce(sum(c.maintainer_calls), 0)::BIGINT AS maintainer_calls,
    coalesce(sum(c.input_tokens), 0)::BIGINT AS input_tokens,
    coalesce(sum(c.cached_input_tokens), 0)::BIGINT AS cached_input_tokens,
    coalesce(sum(c.output_tokens), 0)::BIGINT AS output_tokens,
    (coalesce(sum(c.input_tokens), 0) + coalesce(sum(c.output_tokens), 0))::BIGINT AS total_tokens,
    CASE WHEN coalesce(bool_or(c.usd_unknown), false) THEN NULL ELSE coalesce(sum(c.usd), 0.0) END AS usd,
    coalesce(sum(tl.tool_calls), 0)::BIGINT AS tool_calls,
    coalesce(sum(tl.repeated_tool_calls), 0)::BIGINT AS repeated_tool_calls,
    coalesce(sum(tl.duplicate_signature_calls), 0)::BIGINT AS duplicate_signature_calls
FROM latest t
LEFT JOIN calls c ON c.experiment_id = t.experiment_id AND c.trial_id = t.trial_id
LEFT JOIN tools tl ON tl.experiment_id = t.experiment_id AND tl.trial_id = t.trial_id
GROUP BY t.experiment_id, t.group_id, t.stage_id
"""

COST_BY_SEGMENT = """
CREATE OR REPLACE VIEW cost_by_segment AS
WITH trial_keys AS (
    SELECT DISTINCT experiment_id, trial_id, group_id, stage_id FROM trials
)
SELECT
    s.experiment_id, k.group_id, k.stage_id, s.segment,
    sum(s.tokens)::BIGINT AS tokens,
    count(DISTINCT (s.trial_id, s.call_seq)) AS requests,
    sum(s.tokens) / sum(sum(s.tokens)) OVER (PARTITION BY s.experiment_id, k.group_id, k.stage_id) AS share
FROM request_segments s
JOIN trial_keys k ON k.experiment_id = s.experiment_id AND k.trial_id = s.trial_id
GROUP BY s.experiment_id, k.group_id, k.stage_id, s.segment
"""

VIEWS: dict[str, str] = {
    "group_stage_summary": GROUP_STAGE_SUMMARY,
    "cost_by_segment": COST_BY_SEGMENT,
}
