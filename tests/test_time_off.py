"""Time off (``away``, ``back``), quiet hours (``quiet``) and the player's zone (``tz``), on a controlled clock.

Why: a player's clocks must stop while he is away and start again with the
time he had left, no deadline may fall in his night, and he reads every time
in his own zone; all of it right across a daylight-saving change, and with
the clock scan that acts on deadlines in production. Time is moved with
time-machine, so that the database, the services and the scan see one clock.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from games.engine import Role
from games.models import Match, Outbox, TimeOff
from games.services import handle
from games.services.plumbing import delivery
from games.services.plumbing.clocks import quiet_period
from games.services.write import clock_scan, computer_moves
from tests.conftest import code_in, mover, outbox_of, play_move, player_in_role, refresh, safe_action, snapshot

START = datetime(2025, 6, 10, 12, 0, tzinfo=UTC)
DAY, HOUR = timedelta(days=1), timedelta(hours=1)


@pytest.fixture
def clock(time_machine):
    """The clock stands at START until a test moves it."""
    time_machine.move_to(START, tick=False)
    return time_machine


@pytest.fixture
def table(clock, match3) -> Match:
    """A running match of three people (its first turn a day long) made at START."""
    return match3


def clock_now() -> datetime:
    from django.utils import timezone

    return timezone.now()


def seat_of(match: Match, player):
    return refresh(match).seats.get(player=player)


def scan(clock, moment: datetime) -> dict[str, int]:
    clock.move_to(moment, tick=False)
    return clock_scan.scan_clocks()


def set_quiet(player, hours: str = "23-07", zone: str = "Europe/Skopje") -> None:
    handle(player, f"tz {zone}", "terminal")
    handle(player, f"quiet {hours}", "terminal")


def others_of(match: Match, player) -> list:
    return [seat.player for seat in match.seats.select_related("player").exclude(player=player)]


# away and back --------------------------------------------------------------------


def test_away_alone_shows_the_time_off_left_this_year(clock, alice):
    assert handle(alice, "away", "terminal") == (
        "Time off left this year: 14d of 14d. away 3d stops your clocks in every match for 3 days."
    )


def test_away_gives_his_turn_the_time_it_had_left_from_the_end_of_his_time_off(clock, table):
    player = mover(table)
    clock.shift(2 * HOUR)
    reply = handle(player, "away 3d", "terminal")
    assert reply.startswith("You are away, back in 3d (13 Jun 14:00 UTC): your clocks wait in every match")
    assert "Time off left this year: 11d." in reply
    match = refresh(table)
    assert match.deadline == START + 2 * HOUR + 3 * DAY + 22 * HOUR
    assert match.remind_at == match.deadline - DAY * 0.2


def test_no_deadline_of_his_passes_while_he_is_away_and_the_scan_acts_when_his_time_is_up(clock, table):
    player = mover(table)
    handle(player, "away 2d", "terminal")
    deadline = START + 2 * DAY + DAY
    before = snapshot(table)
    assert scan(clock, START + DAY + HOUR)["deadline"] == 0  # his deadline before he went away
    assert scan(clock, deadline - timedelta(seconds=1))["deadline"] == 0
    assert snapshot(table) == before
    assert scan(clock, deadline)["deadline"] == 1
    assert seat_of(table, player).timeouts_in_row == 1
    assert mover(table) != player


def test_a_turn_that_comes_to_him_while_he_is_away_waits_for_his_return(clock, table):
    box = player_in_role(table, Role.BOX)
    handle(box, "away 1d", "terminal")
    play_move(table, safe_action)  # the captain refuses the upcard: the box's turn
    assert mover(table) == box
    assert refresh(table).deadline == START + DAY + DAY


def test_back_starts_his_clock_again_with_the_time_he_had_left(clock, table):
    player = mover(table)
    clock.shift(2 * HOUR)
    handle(player, "away 3d", "terminal")
    clock.shift(DAY)
    reply = handle(player, "back", "terminal")
    assert reply == f"Welcome back: your clocks run again. Your move in #{table.code}: status shows it."
    assert refresh(table).deadline == START + 2 * HOUR + DAY + 22 * HOUR
    assert TimeOff.objects.get(player=player).ended_at == START + 2 * HOUR + DAY
    assert handle(player, "away", "terminal").startswith("Time off left this year: 13d")


def test_the_others_are_told_once_each_until_when_naming_every_match_they_share(clock, alice, bob, carol, table):
    second = code_in(handle(alice, "new", "terminal"))
    handle(bob, f"join {second}", "terminal")
    handle(alice, f"#{second} bot", "terminal")
    handle(bob, "tz Asia/Tokyo", "terminal")
    handle(alice, "away 2d", "terminal")
    (told_bob,) = outbox_of(bob, "away")
    assert told_bob.text == (
        f"Alice is away, back in 2d (12 Jun 21:00 JST): the clock waits for them in #{table.code}, #{second}."
    )
    (told_carol,) = outbox_of(carol, "away")
    said = f"Alice is away, back in 2d (12 Jun 12:00 UTC): the clock waits for them in #{table.code}."
    assert told_carol.text == said
    assert not outbox_of(alice, "away")
    handle(alice, "back", "terminal")
    assert [message.text for message in outbox_of(carol, "away")][-1] == (
        f"Alice is back: the clock runs for them again in #{table.code}."
    )


def test_the_others_see_in_their_list_that_the_player_to_move_is_away(clock, table):
    player, box = mover(table), player_in_role(table, Role.BOX)
    handle(box, "new", "terminal")  # a second match: status lists them
    assert "is away" not in handle(box, "status", "terminal")
    handle(player, "away 1d", "terminal")
    listing = handle(box, "status", "terminal")
    assert f"{player.display_name} to move. {player.display_name} is away, back in 1d (11 Jun 12:00 UTC)." in listing


def test_away_stops_the_computer_that_played_his_seat_so_that_the_seat_waits_for_him(clock, table):
    player = mover(table)
    table.seats.filter(player=player).update(autopilot=True, timeouts_in_row=3)
    handle(player, "away 1d", "terminal")
    seat = seat_of(table, player)
    assert not seat.autopilot and seat.timeouts_in_row == 0
    assert refresh(table).deadline == START + DAY + DAY
    assert not computer_moves.play_computer_move(table.pk)


def test_more_time_off_than_is_left_is_refused_and_changes_nothing(clock, table):
    player = mover(table)
    before = snapshot(table)
    reply = handle(player, "away 15d", "terminal")
    assert reply == "You have 14d of time off left this year: ask for that or less, like away 14d."
    assert snapshot(table) == before
    assert refresh(table).deadline == START + DAY
    assert not TimeOff.objects.exists()
    assert refresh(table).seats.get(player=player).player.away_until is None


def test_the_allowance_counts_the_time_taken_this_year(clock, alice):
    handle(alice, "away 10d", "terminal")
    clock.shift(2 * DAY)
    handle(alice, "back", "terminal")
    assert handle(alice, "away 13d", "terminal").startswith("You have 12d of time off left this year")
    assert handle(alice, "away 12d", "terminal").startswith("You are away, back in 12d")
    assert handle(alice, "away 13d", "terminal").startswith("You have 12d of time off left this year")
    clock.shift(12 * DAY)
    assert handle(alice, "away 1h", "terminal") == "You have no time off left this year."


def test_time_off_across_new_year_counts_in_each_year_of_his_zone(clock, alice):
    handle(alice, "tz Europe/Skopje", "terminal")
    clock.move_to(datetime(2025, 12, 29, 23, 0, tzinfo=UTC), tick=False)  # 30 Dec 00:00 in Skopje
    handle(alice, "away 5d", "terminal")  # two days in 2025, three in 2026
    assert handle(alice, "away", "terminal").endswith("Time off left this year: 12d of 14d.")
    clock.move_to(datetime(2026, 1, 1, 12, 0, tzinfo=UTC), tick=False)
    assert handle(alice, "away", "terminal").endswith("Time off left this year: 11d of 14d.")


def test_back_when_not_away_is_refused(clock, table):
    player = mover(table)
    before = snapshot(table)
    assert handle(player, "back", "terminal") == "You are not away. away 3d stops your clocks for 3 days."
    assert snapshot(table) == before


def test_help_reminds_him_that_he_is_away(clock, alice):
    handle(alice, "away 1d", "terminal")
    assert "You are away, back in 1d (11 Jun 12:00 UTC): back ends it now." in handle(alice, "help", "terminal")


# tz --------------------------------------------------------------------------------


def test_tz_sets_the_zone_every_deadline_is_shown_in(clock, table):
    player = mover(table)
    reply = handle(player, "tz europe/skopje", "terminal")
    assert reply == "Your time zone: Europe/Skopje, where it is 14:00 CEST now. Deadlines are shown in it."
    assert "by 11 Jun 14:00 CEST (1d left)" in handle(player, "status", "terminal")
    assert refresh(table).deadline == START + DAY  # the moment is the same for all


def test_a_reminder_is_written_in_the_zone_of_its_reader(clock, table):
    player = mover(table)
    handle(player, "tz America/New_York", "terminal")
    assert scan(clock, START + DAY * 0.8)["remind_at"] == 1
    (reminder,) = outbox_of(player, "reminder")
    assert reminder.text.endswith("Time runs out in 4h 48m (08:00 EDT).")


def test_tz_refuses_a_zone_that_does_not_exist_and_says_how_to_name_one(clock, alice):
    reply = handle(alice, "tz Mars/Olympus", "terminal")
    assert reply == "'Mars/Olympus' is not a time zone I know. Name one like this: tz Europe/Skopje (or tz UTC)."
    alice.refresh_from_db()
    assert alice.time_zone == "UTC"


def test_tz_alone_shows_the_zone(clock, alice):
    assert handle(alice, "tz", "terminal").startswith("Your time zone: UTC, where it is 12:00 UTC now.")


# quiet hours ----------------------------------------------------------------------------


def test_quiet_sets_quiet_hours_and_says_they_keep_to_his_zone(clock, alice):
    reply = handle(alice, "quiet 23-07", "terminal")
    assert reply.startswith("Quiet hours 23:00-07:00 (UTC): reminders and notices wait until they end")
    assert reply.endswith("To keep them in your own time, name your zone: tz Europe/Skopje")
    alice.refresh_from_db()
    assert (alice.quiet_from, alice.quiet_until) == (23, 7)
    assert handle(alice, "quiet off", "terminal") == "No quiet hours now: reminders and notices come at any hour."
    assert handle(alice, "quiet", "terminal").startswith("No quiet hours.")


def test_a_turn_notice_in_quiet_hours_waits_for_their_end(clock, table):
    other = player_in_role(table, Role.BOX)
    set_quiet(other)  # 23-07 in Skopje: 21:00-05:00 UTC in June
    Outbox.objects.update(status=Outbox.Status.SENT)
    clock.move_to(datetime(2025, 6, 10, 22, 0, tzinfo=UTC), tick=False)
    before = len(outbox_of(other))
    play_move(table, safe_action)  # the captain passes: the box's turn
    written = outbox_of(other)[before:]
    assert [message.kind for message in written] == ["turn"]
    assert written and {message.next_attempt_at for message in written} == {datetime(2025, 6, 11, 5, 0, tzinfo=UTC)}
    assert delivery.claim(Outbox.Channel.TERMINAL, other.terminal_user) is None
    clock.move_to(datetime(2025, 6, 11, 5, 0, tzinfo=UTC), tick=False)
    assert delivery.claim(Outbox.Channel.TERMINAL, other.terminal_user).pk == written[0].pk


def test_a_command_in_quiet_hours_is_answered_at_once_and_brings_what_waited(clock, table):
    other = player_in_role(table, Role.BOX)
    set_quiet(other)
    clock.move_to(datetime(2025, 6, 10, 22, 0, tzinfo=UTC), tick=False)
    play_move(table, safe_action)
    assert Outbox.objects.filter(recipient=other, kind="turn", next_attempt_at__gt=clock_now()).exists()
    handle(other, "score", "terminal")
    waiting = Outbox.objects.filter(recipient=other, status=Outbox.Status.PENDING)
    assert waiting.exists()
    assert all(message.next_attempt_at <= datetime(2025, 6, 10, 22, 0, tzinfo=UTC) for message in waiting)


def test_a_player_who_writes_in_his_quiet_hours_gets_the_game_at_once_but_without_a_sound(clock, table):
    """He is up at midnight in Skopje, playing: the others' moves and his turn must not wait
    until 07:00 (a game that seems to have stopped), yet must not ring if he dozed off."""
    other = player_in_role(table, Role.BOX)
    set_quiet(other)
    clock.move_to(datetime(2025, 6, 10, 22, 0, tzinfo=UTC), tick=False)
    handle(other, "score", "terminal")
    Outbox.objects.update(status=Outbox.Status.SENT)
    clock.move_to(datetime(2025, 6, 10, 22, 25, tzinfo=UTC), tick=False)
    before = len(outbox_of(other))
    play_move(table, safe_action)  # the captain passes: the box's turn
    written = outbox_of(other)[before:]
    assert [(message.kind, message.silent) for message in written] == [("turn", True)]
    assert delivery.claim(Outbox.Channel.TERMINAL, other.terminal_user).pk == written[0].pk


def test_half_an_hour_after_his_last_command_his_quiet_hours_hold_again(clock, table):
    other = player_in_role(table, Role.BOX)
    set_quiet(other)
    clock.move_to(datetime(2025, 6, 10, 22, 0, tzinfo=UTC), tick=False)
    handle(other, "score", "terminal")
    clock.move_to(datetime(2025, 6, 10, 22, 31, tzinfo=UTC), tick=False)
    before = len(outbox_of(other))
    play_move(table, safe_action)
    written = outbox_of(other)[before:]
    assert {message.next_attempt_at for message in written} == {datetime(2025, 6, 11, 5, 0, tzinfo=UTC)}


def test_quiet_off_sends_what_waited_for_the_end_of_quiet_hours(clock, table):
    other = player_in_role(table, Role.BOX)
    set_quiet(other)
    clock.move_to(datetime(2025, 6, 10, 22, 0, tzinfo=UTC), tick=False)
    play_move(table, safe_action)
    assert Outbox.objects.filter(recipient=other, kind="turn", next_attempt_at__gt=clock_now()).exists()
    handle(other, "quiet off", "terminal")
    held = Outbox.objects.filter(recipient=other, next_attempt_at__gt=datetime(2025, 6, 10, 22, 0, tzinfo=UTC))
    assert not held.exists()


def test_a_deadline_in_his_quiet_hours_moves_to_their_end(clock, table):
    player = mover(table)
    set_quiet(player, "11-15")  # 09:00-13:00 UTC in June; his deadline would be 12:00 UTC tomorrow
    play_move(table, safe_action)  # he passes, and so does the box: his turn again, to draw
    play_move(table, safe_action)
    assert mover(table) == player
    assert refresh(table).deadline == datetime(2025, 6, 11, 13, 0, tzinfo=UTC)


def test_a_reminder_that_would_come_in_quiet_hours_comes_before_they_start(clock, table):
    player = mover(table)
    set_quiet(player, "04-14")  # 02:00-12:00 UTC: the reminder at 07:12 UTC would be in them
    play_move(table, safe_action)
    play_move(table, safe_action)
    match = refresh(table)
    assert mover(match) == player
    assert match.deadline == datetime(2025, 6, 11, 12, 0, tzinfo=UTC)
    assert match.remind_at == datetime(2025, 6, 11, 1, 45, tzinfo=UTC)


# Daylight-saving changes ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("turn_starts", "deadline", "quiet_ends_local"),
    [
        # Europe/Skopje goes from CET to CEST at 01:00 UTC on 30 March 2025: 07:00 is 05:00 UTC.
        (datetime(2025, 3, 29, 21, 0, tzinfo=UTC), datetime(2025, 3, 30, 5, 0, tzinfo=UTC), "07:00 CEST"),
        # ...and back to CET at 01:00 UTC on 26 October 2025: 07:00 is 06:00 UTC.
        (datetime(2025, 10, 25, 20, 0, tzinfo=UTC), datetime(2025, 10, 26, 6, 0, tzinfo=UTC), "07:00 CET"),
    ],
)
def test_across_a_daylight_saving_change_the_deadline_moves_to_the_end_of_his_night_and_the_scan_keeps_it(
    time_machine, alice, bob, carol, turn_starts, deadline, quiet_ends_local
):
    time_machine.move_to(turn_starts, tick=False)
    code = code_in(handle(alice, "new 5m", "terminal"))  # 5 minutes a move: the deadline falls in the night
    for player in (alice, bob, carol):
        set_quiet(player)
    handle(bob, f"join {code}", "terminal")
    handle(carol, f"join {code}", "terminal")
    match = Match.objects.get(code=code)
    player = mover(match)
    handle(player, "pass", "terminal")
    time_machine.move_to(turn_starts + timedelta(hours=3), tick=False)  # in the night, on either side of the change
    handle(mover(match), "pass", "terminal")  # the next turn starts now, 5 minutes long
    player = mover(match)
    assert refresh(match).deadline == deadline
    assert f"by {quiet_ends_local} (" in handle(player, "status", "terminal")
    before = snapshot(match)
    assert scan(time_machine, deadline - timedelta(seconds=1))["deadline"] == 0
    assert snapshot(match) == before
    assert scan(time_machine, deadline)["deadline"] == 1
    assert mover(match) != player


@pytest.mark.parametrize(
    ("moment", "period"),
    [
        # The night the clocks jump forward: 23:00 CET is 22:00 UTC, 07:00 CEST is 05:00 UTC.
        (datetime(2025, 3, 30, 1, 30, tzinfo=UTC), (datetime(2025, 3, 29, 22, 0), datetime(2025, 3, 30, 5, 0))),
        # The night they fall back: 23:00 CEST is 21:00 UTC, 07:00 CET is 06:00 UTC.
        (datetime(2025, 10, 26, 1, 30, tzinfo=UTC), (datetime(2025, 10, 25, 21, 0), datetime(2025, 10, 26, 6, 0))),
        (datetime(2025, 10, 26, 6, 0, tzinfo=UTC), None),  # 07:00 CET: quiet hours are over
        (datetime(2025, 10, 25, 20, 59, tzinfo=UTC), None),  # 22:59 CEST: not yet
    ],
)
def test_quiet_hours_follow_his_local_clock_through_a_daylight_saving_change(alice, moment, period):
    alice.time_zone, alice.quiet_from, alice.quiet_until = "Europe/Skopje", 23, 7
    expected = tuple(edge.replace(tzinfo=UTC) for edge in period) if period else None
    assert quiet_period(alice, moment) == expected


def test_a_text_answered_at_once_in_quiet_hours_brings_what_waited_too(clock, sms_user):
    """By SMS the reply goes back in the webhook's answer, not through the outbox: its
    reader is as awake as one whose reply is queued."""
    set_quiet(sms_user)
    clock.move_to(datetime(2025, 6, 10, 22, 0, tzinfo=UTC), tick=False)
    handle(sms_user, "new", "sms", reply_inline=True)
    Outbox.objects.create(
        recipient=sms_user, channel="sms", address=sms_user.phone, kind="turn", text="held", next_attempt_at=START + DAY
    )
    handle(sms_user, "score", "sms", reply_inline=True)
    assert Outbox.objects.get(text="held").next_attempt_at == datetime(2025, 6, 10, 22, 0, tzinfo=UTC)


def test_time_off_starts_a_few_times_a_day_at_most_since_the_others_are_told_each_time(clock, table):
    player = mover(table)
    for _time in range(3):
        handle(player, "away 1h", "terminal")
        handle(player, "back", "terminal")
    other = others_of(table, player)[0]
    told = len(outbox_of(other, "away"))
    before = snapshot(table)
    assert handle(player, "away 1h", "terminal") == (
        "You have started time off 3 times in a day: the others are told each time. Later, please."
    )
    assert (snapshot(table), len(outbox_of(other, "away"))) == (before, told)
    clock.shift(DAY)
    assert handle(player, "away 1h", "terminal").startswith("You are away")
