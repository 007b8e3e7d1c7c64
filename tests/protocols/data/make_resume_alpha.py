"""Writes resume_alpha.json: quote done in window alpha, schedule done in beta, then alpha resumed from beta.

The state a unified@2/3 host holds right after the resume call of the source's example
(P-72 … P-74); rendered by every protocol into tests/protocols/golden/ (issue 3).
"""

import json
from pathlib import Path

R1, R2, R3 = "a1" * 16, "b2" * 16, "c3" * 16
T1 = "客户 ACME 需要 3 台 X200 设备，单价 2000 元，每台安装费 300 元。请完成报价并告诉我总价。"
T2 = "接下来安排安装：需要 2 个工作日，最早 2026-10-16 开始。请排期并告诉我起止日期。"
T3 = "客户把预算调整为 9000 元。请回到报价，核对报价是否在预算内，不要覆写已有报价，核对后向我汇报。"
RESUME = {"purpose": "复核报价", "expectedWindowId": "beta", "windowId": "alpha", "resume": True,
          "input": "beta排期已完成；只核对alpha检查点，不覆写报价，随后汇报。"}

_messages: list[dict] = []


def add(run, window, role, kind, content="", **extra):
    index = len(_messages) + 1
    m = {"id": f"m{index}", "index": index, "runId": run, "windowId": window, "role": role, "kind": kind,
         "content": content, **extra}
    _messages.append(m)
    return m


def exchange(run, window, cid, name, args, result, revision):
    add(run, window, "assistant", "tool_call",
        toolCalls=[{"id": cid, "name": name, "arguments": json.dumps(args, ensure_ascii=False)}],
        frozenView={"revision": revision, "upperBound": len(_messages), "runId": run})
    add(run, window, "tool", "tool_result", json.dumps(result, ensure_ascii=False), toolCallId=cid)


add(R1, "main", "user", "input", T1, inputRun=R1)
exchange(R1, "main", "call_open_alpha", "context_window_open",
         {"purpose": "报价", "expectedWindowId": "main", "windowId": "alpha", "goal": "完成 ACME 报价",
          "input": "计算 3 台 X200 的报价"}, {"success": True, "windowId": "alpha", "revision": 1}, 0)
exchange(R1, "alpha", "call_quote", "quote_calculate",
         {"unitPrice": 2000, "quantity": 3, "installFeePerUnit": 300},
         {"success": True, "equipment": 6000, "installation": 900, "total": 6900}, 1)
exchange(R1, "alpha", "call_mem_alpha", "context_window_memory_set",
         {"purpose": "记录报价", "expectedWindowId": "alpha", "memory": "报价：设备 6000 + 安装 900 = 总价 6900 元"},
         {"success": True, "revision": 2}, 1)
add(R1, "alpha", "assistant", "text", "报价总价 6900 元（设备 6000 元 + 安装 900 元）。")
add(R2, "alpha", "user", "input", T2, inputRun=R2)
exchange(R2, "alpha", "call_open_beta", "context_window_open",
         {"purpose": "排期", "expectedWindowId": "alpha", "windowId": "beta", "goal": "安排安装",
          "input": "报价已完成；安排 2 个工作日的安装，完成后回到 alpha"}, {"success": True, "windowId": "beta",
                                                                      "revision": 3}, 2)
exchange(R2, "beta", "call_schedule", "schedule_plan", {"startDate": "2026-10-16", "workdays": 2},
         {"success": True, "startDate": "2026-10-16", "endDate": "2026-10-19", "workdays": 2}, 3)
exchange(R2, "beta", "call_mem_beta", "context_window_memory_set",
         {"purpose": "记录排期", "expectedWindowId": "beta", "memory": "安装排期 2026-10-16 至 2026-10-19"},
         {"success": True, "revision": 4}, 3)
add(R2, "beta", "assistant", "text", "安装排期：2026-10-16 至 2026-10-19。")
add(R3, "beta", "user", "input", T3, inputRun=R3)
exchange(R3, "beta", "call_resume_alpha", "context_window_open", RESUME,
         {"success": True, "windowId": "alpha", "resumed": True, "revision": 5}, 4)

state = {
    "sessionId": "s-resume",
    "currentRunId": R3,
    "agent": {"systemPrompt": "你是项目助理，负责报价、排期和预算核对；简短回答并给出关键数字。"
                              "\n\n{{context_protocol}}",
              "inputs": {"customer": "ACME", "currency": "CNY"}},
    "kvRevision": 5,
    "upperBound": len(_messages),
    "messages": _messages,
    "kv": {
        "activeWindow": "alpha",
        "window/main": {"goal": None, "status": "suspended", "results": [], "parent": None},
        "window/alpha": {"goal": "完成 ACME 报价", "status": "active", "handoffInput": RESUME["input"],
                         "workingMemory": "报价：设备 6000 + 安装 900 = 总价 6900 元", "results": [],
                         "parent": "main", "enteredFrom": "beta"},
        "window/beta": {"goal": "安排安装", "status": "suspended",
                        "handoffInput": "报价已完成；安排 2 个工作日的安装，完成后回到 alpha",
                        "workingMemory": "安装排期 2026-10-16 至 2026-10-19", "results": [], "parent": "alpha",
                        "enteredFrom": "alpha"},
        "currentWindowEntry": {"windowId": "alpha", "fromWindow": "beta", "enteredAtUpperBound": 17,
                               "input": RESUME["input"], "revision": 5},
    },
}

if __name__ == "__main__":
    out = Path(__file__).with_name("resume_alpha.json")
    out.write_text(json.dumps(state, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
