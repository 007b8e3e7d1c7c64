"""Dates and small counts as a researcher writes them, for the scripted models' task reading (X-61).

Dates: ``2026-10-16``, ``2026/10/16``, ``2026年10月16日``, ``10月16日（周五）``, ``October 16, 2026``,
``16 Oct``, ``Friday, October 16``. A date written without a year gets one from the same text
(another full date in it), else the year nearest ``REFERENCE_YEAR`` in which it falls on the weekday
written next to it, else ``REFERENCE_YEAR``. A scripted model never reads the clock: its reply is a
function of the request alone. Counts: digits, English words up to twelve, Chinese numerals up to 99.
"""

from __future__ import annotations

import re
from datetime import date

REFERENCE_YEAR = 2026
"""The fixed scenario's year: where a year-less date without a weekday is placed."""

MONTHS = {name: n for n, names in enumerate((
    ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
    ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"),
    ("november", "nov"), ("december", "dec")), 1) for name in names}
WEEKDAYS_EN = {name: n for n, names in enumerate((
    ("monday", "mon"), ("tuesday", "tue", "tues"), ("wednesday", "wed"), ("thursday", "thu", "thurs"),
    ("friday", "fri"), ("saturday", "sat"), ("sunday", "sun"))) for name in names}
WEEKDAYS_ZH = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
         "ten": 10, "eleven": 11, "twelve": 12, "a": 1, "an": 1, "a single": 1}
ZH_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}

COUNT = r"(\d+|[零一二两三四五六七八九十]{1,3}|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b)"
"""A small count in any of the forms ``count`` reads (use with re.IGNORECASE)."""

_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
_WEEKDAY_EN = "|".join(sorted(WEEKDAYS_EN, key=len, reverse=True))
_ISO = re.compile(r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)")
_CN = re.compile(r"(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]")
_EN_MD = re.compile(rf"\b({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(\d{{4}})\b)?", re.IGNORECASE)
_EN_DM = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH})\b\.?(?:,?\s+(\d{{4}})\b)?",
                    re.IGNORECASE)
_WEEKDAY = re.compile(rf"(?:周|星期|礼拜)([一二三四五六日天])|\b({_WEEKDAY_EN})\b\.?", re.IGNORECASE)
_NEAR = 24
"""How far (characters) a weekday may stand from its date to belong to it."""


def count(text: str) -> int | None:
    """``3``, ``three``, ``三``, ``两``, ``十二`` → the number; None when it is not a count."""
    word = text.strip().lower()
    if word.isdigit():
        return int(word)
    if word in WORDS:
        return WORDS[word]
    if word and all(ch in ZH_DIGITS or ch == "十" for ch in word):
        if "十" not in word:
            return ZH_DIGITS[word] if len(word) == 1 else None
        tens, _, ones = word.partition("十")
        value = (ZH_DIGITS.get(tens, 0) if tens else 1) * 10 + (ZH_DIGITS.get(ones, 0) if ones else 0)
        return value if (not tens or tens in ZH_DIGITS) and (not ones or ones in ZH_DIGITS) else None
    return None


def _weekday_near(text: str, start: int, end: int) -> int | None:
    for match in _WEEKDAY.finditer(text):
        if match.start() <= end + _NEAR and match.end() >= start - _NEAR:
            if match.group(1):
                return WEEKDAYS_ZH[match.group(1)]
            return WEEKDAYS_EN[match.group(2).lower()]
    return None


def _year_for(month: int, day: int, weekday: int | None, years: list[int]) -> int | None:
    if years:
        return years[0]
    if weekday is None:
        return REFERENCE_YEAR
    for offset in range(0, 30):
        for year in (REFERENCE_YEAR + offset, REFERENCE_YEAR - offset):
            try:
                if date(year, month, day).weekday() == weekday:
                    return year
            except ValueError:
                break  # 29 February in a year without it: try the next offset
    return None


def _valid(year: int, month: int, day: int) -> str | None:
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        return None


def find_date(text: str) -> str | None:
    """The first date written in ``text`` as ``YYYY-MM-DD``, or None."""
    found: list[tuple[int, int, int, int | None, int, int]] = []  # (pos, month, day, year, start, end)
    for m in _ISO.finditer(text):
        found.append((m.start(), int(m.group(2)), int(m.group(3)), int(m.group(1)), m.start(), m.end()))
    for m in _CN.finditer(text):
        year = int(m.group(1)) if m.group(1) else None
        found.append((m.start(), int(m.group(2)), int(m.group(3)), year, m.start(), m.end()))
    for m in _EN_MD.finditer(text):
        year = int(m.group(3)) if m.group(3) else None
        found.append((m.start(), MONTHS[m.group(1).lower()], int(m.group(2)), year, m.start(), m.end()))
    for m in _EN_DM.finditer(text):
        year = int(m.group(3)) if m.group(3) else None
        found.append((m.start(), MONTHS[m.group(2).lower()], int(m.group(1)), year, m.start(), m.end()))
    found.sort()
    years = [f[3] for f in found if f[3] is not None]
    for _, month, day, year, start, end in found:
        if year is None:
            year = _year_for(month, day, _weekday_near(text, start, end), years)
            if year is None:
                continue
        iso = _valid(year, month, day)
        if iso is not None:
            return iso
    return None
