"""Time expressions in a query ("yesterday", "in May 2023", "上周", "三天前") read as a window on
event time: an interval [start, end) in UTC and the words that name it.

`window(query, reference)` reads the query as asked at `reference` and answers a `TimeWindow`,
or None when the query names no time or when its reading is in any doubt: ranking raises the
memories whose `observed_at` falls inside the window, so a window that is not there costs
nothing, while a wrong one pushes the answer down.

How a query is read, cheapest first:

1. A cheap check: a set of the words and a few characters every time expression below needs
   ("ago", "week", "may", a year such as 2023, 天, 周, 月, 年, ...). Most queries name no time
   and cost a few microseconds here.
2. Our own patterns find the expressions, English and Chinese alike, and only those: fixed
   forms such as "last week", "3 days ago", "in May", "May 8, 2023", "上周二", "去年五月",
   each with the context a month or a year needs to be a time at all ("in May", "May 8",
   "May 2023", never "May I ask" or "a message from May"; "in 2023", "2023年", never "RFC
   2616", "port 2020" or "fixed in 2024.1"). dateparser's own search is not used for finding:
   it takes "May I ask", "a second opinion", "now and then" or "Python 3.11" for dates.
3. dateparser, a maintained library that holds the calendars and relative phrases of both
   languages (month names and abbreviations, ordinal days, every order of day, month and
   year, "the day before yesterday", 大前天, 上个月, 3个月前, 2023年5月8日, month lengths and
   leap years), reads each expression found, relative to the reference, into a date and the
   unit it names (day, week, month or year). That unit must be the one the pattern expects,
   or there is no window. Chinese is handed to it normalized: numerals as digits (三天前 ->
   3天前, 两年前 -> 2年前), synonyms in the form it reads (上星期, 上礼拜 -> 上周; 前年 -> 2年前).
4. The window is the whole calendar unit holding that date (a day, a Monday-based week, a
   month, a year). What dateparser has no word for is built here from what it read: a weekday
   of a named week (上周二, "Tuesday last week"), a month of a named year (去年五月, "May last
   year"), a part of a day ("this morning", 昨晚), meteorological seasons of the northern
   hemisphere ("last summer", 去年夏天), and the windows that end with the reference ("the
   past 3 days", "recently", "earlier this year").

Decisions:

- "last week" is the previous calendar week, Monday to Sunday, "this week" the current one;
  "last month", 上个月 that calendar month; "two years ago" that calendar year; "a week ago" the
  calendar week holding the day seven days back. A weekday alone ("Tuesday", "last Tuesday",
  星期二) is the latest such day before the reference's day; a month alone ("in May", 五月) the
  latest May not after the reference, the current one when asked in May; "last May" the latest
  May before the current month. A weekday or a month without a year in a query that says it
  recurs ("every Monday", "usually on Fridays", 每年一月) names no day.
- "the past week", "the last 3 days", 过去三天, 最近两周 run from that many units back to the
  end of the reference's day; "recently", "lately", 最近, 近来 cover the last RECENT_DAYS days
  and the reference's day: long enough for "what did I do recently", short enough to say
  something. "earlier this year" runs from the start of the year to the reference itself.
  "a couple of days ago" spans 1 to 3 days back, "a few" and 几 2 to 5, "several" 2 to 7,
  半年前 5 to 7 months. "most recently" and 最近一次 ask for the latest of several, however long
  ago: no window.
- "before May 2023" ends where May starts; "until", "by", "as of May 2023" where it ends; both
  have no start (OPEN_START). "since May" starts with May and "after May" where May ends; both
  end with the reference's day. A "before" or "after" further back in the same clause
  ("before the migration in May") dates what it refers to: the window runs to the end of May
  (from its start). "the week before 16 November 2023", "two weeks before X", "the Sunday
  before X", "last weekend before X" are read relative to X. "between X and Y", "from X to Y",
  "X到Y", "X and Y" cover both.
- Several expressions in one query keep what they have in common ("recently in 2024"). When
  they have nothing in common a vague one ("recently") yields to the others ("recently, on 7
  February 2022": that day); otherwise ("last Friday, on 23 January 2022") no window.
- The future holds no memories: an expression naming it ("next Tuesday", 明年五月) makes no
  window, and a window that would start after the reference is none.
- Days are UTC days unless the query names a zone ("UTC+8", "PST", 北京时间): then days,
  weeks and parts of days are that zone's, converted to UTC. A naive reference is UTC.
- A named day narrows to a part of it: morning 05-12, noon 11-14, afternoon 12-18, evening
  17-24, night 18 to 06 the next day, 凌晨 00-06.
- A query of more than MAX_QUERY_CHARS characters or with more than MAX_EXPRESSIONS
  expressions is a pasted text or a list, not a question about a time: no window, and its
  cost stays bounded.
- The first call of a process loads dateparser's language data (about 0.3 s); later reads of
  an expression cost about a millisecond each.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from typing import Any

from dateparser.date import DateDataParser

# The start of a window with no lower bound ("before May 2023"): earlier than any memory.
OPEN_START = datetime.min.replace(tzinfo=UTC)
RECENT_DAYS = 30
# More expressions than this in one query and it is no question about a time (a pasted log, a
# list of dates): no window, and no thousand dateparser reads for one query.
MAX_EXPRESSIONS = 6
_MAX_CANDIDATES = 4 * MAX_EXPRESSIONS
# A longer query is a pasted text, not a question about a time; reading it would cost
# milliseconds (every pattern runs over all of it).
MAX_QUERY_CHARS = 1000


@dataclass(frozen=True)
class TimeWindow:
    """An interval of event time, [start, end) in UTC, and the words of the query naming it."""

    start: datetime
    end: datetime
    expression: str

    def holds(self, moment: datetime) -> bool:
        """Whether `moment` (timezone-aware) lies inside the window."""
        return self.start <= moment < self.end


# [start, end) as naive wall-clock times of the query's zone.
_Span = tuple[datetime, datetime]
_OPEN_LOCAL = datetime.min
_INSTANT = timedelta(microseconds=1)
_YEAR_LONG = timedelta(days=365)


class _Doubt(Exception):
    """An expression was found but cannot be read with confidence: no window at all."""


# --- the cheap check --------------------------------------------------------------------------

_MONTH_FULL = (
    "january|february|march|april|may|june|july|august|september|october|november|december"
)
_MONTH_ABBR = "jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec"
_WEEKDAY = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_PART_EN = "morning|afternoon|evening|night"
_SEASON = "spring|summer|fall|autumn|winter"
_YEAR = r"(?:19|20)\d{2}"

_TIME_WORDS = frozenset(
    (
        *("ago", "today", "tonight", "yesterday", "day", "days", "week", "weeks", "weekend"),
        *("weekends", "month", "months", "year", "years", "recently", "lately", "earlier"),
        *"|".join((_PART_EN, _SEASON, _MONTH_FULL, _MONTH_ABBR, _WEEKDAY)).split("|"),
    )
)
_LATIN_WORD = re.compile("[a-z]+")
_TIME_SIGN = re.compile(
    rf"(?<!\d){_YEAR}(?!\d)|[天日号周月年晚早午夜春夏秋冬]|星期|礼拜|最近|近来|近期"
)


def _may_name_time(query: str) -> bool:
    """The cheap check: a word or a character that every expression read here needs."""
    words = _LATIN_WORD.findall(query.lower())
    return not _TIME_WORDS.isdisjoint(words) or _TIME_SIGN.search(query) is not None


# --- reading with dateparser -------------------------------------------------------------------

_UNITS = ("day", "week", "month", "year")


def _read(text: str, language: str, reference: datetime) -> tuple[datetime, str]:
    """The date and unit dateparser reads in `text` as of `reference`, preferring the past."""
    parser = DateDataParser(
        languages=[language],
        settings={
            "RELATIVE_BASE": reference,
            "PREFER_DATES_FROM": "past",
            "RETURN_TIME_AS_PERIOD": True,
            "PARSERS": ["relative-time", "absolute-time"],
            "TIMEZONE": "UTC",
        },
    )
    try:
        data: Any = parser.get_date_data(text)
    except (ValueError, OverflowError) as error:  # a date past the calendar's ends
        raise _Doubt(text) from error
    if data.date_obj is None or data.period not in _UNITS or data.date_obj.year < 1900:
        raise _Doubt(text)
    return data.date_obj, str(data.period)


def _unit_of(text: str, language: str, reference: datetime, unit: str) -> _Span:
    """The calendar `unit` holding the date dateparser reads in `text`, which must name one."""
    moment, period = _read(text, language, reference)
    if period != unit:
        raise _Doubt(text)
    return _calendar(moment, unit)


def _day_start(moment: datetime) -> datetime:
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)


def _month_start(year: int, month: int) -> datetime:
    """The first of a month, `month` counting on past December into the following years."""
    return datetime(year + (month - 1) // 12, (month - 1) % 12 + 1, 1)


def _calendar(moment: datetime, unit: str) -> _Span:
    day = _day_start(moment)
    if unit == "day":
        return day, day + timedelta(days=1)
    if unit == "week":
        monday = day - timedelta(days=day.weekday())
        return monday, monday + timedelta(days=7)
    if unit == "month":
        return _month_start(day.year, day.month), _month_start(day.year, day.month + 1)
    return datetime(day.year, 1, 1), datetime(day.year + 1, 1, 1)


def _hull(first: _Span, last: _Span) -> _Span:
    if first[0] >= last[1]:
        raise _Doubt("a range that ends before it starts")
    return first[0], last[1]


def _reference_day_end(reference: datetime) -> datetime:
    return _day_start(reference) + timedelta(days=1)


# --- numbers -----------------------------------------------------------------------------------

_EN_NUMBERS = {
    word: value
    for value, word in enumerate(
        [
            *("zero", "one", "two", "three", "four", "five", "six"),
            *("seven", "eight", "nine", "ten", "eleven", "twelve"),
        ]
    )
} | {"a": 1, "an": 1}
# Vague counts, as the range of units back they cover.
_FUZZY = {"couple": (1, 3), "few": (2, 5), "several": (2, 7), "几": (2, 5)}
_NUM_EN = (
    r"\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
    r"|(?:a\s+)?couple(?:\s+of)?|(?:a\s+)?few|several"
)
_ZH_DIGITS = {"零": 0, "\u3007": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6}
_ZH_DIGITS |= {"七": 7, "八": 8, "九": 9}
_NUM_ZH = r"\d{1,3}|[零\u3007一二两三四五六七八九十]{1,3}"


def _zh_number(text: str) -> int:
    """A number up to 99 in digits or Chinese numerals (三 3, 十二 12, 二十三 23, 两 2)."""
    if text.isdigit():
        return int(text)
    tens, ten, ones = text.partition("十")
    if not ten:
        tens, ones = "", text
    if len(tens) > 1 or len(ones) > 1 or not {tens, ones} <= {"", *_ZH_DIGITS}:
        raise _Doubt(text)  # 十十, 一二: no number
    if not ten:
        return _ZH_DIGITS[ones]
    return (_ZH_DIGITS[tens] if tens else 1) * 10 + (_ZH_DIGITS[ones] if ones else 0)


def _zh_year(text: str) -> int:
    """A four-digit year, in digits or in numerals one by one (二零二三 2023)."""
    if text.isdigit():
        return int(text)
    return int("".join(str(_ZH_DIGITS[char]) for char in text))


def _count(text: str) -> tuple[int, int]:
    """The range of units a count names: (3, 3) for "three" or 三, (2, 5) for "a few" or 几."""
    word = next(word for word in reversed(text.lower().split()) if word != "of")
    if word in _FUZZY:
        return _FUZZY[word]
    value = int(word) if word.isdigit() else _EN_NUMBERS.get(word)
    if value is None:
        value = _zh_number(word)
    if value == 0:
        raise _Doubt(text)
    return value, value


# --- parts of the day --------------------------------------------------------------------------

_PART_HOURS = {
    "early_morning": (0, 6),
    "morning": (5, 12),
    "noon": (11, 14),
    "afternoon": (12, 18),
    "evening": (17, 24),
    "night": (18, 30),
}
_PART_ZH = {"凌晨": "early_morning", "早上": "morning", "早晨": "morning", "上午": "morning"}
_PART_ZH |= {"早": "morning", "中午": "noon", "下午": "afternoon", "傍晚": "evening"}
_PART_ZH |= {"晚上": "night", "夜里": "night", "夜间": "night", "晚": "night", "夜": "night"}
_PART_ZH_PATTERN = "凌晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里|夜间"


def _part_of(day: _Span, part: str | None) -> _Span:
    if part is None:
        return day
    first, last = _PART_HOURS[_PART_ZH.get(part, part.lower())]
    return day[0] + timedelta(hours=first), day[0] + timedelta(hours=last)


# --- the expressions ---------------------------------------------------------------------------

# A resolver answers the span an expression names as of a reference, or None when it names the
# future (no memory was observed there yet: no window from it, the query's other expressions
# still count); it raises _Doubt when the expression cannot be read with confidence.
_Resolver = Callable[[re.Match[str], datetime], _Span | None]


def _always(match: re.Match[str]) -> bool:
    return True


@dataclass(frozen=True)
class _Rule:
    pattern: re.Pattern[str]
    resolve: _Resolver
    # Whether a match is a time expression at all, where the pattern alone cannot say.
    accept: Callable[[re.Match[str]], bool] = _always
    # Whether it names a place in the calendar (a month, a day of a month, a weekday) that the
    # reference only picks among: tied to another expression ("from May to July 2023"), it is
    # read next to that one.
    picked: bool = False
    # Whether it is vague ("recently"): it yields to the query's other expressions when they
    # have nothing in common ("recently, as mentioned on 7 February 2022": that day).
    soft: bool = False


def _en(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


# Days named relative to the reference, alone or with a part of the day.
_RELATIVE_DAY_EN = _en(
    r"\b(?:(?P<day>the\s+day\s+before\s+yesterday|yesterday|today)"
    rf"(?:\s+(?P<part>{_PART_EN}))?|(?P<this>this|last)\s+(?P<this_part>{_PART_EN})"
    r"|(?P<tonight>tonight))\b"
)


def _relative_day_en(match: re.Match[str], reference: datetime) -> _Span:
    if match["tonight"]:
        day, part = "today", "night"
    elif match["this"]:
        part = match["this_part"].lower()
        if match["this"].lower() == "this":
            day = "today"
        elif part in ("evening", "night"):
            day = "yesterday"  # last night, last evening
        else:
            raise _Doubt(match[0])
    else:
        day, part = re.sub(r"\s+", " ", match["day"]), match["part"]
    return _part_of(_unit_of(day, "en", reference, "day"), part)


_RELATIVE_DAY_ZH = re.compile(
    rf"(?P<day>大前天|前天|昨天|昨日|今天|今日)(?P<part>{_PART_ZH_PATTERN})?"
    r"|(?<![至如现当而迄])(?P<short>[昨今])(?P<short_part>早上?|晚上?|夜)"
)
_ZH_DAY_WORDS = {"昨日": "昨天", "今日": "今天", "昨": "昨天", "今": "今天"}


def _relative_day_zh(match: re.Match[str], reference: datetime) -> _Span:
    day = match["day"] or match["short"]
    part = match["part"] or match["short_part"]
    return _part_of(_unit_of(_ZH_DAY_WORDS.get(day, day), "zh", reference, "day"), part)


# N units ago: "3 days ago", "a couple of weeks ago", 三天前, 两个月前, 几年前, 半年前.
_AGO_EN = _en(rf"\b(?P<n>{_NUM_EN}|half\s+a)\s+(?P<unit>day|week|month|year)s?\s+ago\b")
_ZH_UNIT = r"(?:(?P<unit>天|日|周|年)|个\s*(?P<unit_ge>月|星期|礼拜|周)|(?P<unit_opt>星期|礼拜))"
_AGO_ZH = re.compile(
    rf"(?<![\d零\u3007一二两三四五六七八九十第])(?P<n>{_NUM_ZH}|几|半)\s*{_ZH_UNIT}\s*(?:以前|之前|前)"
)
_ZH_UNITS = {"天": "day", "日": "day", "周": "week", "星期": "week", "礼拜": "week"}
_ZH_UNITS |= {"月": "month", "年": "year"}
_ZH_AGO_UNITS = {"day": "天", "week": "周", "month": "个月", "year": "年"}
_HALF_A_YEAR = (5, 7)  # months back


def _units_back(n: int, unit: str, language: str) -> str:
    """ "3 days ago" or 3天前: the form dateparser reads."""
    return f"{n} {unit}s ago" if language == "en" else f"{n}{_ZH_AGO_UNITS[unit]}前"


def _ago(count: tuple[int, int], unit: str, language: str, reference: datetime) -> _Span:
    """The calendar units `count` back: one unit, or every unit a vague count spans."""
    low, high = count
    earliest = _unit_of(_units_back(high, unit, language), language, reference, unit)
    latest = _unit_of(_units_back(low, unit, language), language, reference, unit)
    return _hull(earliest, latest)


def _zh_unit(match: re.Match[str]) -> str:
    return _ZH_UNITS[match["unit"] or match["unit_ge"] or match["unit_opt"]]


def _ago_en(match: re.Match[str], reference: datetime) -> _Span:
    unit = match["unit"].lower()
    if match["n"].lower().startswith("half"):
        if unit != "year":
            raise _Doubt(match[0])
        return _ago(_HALF_A_YEAR, "month", "en", reference)
    return _ago(_count(match["n"]), unit, "en", reference)


def _ago_zh(match: re.Match[str], reference: datetime) -> _Span:
    unit = _zh_unit(match)
    if match["n"] == "半":
        if unit != "year":
            raise _Doubt(match[0])
        return _ago(_HALF_A_YEAR, "month", "zh", reference)
    return _ago(_count(match["n"]), unit, "zh", reference)


def _rolling(count: int, unit: str, language: str, reference: datetime) -> _Span:
    """From `count` units back to the end of the reference's day."""
    start, _ = _read(_units_back(count, unit, language), language, reference)
    return _day_start(start), _reference_day_end(reference)


# "last week" (the calendar week); "the past week", "the last 3 days" (up to the reference).
_LAST_UNIT_EN = _en(
    r"\b(?P<the>the\s+)?(?P<this>this\s+)?(?P<word>past|last|previous)\s+"
    rf"(?:(?P<n>{_NUM_EN})\s+)?(?P<unit>day|week|month|year)(?P<plural>s)?\b(?!\s+of\b)"
)


def _names_last_units(match: re.Match[str]) -> bool:
    """ "the last day", "the last years" name no span of time; "the last 2 days" does."""
    return bool(match["n"]) or (not match["plural"] and match["unit"].lower() != "day")


def _last_unit_en(match: re.Match[str], reference: datetime) -> _Span:
    unit = match["unit"].lower()
    if not (match["the"] or match["this"] or match["n"] or match["word"].lower() == "past"):
        return _unit_of(f"last {unit}", "en", reference, unit)
    return _rolling(_count(match["n"])[1] if match["n"] else 1, unit, "en", reference)


_THIS_UNIT_EN = _en(r"\bthis\s+(?P<unit>week|month|year)\b")


def _this_unit_en(match: re.Match[str], reference: datetime) -> _Span:
    unit = match["unit"].lower()
    return _unit_of(f"this {unit}", "en", reference, unit)


# Calendar units Chinese names in one word, with the form dateparser reads for each.
_UNIT_WORDS_ZH = {
    "上上周": "2周前",
    "上上个星期": "2周前",
    "上上个礼拜": "2周前",
    "上周": "上周",
    "上星期": "上周",
    "上个星期": "上周",
    "上礼拜": "上周",
    "上个礼拜": "上周",
    "本周": "本周",
    "这周": "本周",
    "本星期": "本周",
    "这星期": "本周",
    "这个星期": "本周",
    "这礼拜": "本周",
    "这个礼拜": "本周",
    "上上个月": "2个月前",
    "上个月": "上个月",
    "上月": "上个月",
    "本月": "本月",
    "这个月": "本月",
    "这月": "本月",
    "大前年": "3年前",
    "前年": "2年前",
    "去年": "去年",
    "今年": "今年",
    "本年": "今年",
}
_UNIT_WORD_ZH = re.compile("|".join(sorted(_UNIT_WORDS_ZH, key=len, reverse=True)))
_CANONICAL_UNITS_ZH = {"周": "week", "月": "month", "年": "year"}


def _unit_word_zh(match: re.Match[str], reference: datetime) -> _Span:
    text = _UNIT_WORDS_ZH[match[0]]
    return _unit_of(text, "zh", reference, _CANONICAL_UNITS_ZH[text.removesuffix("前")[-1]])


# 过去三天, 最近两周, 近一个月, 这几天: from that many units back to the end of the reference's day.
_ROLLING_ZH = re.compile(
    rf"(?:过去|最近|近|这)\s*(?P<n>{_NUM_ZH}|几)\s*{_ZH_UNIT}(?!\s*(?:以前|之前|前))"
)


def _rolling_zh(match: re.Match[str], reference: datetime) -> _Span:
    return _rolling(_count(match["n"])[1], _zh_unit(match), "zh", reference)


# Weekdays: "Tuesday", "last Tuesday", "on Tuesday morning", "Tuesday of last week".
_WEEKDAY_EN = _en(
    r"(?<!\ba\s)(?<!\bany\s)\b(?:(?P<prefix>last|this|next|on|past)\s+)?"
    rf"(?P<weekday>{_WEEKDAY})\b"
    rf"(?:\s+(?P<part>{_PART_EN})\b)?(?:\s+(?:of\s+)?(?P<week>last|this|next)\s+week\b)?"
)
_WEEKDAYS_EN = _WEEKDAY.split("|")


def _weekday_of_week(week: _Span, weekday: int) -> _Span:
    day = week[0] + timedelta(days=weekday)
    return day, day + timedelta(days=1)


def _weekday_en(match: re.Match[str], reference: datetime) -> _Span | None:
    weekday = match["weekday"].lower()
    prefix = (match["prefix"] or "").lower()
    week = (match["week"] or "").lower()
    if "next" in (prefix, week):
        return None
    if week or prefix == "this":
        named = _unit_of(f"{week or 'this'} week", "en", reference, "week")
        day = _weekday_of_week(named, _WEEKDAYS_EN.index(weekday))
    else:
        day = _unit_of(weekday, "en", reference, "day")
    return _part_of(day, match["part"])


_WEEKDAY_ZH = re.compile(
    r"(?<![每\d零\u3007一二两三四五六七八九十几第])(?P<week>上上|上|这|本|下下|下)?(?:个)?"
    r"(?:周|星期|礼拜)(?P<weekday>[一二三四五六日天1-7])(?![次遍个])"
    rf"(?P<part>{_PART_ZH_PATTERN})?"
)
_WEEKDAY_NUMBERS_ZH = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_WEEKDAY_NUMBERS_ZH |= {str(n): n - 1 for n in range(1, 8)}
_WEEKS_ZH = {"上上": "2周前", "上": "上周", "这": "本周", "本": "本周"}


def _weekday_zh(match: re.Match[str], reference: datetime) -> _Span | None:
    weekday = _WEEKDAY_NUMBERS_ZH[match["weekday"]]
    week = match["week"]
    if week in ("下", "下下"):
        return None
    if week:
        day = _weekday_of_week(_unit_of(_WEEKS_ZH[week], "zh", reference, "week"), weekday)
    else:
        day = _unit_of(f"星期{'一二三四五六日'[weekday]}", "zh", reference, "day")
    return _part_of(day, match["part"])


# Weekends: "last weekend", "over the weekend", 上周末, 这个周末 (a bare 周末 is any weekend).
_WEEKEND_EN = _en(r"\b(?:(?P<which>last|this|past)|over\s+the)\s+weekend\b")
_WEEKEND_ZH = re.compile(r"(?P<which>上上|上|这个|这|本)\s*(?:个)?周末")


def _weekend_of_week(week: _Span) -> _Span:
    return week[0] + timedelta(days=5), week[1]


def _weekend_en(match: re.Match[str], reference: datetime) -> _Span:
    which = (match["which"] or "").lower()
    if not which:  # "over the weekend": the one under way on a weekend, else the last one
        which = "this" if reference.weekday() >= 5 else "last"
    week = "this week" if which == "this" else "last week"
    return _weekend_of_week(_unit_of(week, "en", reference, "week"))


def _weekend_zh(match: re.Match[str], reference: datetime) -> _Span:
    week = {"上上": "2周前", "上": "上周"}.get(match["which"], "本周")
    return _weekend_of_week(_unit_of(week, "zh", reference, "week"))


# Months and days by name: "May 8, 2023", "the 8th of May", "May 2023", "in May", "last May".
_MONTH = rf"(?P<month>{_MONTH_FULL}|(?:{_MONTH_ABBR})\.?)"
_DAY = r"(?P<day>3[01]|[12]\d|0?[1-9])(?P<ordinal>st|nd|rd|th)?"
_DATE_YEAR = rf"(?:,?\s*(?P<year>{_YEAR}))?(?![\d:])"
_WEEKDAY_LEAD = rf"(?:(?:{_WEEKDAY}),?\s+)?"
_MONTH_DAY_EN = _en(rf"\b{_WEEKDAY_LEAD}{_MONTH}\s+(?:the\s+)?{_DAY}\b{_DATE_YEAR}")
_DAY_MONTH_EN = _en(rf"\b{_WEEKDAY_LEAD}(?:the\s+)?{_DAY}\s+(?:of\s+)?{_MONTH}\b{_DATE_YEAR}")
_MONTH_YEAR_EN = _en(rf"\b{_MONTH}(?:,|\s+of)?\s+(?P<year>{_YEAR})(?![\d:])")
# A month alone only after a word that makes it a time ("in May", "since March", "mid-May");
# "from" and "between" only where a second month follows ("from May to July"), so that "a
# message from May" names a person.
_MONTH_CONTEXT = (
    r"(?:in|during|since|until|till|before|after|through|throughout|early|late|of|around"
    r"|prior\s+to|as\s+of)\s+"
    rf"|mid-?\s*|(?:from|between)\s+(?=(?:{_MONTH_FULL})\s+(?:and|to|until|till|through|thru"
    rf"|-|\u2013)\s+(?:{_MONTH_FULL})\b)"
)
_MONTH_ALONE_EN = _en(
    rf"\b(?:{_MONTH_CONTEXT})(?P<x>(?P<month>{_MONTH_FULL}))\b(?!\s+(?:\d|of\s+\d))"
)
# The second month of a range ("from May to July"), where "to" or "and" alone says nothing.
_MONTH_AFTER_MONTH_EN = _en(rf"\b(?:to|and)\s+(?P<x>(?P<month>{_MONTH_FULL}))\b(?!\s+\d)")
_ENDS_WITH_MONTH = _en(
    rf"\b(?:from|between|in|during|since)\s+(?:{_MONTH_FULL})(?:,?\s+{_YEAR})?\s*$"
)
_MONTH_OF_YEAR_EN = _en(
    rf"\b(?:(?P<which>last|this|next)\s+(?P<month>{_MONTH_FULL})\b"
    rf"|(?P<month_of>{_MONTH_FULL})\s+(?:of\s+)?(?P<year_word>last|this|next)\s+year\b)"
)
_MONTH_NAMES = _MONTH_FULL.split("|")


def _common_word_month(match: re.Match[str]) -> bool:
    """'may' and 'march' in lower case are verbs unless an ordinal or a year makes them dates."""
    month = match["month"]
    if month.lower() not in ("may", "march") or month[0].isupper():
        return True
    return bool(match["ordinal"] or match["year"])


def _day_by_name(match: re.Match[str], reference: datetime) -> _Span:
    text = f"{match['month']} {match['day']}"
    if match["year"]:
        text += f" {match['year']}"
    return _unit_of(text, "en", reference, "day")


def _month_year_en(match: re.Match[str], reference: datetime) -> _Span:
    return _unit_of(f"{match['month']} {match['year']}", "en", reference, "month")


def _month_alone_en(match: re.Match[str], reference: datetime) -> _Span:
    return _unit_of(match["month"], "en", reference, "month")


def _after_month(match: re.Match[str]) -> bool:
    return _ENDS_WITH_MONTH.search(match.string, 0, match.start()) is not None


def _month_of_year_en(match: re.Match[str], reference: datetime) -> _Span | None:
    month = _MONTH_NAMES.index((match["month"] or match["month_of"]).lower()) + 1
    which = (match["which"] or match["year_word"]).lower()
    if which == "next":
        return None
    if match["year_word"]:
        year = reference.year - (1 if which == "last" else 0)
    elif which == "last":
        year = reference.year if month < reference.month else reference.year - 1
    else:
        year = reference.year
    return _unit_of(f"{_MONTH_NAMES[month - 1]} {year}", "en", reference, "month")


# Chinese months and days: 2023年5月, 去年五月, 5月8日, 五月份, 二零二三年三月八号.
_ZH_YEAR = r"(?:19|20)\d{2}|[一二][\u3007零一二三四五六七八九]{3}"
_ZH_MONTH = r"1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九]"
_ZH_DAY = r"3[01]|[12]\d|0?[1-9]|三十一?|二?十[一二三四五六七八九]?|[一二三四五六七八九]"
_RELATIVE_YEARS_ZH = {"今年": 0, "本年": 0, "去年": 1, "前年": 2, "大前年": 3}
_MONTH_DAY_ZH = re.compile(
    rf"(?<![\d零\u3007一二两三四五六七八九十个])(?:(?P<year>{_ZH_YEAR})\s*年\s*"
    r"|(?P<year_word>大前年|前年|去年|今年|本年|明年|后年)\s*(?:的\s*)?)?"
    rf"(?P<month>{_ZH_MONTH})\s*月(?:份)?(?:\s*(?P<day>{_ZH_DAY})\s*[日号]|(?![\d天]))"
)


def _month_day_zh(match: re.Match[str], reference: datetime) -> _Span | None:
    month = _zh_number(match["month"])
    day = _zh_number(match["day"]) if match["day"] else None
    if match["year_word"] in ("明年", "后年"):
        return None
    if match["year"]:
        year = _zh_year(match["year"])
    elif match["year_word"]:
        year = reference.year - _RELATIVE_YEARS_ZH[match["year_word"]]
    else:  # the latest such month or day not after the reference
        later = (month, day or 1) > (reference.month, reference.day)
        year = reference.year - (1 if later else 0)
    if day is None:
        return _unit_of(f"{year}年{month}月", "zh", reference, "month")
    return _unit_of(f"{year}年{month}月{day}日", "zh", reference, "day")


# Years: "in 2023", "since 2021", "the end of 2022", "mid-2023", 2023年 (never in 2023.1, v2023).
_YEAR_CONTEXT = (
    r"(?:in|during|since|until|till|before|after|by|from|through|throughout|early|late"
    r"|prior\s+to|as\s+of|(?:end|beginning|start|middle|rest|half)\s+of|year)\s+"
    r"(?:the\s+year\s+)?|mid-\s*"
)
_YEAR_EN = _en(rf"\b(?:{_YEAR_CONTEXT})(?<![\w./#])(?P<x>(?P<year>{_YEAR}))(?![.\-/:]?\w)")
_YEAR_ZH = re.compile(
    rf"(?<![\d零\u3007一二两三四五六七八九])(?P<year>{_ZH_YEAR})\s*年(?!\s*[代级])"
)


def _year(match: re.Match[str], reference: datetime) -> _Span:
    year = _zh_year(match["year"])
    return datetime(year, 1, 1), datetime(year + 1, 1, 1)


# Dates in numbers, year first: "2023-05-08", "2023/05", never inside an identifier.
_ISO_DATE = re.compile(
    rf"(?<![\w.\-/#])(?P<year>{_YEAR})(?P<sep>[-/])(?P<month>0?[1-9]|1[0-2])"
    r"(?:(?P=sep)(?P<day>0?[1-9]|[12]\d|3[01]))?(?![\w\-/]|[.:]\d)"
)


def _iso_date(match: re.Match[str], reference: datetime) -> _Span:
    year, month = int(match["year"]), int(match["month"])
    if match["day"] is None:
        return _unit_of(f"{year}-{month:02d}", "en", reference, "month")
    return _unit_of(f"{year}-{month:02d}-{int(match['day']):02d}", "en", reference, "day")


# Seasons, meteorological, northern hemisphere: "last summer", "summer 2021", 去年夏天.
_SEASON_MONTHS = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}
_SEASONS_ZH = {"春": "spring", "夏": "summer", "秋": "autumn", "冬": "winter"}
_SEASON_EN = _en(
    rf"\b(?:(?P<which>last|this|past)\s+(?P<season>{_SEASON})\b"
    rf"|(?:the\s+)?(?P<season_of>{_SEASON})\s+(?:of\s+)?(?P<year>{_YEAR})(?![\d:]))"
)
_SEASON_ZH = re.compile(
    rf"(?:(?P<year>{_ZH_YEAR})\s*年|(?P<year_word>大前年|前年|去年|今年|本年))\s*(?:的\s*)?"
    r"(?P<season>[春夏秋冬])[天季]"
)


def _season_of(season: str, year: int) -> _Span:
    first = _SEASON_MONTHS[season]
    return _month_start(year, first), _month_start(year, first + 3)


def _season_in_year(season: str, year: int) -> _Span:
    if season == "winter":
        raise _Doubt("the winter of a year spans two years")
    return _season_of(season, year)


def _season_en(match: re.Match[str], reference: datetime) -> _Span:
    if match["year"]:
        return _season_in_year(match["season_of"].lower(), int(match["year"]))
    season = match["season"].lower()
    # The seasons of that name that started in the last three years, latest last.
    seasons = [_season_of(season, reference.year + shift) for shift in (-2, -1, 0)]
    if match["which"].lower() == "this":
        holding = [span for span in seasons if span[0] <= reference < span[1]]
        return holding[0] if holding else seasons[-1]
    return [span for span in seasons if span[1] <= reference][-1]


def _season_zh(match: re.Match[str], reference: datetime) -> _Span:
    if match["year"]:
        year = _zh_year(match["year"])
    else:
        year = reference.year - _RELATIVE_YEARS_ZH[match["year_word"]]
    return _season_in_year(_SEASONS_ZH[match["season"]], year)


# "recently", "lately", 最近, 近来, 近期: the last RECENT_DAYS days. "most recently" (最近一次)
# asks for the latest of several, however long ago: no window.
_RECENT_EN = _en(r"\b(?P<most>most\s+)?(?:recently|lately)\b")
_RECENT_ZH = re.compile(r"最近(?:(?P<most>一次)|(?!的))|近来|近期")


def _recent(match: re.Match[str], reference: datetime) -> _Span | None:
    if match["most"]:
        return None
    start = _day_start(reference) - timedelta(days=RECENT_DAYS)
    return start, _reference_day_end(reference)


def _not_nearest(match: re.Match[str]) -> bool:
    """最近 after 离 or 距 is "nearest" (离我家最近), not "recently"."""
    return re.search("[离距]", match.string[: match.start()]) is None


# "earlier this year", "earlier today", 今年早些时候, 今年年初: from the unit's start to now.
_EARLIER_EN = _en(r"\bearlier\s+(?:(?P<today>today)|this\s+(?P<unit>week|month|year))\b")
_EARLIER_ZH = re.compile(
    r"(?P<unit>今天|今年|本月|这个月|本周|这周)\s*(?:早些时候|早些|早前)"
    r"|(?P<start_of>今年\s*年?初|(?:本|这个)月初)"
)
_EARLIER_UNITS_ZH = {"今天": "day", "今年": "year", "本月": "month", "这个月": "month"}
_EARLIER_UNITS_ZH |= {"本周": "week", "这周": "week"}


def _earlier_en(match: re.Match[str], reference: datetime) -> _Span:
    unit = "day" if match["today"] else match["unit"].lower()
    return _calendar(reference, unit)[0], reference


def _earlier_zh(match: re.Match[str], reference: datetime) -> _Span:
    if match["unit"]:
        unit = _EARLIER_UNITS_ZH[match["unit"]]
    else:
        unit = "year" if "年" in match["start_of"] else "month"
    return _calendar(reference, unit)[0], reference


_RULES: Sequence[_Rule] = (
    _Rule(_RELATIVE_DAY_EN, _relative_day_en),
    _Rule(_RELATIVE_DAY_ZH, _relative_day_zh),
    _Rule(_AGO_EN, _ago_en),
    _Rule(_AGO_ZH, _ago_zh),
    _Rule(_LAST_UNIT_EN, _last_unit_en, _names_last_units),
    _Rule(_THIS_UNIT_EN, _this_unit_en),
    _Rule(_UNIT_WORD_ZH, _unit_word_zh),
    _Rule(_ROLLING_ZH, _rolling_zh),
    _Rule(_WEEKDAY_EN, _weekday_en, picked=True),
    _Rule(_WEEKDAY_ZH, _weekday_zh, picked=True),
    _Rule(_WEEKEND_EN, _weekend_en),
    _Rule(_WEEKEND_ZH, _weekend_zh),
    _Rule(_MONTH_DAY_EN, _day_by_name, _common_word_month, picked=True),
    _Rule(_DAY_MONTH_EN, _day_by_name, _common_word_month, picked=True),
    _Rule(_MONTH_YEAR_EN, _month_year_en),
    _Rule(_MONTH_ALONE_EN, _month_alone_en, picked=True),
    _Rule(_MONTH_AFTER_MONTH_EN, _month_alone_en, _after_month, picked=True),
    _Rule(_MONTH_OF_YEAR_EN, _month_of_year_en),
    _Rule(_MONTH_DAY_ZH, _month_day_zh, picked=True),
    _Rule(_YEAR_EN, _year),
    _Rule(_YEAR_ZH, _year),
    _Rule(_ISO_DATE, _iso_date),
    _Rule(_SEASON_EN, _season_en),
    _Rule(_SEASON_ZH, _season_zh),
    _Rule(_RECENT_EN, _recent, soft=True),
    _Rule(_RECENT_ZH, _recent, _not_nearest, soft=True),
    _Rule(_EARLIER_EN, _earlier_en),
    _Rule(_EARLIER_ZH, _earlier_zh),
)


# Words saying that a weekday or a month comes back ("every Monday", "usually on Fridays",
# 每年一月): it then names no one day or month.
_RECURRING = _en(
    r"\b(?:every|each|once\s+a|twice\s+a|weekly|monthly|yearly|annually|usually|always|often"
    r"|typically|normally|generally)\b|每|通常|一般|总是|经常|往往|平时|常常"
)


def _recurs(match: re.Match[str]) -> bool:
    """A weekday, or a month without a year, in a query that says it comes back."""
    groups = match.groupdict()
    dated = groups.get("year") or groups.get("year_word")
    return not dated and _RECURRING.search(match.string) is not None


@dataclass(frozen=True)
class _Found:
    """One expression of the query: its match and the rule that reads it."""

    match: re.Match[str]
    rule: _Rule

    @property
    def start(self) -> int:
        """Where the expression proper starts, after a context word such as "in"."""
        return self.match.start("x") if "x" in self.match.re.groupindex else self.match.start()

    @property
    def end(self) -> int:
        return self.match.end()

    def span(self, reference: datetime) -> _Span | None:
        return self.rule.resolve(self.match, reference)

    def overlaps(self, other: _Found) -> bool:
        return self.match.start() < other.match.end() and other.match.start() < self.match.end()


def _expressions(query: str) -> list[_Found]:
    """The expressions of the query in order; of overlapping ones the longest."""
    candidates: list[_Found] = []
    for rule in _RULES:
        for match in rule.pattern.finditer(query):
            if rule.accept(match) and not (rule.picked and _recurs(match)):
                candidates.append(_Found(match, rule))
                # A few rules match each expression: this many is more than MAX_EXPRESSIONS.
                if len(candidates) > _MAX_CANDIDATES:
                    raise _Doubt("too many expressions")
    candidates.sort(key=lambda found: (-len(found.match[0]), found.match.start()))
    kept: list[_Found] = []
    for found in candidates:
        if not any(found.overlaps(other) for other in kept):
            kept.append(found)
    if len(kept) > MAX_EXPRESSIONS:
        raise _Doubt("too many expressions")
    return sorted(kept, key=lambda found: found.start)


# --- how expressions combine -------------------------------------------------------------------

# "between X and Y", "from X to Y", "X through Y", "X到Y": from the first to the second.
_RANGE_OPENER = _en(r"\b(?:between|from)\s+(?:the\s+)?$|从\s*$")
_RANGE_JOIN_AFTER_OPENER = _en(
    r"\s*(?:and|to|until|till|through|thru|-|\u2013|—|到|至|~|\uff5e)\s*"
)
_RANGE_JOIN = _en(r"\s*(?:to|until|till|through|thru|-|\u2013|—|到|至|~|\uff5e)\s*")
# "in May and June 2023", "yesterday or today", "五月和六月": both, in either order.
_LIST_JOIN = _en(r"\s*(?:and|or|和|或者?|与)\s*")
# "the Sunday before X", "last weekend before X": the first read as of X.
_ANCHOR_JOIN = _en(r"\s+(?P<direction>before|after)\s+(?:the\s+)?")
# "the week before X", "two days after X", "two weekends before X": counted from X.
_COUNTED_FROM = _en(
    rf"\b(?:(?:the|a|that)\s+)?(?:(?P<n>{_NUM_EN})\s+)?(?P<unit>day|weekend|week)s?\s+"
    r"(?P<direction>before|after)\s+(?:the\s+)?$"
)
# A word right before an expression bounding it on one side ("before May", "as of 2023").
_BOUND_BEFORE = _en(
    r"\b(?P<word>before|prior\s+to|until|till|by|as\s+of|after|since)\s+"
    r"(?:the\s+)?$|(?P<word_zh>自从|自|从)\s*$"
)
# The same word after the expression, in Chinese (五月之前, 2023年以来).
_BOUND_AFTER_ZH = re.compile(r"\s*(?P<word>之前|以前|前|之后|以后|后|以来|起|开始)")
_BOUNDS = {"before": "before", "prior to": "before", "之前": "before", "以前": "before"}
_BOUNDS |= {"前": "before", "until": "until", "till": "until"}
_BOUNDS |= {"by": "until", "as of": "until", "after": "after", "之后": "after", "以后": "after"}
_BOUNDS |= {"后": "after", "since": "since", "以来": "since", "起": "since", "开始": "since"}
_BOUNDS |= {"从": "since", "自从": "since", "自": "since"}
# "before" or "after" further back in the same clause ("before the migration in May").
_DETACHED_BOUND = _en(r"\b(?P<word>before|after)\b[^.,;:?!\u3002\uff0c\uff1b\uff1a\uff1f\uff01]*$")


@dataclass(frozen=True)
class _Term:
    """A window the query names and where its words start and end."""

    span: _Span
    start: int
    end: int
    soft: bool = False


def _bounded(span: _Span, bound: str, reference: datetime) -> _Span:
    start, end = span
    if bound == "before":
        return _OPEN_LOCAL, start
    if bound == "until":
        return _OPEN_LOCAL, end
    if bound == "after":
        return end, _reference_day_end(reference)
    return start, _reference_day_end(reference)  # since


def _counted_from(counted: re.Match[str], anchor: _Span) -> _Span:
    """The days, week or weekend `counted` names: "the week before X", "two days after X"."""
    n = _count(counted["n"])[1] if counted["n"] else 1
    unit = counted["unit"].lower()
    before = counted["direction"].lower() == "before"
    if unit == "weekend":
        # The Monday after the nth weekend before X, or the Saturday of the nth one after it.
        if before:
            monday = _calendar(anchor[0], "week")[0] - timedelta(weeks=n - 1)
            return monday - timedelta(days=2), monday
        saturday = _calendar(anchor[1] - timedelta(days=1), "week")[0] + timedelta(days=5)
        saturday += timedelta(weeks=n - 1 if anchor[1] <= saturday else n)
        return saturday, saturday + timedelta(days=2)
    length = timedelta(days=7 if unit == "week" else 1)
    if before:
        end = anchor[0] - length * (n - 1)
        return end - length, end
    start = anchor[1] + length * (n - 1)
    return start, start + length


def _terms(query: str, found: list[_Found], reference: datetime) -> list[_Term]:
    """The windows the expressions name, with ranges, anchors and bounds applied."""
    terms: list[_Term] = []
    index = 0
    clause_start = 0  # where the words after the previous expression start
    while index < len(found):
        current = found[index]
        following = found[index + 1] if index + 1 < len(found) else None
        before = query[clause_start : current.start]
        gap = query[current.end : following.start] if following else ""
        start, end = current.start, current.end
        opener = _RANGE_OPENER.search(before)
        span: _Span | None
        soft = False  # only an expression standing alone can be vague
        if following and (
            (opener and _RANGE_JOIN_AFTER_OPENER.fullmatch(gap)) or _RANGE_JOIN.fullmatch(gap)
        ):
            span = _joined(current, following, reference, ordered=True)
            start = clause_start + opener.start() if opener else start
            end = following.end
            index += 2
        elif following and _LIST_JOIN.fullmatch(gap):
            span = _joined(current, following, reference, ordered=False)
            end = following.end
            index += 2
        elif following and (anchor_join := _ANCHOR_JOIN.fullmatch(gap)):
            if anchor_join["direction"].lower() == "after":
                raise _Doubt(query[start : following.end])
            span = current.span(_named(following, reference)[0])
            end = following.end
            index += 2
        elif counted := _COUNTED_FROM.search(before):
            span = _counted_from(counted, _named(current, reference))
            start = clause_start + counted.start()
            index += 1
        else:
            span = current.span(reference)
            soft = current.rule.soft
            index += 1
        if span is not None:
            span, start, end = _with_bound(query, span, start, end, clause_start, reference)
            terms.append(_Term(span, start, end, soft))
        clause_start = end
    return terms


def _joined(first: _Found, last: _Found, reference: datetime, ordered: bool) -> _Span:
    """Both expressions' spans and what lies between ("from May to July", "May and June").

    A place in the calendar is read next to the other expression: the first as of the end of
    the second when it would come after it ("from May to July", asked in June: the May before
    that July), the second as the latest within a year of the first ("从2023年3月到5月": May
    2023). In a range ("to", "between") the first must then come first.
    """
    second = _named(last, reference)
    first_span = _named(first, reference)
    if first.rule.picked and first_span[0] >= second[1]:
        first_span = _named(first, second[1] - _INSTANT)
    if last.rule.picked:
        nearer = _named(last, min(reference, first_span[0] + _YEAR_LONG - _INSTANT))
        if nearer[1] > first_span[0]:
            second = nearer
    if ordered:
        return _hull(first_span, second)
    return min(first_span[0], second[0]), max(first_span[1], second[1])


def _named(found: _Found, reference: datetime) -> _Span:
    """The span of an expression another one is read against, which must name the past."""
    span = found.span(reference)
    if span is None:
        raise _Doubt(found.match[0])
    return span


def _with_bound(
    query: str, span: _Span, start: int, end: int, clause_start: int, reference: datetime
) -> tuple[_Span, int, int]:
    """The span with the bound a word around it sets ("before X", "X以来"), if any."""
    before = query[clause_start:start]
    if attached := _BOUND_BEFORE.search(before):
        word = re.sub(r"\s+", " ", (attached["word"] or attached["word_zh"]).lower())
        return _bounded(span, _BOUNDS[word], reference), clause_start + attached.start(), end
    if attached_zh := _BOUND_AFTER_ZH.match(query, end):
        bound = _BOUNDS[attached_zh["word"]]
        return _bounded(span, bound, reference), start, attached_zh.end()
    if detached := _DETACHED_BOUND.search(before):
        # What "before"/"after" refers to happened within the span: up to its end, from its start.
        bound = "until" if detached["word"].lower() == "before" else "since"
        return _bounded(span, bound, reference), clause_start + detached.start(), end
    return span, start, end


# --- time zones --------------------------------------------------------------------------------

_ZONE_OFFSET = re.compile(
    r"\b(?:UTC|GMT)\s*(?P<sign>[+\-\u2212])\s*(?P<hours>\d{1,2})(?::?(?P<minutes>[0-5]\d))?\b"
)
_ZONE_HOURS = {"UTC": 0, "GMT": 0, "PST": -8, "PDT": -7, "MST": -7, "MDT": -6, "EST": -5}
_ZONE_HOURS |= {"EDT": -4, "CET": 1, "CEST": 2, "JST": 9, "KST": 9, "HKT": 8, "SGT": 8}
_ZONE_HOURS |= {"AEST": 10, "北京时间": 8, "东八区": 8}
_ZONE_NAME = re.compile(
    r"\b(?:UTC|GMT|PST|PDT|MST|MDT|EST|EDT|CET|CEST|JST|KST|HKT|SGT|AEST)\b|北京时间|东八区"
)
_MAX_OFFSET_MINUTES = 14 * 60


def _zone(query: str) -> tzinfo:
    """The zone the query names for its days; UTC when it names none."""
    if offset := _ZONE_OFFSET.search(query):
        minutes = int(offset["hours"]) * 60 + int(offset["minutes"] or 0)
        if minutes > _MAX_OFFSET_MINUTES:
            raise _Doubt(offset[0])
        return timezone(timedelta(minutes=minutes if offset["sign"] == "+" else -minutes))
    if name := _ZONE_NAME.search(query):
        return timezone(timedelta(hours=_ZONE_HOURS[name[0]]))
    return UTC


# --- the window --------------------------------------------------------------------------------


def load() -> None:
    """Has dateparser load its languages' data (a fraction of a second, once per process)."""
    window("in May 2023", datetime(2024, 1, 1, tzinfo=UTC))
    window("去年五月", datetime(2024, 1, 1, tzinfo=UTC))


def window(query: str, reference: datetime) -> TimeWindow | None:
    """The window on event time the query names, read as asked at `reference`, or None.

    None when the query names no time, or only the future, or when its reading is in doubt.
    """
    if len(query) > MAX_QUERY_CHARS or not _may_name_time(query):
        return None
    if reference.tzinfo is None:
        reference = reference.replace(tzinfo=UTC)
    try:
        found = _expressions(query)
        if not found:
            return None
        zone = _zone(query)
        local_reference = reference.astimezone(zone).replace(tzinfo=None)
        terms = _terms(query, found, local_reference)
    except _Doubt:
        return None
    common = _shared(terms) or _shared([term for term in terms if not term.soft])
    if common is None or common[0] > local_reference:
        return None
    start, end, used = common
    expression = " ".join(query[term.start : term.end].strip() for term in used)
    return TimeWindow(_utc(start, zone), _utc(end, zone), expression)


def _shared(terms: list[_Term]) -> tuple[datetime, datetime, list[_Term]] | None:
    """What the terms' spans have in common, if anything."""
    if not terms:
        return None
    start = max(term.span[0] for term in terms)
    end = min(term.span[1] for term in terms)
    return (start, end, terms) if start < end else None


def _utc(moment: datetime, zone: tzinfo) -> datetime:
    if moment == _OPEN_LOCAL:
        return OPEN_START
    return moment.replace(tzinfo=zone).astimezone(UTC)
