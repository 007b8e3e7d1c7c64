"""A small run directory as the runner writes it (O-1, O-2, O-10): report.json, metrics.duckdb and
transcripts. Group A (trailing assistant state) fails under a prefill-continuing scripted model;
B and C pass; n=3 per group and stage."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from harness.analysis import compare_with_control, pass_hat_ks, wilson_interval
from harness.metrics import MetricsWriter

EXP = "exp-1"
GROUPS = {"A": ("control", "trailing_assistant"), "B": ("treatment", "trailing_user"), "C": ("treatment", "system")}
STAGES = ("simple", "tool_continuation")
T0 = datetime(2026, 10, 5, 12, 0, tzinfo=UTC)
EVIL = "<script>alert(1)</script> see https://evil.example/x"


def _snapshots(trial: str, failing: bool) -> list[dict[str, Any]]:
    state_role = "assistant" if failing else "user"
    messages = [
        {"role": "system", "content": "You are the planner."},
        {"role": "user", "content": "Quote the venue. " + EVIL},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "quote", "arguments": '{"venue": "hall"}'}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": '{"usd": 120}'},
        {"role": state_role, "content": "<context_state>budget=500</context_state>"},
    ]
    sources = [{"type": "system", "messageIds": []}, {"type": "raw", "messageIds": ["m1"]},
               {"type": "raw", "messageIds": ["m2"]}, {"type": "raw", "messageIds": ["m3"]},
               {"type": "context_state", "messageIds": []}]
    reply = "budget=500 continued" if failing else "The hall costs 120 USD."
    return [{"trialId": trial, "id": f"s-{trial}/1", "seq": 1, "role": "agent", "runId": "r1", "step": 1,
             "model": "scripted/prefill-continuer", "request": {"model": "scripted/prefill-continuer",
                                                                "messages": messages, "tools": []},
             "sources": sources, "response": {"content": reply, "toolCalls": [], "finishReason": "stop"},
             "error": None, "usage": {"inputTokens": 100}}]


def build_run(root: Path) -> Path:
    groups, rows = [], {t: [] for t in ("trials", "runs", "llm_calls", "request_segments", "tool_calls", "checks")}
    counts: dict[str, dict[str, tuple[int, int]]] = {}
    for gid, (role, placement) in GROUPS.items():
        stages = []
        for sid in STAGES:
            failing = gid == "A"
            trials = []
            for rep in range(3):
                tid = f"{gid}/{sid}/{rep}"
                status = "failed" if failing else "passed"
                snaps = _snapshots(tid, failing)
                path = root / "transcripts" / gid / sid / f"{rep}.jsonl"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text("".join(json.dumps(s) + "\n" for s in snaps), encoding="utf-8")
                check = {"name": "answer_matches", "result": status,
                         "detail": "reply continued the state block" if failing else "ok",
                         "evidence": [f"s-{tid}/1", "m2"], "turn": 1}
                trials.append({"id": tid, "repeat": rep, "status": status, "sessionId": f"sess-{tid}",
                               "runs": [{"runId": "r1", "input": "Quote the venue.", "finalAnswer": snaps[0][
                                   "response"]["content"], "status": "completed", "steps": 2}],
                               "checks": [check], "metrics": {},
                               "failureMode": "state_echo" if failing else None,
                               "failureDetail": "turn 1: the answer continues the state block" if failing else None})
                base = {"experiment_id": EXP, "trial_id": tid}
                rows["trials"].append({**base, "group_id": gid, "stage_id": sid, "repeat": rep, "status": status,
                                       "session_id": f"sess-{tid}", "started_at": T0, "finished_at": T0})
                rows["runs"].append({**base, "run_id": "r1", "turn": 1, "status": "completed", "steps": 2,
                                     "final_answer": "x"})
                rows["llm_calls"].append({**base, "run_id": "r1", "call_seq": 1, "role": "agent",
                                          "model": "scripted/prefill-continuer", "input_tokens": 100,
                                          "cached_input_tokens": 40, "output_tokens": 10, "usd": 0.0,
                                          "latency_ms": 1.0, "retries": 0, "status": "ok", "request_sha256": "h"})
                for seg, tok in (("system", 20), ("state", 10), ("history", 60), ("tools", 10)):
                    rows["request_segments"].append({**base, "call_seq": 1, "segment": seg, "tokens": tok})
                for step in (1, 2) if failing else (1,):
                    rows["tool_calls"].append({**base, "run_id": "r1", "step": step, "tool_name": "quote",
                                               "args_sha256": "a", "result_sha256": "b", "success": True,
                                               "error_code": None, "repeated": step == 2,
                                               "duplicate_signature": False})
                rows["checks"].append({**base, "check_name": "answer_matches", "result": status, "detail": "d"})
            passes = 0 if failing else 3
            counts.setdefault(gid, {})[sid] = (passes, 3)
            stages.append({"id": sid, "status": "failed" if failing else "passed",
                           "passHatK": {str(k): v for k, v in pass_hat_ks(passes, 3).items()},
                           "passRate": {"passes": passes, "n": 3, "value": passes / 3,
                                        "wilson95": list(wilson_interval(passes, 3))}, "trials": trials})
        groups.append({"id": gid, "label": f"group {gid}", "role": role,
                       "protocol": {"id": "unified", "version": 3, "options": {"stateMessagePlacement": placement}},
                       "stages": stages})
    comps = [c.model_dump() for c in compare_with_control(counts, "A", list(STAGES), list(GROUPS), test="fisher")]
    report = {
        "schemaVersion": "1.0", "harnessVersion": "0.1.0", "createdAt": "2026-10-05T12:00:00Z",
        "status": "completed", "stopReason": None,
        "plan": {"id": "unified-mapping-ab-20261005", "title": "Unified mapping A/B", "sha256": "abc",
                 "path": "plan.json"},
        "model": {"agent": "scripted/prefill-continuer", "maintainer": "scripted/oracle", "kind": "scripted",
                  "apiBase": None, "sampling": {}, "prices": {}},
        "budget": {"limits": {"maxUsd": 1.0, "maxLlmCalls": 500},
                   "spent": {"usd": 0.0, "inputTokens": 1800, "cachedInputTokens": 720, "outputTokens": 180,
                             "llmCalls": 18, "wallSeconds": 1.5}},
        "groups": groups, "comparisons": comps,
        "findings": [{"rule": "placement-v3/position", "statement": "A trailing assistant state block is continued "
                      "by a prefill-continuing model: group A failed, B and C passed.",
                      "doesNotShow": "That any real LLM behaves this way; scripted models check mechanisms.",
                      "basis": {"A": {"simple": "failed"}}, "sentinelReproduced": None, "sentinelStatement": "",
                      "limitedBy": []}],
        "caveats": ["scripted models check mechanisms, not LLM behaviour (X-42)", EVIL],
    }
    (root / "report.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    with MetricsWriter.open(root / "metrics.duckdb", EXP) as writer:
        for table, data in rows.items():
            writer.write(table, data)
    return root
