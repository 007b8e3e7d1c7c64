"""Issue 11: the scripted models read the wording variants a researcher writes (X-61): English, Chinese
paraphrases, amounts without 元, year-less weekday dates, "3 天", ids like PRJ-2026-07, a quote request
naming a budget; what none of the task kinds fits raises ``UnreadableInput``, never a made-up answer."""

from __future__ import annotations

from decimal import Decimal

import pytest

from harness.scripted import UnreadableInput
from harness.scripted._dates import count, find_date
from harness.scripted._oracle import Answer, Oracle
from harness.scripted._tasks import BudgetCheck, Lookup, Quote, Remaining, Schedule, Unknown, language, parse_task
from harness.scripted._view import View

D = Decimal


@pytest.mark.parametrize(("text", "task"), [
    # English
    ("The project budget is 15,000 CNY and 6,250 CNY has been spent so far. How much budget is left?",
     Remaining(D(15000), D(6250))),
    ("We spent $4,350 out of a $12,000 budget. What's left?", Remaining(D(12000), D(4350))),
    ("Please look up the budget and spending of project PRJ-2026-07, then tell me the remaining budget.",
     Lookup("PRJ-2026-07")),
    ("Customer Globex needs 4 X300 units at 2,500 CNY each, plus an installation fee of 350 CNY per unit. "
     "Please prepare the quote and tell me the total.", Quote(D(2500), 4, D(350))),
    ("Quote three devices, unit price 1200, installation cost per unit 80; the customer's budget is 5000.",
     Quote(D(1200), 3, D(80), D(5000))),
    ("Next, schedule the installation: it takes 3 working days, starting no earlier than Thursday, November 5.",
     Schedule("2026-11-05", 3)),
    ("Install over two business days from 16 October 2027.", Schedule("2027-10-16", 2)),
    ("The customer changed the budget to 12,000 CNY. Go back to the quote and check whether it is within budget.",
     BudgetCheck(D(12000))),
    # Chinese paraphrases
    ("总预算 15000，已经花了 6200，还剩多少？", Remaining(D(15000), D(6200))),
    ("帮我查一下PRJ-2026-07这个项目的预算和支出情况，算出还剩多少。", Lookup("PRJ-2026-07")),
    ("Globex 要订 4 套 X300，每套 2500 元，安装费每套 350 元。客户预算 12000 元，请报价并给出总价。",
     Quote(D(2500), 4, D(350), D(12000))),
    ("然后安排安装，需要 3 天，最早 11 月 5 日（周四）开始，请告诉我起止日期。", Schedule("2026-11-05", 3)),
    ("安装需要两个工作日，最早 2027年1月4日 开始。", Schedule("2027-01-04", 2)),
    ("客户的预算现在改成了 8000 元。请回到之前的报价，核对是否还在预算内，不要覆盖原报价。", BudgetCheck(D(8000))),
    # what no kind fits
    ("Write a haiku about installation days.", Unknown("Write a haiku about installation days.")),
    ("Quote 3 units at 2000 each.", Unknown("Quote 3 units at 2000 each.")),  # no installation fee: not guessed
])
def test_x61_wording_variants_are_read(text: str, task: object) -> None:
    assert parse_task(text) == task


@pytest.mark.parametrize(("text", "iso"), [
    ("最早 10月16日（周五）开始", "2026-10-16"),
    ("start on Friday, October 16", "2026-10-16"),
    ("start on Saturday, October 16", "2027-10-16"),  # the year nearest 2026 in which the 16th is a Saturday
    ("from 2025/3/3", "2025-03-03"),
    ("from Oct 20 (see also 2028-01-01)", "2028-10-20"),  # a year-less date takes the year written beside it
    ("no date here, only PRJ-2026-07", None),
    ("2026-02-30", None),
])
def test_dates_without_a_year_take_one_from_the_text_or_the_weekday(text: str, iso: str | None) -> None:
    assert find_date(text) == iso


def test_counts_in_words() -> None:
    assert [count(w) for w in ("3", "three", "三", "两", "十二", "二十一", "someone")] == [3, 3, 3, 2, 12, 21, None]


def test_the_answer_is_in_the_language_of_the_request() -> None:
    assert language("How much is left?") == "en" and language("还剩多少？") == "zh"
    view = View([{"role": "user", "content": "The budget is 9000 and 2500 has been spent. How much is left?"}], [])
    assert Oracle().decide(view) == Answer("The remaining budget is 6500 (9000 - 2500).")


def test_an_unreadable_request_raises_instead_of_answering() -> None:
    view = View([{"role": "user", "content": "Draft an email to Globex."}], [])
    with pytest.raises(UnreadableInput) as caught:
        Oracle().decide(view)
    assert caught.value.text == "Draft an email to Globex."
    assert "quote (unit price, quantity, installation fee per unit)" in caught.value.reason
