"""Answer matching for answer_contains (X check table: "formatting like 7,650 accepted"; T2 dates)."""

from __future__ import annotations

import pytest

from harness.plan import contains_date, contains_number, contains_regex, contains_text, find_numbers, mentions


@pytest.mark.parametrize("answer", [
    "还剩 7650 元", "剩余预算：7,650 元。", "7650.00", "¥7,650", "７６５０元", "CNY 7650",
    "剩余7650元（12000-4350）",
])
def test_number_formats_match(answer: str) -> None:
    """X check table: a number matches in any common formatting."""
    assert contains_number(answer, 7650)


@pytest.mark.parametrize("answer", [
    "还剩 76500 元", "17650", "765", "7,6500", "X7650 型号", "P-7650", "765.0",
])
def test_number_must_not_match_parts_of_other_numbers(answer: str) -> None:
    assert not contains_number(answer, 7650)


def test_number_tolerance_is_absolute() -> None:
    assert contains_number("约 7649.6 元", 7650, tolerance=0.5)
    assert not contains_number("约 7649.4 元", 7650, tolerance=0.5)
    assert not contains_number("约 7649.6 元", 7650)


def test_date_digits_are_not_amounts() -> None:
    """The year of 2026-10-16 is not the amount 2026; 10/19 is not 10 or 19."""
    assert find_numbers("2026-10-16 至 10/19，共 2 天") == [2.0]
    assert not contains_number("开始日期 2026-10-16", 2026)
    assert find_numbers("总价 6,900 元，单价 2000，数量 3") == [6900.0, 2000.0, 3.0]


@pytest.mark.parametrize("answer", [
    "2026-10-19", "2026/10/19", "2026.10.19", "2026年10月19日", "10/19/2026", "19.10.2026", "October 19, 2026",
    "Oct 19th, 2026", "19 October 2026", "２０２６－１０－１９",
])
def test_full_date_in_common_formats(answer: str) -> None:
    """T2: 'any common date format' for a date given with its year."""
    assert contains_date(f"安装日期：{answer}。", "2026-10-19")


@pytest.mark.parametrize("answer", ["10-19", "10/19", "10月19日", "10 月 19 号", "Oct 19", "19 October", "2026-10-19"])
def test_month_day_in_common_formats(answer: str) -> None:
    assert contains_date(f"结束：{answer}（周一）", "10-19")


@pytest.mark.parametrize("answer", ["2025-10-19", "10月19日", "10/19", "2026-10-18", "2026-10-190", "12026-10-19"])
def test_full_date_needs_that_year_and_day(answer: str) -> None:
    """A spec with a year needs the year in the answer; neighbouring days and longer numbers never match."""
    assert not contains_date(answer, "2026-10-19")


@pytest.mark.parametrize("answer", ["10-18", "10-190", "110-19", "11月19日", "10/1", "Oct 1"])
def test_month_day_rejects_other_dates(answer: str) -> None:
    assert not contains_date(answer, "10-19")


def test_bad_date_spec_is_refused() -> None:
    with pytest.raises(ValueError):
        contains_date("x", "2026-13-01")
    with pytest.raises(ValueError):
        contains_date("x", "Oct 19")


def test_text_and_regex_are_normalised() -> None:
    assert contains_text("Total: ACME quote", "acme QUOTE")
    assert contains_text("ＡＣＭＥ", "acme")
    assert contains_regex("Within Budget", r"within budget")
    assert not contains_text("ACME", "ACME2")


def test_mentions_dispatches_by_shape() -> None:
    """memory_preserved strings: dates as dates, amounts as amounts, else text."""
    assert mentions("报价 6,900 元", "6900")
    assert not mentions("报价 69000 元", "6900")
    assert mentions("排期 10月19日结束", "10-19")
    assert mentions("start 2026/10/16", "2026-10-16")
    assert not mentions("start 10/16", "2026-10-16")
    assert mentions("window alpha holds the quote", "Alpha")
