"""What the user asks, read from the user's words (X-61): numbers, ids and dates come from the text.

The kinds are those of the fixed scenario; a plan with other numbers, project ids, dates, Chinese
paraphrases or English wording parses the same way (amounts with or without 元 / CNY / ¥ / $,
``12,000``; project ids like ``P-17`` or ``PRJ-2026-07``; dates as ``_dates`` reads them; ``3 天``,
``two working days``; a quote request that names the customer's budget). Nothing here knows the
plan's values. Text none of the kinds fits is ``Unknown``: a scripted model then says it cannot read
its input (``UnreadableInput``) instead of answering something.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from ._dates import COUNT, count, find_date

_CUR = r"(?:CNY|RMB|USD|EUR|¥|￥|\$)?\s*"
_NUM = r"(\d[\d,，]*(?:\.\d+)?)"
_AMOUNT = _CUR + _NUM
_UNIT = r"\s*(?:元|块|CNY|RMB|USD|EUR|yuan|dollars?)?"
_IS = r"\s*(?:is|are|was|of|at|:|：|=|为|是|有|共|总共|合计)?\s*"
_ID = r"([A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+|[A-Za-z]+\d[A-Za-z0-9]*)"
_CJK = re.compile(r"[\u3400-\u9fff]")
_FLAGS = re.IGNORECASE


def number(text: str) -> Decimal:
    return Decimal(re.sub(r"[,，]", "", text).rstrip("."))


def fmt(value: Decimal | int | float) -> str:
    """6900 for integral amounts, 12.5 otherwise (no trailing zeros)."""
    dec = Decimal(str(value))
    if dec == dec.to_integral_value():
        return str(int(dec))
    return format(dec.normalize(), "f")


def language(text: str) -> str:
    """``zh`` when the text has Chinese characters, else ``en``: the language an answer is given in."""
    return "zh" if _CJK.search(text) else "en"


@dataclass(frozen=True)
class Remaining:
    """Budget minus spent, both given in the text (no tool needed)."""

    budget: Decimal
    spent: Decimal


@dataclass(frozen=True)
class Lookup:
    project_id: str


@dataclass(frozen=True)
class Quote:
    unit_price: Decimal
    quantity: int
    install_fee: Decimal
    budget: Decimal | None = None
    """The customer's budget when the request names one (the answer then says whether the total fits)."""


@dataclass(frozen=True)
class Schedule:
    start: str  # YYYY-MM-DD
    workdays: int


@dataclass(frozen=True)
class BudgetCheck:
    """Go back to the quote and compare its total with a new budget, without overwriting it."""

    budget: Decimal


@dataclass(frozen=True)
class StateEcho:
    """The 'request' is a context_state block (what a follower of the last user message reads)."""

    window_id: str
    status: str


@dataclass(frozen=True)
class Unknown:
    text: str


Task = Remaining | Lookup | Quote | Schedule | BudgetCheck | StateEcho | Unknown

KINDS = ("remaining budget (a budget and a spent amount)", "project budget lookup (a project id)",
         "quote (unit price, quantity, installation fee per unit)", "schedule (a start date and a number of days)",
         "budget check of the existing quote (a new budget and the quote)")
"""What the task reading covers, as an unreadable-input error names it."""


def _first(patterns: tuple[str, ...], text: str) -> re.Match[str] | None:
    hits = [m for m in (re.search(p, text, _FLAGS) for p in patterns) if m]
    return min(hits, key=lambda m: m.start()) if hits else None


def _amount(patterns: tuple[str, ...], text: str) -> tuple[Decimal, tuple[int, int]] | None:
    match = _first(patterns, text)
    if match is None:
        return None
    return number(match.group(1)), match.span()


# kinds -------------------------------------------------------------------------------------------
_DAYS = (COUNT + r"\s*个?\s*(?:工作日|工作天|天)", COUNT + r"\s*(?:working|work|business)?[\s-]*days?\b")


def parse_schedule(text: str) -> Schedule | None:
    start = find_date(text)
    days = _first(_DAYS, text)
    workdays = count(days.group(1)) if days else None
    if start and workdays:
        return Schedule(start=start, workdays=workdays)
    return None


_FEE = (
    r"安装(?:费用?|成本)\s*(?:每(?:台|套|件|个))?" + _IS + _AMOUNT,
    r"install(?:ation)?\s*(?:fee|cost|charge)s?\s*(?:per\s+(?:unit|device|piece|item)\s*)?" + _IS + _AMOUNT,
    _AMOUNT + _UNIT + r"\s*(?:per\s+(?:unit|device|piece|item)\s+)?(?:for|of)\s+install(?:ation|ing)?",
)
_PRICE = (
    r"(?:单价|单台价格|每(?:台|套|件|个)(?:设备)?(?:的)?(?:价格|售价|报价)?)" + _IS + _AMOUNT,
    r"unit\s+price" + _IS + _AMOUNT,
    r"(?:price|cost)s?\s+(?:per|a|each)\s+(?:unit|device|piece|item)" + _IS + _AMOUNT,
    r"(?:at|for|costs?|priced\s+at)\s+" + _AMOUNT + _UNIT
    + r"\s*(?:each|apiece|per\s+(?:unit|device|piece|item)|a\s+(?:unit|piece))",
    _AMOUNT + _UNIT + r"\s*(?:each|apiece|per\s+(?:unit|device|piece|item))",
)
_QUANTITY = (
    COUNT + r"\s*(?:台|套|件|个)(?!工作日)",
    COUNT + r"\s+(?:[A-Za-z][\w-]*\s+){0,2}?(?:units?|devices?|pieces?|pcs|sets?|machines?|items?)\b",
    r"(\d+)\s*[x×]\s*[A-Za-z]",
    r"(?:quantity|qty|数量)" + _IS + r"(\d+)",
)
_QUOTE_BUDGET = (r"预算" + _IS + _AMOUNT, r"budget" + _IS + _AMOUNT)


def parse_quote(text: str) -> Quote | None:
    fee = _amount(_FEE, text)
    if fee is None:
        return None
    rest = text[: fee[1][0]] + " " * (fee[1][1] - fee[1][0]) + text[fee[1][1]:]  # the fee is not the price
    price = _amount(_PRICE, rest)
    quantity = _first(_QUANTITY, rest)
    units = count(quantity.group(1)) if quantity else None
    if price is None or not units:
        return None
    budget = _amount(_QUOTE_BUDGET, rest)
    return Quote(price[0], units, fee[0], budget[0] if budget else None)


_NEW_BUDGET = (
    r"预算[^，。,.；;！？!?\d]{0,8}?(?:为|成|到|至|是)\s*了?\s*" + _CUR + _NUM,
    r"(?:新|现在的|调整后的?)\s*预算" + _IS + _AMOUNT,
    r"budget\s+(?:has\s+been\s+|was\s+|is\s+)?(?:changed|adjusted|updated|revised|cut|raised|reduced|lowered|"
    r"increased|set|moved|now)?\s*(?:to|at|is now|now)\s+" + _AMOUNT,
    r"new\s+budget" + _IS + _AMOUNT,
)
_QUOTE_CUE = r"报价|\bquote\b|\bquotation\b"


def parse_budget_check(text: str) -> BudgetCheck | None:
    budget = _amount(_NEW_BUDGET, text)
    if budget is not None and re.search(_QUOTE_CUE, text, _FLAGS):
        return BudgetCheck(budget[0])
    return None


_BUDGET = (r"预算" + _IS + _AMOUNT, r"budget" + _IS + r"(?:now\s+)?" + _AMOUNT, _AMOUNT + _UNIT + r"\s+budget\b")
_SPENT = (
    r"(?:已经?(?:支出|花费|使用|花了|用了)|已用|花了|用了|支出|花费|开销|开支)\s*(?:了)?" + _IS + _AMOUNT,
    r"(?:spent|used|spending|expenses?|expenditures?|costs\s+so\s+far)\s*(?:so\s+far\s*)?" + _IS + _AMOUNT,
    _AMOUNT + _UNIT + r"\s+(?:has|have)\s+(?:already\s+)?been\s+(?:spent|used)",
    _AMOUNT + _UNIT + r"\s+(?:is\s+|was\s+)?(?:already\s+)?(?:spent|used)\b",
)


def parse_remaining(text: str) -> Remaining | None:
    spent = _amount(_SPENT, text)
    if spent is None:
        return None
    rest = text[: spent[1][0]] + " " * (spent[1][1] - spent[1][0]) + text[spent[1][1]:]
    budget = _amount(_BUDGET, rest)
    return Remaining(budget[0], spent[0]) if budget else None


_PROJECT = (r"(?:项目|project)\s*(?:编号|号|id|ID|#|no\.?)?\s*[:：]?\s*" + _ID,
            r"(?<![A-Za-z0-9])([A-Z]{1,6}-\d[A-Za-z0-9]*(?:-[A-Za-z0-9]+)*)(?![A-Za-z0-9])")


def parse_lookup(text: str) -> Lookup | None:
    match = _first(_PROJECT, text)
    return Lookup(match.group(1)) if match else None


def parse_task(text: str, state: dict[str, object] | None = None) -> Task:
    """Classify one request. ``state`` is the body when the text is a context_state block.

    The most specific kind first: a quote (price, quantity, fee), a schedule (date and days), a
    check of the quote against a new budget, a remaining budget from two amounts, a project lookup."""
    if state is not None:
        return StateEcho(str(state.get("windowId") or "?"), str(state.get("status") or "?"))
    for parse in (parse_quote, parse_schedule, parse_budget_check, parse_remaining, parse_lookup):
        task = parse(text)
        if task is not None:
            return task
    return Unknown(text)


_TOTAL = re.compile(r"(?:总价|总计|合计|total)\D{0,6}?" + _NUM, re.IGNORECASE)


def find_total(text: str) -> Decimal | None:
    """A quote total written in free text (working memory, an earlier answer)."""
    match = _TOTAL.search(text)
    return number(match.group(1)) if match else None
