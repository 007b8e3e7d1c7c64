"""Writes worked_example.json: the worked example of 01-protocol.md / the source, as a state file."""

import json
from pathlib import Path

RUN = "0f3c2b8e9d7a4c1b8e5f6a7b8c9d0e1f"
OLD = "11111111111111111111111111111111"


def msg(index, window, role, kind, content="", run=RUN, **extra):
    m = {"id": f"m{index}", "index": index, "runId": run, "windowId": window, "role": role, "kind": kind,
         "content": content}
    m.update(extra)
    return m


def call(index, window, cid, name, args):
    return msg(index, window, "assistant", "tool_call",
               toolCalls=[{"id": cid, "name": name, "arguments": json.dumps(args)}])


def result(index, window, cid, body):
    return msg(index, window, "tool", "tool_result", json.dumps(body), toolCallId=cid)


messages = [
    msg(1, "A", "user", "input", "请为客户 ACME 报价并核对预算。", inputRun=RUN),
    call(2, "A", "c2", "quote_calculate", {"unitPrice": 2000, "quantity": 3, "installFeePerUnit": 300}),
    result(3, "A", "c2", {"success": True, "total": 6900}),
    msg(4, "A", "assistant", "text", "报价 6900 元。"),
    call(5, "A", "c5", "budget_lookup", {"projectId": "P-17"}),
    result(6, "A", "c5", {"success": True, "remaining": 2100}),
    msg(7, "A", "assistant", "text", "预算剩余 2100 元。"),
    msg(8, "A", "assistant", "text", "继续核对。"),
    call(9, "A", "c9", "context_window_list", {"purpose": "look around"}),
    result(10, "A", "c9", {"success": True, "windows": []}),
    call(11, "A", "c11", "context_window_search", {"purpose": "find", "query": "X200"}),
    result(12, "A", "c11", {"success": True, "matches": []}),
    msg(13, "B", "assistant", "text", "B 窗口的工作。"),
    msg(14, "B", "assistant", "text", "B 窗口完成。"),
    call(15, "A", "c15", "quote_calculate", {"unitPrice": 2000, "quantity": 3, "installFeePerUnit": 300}),
    result(16, "A", "c15", {"success": True, "equipment": 6000, "installation": 900, "total": 6900}),
]

state = {
    "sessionId": "s-worked",
    "currentRunId": RUN,
    "agent": {"systemPrompt": "You are a project assistant.\n\n{{context_protocol}}", "inputs": {"customer": "ACME"}},
    "kvRevision": 12,
    "upperBound": 16,
    "messages": messages,
    "kv": {
        "activeWindow": "A",
        "taskMemory": "客户 ACME：报价与预算核对",
        "window/A": {"goal": "报价", "status": "active", "handoffInput": "完成报价", "workingMemory": "总价 6900",
                     "results": [], "parent": "main"},
        "window/B": {"goal": "排期", "status": "suspended", "handoffInput": None, "workingMemory": None,
                     "results": [], "parent": "A"},
        "checkpoint/A": {"summary": "已计算报价 6900 元，预算剩余 2100 元。", "coveredThrough": 8, "sourceHash": "x"},
        "coveredThrough/A": 8,
        "fold/f1": {"windowId": "A", "fromIndex": 9, "throughIndex": 12,
                    "messageIds": ["m9", "m10", "m11", "m12"], "summary": "查看了窗口列表并搜索 X200，无结果。"},
    },
}

if __name__ == "__main__":
    out = Path(__file__).with_name("worked_example.json")
    out.write_text(json.dumps(state, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
