"""Time expressions of queries read as windows on event time: English, Chinese and the two
mixed, the words that must give no window, and the edges of the calendar."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.services.retrieval.time_window import (
    MAX_EXPRESSIONS,
    MAX_QUERY_CHARS,
    OPEN_START,
    RECENT_DAYS,
    TimeWindow,
    window,
)

# Wednesday 15 May 2024, 10:00 UTC, unless a test says otherwise.
WEDNESDAY = datetime(2024, 5, 15, 10, 0, tzinfo=UTC)


def _moment(text: str) -> str:
    return text if "T" in text or text == "open" else f"{text}T00:00"


def _read(moment: datetime) -> str:
    if moment == OPEN_START:
        return "open"
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M")


def _span(query: str, reference: datetime = WEDNESDAY) -> tuple[str, str] | None:
    """The window as ("2024-05-14T00:00", "2024-05-15T00:00"), or None."""
    found = window(query, reference)
    return None if found is None else (_read(found.start), _read(found.end))


def _expect(start: str, end: str) -> tuple[str, str]:
    return _moment(start), _moment(end)


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        ("What did I do yesterday?", "2024-05-14", "2024-05-15"),
        ("what happened today", "2024-05-15", "2024-05-16"),
        ("the day before yesterday", "2024-05-13", "2024-05-14"),
        # The previous calendar week, Monday to Sunday.
        ("What did we decide last week?", "2024-05-06", "2024-05-13"),
        ("notes from this week", "2024-05-13", "2024-05-20"),
        ("the incident last month", "2024-04-01", "2024-05-01"),
        ("What changed this month?", "2024-05-01", "2024-06-01"),
        ("my goals last year", "2023-01-01", "2024-01-01"),
        ("this year so far", "2024-01-01", "2025-01-01"),
        ("What did we ship in May 2023?", "2023-05-01", "2023-06-01"),
        ("the outage of May, 2023", "2023-05-01", "2023-06-01"),
        ("Dec. 2023 invoices", "2023-12-01", "2024-01-01"),
        ("in Sept 2023", "2023-09-01", "2023-10-01"),
        # A month alone: the latest not after the reference, the current one when asked in it.
        ("What did we do in May?", "2024-05-01", "2024-06-01"),
        ("since when, in December?", "2023-12-01", "2024-01-01"),
        ("mid-March", "2024-03-01", "2024-04-01"),
        ("the end of April", "2024-04-01", "2024-05-01"),
        ("in May last year", "2023-05-01", "2023-06-01"),
        ("last May", "2023-05-01", "2023-06-01"),
        ("last April", "2024-04-01", "2024-05-01"),
        ("two years ago", "2022-01-01", "2023-01-01"),
        ("Where did Caroline move from 4 years ago?", "2020-01-01", "2021-01-01"),
        ("3 days ago", "2024-05-12", "2024-05-13"),
        ("three days ago", "2024-05-12", "2024-05-13"),
        ("a week ago", "2024-05-06", "2024-05-13"),
        ("2 months ago", "2024-03-01", "2024-04-01"),
        ("a couple of weeks ago", "2024-04-22", "2024-05-13"),
        ("a few days ago", "2024-05-10", "2024-05-14"),
        ("several months ago", "2023-10-01", "2024-04-01"),
        ("half a year ago", "2023-10-01", "2024-01-01"),
        # A weekday: the latest one before the reference's day.
        ("last Tuesday", "2024-05-14", "2024-05-15"),
        ("on Monday", "2024-05-13", "2024-05-14"),
        ("What did we discuss Wednesday?", "2024-05-08", "2024-05-09"),
        ("Tuesday of last week", "2024-05-07", "2024-05-08"),
        ("this Monday", "2024-05-13", "2024-05-14"),
        ("What happened on May 8?", "2024-05-08", "2024-05-09"),
        ("on October 13, 2023", "2023-10-13", "2023-10-14"),
        ("the 8th of May", "2024-05-08", "2024-05-09"),
        ("on 8th December, 2023", "2023-12-08", "2023-12-09"),
        ("on 1 February, 2023", "2023-02-01", "2023-02-02"),
        ("December 1,2023", "2023-12-01", "2023-12-02"),
        ("Sept. 3, 2023", "2023-09-03", "2023-09-04"),
        ("Tuesday, May 7, 2024", "2024-05-07", "2024-05-08"),
        ("8th may", "2024-05-08", "2024-05-09"),
        ("the deploy on 2023-05-08", "2023-05-08", "2023-05-09"),
        ("2023/12/25", "2023-12-25", "2023-12-26"),
        ("in 2023", "2023-01-01", "2024-01-01"),
        ("during 2022", "2022-01-01", "2023-01-01"),
        ("mid-2023", "2023-01-01", "2024-01-01"),
        ("the end of 2022", "2022-01-01", "2023-01-01"),
        ("the year 2021", "2021-01-01", "2022-01-01"),
        # Windows that end with the reference's day.
        ("the past week", "2024-05-08", "2024-05-16"),
        ("over the last 3 days", "2024-05-12", "2024-05-16"),
        ("this past week", "2024-05-08", "2024-05-16"),
        ("in the past few weeks", "2024-04-10", "2024-05-16"),
        ("earlier this year", "2024-01-01", "2024-05-15T10:00"),
        ("earlier today", "2024-05-15", "2024-05-15T10:00"),
        ("last weekend", "2024-05-11", "2024-05-13"),
        ("over the weekend", "2024-05-11", "2024-05-13"),
    ],
)
def test_english_expressions(query: str, start: str, end: str) -> None:
    assert _span(query) == _expect(start, end)


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        ("我昨天做了什么", "2024-05-14", "2024-05-15"),
        ("昨日", "2024-05-14", "2024-05-15"),
        ("今天的会议", "2024-05-15", "2024-05-16"),
        ("前天", "2024-05-13", "2024-05-14"),
        ("大前天", "2024-05-12", "2024-05-13"),
        ("上周我们决定了什么", "2024-05-06", "2024-05-13"),
        ("上星期", "2024-05-06", "2024-05-13"),
        ("上个礼拜", "2024-05-06", "2024-05-13"),
        ("上上周", "2024-04-29", "2024-05-06"),
        ("这周", "2024-05-13", "2024-05-20"),
        ("本周", "2024-05-13", "2024-05-20"),
        ("上个月的事故", "2024-04-01", "2024-05-01"),
        ("上月", "2024-04-01", "2024-05-01"),
        ("这个月", "2024-05-01", "2024-06-01"),
        ("去年", "2023-01-01", "2024-01-01"),
        ("前年", "2022-01-01", "2023-01-01"),
        ("今年", "2024-01-01", "2025-01-01"),
        ("三天前", "2024-05-12", "2024-05-13"),
        ("3天前", "2024-05-12", "2024-05-13"),
        ("十天前", "2024-05-05", "2024-05-06"),
        ("二十三天前", "2024-04-22", "2024-04-23"),
        ("两周前", "2024-04-29", "2024-05-06"),
        ("三个星期前", "2024-04-22", "2024-04-29"),
        ("两个月前", "2024-03-01", "2024-04-01"),
        ("两年前", "2022-01-01", "2023-01-01"),
        ("几天前", "2024-05-10", "2024-05-14"),
        ("半年前", "2023-10-01", "2024-01-01"),
        ("2023年5月", "2023-05-01", "2023-06-01"),
        ("去年五月", "2023-05-01", "2023-06-01"),
        ("今年三月", "2024-03-01", "2024-04-01"),
        ("五月份", "2024-05-01", "2024-06-01"),
        ("十二月", "2023-12-01", "2024-01-01"),
        ("5月8日", "2024-05-08", "2024-05-09"),
        ("5月8号", "2024-05-08", "2024-05-09"),
        ("二〇二三年三月八号", "2023-03-08", "2023-03-09"),
        ("2023年", "2023-01-01", "2024-01-01"),
        ("上周二", "2024-05-07", "2024-05-08"),
        ("这周一", "2024-05-13", "2024-05-14"),
        ("星期天", "2024-05-12", "2024-05-13"),
        ("礼拜三", "2024-05-08", "2024-05-09"),
        ("周五", "2024-05-10", "2024-05-11"),
        ("上周末", "2024-05-11", "2024-05-13"),
        ("过去三天", "2024-05-12", "2024-05-16"),
        ("最近两周", "2024-05-01", "2024-05-16"),
        ("近一个月", "2024-04-15", "2024-05-16"),
        ("这几天", "2024-05-10", "2024-05-16"),
        ("今年早些时候", "2024-01-01", "2024-05-15T10:00"),
        ("今年年初", "2024-01-01", "2024-05-15T10:00"),
        ("去年夏天", "2023-06-01", "2023-09-01"),
    ],
)
def test_chinese_expressions(query: str, start: str, end: str) -> None:
    assert _span(query) == _expect(start, end)


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        ("上周 invoice-api 的部署怎么样了", "2024-05-06", "2024-05-13"),
        ("PROJ-2023 在三天前的状态", "2024-05-12", "2024-05-13"),
        ("payment-service 2023年5月 的 incident", "2023-05-01", "2023-06-01"),
        ("v2.3.1 是去年五月发布的吗", "2023-05-01", "2023-06-01"),
        ("Redis 7.2 昨天下午的告警", "2024-05-14T12:00", "2024-05-14T18:00"),
        ("last week 的 standup", "2024-05-06", "2024-05-13"),
    ],
)
def test_chinese_with_english_identifiers(query: str, start: str, end: str) -> None:
    assert _span(query) == _expect(start, end)


@pytest.mark.parametrize(
    "query",
    [
        "May I ask what we decided?",
        "the march of progress",
        "I may 2 go",
        "8 may",
        "a second opinion",
        "first",
        "now and then",
        "Python 3.11",
        "upgrade to v2.3.1",
        "RFC 2616",
        "port 8080",
        "listening on port 2020",
        "ticket JIRA-2023",
        "ABC-2023-05 is blocked",
        "fixed in 2024.1",
        "12/25/2023",
        "a message from May",
        "a painting by May",
        "May",
        "every Monday",
        "on Mondays",
        "every second Tuesday",
        "Team standup is every Monday and Thursday",
        "The mobile team usually ships on Friday",
        "WH-ROT-01 closes on the last Friday of each month",
        "It was deployed on a Tuesday",
        "员工工牌每年一月更换",
        "发版火车每隔一周的周三出发",
        "How many days do I have left?",
        "years of experience",
        "What year did John start surfing?",
        "How long ago was Caroline's 18th birthday?",
        "the last day of the trip",
        "the last years of his life",
        "what do I do in the summer",
        "周末一般做什么",
        "每周一开会",
        "一周一次",
        "五月天的演唱会",
        "2000年代的音乐",
        "离我家最近的地铁站",
        "最近的医院在哪里",
        "天气怎么样",
        "日志级别",
        "年龄",
        "What score did I get most recently?",
        "最近一次考试的分数",
        "最近一次的分数",
    ],
)
def test_no_window(query: str) -> None:
    assert window(query, WEDNESDAY) is None


@pytest.mark.parametrize(
    "query",
    [
        "next Tuesday",
        "Tuesday next week",
        "next May",
        "this Friday",
        "this summer",
        "明年五月",
        "下周二",
        "in 2030",
        "tonight",
        "tomorrow",
        "next week",
        "明天",
    ],
)
def test_the_future_gives_no_window(query: str) -> None:
    assert window(query, WEDNESDAY) is None


def test_the_future_leaves_the_past_expressions_of_the_query() -> None:
    assert _span("what did we plan yesterday for next Tuesday") == _expect(
        "2024-05-14", "2024-05-15"
    )


@pytest.mark.parametrize(
    ("reference", "query", "start", "end"),
    [
        # Month ends: a month back from the 31st is the month before, whatever its length.
        ("2024-03-31T10:00", "last month", "2024-02-01", "2024-03-01"),
        ("2024-03-31T10:00", "a month ago", "2024-02-01", "2024-03-01"),
        ("2024-05-31T10:00", "3 months ago", "2024-02-01", "2024-03-01"),
        ("2024-03-31T10:00", "yesterday", "2024-03-30", "2024-03-31"),
        # Year boundaries.
        ("2024-01-01T00:30", "yesterday", "2023-12-31", "2024-01-01"),
        ("2024-01-01T00:30", "last week", "2023-12-25", "2024-01-01"),
        ("2024-01-01T00:30", "last month", "2023-12-01", "2024-01-01"),
        ("2024-01-01T00:30", "上个月", "2023-12-01", "2024-01-01"),
        ("2024-01-01T00:30", "去年", "2023-01-01", "2024-01-01"),
        ("2024-01-01T00:30", "this week", "2024-01-01", "2024-01-08"),
        ("2024-01-05T10:00", "in December", "2023-12-01", "2024-01-01"),
        ("2024-01-05T10:00", "十二月", "2023-12-01", "2024-01-01"),
        ("2024-01-05T10:00", "12月31日", "2023-12-31", "2024-01-01"),
        ("2024-01-10T10:00", "last winter", "2022-12-01", "2023-03-01"),
        # A month not yet come this year is last year's.
        ("2024-04-30T10:00", "in May", "2023-05-01", "2023-06-01"),
        ("2024-04-30T10:00", "五月", "2023-05-01", "2023-06-01"),
        ("2024-05-01T00:00", "in May", "2024-05-01", "2024-06-01"),
        # A reference on a Monday.
        ("2024-05-13T10:00", "last week", "2024-05-06", "2024-05-13"),
        ("2024-05-13T10:00", "this week", "2024-05-13", "2024-05-20"),
        ("2024-05-13T10:00", "last Monday", "2024-05-06", "2024-05-07"),
        ("2024-05-13T10:00", "Sunday", "2024-05-12", "2024-05-13"),
        ("2024-05-13T10:00", "上周一", "2024-05-06", "2024-05-07"),
        ("2024-05-13T10:00", "这周一", "2024-05-13", "2024-05-14"),
        ("2024-05-13T10:00", "yesterday", "2024-05-12", "2024-05-13"),
        # A reference on a Sunday: still in the week that began on Monday.
        ("2024-05-12T10:00", "last week", "2024-04-29", "2024-05-06"),
        ("2024-05-12T10:00", "this week", "2024-05-06", "2024-05-13"),
        ("2024-05-12T10:00", "Sunday", "2024-05-05", "2024-05-06"),
        ("2024-05-12T10:00", "Saturday", "2024-05-11", "2024-05-12"),
        ("2024-05-12T10:00", "this weekend", "2024-05-11", "2024-05-13"),
        ("2024-05-12T10:00", "over the weekend", "2024-05-11", "2024-05-13"),
        ("2024-05-12T10:00", "last weekend", "2024-05-04", "2024-05-06"),
        ("2024-05-12T10:00", "这个周末", "2024-05-11", "2024-05-13"),
        ("2024-05-12T10:00", "上周末", "2024-05-04", "2024-05-06"),
        # Leap years.
        ("2024-03-01T10:00", "yesterday", "2024-02-29", "2024-03-01"),
        ("2024-03-01T10:00", "last month", "2024-02-01", "2024-03-01"),
        ("2024-03-01T10:00", "February 29", "2024-02-29", "2024-03-01"),
        ("2025-05-01T10:00", "February 29", "2024-02-29", "2024-03-01"),
        ("2025-05-01T10:00", "2024年2月29日", "2024-02-29", "2024-03-01"),
        ("2024-02-29T10:00", "a year ago", "2023-01-01", "2024-01-01"),
        ("2024-02-29T10:00", "一年前", "2023-01-01", "2024-01-01"),
    ],
)
def test_calendar_edges(reference: str, query: str, start: str, end: str) -> None:
    asked = datetime.fromisoformat(reference).replace(tzinfo=UTC)
    assert _span(query, asked) == _expect(start, end)


@pytest.mark.parametrize("query", ["February 29, 2023", "2023年2月29日", "Feb 30, 2023", "May 32"])
def test_days_that_do_not_exist_give_no_window(query: str) -> None:
    assert window(query, WEDNESDAY) is None


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        ("this morning", "2024-05-15T05:00", "2024-05-15T12:00"),
        ("last night", "2024-05-14T18:00", "2024-05-15T06:00"),
        ("yesterday afternoon", "2024-05-14T12:00", "2024-05-14T18:00"),
        ("Tuesday evening", "2024-05-14T17:00", "2024-05-15T00:00"),
        ("on Monday morning", "2024-05-13T05:00", "2024-05-13T12:00"),
        ("今天早上", "2024-05-15T05:00", "2024-05-15T12:00"),
        ("今早", "2024-05-15T05:00", "2024-05-15T12:00"),
        ("昨晚", "2024-05-14T18:00", "2024-05-15T06:00"),
        ("昨天下午", "2024-05-14T12:00", "2024-05-14T18:00"),
        ("周二晚上", "2024-05-14T18:00", "2024-05-15T06:00"),
        ("前天凌晨", "2024-05-13T00:00", "2024-05-13T06:00"),
    ],
)
def test_parts_of_a_day(query: str, start: str, end: str) -> None:
    assert _span(query) == _expect(start, end)


def test_a_part_of_the_day_still_to_come_gives_no_window() -> None:
    assert window("this evening", WEDNESDAY) is None
    assert window("至今早已忘记", WEDNESDAY) is None


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        ("last summer", "2023-06-01", "2023-09-01"),
        ("summer 2021", "2021-06-01", "2021-09-01"),
        ("the spring of 2022", "2022-03-01", "2022-06-01"),
        ("last winter", "2023-12-01", "2024-03-01"),
        ("2022年秋天", "2022-09-01", "2022-12-01"),
    ],
)
def test_seasons(query: str, start: str, end: str) -> None:
    assert _span(query) == _expect(start, end)


@pytest.mark.parametrize("query", ["winter 2022", "去年冬天"])
def test_the_winter_of_a_year_is_in_doubt(query: str) -> None:
    assert window(query, WEDNESDAY) is None


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        ("recently", "2024-04-15", "2024-05-16"),
        ("What have I been reading lately?", "2024-04-15", "2024-05-16"),
        ("What have you been up to lately?", "2024-04-15", "2024-05-16"),
        ("我最近在做什么", "2024-04-15", "2024-05-16"),
        ("近来", "2024-04-15", "2024-05-16"),
    ],
)
def test_recently_is_the_last_thirty_days(query: str, start: str, end: str) -> None:
    assert RECENT_DAYS == 30
    assert _span(query) == _expect(start, end)


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        ("before May 2023", "open", "2023-05-01"),
        ("What did we use prior to 2022?", "open", "2022-01-01"),
        ("until May 2023", "open", "2023-06-01"),
        ("How many tournaments had Nate won by July 10, 2022?", "open", "2022-07-11"),
        ("as of December 2023", "open", "2024-01-01"),
        ("since May 2023", "2023-05-01", "2024-05-16"),
        ("since last week", "2024-05-06", "2024-05-16"),
        ("after May 2023", "2023-06-01", "2024-05-16"),
        ("2023年之前", "open", "2023-01-01"),
        ("五月以来", "2024-05-01", "2024-05-16"),
        ("从去年开始", "2023-01-01", "2024-05-16"),
        ("去年以后", "2024-01-01", "2024-05-16"),
        # A bound further back in the clause dates what it refers to.
        ("before the migration in May", "open", "2024-06-01"),
        ("after his trip in August 2023", "2023-08-01", "2024-05-16"),
    ],
)
def test_bounds(query: str, start: str, end: str) -> None:
    assert _span(query) == _expect(start, end)


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        ("between August 11 and August 15 2023", "2023-08-11", "2023-08-16"),
        ("from March to May 2023", "2023-03-01", "2023-06-01"),
        ("between March and May", "2024-03-01", "2024-06-01"),
        # Asked in May 2024, July 2024 has not come: the last May to July was 2023's.
        ("from May to July", "2023-05-01", "2023-08-01"),
        ("from last week to yesterday", "2024-05-06", "2024-05-15"),
        ("in May and June 2023", "2023-05-01", "2023-07-01"),
        ("yesterday and last week", "2024-05-06", "2024-05-15"),
        ("周一到周五", "2024-05-06", "2024-05-11"),
        ("从2023年3月到5月", "2023-03-01", "2023-06-01"),
        ("五月和六月", "2023-05-01", "2023-07-01"),
        # Read relative to the date that follows.
        ("the week before 16 November 2023", "2023-11-09", "2023-11-16"),
        ("two weeks before August 11, 2023", "2023-07-28", "2023-08-04"),
        ("the day after May 3, 2023", "2023-05-04", "2023-05-05"),
        ("the Sunday before October 25, 2022", "2022-10-23", "2022-10-24"),
        ("last weekend before April 10, 2023", "2023-04-08", "2023-04-10"),
        ("two weekends before 17 July 2023", "2023-07-08", "2023-07-10"),
    ],
)
def test_ranges_and_anchors(query: str, start: str, end: str) -> None:
    assert _span(query) == _expect(start, end)


def test_a_range_that_ends_before_it_starts_gives_no_window() -> None:
    assert window("from yesterday to last week", WEDNESDAY) is None


def test_several_expressions_keep_what_they_share() -> None:
    assert _span("What charity event did John organize recently in 2024?") == _expect(
        "2024-04-15", "2024-05-16"
    )
    assert _span("on Tuesday last week in May") == _expect("2024-05-07", "2024-05-08")


def test_recently_yields_to_a_named_time_it_does_not_meet() -> None:
    assert _span("What did Joanna recently watch on February 7, 2022?") == _expect(
        "2022-02-07", "2022-02-08"
    )
    assert _span("最近 2023年5月 的发布") == _expect("2023-05-01", "2023-06-01")


def test_a_query_naming_many_times_is_no_question_about_a_time() -> None:
    assert window("in May 2023 " * MAX_EXPRESSIONS, WEDNESDAY) is not None
    assert window("in May 2023 " * (MAX_EXPRESSIONS + 1), WEDNESDAY) is None
    assert window("2023-05-08 12:00:01 ERROR timeout\n" * 20, WEDNESDAY) is None


def test_a_pasted_text_is_no_question_about_a_time() -> None:
    question = "What did we decide last week? "
    padding = "x" * (MAX_QUERY_CHARS - len(question))
    assert window(question + padding, WEDNESDAY) is not None
    assert window(question + padding + "x", WEDNESDAY) is None


def test_expressions_with_nothing_in_common_give_no_window() -> None:
    assert window("What did Joanna finish last Friday on 23 January, 2022?", WEDNESDAY) is None
    assert window("last week, as mentioned on November 6, 2023", WEDNESDAY) is None


@pytest.mark.parametrize(
    ("query", "expression"),
    [
        ("What did we decide last week?", "last week"),
        ("What did we ship in May 2023?", "May 2023"),
        ("去年五月的发布", "去年五月"),
        ("before the migration in May", "before the migration in May"),
        (
            "Where was John between August 11 and August 15 2023?",
            "between August 11 and August 15 2023",
        ),
        ("五月以来的变化", "五月以来"),
        ("recently in 2024", "recently 2024"),
    ],
)
def test_the_expression_is_the_words_of_the_query(query: str, expression: str) -> None:
    found = window(query, WEDNESDAY)
    assert found is not None
    assert found.expression == expression


def test_days_are_utc_unless_the_query_names_a_zone() -> None:
    evening = datetime(2024, 5, 15, 20, 0, tzinfo=UTC)  # already the 16th in UTC+8
    assert _span("yesterday", evening) == _expect("2024-05-14", "2024-05-15")
    assert _span("yesterday (UTC+8)", evening) == _expect("2024-05-14T16:00", "2024-05-15T16:00")
    assert _span("北京时间昨天", evening) == _expect("2024-05-14T16:00", "2024-05-15T16:00")
    assert _span("yesterday at 3pm PST", WEDNESDAY) == _expect(
        "2024-05-14T08:00", "2024-05-15T08:00"
    )
    assert _span("yesterday GMT-05:30", WEDNESDAY) == _expect(
        "2024-05-14T05:30", "2024-05-15T05:30"
    )


def test_the_reference_counts_in_utc_whatever_its_zone() -> None:
    in_beijing = WEDNESDAY.astimezone(timezone(timedelta(hours=8)))
    assert _span("yesterday", in_beijing) == _span("yesterday", WEDNESDAY)
    late_in_beijing = datetime(2024, 5, 16, 2, 0, tzinfo=timezone(timedelta(hours=8)))
    assert _span("yesterday", late_in_beijing) == _expect("2024-05-14", "2024-05-15")


def test_a_naive_reference_is_utc() -> None:
    assert _span("yesterday", datetime(2024, 5, 15, 10, 0)) == _span("yesterday")


def test_a_window_holds_the_moments_from_its_start_to_before_its_end() -> None:
    found = window("yesterday", WEDNESDAY)
    assert found == TimeWindow(
        datetime(2024, 5, 14, tzinfo=UTC), datetime(2024, 5, 15, tzinfo=UTC), "yesterday"
    )
    assert found.holds(datetime(2024, 5, 14, tzinfo=UTC))
    assert found.holds(datetime(2024, 5, 14, 23, 59, tzinfo=UTC))
    assert not found.holds(datetime(2024, 5, 15, tzinfo=UTC))
    assert not found.holds(datetime(2024, 5, 13, 23, 59, tzinfo=UTC))


@pytest.mark.parametrize(
    "query", ["yesterday", "last week", "recently", "in May", "上周", "三天前", "this week"]
)
@pytest.mark.parametrize("day", range(0, 400, 23))
def test_no_window_starts_after_the_question_is_asked(query: str, day: int) -> None:
    asked = datetime(2023, 1, 1, 0, 30, tzinfo=UTC) + timedelta(days=day)
    found = window(query, asked)
    assert found is not None
    assert found.start <= asked
    assert found.start < found.end


_PIECES = [
    *("last", "this", "next", "the", "past", "before", "after", "since", "until", "between"),
    *("and", "to", "in", "on", "of", "ago", "a", "few", "couple", "3", "12", "31", "2023"),
    *("1850", "2999", "May", "march", "week", "weekend", "month", "year", "days", "Tuesday"),
    *("Sunday", "morning", "night", "yesterday", "today", "recently", "summer", "winter"),
    *("UTC+8", "PST", ",", "上", "上上", "这", "周", "周二", "周末", "月", "年", "天", "前"),
    *("以前", "以来", "后", "到", "去年", "明年", "五月", "十十", "二十三", "两", "几", "半"),
    *("最近", "昨晚", "今早", "下午", "号", "日", "2023年", "\u3007", "十二月", "三十一"),
]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(_PIECES), max_size=8),
    st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2100, 1, 1)),
)
def test_any_words_give_a_window_in_the_past_or_none(pieces: list[str], asked: datetime) -> None:
    reference = asked.replace(tzinfo=UTC)
    found = window(" ".join(pieces), reference)
    assert found is None or (found.start < found.end and found.start <= reference)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_any_text_gives_a_window_or_none(text: str) -> None:
    found = window(text, WEDNESDAY)
    assert found is None or found.start < found.end
