"""What the user asks, read from the user's words (X-61): numbers, ids and dates come from the text.

The kinds are those of the fixed scenario; a variant plan with other numbers, project ids and
dates parses the same way. Nothing here knows the plan's values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

_NUM = r"(\d[\d,，]*(?:\.\d+)?)"
_ISO_DATE = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})")
_CN_DATE = re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]")


def number(text: str) -> Decimal:
    return Decimal(re.sub(r"[,，]", "", text))


def fmt(value: Decimal | int | float) -> str:
    """6900 for integral amounts, 12.5 otherwise (no trailing zeros)."""
    dec = Decimal(str(value))
    if dec == dec.to_integral_value():
        return str(int(dec))
    return format(dec.normalize(), "f")


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


def _search(pattern: str, text: str) -> re.Match[str] | None:
    return re.search(pattern, text)


def find_date(text: str) -> str | None:
    match = _ISO_DATE.search(text) or _CN_DATE.search(text)
    if not match:
        return None
    year, month, day = (int(g) for g in match.groups())
    return f"{year:04d}-{month:02d}-{day:02d}"


def parse_schedule(text: str) -> Schedule | None:
    start = find_date(text)
    days = _search(r"(\d+)\s*个?\s*工作日", text)
    if start and days:
        return Schedule(start=start, workdays=int(days.group(1)))
    return None


def parse_quote(text: str) -> Quote | None:
    price = _search(r"单价\s*[:：]?\s*" + _NUM, text)
    quantity = _search(r"(\d+)\s*(?:台|套|个|件)", text)
    fee = _search(r"安装费\s*[:：]?\s*" + _NUM, text)
    if price and quantity and fee:
        return Quote(number(price.group(1)), int(quantity.group(1)), number(fee.group(1)))
    return None


def parse_task(text: str, state: dict[str, object] | None = None) -> Task:
    """Classify one request. ``state`` is the body when the text is a context_state block."""
    if state is not None:
        return StateEcho(str(state.get("windowId") or "?"), str(state.get("status") or "?"))
    new_budget = _search(r"预算\s*(?:调整|改|变更|更新)?\s*(?:为|成|到)\s*" + _NUM, text)
    if new_budget and "报价" in text:
        return BudgetCheck(number(new_budget.group(1)))
    schedule = parse_schedule(text)
    if schedule:
        return schedule
    quote = parse_quote(text)
    if quote:
        return quote
    project = _search(r"项目\s*([A-Za-z][A-Za-z0-9]*-?\d+)", text)
    if project:
        return Lookup(project.group(1))
    budget = _search(r"预算\s*[:：]?\s*" + _NUM, text)
    spent = _search(r"(?:已支出|已花费|已使用|支出|花费)\s*[:：]?\s*" + _NUM, text)
    if budget and spent:
        return Remaining(number(budget.group(1)), number(spent.group(1)))
    return Unknown(text)


_TOTAL = re.compile(r"(?:总价|总计|合计|total)\D{0,6}?" + _NUM, re.IGNORECASE)


def find_total(text: str) -> Decimal | None:
    """A quote total written in free text (working memory, an earlier answer)."""
    match = _TOTAL.search(text)
    return number(match.group(1)) if match else None
