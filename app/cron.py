"""Crontab expressions in UTC as APScheduler triggers: five fields (minute hour day month
weekday, weekdays numbered as in crontab, 0 or 7 = Sunday), or six with seconds first."""

from __future__ import annotations

from datetime import UTC

from apscheduler.triggers.cron import CronTrigger

WEEKDAY_NAMES = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")


def _weekday(token: str) -> int:
    return WEEKDAY_NAMES.index(token) if token in WEEKDAY_NAMES else int(token)


def _weekday_numbers(field: str) -> set[int]:
    days: set[int] = set()
    for part in field.lower().split(","):
        body, _, step_text = part.partition("/")
        step = int(step_text) if step_text else 1
        if body == "*":
            low, high = 0, 6
        elif "-" in body:
            first, last = body.split("-", 1)
            low, high = _weekday(first), _weekday(last)
        else:
            low = high = _weekday(body)
        if not (0 <= low <= high <= 7) or step < 1:
            raise ValueError(f"invalid weekday field: {field!r}")
        days.update(day % 7 for day in range(low, high + 1, step))
    return days


def crontab_weekdays(field: str) -> str:
    """A crontab weekday field (0 or 7 = Sunday) in the names APScheduler 3 reads right.

    APScheduler 3 numbers weekdays from Monday = 0; names avoid the mismatch.
    """
    if field in ("*", "?"):
        return "*"
    return ",".join(WEEKDAY_NAMES[day] for day in sorted(_weekday_numbers(field)))


def cron_trigger(expression: str) -> CronTrigger:
    """A UTC trigger from a 5-field crontab expression, or a 6-field one with seconds first."""
    fields = expression.split()
    if len(fields) == 5:
        fields = ["0", *fields]
    if len(fields) != 6:
        raise ValueError(f"a schedule needs 5 or 6 cron fields, got {expression!r}")
    second, minute, hour, day, month, weekday = fields
    return CronTrigger(
        second=second,
        minute=minute,
        hour=hour,
        day=day,
        month=month,
        day_of_week=crontab_weekdays(weekday),
        timezone=UTC,
    )
