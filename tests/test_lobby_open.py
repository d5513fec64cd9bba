"""The lobby: ``new ... open``, ``open``, ``join any [TIME]``, and an open match that waits too long.

Why: a player with no friends at hand must find a match, the oldest waiting
one first so that nobody waits for ever; two players must never race for one
seat; and a match nobody joins is offered a computer player before it is
closed. The lobby's clock is tested with the clock scan on a controlled clock.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from games.models import Event, Match
from games.services import handle
from games.services.write import clock_scan, matchmaking
from tests.conftest import code_in, outbox_of, refresh

START = datetime(2025, 6, 10, 12, 0, tzinfo=UTC)
HOUR, DAY = timedelta(hours=1), timedelta(days=1)


@pytest.fixture
def clock(time_machine):
    time_machine.move_to(START, tick=False)
    return time_machine


def open_match(player, text: str = "new open") -> Match:
    return Match.objects.get(code=code_in(handle(player, text, "terminal")))


def scan(clock, moment: datetime) -> dict[str, int]:
    clock.move_to(moment, tick=False)
    return clock_scan.scan_clocks()


# open ---------------------------------------------------------------------------------


def test_open_lists_the_open_matches_with_a_free_seat_oldest_first_with_options_names_and_wait(
    clock, alice, bob, carol, dave
):
    first = open_match(alice, "new 1h to 150 open")
    clock.shift(2 * HOUR)
    second = open_match(bob, "new open gin 20 anydiscard")
    handle(carol, f"join {second.code}", "terminal")
    handle(dave, "new", "terminal")  # not open: not listed
    clock.shift(timedelta(minutes=30))
    assert handle(dave, "open", "terminal") == (
        "Open matches (join CODE, or join any for the oldest):\n"
        f"#{first.code} 1h a move, to 150: Alice, waiting 2h 30m\n"
        f"#{second.code} 1d a move, to 100, gin bonus 20, anydiscard: Bob, Carol, waiting 30m"
    )


def test_open_leaves_out_his_own_matches_and_those_that_started(clock, alice, bob, carol, dave):
    mine = open_match(alice)
    started = open_match(bob)
    handle(carol, f"join {started.code}", "terminal")
    handle(dave, f"join {started.code}", "terminal")
    assert refresh(started).status == Match.Status.RUNNING
    listed = handle(alice, "open", "terminal")
    assert f"#{mine.code}" not in listed and f"#{started.code}" not in listed
    assert listed == "No open match waits for players now. join any opens one that others can join."


def test_open_shows_a_short_list_that_fits_a_message(clock, make_player, dave):
    for number in range(matchmaking.MAX_LISTED + 3):
        open_match(make_player(f"Waiting {number}"))
    listed = handle(dave, "open", "terminal").splitlines()
    assert len(listed) == 1 + matchmaking.MAX_LISTED + 1
    assert listed[-1] == "... and 3 more."
    assert "Waiting 0," in listed[1]


# join any -----------------------------------------------------------------------------


def test_join_any_seats_him_in_the_oldest_open_match(clock, alice, bob, dave):
    oldest = open_match(alice)
    clock.shift(HOUR)
    open_match(bob)
    reply = handle(dave, "join any", "terminal")
    assert reply == (
        f"You joined #{oldest.code}: 1d a move, to 100, gin bonus 25, undercut bonus 10, listed in the lobby. "
        "Waiting for one more player (or type bot)."
    )
    assert list(oldest.seats.values_list("player__display_name", flat=True)) == ["Alice", "Dave"]
    assert [message.text for message in outbox_of(alice, "joined")] == [f"Dave joined #{oldest.code}."]


def test_join_any_with_a_time_takes_the_oldest_open_match_of_that_time(clock, alice, bob, dave):
    open_match(alice, "new open 1d")
    clock.shift(HOUR)
    hourly = open_match(bob, "new open 1h")
    assert handle(dave, "join any 1h", "terminal").startswith(f"You joined #{hourly.code}: 1h a move")


def test_join_any_leaves_out_private_matches(clock, alice, dave):
    private = open_match(alice, "new")
    handle(dave, "join any", "terminal")
    assert not private.seats.filter(player=dave).exists()


def test_join_any_with_none_waiting_opens_a_listed_match_that_the_next_one_joins(clock, alice, bob, carol):
    reply = handle(alice, "join any 5m", "terminal")
    match = Match.objects.get(created_by=alice)
    assert reply == (
        f"No open match was waiting, so you opened #{match.code}: 5m a move, to 100, gin bonus 25, undercut bonus 10, "
        "listed in the lobby. Others find it with open or join any; bot adds a computer player."
    )
    assert match.is_open and match.move_seconds == 300
    assert match.deadline == START + 48 * HOUR  # the lobby clock: a computer player is offered first
    handle(bob, "join any 5m", "terminal")
    assert handle(carol, "join any", "terminal") == f"You joined #{match.code}."
    assert refresh(match).status == Match.Status.RUNNING


def test_join_any_does_not_seat_him_twice_in_his_own_match(clock, alice):
    mine = open_match(alice)
    handle(alice, "join any", "terminal")
    assert mine.seats.count() == 1
    assert Match.objects.filter(created_by=alice).count() == 2


def test_join_any_refused_changes_nothing(clock, alice, dave):
    match = open_match(alice)
    for _waiting in range(5):
        handle(dave, "new", "terminal")
    before = (Match.objects.count(), match.seats.count(), Event.objects.count())
    assert handle(dave, "join any", "terminal").startswith("You have 5 matches waiting for players")
    assert (Match.objects.count(), match.seats.count(), Event.objects.count()) == before


def test_join_any_with_a_time_that_is_not_one_says_which_are(alice):
    assert handle(alice, "join any 2h", "terminal") == (
        "join any seats you in any open match, join any TIME in one with that time a move (join any 1h). "
        "TIME is one of: 5m 15m 1h 12h 1d 3d 7d"
    )
    assert not Match.objects.exists()


# Help offers it -------------------------------------------------------------------------


def test_help_offers_telegram_buttons_to_find_a_match_or_open_one(telegram_user):
    handle(telegram_user, "help", "telegram")
    (reply,) = outbox_of(telegram_user)
    assert reply.buttons == [[{"text": "Find a match", "data": "join any"}, {"text": "New match", "data": "new open"}]]
    assert "Find players: open lists waiting matches; join any seats you." in reply.text


def test_help_in_a_match_leaves_the_lobby_buttons_to_players_in_none(telegram_user):
    handle(telegram_user, "new", "telegram")
    handle(telegram_user, "help", "telegram")
    assert outbox_of(telegram_user)[-1].buttons == []


# Waiting too long -----------------------------------------------------------------------------


def test_an_open_match_that_waits_two_days_is_offered_a_computer_player_then_closes_after_a_week(clock, alice, bob):
    match = open_match(alice)
    handle(bob, f"join {match.code}", "terminal")
    assert scan(clock, START + 48 * HOUR - timedelta(seconds=1))["lobby"] == 0
    assert scan(clock, START + 48 * HOUR)["lobby"] == 1
    offers = [message.text for message in outbox_of(bob, "lobby")]
    assert offers == [
        f"#{match.code} has waited 2d for players. To start it now, type #{match.code} bot: a computer player "
        "takes a free seat. If nobody joins, it closes in 5d (17 Jun 12:00 UTC)."
    ]
    assert len(outbox_of(alice, "lobby")) == 1
    assert refresh(match).deadline == START + 7 * DAY
    assert scan(clock, START + 6 * DAY)["lobby"] == 0
    assert refresh(match).status == Match.Status.LOBBY
    assert scan(clock, START + 7 * DAY)["lobby"] == 1
    assert refresh(match).status == Match.Status.ABORTED
    assert outbox_of(bob, "over")[-1].text == f"#{match.code} waited 7d for players and is closed. Start another: new"


def test_the_offer_carries_a_button_on_telegram(clock, telegram_user):
    open_match(telegram_user)
    scan(clock, START + 48 * HOUR)
    (offer,) = outbox_of(telegram_user, "lobby")
    code = Match.objects.get().code
    levels = [{"text": level.capitalize(), "data": f"#{code} bot {level}"} for level in ("easy", "normal", "hard")]
    assert offer.buttons == [[{"text": "Add a computer player", "data": f"#{code} bot"}], levels]


def test_typing_bot_after_the_offer_starts_the_match(clock, alice, bob):
    match = open_match(alice)
    handle(bob, f"join {match.code}", "terminal")
    scan(clock, START + 48 * HOUR)
    handle(bob, f"#{match.code} bot", "terminal")
    assert refresh(match).status == Match.Status.RUNNING


def test_a_private_match_is_not_offered_a_computer_and_closes_after_a_week(clock, alice):
    match = open_match(alice, "new")
    assert refresh(match).deadline == START + 7 * DAY
    assert scan(clock, START + 3 * DAY)["lobby"] == 0
    assert scan(clock, START + 7 * DAY)["lobby"] == 1
    assert not outbox_of(alice, "lobby")
    assert refresh(match).status == Match.Status.ABORTED


def test_the_offer_and_the_closing_follow_the_settings(clock, settings, alice):
    settings.GIN3_LOBBY_BOT_OFFER_HOURS = 1
    settings.GIN3_LOBBY_DAYS = 1
    match = open_match(alice)
    assert scan(clock, START + HOUR)["lobby"] == 1
    assert outbox_of(alice, "lobby")[0].text.startswith(f"#{match.code} has waited 1h for players.")
    assert scan(clock, START + DAY)["lobby"] == 1
    assert outbox_of(alice, "over")[-1].text == f"#{match.code} waited 1d for players and is closed. Start another: new"


def test_the_offer_is_made_once_even_if_the_clock_comes_back_early(clock, alice):
    match = open_match(alice)
    scan(clock, START + 48 * HOUR)
    Match.objects.filter(pk=match.pk).update(deadline=START + 49 * HOUR)  # as after a failed action, put back
    assert scan(clock, START + 49 * HOUR)["lobby"] == 1
    assert len(outbox_of(alice, "lobby")) == 1
    assert refresh(match).status == Match.Status.LOBBY
    assert refresh(match).deadline == START + 7 * DAY


def test_the_offer_renders_as_its_text_on_text_channels(clock, alice):
    open_match(alice)
    scan(clock, START + 48 * HOUR)
    (offer,) = outbox_of(alice, "lobby")
    assert offer.buttons == []
