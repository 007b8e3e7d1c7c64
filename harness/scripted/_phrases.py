"""The oracle's answers in the language of the request (``_tasks.language``): Chinese or English.

Only what a user reads is translated; the working memory and window handoffs the oracle writes
for itself stay in one wording (Chinese), which every scripted model reads back the same way.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from ._tasks import fmt


def remaining(lang: str, budget: Decimal, spent: Decimal) -> str:
    left = fmt(budget - spent)
    if lang == "en":
        return f"The remaining budget is {left} ({fmt(budget)} - {fmt(spent)})."
    return f"剩余预算 {left} 元（{fmt(budget)} − {fmt(spent)}）。"


def lookup_found(lang: str, project: str, result: dict[str, Any]) -> str:
    budget, spent, left = result.get("budget"), result.get("spent"), result.get("remaining")
    if lang == "en":
        return f"Project {project}: budget {budget}, spent {spent}, remaining budget {left}."
    return f"项目 {project}：预算 {budget} 元，已支出 {spent} 元，剩余预算 {left} 元。"


def lookup_not_found(lang: str, project: str) -> str:
    if lang == "en":
        return f"Project {project} was not found, so I cannot give its remaining budget."
    return f"没有找到项目 {project}，无法给出剩余预算。"


def lookup_unavailable(lang: str, project: str) -> str:
    if lang == "en":
        return f"I cannot look up the budget of project {project} right now."
    return f"暂时无法查询项目 {project} 的预算。"


def quote_done(lang: str, equipment: str, installation: str, total: str, budget: Decimal | None) -> str:
    fits = ""
    if budget is not None:
        inside = Decimal(total) <= budget
        if lang == "en":
            fits = f" It is {'within' if inside else 'over'} the customer's budget of {fmt(budget)}."
        else:
            fits = f"{'在' if inside else '超出'}客户 {fmt(budget)} 元预算{'内' if inside else ''}。"
    if lang == "en":
        return f"Quote done: equipment {equipment} + installation {installation}, total {total}.{fits}"
    return f"报价完成：设备 {equipment} 元 + 安装 {installation} 元，总价 {total} 元。{fits}"


def schedule_done(lang: str, start: Any, end: Any, workdays: int) -> str:
    if lang == "en":
        return f"Installation scheduled from {start} to {end} ({workdays} working days)."
    return f"安装排期：{start} 至 {end}（{workdays} 个工作日）。"


def no_quote(lang: str) -> str:
    if lang == "en":
        return "I found no existing quote, so I cannot check it against the budget; nothing was changed."
    return "没有找到已有报价，无法核对是否在预算内；已有记录未改动。"


def budget_verdict(lang: str, total: Decimal, budget: Decimal) -> str:
    if total <= budget:
        if lang == "en":
            return (f"The quote total of {fmt(total)} is within the budget of {fmt(budget)} "
                    f"({fmt(budget - total)} to spare); the existing quote was not overwritten.")
        return (f"报价总价 {fmt(total)} 元，在 {fmt(budget)} 元预算内（剩余 {fmt(budget - total)} 元），"
                "已有报价未覆写。")
    if lang == "en":
        return (f"The quote total of {fmt(total)} exceeds the budget of {fmt(budget)} by {fmt(total - budget)}; "
                "the existing quote was not overwritten.")
    return f"报价总价 {fmt(total)} 元，超出 {fmt(budget)} 元预算 {fmt(total - budget)} 元，已有报价未覆写。"
