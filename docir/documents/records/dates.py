"""Dates as teams write them: "2021-05-11", "2021/05/11", "11.05.2021", "May 11, 2021", "2024-05-22 (back
dated)", and the day and month swapped where the month cannot be one ("2023-13-10")."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any, NamedTuple

_ISO_RE = re.compile(r"\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})\b")
_DMY_RE = re.compile(r"\b(\d{1,2})[./](\d{1,2})[./](\d{4})\b")
_MONTHS = {name: index for index, names in enumerate(
    ("jan january", "feb february", "mar march", "apr april", "may", "jun june", "jul july", "aug august",
     "sep sept september", "oct october", "nov november", "dec december"), start=1) for name in names.split()}
_MDY_RE = re.compile(r"\b([A-Za-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b")
_DMY_WORDS_RE = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+([A-Za-z]{3,9})\.?,?\s+(\d{4})\b")


class ReadDate(NamedTuple):
    date: dt.date | None
    swapped: bool  # read as YYYY-DD-MM: the month as written cannot be one


def read(value: Any) -> ReadDate:
    """The calendar date a frontmatter value or a "Date:" line gives, or None."""
    if isinstance(value, dt.datetime):
        return ReadDate(value.date(), False)
    if isinstance(value, dt.date):
        return ReadDate(value, False)
    if isinstance(value, dict):  # `date: { 2024-05-02 }` is a flow mapping whose one key is the date
        for key in value:
            found = read(key)
            if found.date is not None:
                return found
        return ReadDate(None, False)
    if isinstance(value, list):
        for item in value:
            found = read(item)
            if found.date is not None:
                return found
        return ReadDate(None, False)
    if not isinstance(value, str):
        return ReadDate(None, False)
    text = value.strip()
    match = _ISO_RE.search(text)
    if match:
        year, month, day = (int(g) for g in match.groups())
        made = _date(year, month, day)
        if made is not None:
            return ReadDate(made, False)
        if month > 12 and day <= 12:
            return ReadDate(_date(year, day, month), True)
        return ReadDate(None, False)
    match = _DMY_RE.search(text)
    if match:
        day, month, year = (int(g) for g in match.groups())
        return ReadDate(_date(year, month, day) or _date(year, day, month), False)
    match = _MDY_RE.search(text)
    if match and match.group(1).lower() in _MONTHS:
        return ReadDate(_date(int(match.group(3)), _MONTHS[match.group(1).lower()], int(match.group(2))), False)
    match = _DMY_WORDS_RE.search(text)
    if match and match.group(2).lower() in _MONTHS:
        return ReadDate(_date(int(match.group(3)), _MONTHS[match.group(2).lower()], int(match.group(1))), False)
    return ReadDate(None, False)


def _date(year: int, month: int, day: int) -> dt.date | None:
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None
