"""How an answer is matched against expected texts, numbers and dates (answer_contains, X-checks).

Models write numbers and dates in many ways; a check must accept every common spelling of the
expected value and nothing else:

- numbers: ``7650``, ``7,650``, ``7650.00``, ``¥7,650``, ``７６５０`` (full-width digits), with an
  absolute tolerance; digits that are part of a larger number or of a date never match.
- dates: a spec ``YYYY-MM-DD`` needs the year in the answer (``2026-10-16``, ``2026/10/16``,
  ``2026年10月16日``, ``10/16/2026``, ``16.10.2026``, ``October 16, 2026``); a spec ``MM-DD``
  matches with or without a year (``10-19``, ``10/19``, ``10月19日``, ``Oct 19``, ``19 October``).
- texts: case-insensitive substring after Unicode NFKC normalisation.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

_FULLWIDTH_DIGITS = str.maketrans("０１２３４５６７８９", "0123456789")

# a number: optional sign (not a hyphen inside a word or date), digits with thousands separators
# (comma, no-break spaces) or plain digits, optional decimals; never part of a longer number.
_NUMBER = re.compile(
    r"(?<![A-Za-z0-9_.\u00a0\u202f-])(?:(?<![\d])-)?"
    r"(?:\d{1,3}(?:[,\u00a0\u202f]\d{3})+(?![\d])|\d+)"
    r"(?:\.\d+)?(?![\d])"
)
# a date-like token whose numbers must not be read as amounts (2026-10-16, 10/19, 16.10.2026)
_DATE_TOKEN = re.compile(r"(?<!\d)\d{1,4}(?:[-/.]\d{1,2}){1,2}(?:[-/.]\d{2,4})?(?![\d])")

_MONTHS = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)
_DATE_SPEC = re.compile(r"^(?:(?P<y>\d{4})-)?(?P<m>\d{2})-(?P<d>\d{2})$")


def normalize(text: str) -> str:
    """NFKC (full-width forms to ASCII), casefolded: the form every comparison uses."""
    return unicodedata.normalize("NFKC", text).casefold()


def contains_text(answer: str, needle: str) -> bool:
    return normalize(needle) in normalize(answer)


def contains_regex(answer: str, pattern: str) -> bool:
    """Case-insensitive search on the NFKC form (full-width digits and letters as ASCII)."""
    return re.search(pattern, unicodedata.normalize("NFKC", answer), re.IGNORECASE) is not None


def find_numbers(answer: str) -> list[float]:
    """Every amount written in ``answer``, in order; date tokens are not amounts."""
    text = answer.translate(_FULLWIDTH_DIGITS)
    dates = [m.span() for m in _DATE_TOKEN.finditer(text) if _looks_like_date(m.group())]
    out: list[float] = []
    for m in _NUMBER.finditer(text):
        if any(a <= m.start() < b for a, b in dates):
            continue
        raw = re.sub(r"[,\u00a0\u202f]", "", m.group())
        out.append(float(raw))
    return out


def _looks_like_date(token: str) -> bool:
    """``2026-10-16``, ``10/19``, ``16.10.2026`` are dates; ``7.5`` or ``1.25`` are not."""
    parts = re.split(r"[-/.]", token)
    if len(parts) == 2 and "." in token:
        return False  # 7.50 is a decimal, not 7 July
    return len(parts) >= 2


def contains_number(answer: str, value: float, tolerance: float = 0.0) -> bool:
    """True if some amount in ``answer`` is within ``tolerance`` of ``value``."""
    slack = max(tolerance, 1e-9 * max(1.0, abs(value)))
    return any(abs(n - value) <= slack for n in find_numbers(answer))


@dataclass(frozen=True)
class DateSpec:
    year: int | None
    month: int
    day: int


def parse_date_spec(spec: str) -> DateSpec:
    """``"2026-10-16"`` (year required in the answer) or ``"10-19"`` (any year or none)."""
    m = _DATE_SPEC.match(spec.strip())
    if not m:
        raise ValueError(f"date {spec!r} must be YYYY-MM-DD or MM-DD")
    year = int(m["y"]) if m["y"] else None
    month, day = int(m["m"]), int(m["d"])
    if not (1 <= month <= 12 and 1 <= day <= 31):
        raise ValueError(f"date {spec!r} has no such month or day")
    return DateSpec(year, month, day)


@lru_cache(maxsize=256)
def _date_patterns(spec: DateSpec) -> tuple[re.Pattern[str], ...]:
    m = rf"0?{spec.month}"
    d = rf"0?{spec.day}"
    name = _MONTHS[spec.month - 1]
    mon = rf"(?:{name}|{name[:3]}\.?)"
    ordinal = r"(?:st|nd|rd|th)?"
    no_digit_before, no_digit_after = r"(?<!\d)", r"(?!\d)"
    forms: list[str] = []
    if spec.year is not None:
        y = str(spec.year)
        forms += [
            rf"{y}\s*[-/.]\s*{m}\s*[-/.]\s*{d}",  # 2026-10-16, 2026/10/16, 2026.10.16
            rf"{y}\s*年\s*{m}\s*月\s*{d}\s*[日号]?",  # 2026年10月16日
            rf"{m}/{d}/{y}",  # 10/16/2026
            rf"{d}\.{m}\.{y}",  # 16.10.2026
            rf"{d}/{m}/{y}",  # 16/10/2026
            rf"{mon}\s+{d}{ordinal},?\s+{y}",  # October 16, 2026
            rf"{d}{ordinal}\s+{mon},?\s+{y}",  # 16 October 2026
        ]
    else:
        forms += [
            rf"{m}\s*[-/]\s*{d}",  # 10-19, 10/19 (also inside 2026-10-19)
            rf"{m}\s*月\s*{d}\s*[日号]?",  # 10月19日
            rf"{d}\.{m}\.",  # 19.10.
            rf"{mon}\s+{d}{ordinal}",  # Oct 19, October 19th
            rf"{d}{ordinal}\s+{mon}",  # 19 October
        ]
    return tuple(re.compile(no_digit_before + f + no_digit_after, re.IGNORECASE) for f in forms)


def contains_date(answer: str, spec: str) -> bool:
    """True if ``answer`` names the date ``spec`` in a common format (see module docstring)."""
    text = unicodedata.normalize("NFKC", answer)
    return any(p.search(text) for p in _date_patterns(parse_date_spec(spec)))


def mentions(text: str, needle: str) -> bool:
    """Date-shaped needles match as dates, numeric needles as amounts, anything else as text.

    For checks whose parameters are plain strings (``memory_preserved`` ``contains`` /
    ``forbidden``): ``"6900"`` matches ``6,900``; ``"10-19"`` matches ``10月19日``.
    """
    if _DATE_SPEC.match(needle.strip()):
        try:
            return contains_date(text, needle)
        except ValueError:
            return contains_text(text, needle)
    try:
        value = float(needle.replace(",", ""))
    except ValueError:
        return contains_text(text, needle)
    return contains_number(text, value)
