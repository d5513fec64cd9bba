"""No deadline falls in its player's quiet hours, around the clock changes of his zone
(``games/services/plumbing/clocks.py``).

Why a property: quiet hours are whole hours of the player's local day, and a
daylight-saving change skips or repeats one of them, in some zones at midnight
(Havana), by half an hour (Lord Howe) or at an odd offset (Chatham). So quiet
hours are 12 hours at most (the parser refuses more): a window of 23 hours
whose one free hour is the one a spring change skips has no free moment, and
the deadline moved to its end lands at the start of the next night. And they
start at the first moment the clock shows their first hour and end at the
last moment it shows their last: in Chatham, whose clocks change at a quarter
to the hour, an hour that a change repeats would otherwise end quiet hours at
its first time, and an hour it skips start them after the jump. Hypothesis
searches zones, dates and windows around their clock changes for a deadline
that breaks this.

The oracle is independent of ``clocks.quiet_period``: the hour the deadline
shows on the player's own clock.
"""

from __future__ import annotations

import functools
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from hypothesis import example, given
from hypothesis import strategies as st

from games.models import Player
from games.services.plumbing import clocks
from games.text.protocol import MOVE_TIMES, ProtocolError, parse

ZONES = (
    "Europe/Skopje",
    "Europe/London",
    "America/New_York",
    "America/Havana",  # changes at midnight
    "America/Santiago",  # southern: spring in September
    "Australia/Sydney",
    "Australia/Lord_Howe",  # half an hour
    "Pacific/Chatham",  # UTC+12:45 and +13:45
    "Africa/Casablanca",  # an hour back and forth around Ramadan
    "Asia/Kolkata",  # no change: the control
)
YEARS = (2025, 2027)


@functools.cache
def transitions(zone: str) -> tuple[datetime, ...]:
    """The moments (UTC) the zone's offset changes in ``YEARS``, found an hour at a time."""
    local = ZoneInfo(zone)
    moment, end = datetime(YEARS[0], 1, 1, tzinfo=UTC), datetime(YEARS[1] + 1, 1, 1, tzinfo=UTC)
    found, offset = [], moment.astimezone(local).utcoffset()
    while moment < end:
        moment += timedelta(hours=1)
        now = moment.astimezone(local).utcoffset()
        if now != offset:
            found.append(moment)
            offset = now
    return tuple(found) or (datetime(2026, 3, 29, tzinfo=UTC),)  # a zone without changes: any day


def in_window(hour: int, first: int, last: int) -> bool:
    return first <= hour < last if first < last else hour >= first or hour < last


def player_with(zone: str, first: int, last: int) -> Player | None:
    """A player with ``quiet first-last`` in ``zone``, as the parser lets it in; None if it refuses."""
    try:
        command = parse(f"quiet {first:02d}-{last:02d}")
    except ProtocolError:
        return None
    quiet_from, quiet_until = (int(hour) for hour in command.text.split("-"))
    return Player(display_name="Quiet", time_zone=zone, quiet_from=quiet_from, quiet_until=quiet_until)


@st.composite
def cases(draw) -> tuple[str, datetime, int, int, int]:
    """A zone, a moment within three days of one of its clock changes, a window and a move time."""
    zone = draw(st.sampled_from(ZONES))
    change = draw(st.sampled_from(transitions(zone)))
    now = change + timedelta(minutes=draw(st.integers(-3 * 24 * 60, 3 * 24 * 60)))
    first, last = draw(st.integers(0, 23)), draw(st.integers(0, 23))
    time_left = draw(st.one_of(st.sampled_from(sorted(MOVE_TIMES.values())), st.integers(1, 8 * 86400)))
    return zone, now, first, last, time_left


@given(case=cases())
# Skopje's spring change: quiet 03-02 leaves 02:00-03:00 free, the very hour that is skipped.
@example(case=("Europe/Skopje", datetime(2025, 3, 29, 12, 0, tzinfo=UTC), 3, 2, 300))
# Chatham's autumn change (03:45 back to 02:45): quiet 00-03 ending at the first 03:00 would
# leave the second 02:45-03:00 outside them.
@example(case=("Pacific/Chatham", datetime(2025, 4, 5, 14, 7, tzinfo=UTC), 0, 3, 300))
# Chatham's spring change (02:45 on to 03:45): quiet 03-04 starting at 04:00, read as 03:00
# before the jump, would leave 03:45-04:00 outside them.
@example(case=("Pacific/Chatham", datetime(2025, 9, 27, 14, 7, tzinfo=UTC), 3, 4, 300))
def test_no_deadline_or_reminder_falls_in_quiet_hours_around_clock_changes(case):
    zone, now, first, last = case[:4]
    player = player_with(zone, first, last)
    if player is None:
        return  # refused: there are no such quiet hours
    left = timedelta(seconds=case[4])
    deadline, remind_at = clocks.turn_clock(player, now, left, left * 0.2)
    local = ZoneInfo(zone)
    assert deadline >= now + left
    assert not in_window(deadline.astimezone(local).hour, player.quiet_from, player.quiet_until), deadline
    if remind_at is not None:
        assert now < remind_at < deadline
        assert not in_window(remind_at.astimezone(local).hour, player.quiet_from, player.quiet_until), remind_at


@pytest.mark.django_db(transaction=True)
def test_quiet_hours_set_before_the_limit_are_shortened_to_12_hours():
    executor = MigrationExecutor(connection)
    before, after = [("games", "0019_unique_names")], [("games", "0020_quiet_hours_at_most_12")]
    executor.migrate(before)
    try:
        Old = executor.loader.project_state(before).apps.get_model("games", "Player")
        for name, hours in (("Owl", (0, 23)), ("Lark", (22, 7)), ("Noon", (20, 8)), ("Free", (None, None))):
            Old.objects.create(display_name=name, quiet_from=hours[0], quiet_until=hours[1])
        executor = MigrationExecutor(connection)
        executor.migrate(after)
    finally:
        MigrationExecutor(connection).migrate(executor.loader.graph.leaf_nodes())
    hours = dict(Player.objects.values_list("display_name", "quiet_until"))
    assert hours == {"Owl": 12, "Lark": 7, "Noon": 8, "Free": None}
