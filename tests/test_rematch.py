"""Playing a match again: the offer under the final result, ``again`` from all three, and the offer lapsing.

Why: after a good match the same three want another at once, with the same
options, new roles by a new cut, and the two matches linked; a player who
does not answer must not hold the others for ever; and the lapse is found by
the clock scan, tested on a controlled clock.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from games.engine import Role
from games.models import Match
from games.services import handle
from games.services.write import clock_scan
from tests.conftest import code_in, events_of, outbox_of, player_in_role, refresh, rig, snapshot

START = datetime(2025, 6, 10, 12, 0, tzinfo=UTC)
HOUR, DAY = timedelta(hours=1), timedelta(days=1)
# The captain goes gin against a box holding 98 in deadwood: 123 points, past the target of 100.
FINAL_GIN = {"captain": "As 2s 3s 4s 5s 6s 7s 8s Ah Ad", "box": "Ks Qh Jd Tc 9s Kh Qd Jc Ts 9h", "upcard": "Ac"}
# A gin against 57 in deadwood: 82 points, short of the target.
HAND_GIN = {"captain": "As 2s 3s 4s 5s 6s 7s 8s 9s Kd", "box": "Ah 3h 5h 7h 9h Jh Kh 2d 4d 6d", "upcard": "Ts"}


@pytest.fixture
def clock(time_machine):
    time_machine.move_to(START, tick=False)
    return time_machine


def finish(match: Match) -> Match:
    """The captain goes gin and wins the match in its first hand."""
    rig(match, **FINAL_GIN)
    captain = player_in_role(match, Role.CAPTAIN)
    handle(captain, "take", "terminal")
    handle(captain, "knock 8s", "terminal")
    match = refresh(match)
    assert match.status == Match.Status.FINISHED
    return match


@pytest.fixture
def finished(clock, match3) -> Match:
    return finish(match3)


def scan(clock, moment: datetime) -> dict[str, int]:
    clock.move_to(moment, tick=False)
    return clock_scan.scan_clocks()


# The offer ------------------------------------------------------------------------------


def test_the_final_result_offers_to_play_again(clock, alice, bob, carol, match3):
    finish(match3)
    for player in (alice, bob, carol):
        assert outbox_of(player, "result")[-1].text.endswith(
            "wins the match!\nTo play again with the same players: again"
        )


def test_on_telegram_the_final_result_has_a_play_again_button(clock, telegram_user, bob, carol):
    code = code_in(handle(telegram_user, "new", "telegram"))
    handle(bob, f"join {code}", "terminal")
    handle(carol, f"join {code}", "terminal")
    finish(Match.objects.get(code=code))
    (result,) = outbox_of(telegram_user, "result")
    assert result.buttons == [[{"text": "Play again", "data": f"#{code} again"}]]
    assert "again" not in result.text


def test_a_hand_that_does_not_end_the_match_offers_nothing(clock, alice, match3):
    rig(match3, **HAND_GIN)
    captain = player_in_role(match3, Role.CAPTAIN)
    handle(captain, "take", "terminal")
    handle(captain, "knock Kd", "terminal")
    assert refresh(match3).status == Match.Status.RUNNING
    assert "again" not in outbox_of(alice, "result")[-1].text


# again --------------------------------------------------------------------------------------


def test_the_first_again_asks_the_others_until_a_day_later(clock, alice, bob, carol, finished):
    assert handle(alice, "again", "terminal") == f"You agreed to play #{finished.code} again; the others are asked."
    for other in (bob, carol):
        (asked,) = outbox_of(other, "again")
        assert asked.text == (
            f"Alice wants to play #{finished.code} again, with the same players and options. To agree: again. "
            "The offer lapses in 1d (11 Jun 12:00 UTC)."
        )
    assert refresh(finished).rematch_until == START + DAY


def test_the_offer_carries_a_button_on_telegram(clock, telegram_user, bob, carol):
    code = code_in(handle(telegram_user, "new", "telegram"))
    handle(bob, f"join {code}", "terminal")
    handle(carol, f"join {code}", "terminal")
    finish(Match.objects.get(code=code))
    handle(bob, "again", "terminal")
    (asked,) = outbox_of(telegram_user, "again")
    assert asked.buttons == [[{"text": "Play again", "data": f"#{code} again"}]]


def test_a_second_again_tells_who_agreed_before_who_is_left(clock, alice, bob, carol, finished):
    handle(alice, "again", "terminal")
    clock.shift(HOUR)
    handle(bob, "again", "terminal")
    assert [message.text for message in outbox_of(alice, "again")] == [
        f"Bob agreed to play #{finished.code} again; waiting for Carol."
    ]
    assert len(outbox_of(carol, "again")) == 1  # asked once, by the first
    assert refresh(finished).rematch_until == START + DAY  # a day from the first


def test_when_all_three_agreed_the_same_match_starts_again_with_a_new_cut(clock, alice, bob, carol, finished):
    handle(alice, "again", "terminal")
    handle(bob, "again", "terminal")
    reply = handle(carol, "again", "terminal")
    new = Match.objects.get(rematch_of=finished)
    assert reply == f"All three agreed: #{new.code}, a rematch of #{finished.code}, starts now."
    assert new.status == Match.Status.RUNNING and new.code != finished.code
    assert new.created_by == alice
    assert list(new.seats.values_list("position", "player", "score")) == [
        (seat.position, seat.player_id, 0) for seat in finished.seats.all()
    ]
    options = ("move_seconds", "target", "gin_bonus", "undercut_bonus", "may_discard_taken")
    assert [getattr(new, name) for name in options] == [getattr(finished, name) for name in options]
    assert len(events_of(new, "cut")) == 1 and len(events_of(new, "deal")) == 1
    assert refresh(finished).rematch_until is None
    assert [event.data for event in events_of(finished, "rematch")] == [{"code": new.code}]
    kinds = [message.kind for message in outbox_of(alice) if message.match_id == new.pk]
    assert kinds[:2] == ["again", "cut"]
    assert outbox_of(alice, "again")[-1].text == reply
    assert not [message for message in outbox_of(carol, "again") if "All three" in message.text]


def test_computer_players_always_agree(clock, alice):
    code = code_in(handle(alice, "new", "terminal"))
    handle(alice, "bot", "terminal")
    handle(alice, "bot", "terminal")
    old = Match.objects.get(code=code)
    handle(alice, "resign", "terminal")
    handle(alice, "resign yes", "terminal")
    assert refresh(old).status == Match.Status.FINISHED
    reply = handle(alice, "again", "terminal")
    new = Match.objects.get(rematch_of=old)
    assert reply == f"All three agreed: #{new.code}, a rematch of #{code}, starts now."
    assert new.status == Match.Status.RUNNING


def test_again_twice_is_refused_and_changes_nothing(clock, alice, finished):
    handle(alice, "again", "terminal")
    before = snapshot(finished)
    assert handle(alice, "again", "terminal") == "You already agreed to play again: waiting for Bob, Carol."
    assert snapshot(finished) == before


def test_again_in_a_running_match_is_refused(clock, alice, match3):
    before = snapshot(match3)
    assert handle(alice, "again", "terminal") == f"#{match3.code} is not over yet."
    assert snapshot(match3) == before


def test_again_for_a_match_that_was_not_played_to_its_end_is_refused(clock, alice, match3):
    from games.services.write import moderation

    moderation.abort(match3, "admin")
    before = snapshot(match3)
    assert handle(alice, f"#{match3.code} again", "terminal") == (
        f"#{match3.code} was not played to its end: start another with new."
    )
    assert snapshot(match3) == before


def test_again_after_the_rematch_started_names_it(clock, alice, bob, carol, finished):
    for player in (alice, bob, carol):
        handle(player, "again", "terminal")
    new = Match.objects.get(rematch_of=finished)
    assert handle(alice, f"#{finished.code} again", "terminal") == (
        f"#{finished.code} is being played again: #{new.code}."
    )
    assert Match.objects.filter(rematch_of=finished).count() == 1


# The offer lapses ------------------------------------------------------------------------------


def test_a_player_who_does_not_answer_in_a_day_lets_the_offer_lapse_and_the_others_are_told(
    clock, alice, bob, carol, finished
):
    handle(alice, "again", "terminal")
    handle(bob, "again", "terminal")
    assert scan(clock, START + DAY - timedelta(seconds=1))["rematch"] == 0
    assert scan(clock, START + DAY)["rematch"] == 1
    lapsed = f"Carol did not answer in time: #{finished.code} will not be played again."
    assert outbox_of(alice, "again")[-1].text == lapsed
    assert outbox_of(bob, "again")[-1].text == lapsed
    assert outbox_of(carol, "again")[-1].text.startswith("Alice wants to play")  # not told: he did not answer
    assert refresh(finished).rematch_until is None
    before = snapshot(finished)
    assert handle(carol, "again", "terminal") == (
        f"The offer to play #{finished.code} again has lapsed: start another with new."
    )
    assert snapshot(finished) == before
    assert not Match.objects.filter(rematch_of=finished).exists()


def test_the_first_again_must_come_within_a_day_of_the_end(clock, alice, finished):
    clock.shift(DAY)
    assert handle(alice, "again", "terminal") == (
        f"The offer to play #{finished.code} again has lapsed: start another with new."
    )
    assert refresh(finished).rematch_until is None


def test_the_time_to_answer_follows_the_setting(clock, settings, alice, finished):
    settings.GIN3_REMATCH_HOURS = 2
    handle(alice, "again", "terminal")
    assert refresh(finished).rematch_until == START + 2 * HOUR
    assert scan(clock, START + 2 * HOUR)["rematch"] == 1


def test_help_after_the_end_offers_again_while_it_stands(clock, alice, finished):
    """helper-35: the end said "again", then help said only "You are in no match. new ..."."""
    assert handle(alice, "help", "terminal").splitlines()[1] == (
        f"again plays #{finished.code} again with the same players."
    )
    clock.shift(DAY)
    assert "again" not in handle(alice, "help", "terminal").split("\n")[1]
