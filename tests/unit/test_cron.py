"""Crontab expressions as triggers (app.cron), and the settings that hold them."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from app.config import Settings
from app.cron import cron_trigger, crontab_weekdays


def test_crontab_weekdays_are_numbered_from_sunday() -> None:
    assert crontab_weekdays("*") == "*"
    assert crontab_weekdays("0") == "sun"
    assert crontab_weekdays("7") == "sun"
    assert crontab_weekdays("1-5") == "mon,tue,wed,thu,fri"
    assert crontab_weekdays("0-6/2") == "sun,tue,thu,sat"
    assert crontab_weekdays("sat,sun") == "sun,sat"
    with pytest.raises(ValueError):
        crontab_weekdays("8")


def test_cron_with_five_or_six_fields() -> None:
    start = datetime(2026, 1, 1, 0, 0, 0, tzinfo=UTC)  # a Thursday
    daily = cron_trigger("0 3 * * *")
    assert daily.get_next_fire_time(None, start) == datetime(2026, 1, 1, 3, 0, tzinfo=UTC)
    sundays = cron_trigger("0 3 * * 0")
    assert sundays.get_next_fire_time(None, start) == datetime(2026, 1, 4, 3, 0, tzinfo=UTC)
    every_two_seconds = cron_trigger("*/2 * * * * *")
    assert every_two_seconds.get_next_fire_time(None, start.replace(second=1)) == start.replace(
        second=2
    )
    for bad in ("", "* * * *", "* * * * * * *", "61 * * * *"):
        with pytest.raises(ValueError):
            cron_trigger(bad)


@pytest.mark.parametrize("field", ["autotune_cron", "gc_cron", "governance_cron"])
def test_a_bad_schedule_in_the_settings_names_its_variable(field: str) -> None:
    with pytest.raises(ValidationError) as raised:
        Settings(master_key="k" * 16, **{field: "0 99 * * *"})
    assert field in str(raised.value)
