"""Every deadline and reminder is set by one function that knows the pause, the mover's
time off and his quiet hours (``clocks.set_turn_clock``).

Why one function: each path that sets a clock on its own (a turn that starts, a
return from time off, the desk's Resume and Extend) must otherwise know all three,
and one that forgets gives a mover away for two days a deadline a day later, or
puts it in his quiet hours. Time is moved with time-machine, so that the
database, the services and the scan see one clock.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from games.contract.tables import Automatic
from games.models import Event, Match
from games.services import handle
from games.services.plumbing.clocks import quiet_period
from games.services.write import clock_scan, moderation
from tests.conftest import code_in, mover, refresh

START = datetime(2025, 6, 10, 12, 0, tzinfo=UTC)
DAY, HOUR = timedelta(days=1), timedelta(hours=1)


@pytest.fixture
def clock(time_machine):
    time_machine.move_to(START, tick=False)
    return time_machine


@pytest.fixture
def table(clock, match3) -> Match:
    """A running match of three people, a day a move, its first turn started at START."""
    return match3


def timeouts(match: Match) -> int:
    moves = Event.objects.filter(match=match, kind=Event.Kind.MOVE)
    return moves.filter(data__automatic__startswith=Automatic.TIMEOUT).count()


def scan_at(clock, moment: datetime) -> dict[str, int]:
    clock.move_to(moment, tick=False)
    return clock_scan.scan_clocks()


def in_quiet(match: Match, moment: datetime | None) -> bool:
    return moment is not None and quiet_period(mover(match), moment) is not None


def test_resume_while_the_mover_is_away_gives_him_his_time_from_the_end_of_his_time_off(clock, table):
    player = mover(table)
    clock.shift(2 * HOUR)
    moderation.pause(table, "root", "looking into it")  # 22 hours left
    handle(player, "away 2d", "terminal")
    clock.shift(HOUR)
    resumed = moderation.resume(table, "root")
    away_until = START + 2 * HOUR + 2 * DAY
    assert resumed.deadline == away_until + 22 * HOUR
    assert resumed.remind_at == resumed.deadline - DAY * 0.2
    assert scan_at(clock, START + 3 * HOUR + 22 * HOUR)["deadline"] == 0  # a day after the resume: he is away
    assert scan_at(clock, away_until - timedelta(seconds=1))["deadline"] == 0
    assert timeouts(table) == 0 and mover(table) == player


def test_extend_while_the_mover_is_away_adds_to_the_time_he_has_when_he_is_back(clock, table):
    player = mover(table)
    handle(player, "away 2d", "terminal")
    extended = moderation.extend(table, timedelta(hours=2), "root")
    assert extended.deadline == START + 2 * DAY + DAY + 2 * HOUR


def test_resume_moves_a_deadline_out_of_the_movers_quiet_hours(clock, table):
    player = mover(table)
    handle(player, "tz Europe/Skopje", "terminal")
    handle(player, "quiet 11-15", "terminal")  # 09:00-13:00 UTC in June
    moderation.pause(table, "root")  # a day left
    clock.shift(HOUR / 2)
    resumed = moderation.resume(table, "root")  # 12:30 UTC tomorrow would be in them
    assert resumed.deadline == datetime(2025, 6, 11, 13, 0, tzinfo=UTC)
    assert not in_quiet(resumed, resumed.remind_at)


def test_extend_moves_a_deadline_out_of_the_movers_quiet_hours(clock, table):
    player = mover(table)
    handle(player, "tz Europe/Skopje", "terminal")
    handle(player, "quiet 02-07", "terminal")  # 00:00-05:00 UTC in June
    extended = moderation.extend(table, timedelta(hours=13), "root")  # 01:00 UTC the day after tomorrow
    assert extended.deadline == datetime(2025, 6, 12, 5, 0, tzinfo=UTC)
    assert not in_quiet(extended, extended.deadline) and not in_quiet(extended, extended.remind_at)


def test_an_extension_of_a_paused_match_is_kept_for_the_resume_and_then_its_quiet_hours_hold(clock, table):
    player = mover(table)
    handle(player, "tz Europe/Skopje", "terminal")
    handle(player, "quiet 02-07", "terminal")
    moderation.pause(table, "root")
    moderation.extend(table, timedelta(hours=13), "root")
    assert refresh(table).deadline is None and refresh(table).paused_remaining == DAY + 13 * HOUR
    assert moderation.resume(table, "root").deadline == datetime(2025, 6, 12, 5, 0, tzinfo=UTC)


def test_a_rematch_gives_a_mover_who_is_away_his_time_from_the_end_of_his_time_off(clock, alice, bob, carol):
    code = code_in(handle(alice, "new 1h to 50", "terminal"))
    for player in (bob, carol):
        handle(player, f"join {code}", "terminal")
    match = Match.objects.get(code=code)
    moderation.adjudicate(match, 0, "root", "a test")
    for player in (alice, bob, carol):
        handle(player, "away 1d", "terminal")
    for player in (alice, bob, carol):
        handle(player, f"#{code} again", "terminal")
    rematch = Match.objects.get(rematch_of=match)
    assert rematch.status == Match.Status.RUNNING
    assert rematch.deadline == START + DAY + HOUR
