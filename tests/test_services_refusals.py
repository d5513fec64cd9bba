"""The services refuse with values and tell with values: what is refused and why, what is
sent to whom, asserted on the values themselves (``games.contract``), in no language."""

from __future__ import annotations

from datetime import timedelta

import pytest

from games.contract import matches as m
from games.contract import moderation as admin
from games.contract import moves
from games.contract.options import MatchOptions
from games.contract.tables import TableView
from games.engine import Role
from games.engine.hand import Discard
from games.models import Match, Outbox
from games.services.errors import ServiceError, StaleError
from games.services.plumbing.change import change
from games.services.plumbing.outbox import Letter
from games.services.write import locked_table, matches, moderation, play
from tests.conftest import player_in_role, refresh, snapshot

pytestmark = pytest.mark.django_db


def refusal_of(action) -> object:
    with pytest.raises(ServiceError) as raised:
        action()
    return raised.value.refusal


def letters_of(action) -> list[Letter]:
    """What a change wrote, as the values it holds (the letters, before they are worded)."""
    with change() as work:
        action()
        return list(work.letters)


def test_joining_a_match_that_does_not_exist_names_its_code(alice):
    assert refusal_of(lambda: matches.join(alice, "zzzz")) == m.NoSuchMatch("ZZZZ")


def test_joining_twice_and_a_full_match_are_refused(match3, alice, dave):
    assert refusal_of(lambda: matches.join(alice, match3.code)) == m.AlreadySeated(match3.code)
    assert refusal_of(lambda: matches.join(dave, match3.code)) == m.AlreadyStarted(match3.code)


def test_a_match_that_waits_is_left_not_resigned(alice):
    match = matches.create(alice, MatchOptions(target=150))
    assert refusal_of(lambda: matches.check_resignable(match)) == m.NotStartedUseLeave(match.code)
    assert match.options == MatchOptions(target=150)


def test_the_others_hear_who_joined_and_the_joiner_is_answered_by_his_reply(alice, bob):
    match = matches.create(alice, MatchOptions())
    letters = letters_of(lambda: matches.join(bob, match.code))
    assert [(letter.player, letter.kind, letter.content) for letter in letters] == [
        (alice, Outbox.Kind.JOINED, m.Joined("Bob", match.code))
    ]


def test_r10_3_a_resignation_names_the_leader_of_the_other_two_as_winner(match3, alice, bob, carol):
    match3.seats.filter(player=bob).update(score=40)
    letters = letters_of(lambda: matches.resign(alice, match3))
    told = {(letter.player, letter.content) for letter in letters if letter.kind == Outbox.Kind.OVER}
    news = m.Resigned("Alice", match3.code, "Bob", (("Alice", 0), ("Bob", 40), ("Carol", 0)))
    assert told == {(bob, news), (carol, news)}


def test_a_move_out_of_turn_names_whose_turn_it_is(match3):
    box = player_in_role(match3, Role.BOX)
    with change():
        table = locked_table.load_table(match3.pk)
        refusal = refusal_of(lambda: play.apply_move(table, table.position_of(box), table.hand.legal_actions()[0], box))
    assert refusal == moves.NotYourTurn(table.name(table.mover))


def test_a_stale_version_is_refused_with_the_match_to_show_the_table_of(match3):
    with change(), pytest.raises(StaleError) as raised:
        locked_table.load_table(match3.pk, version=refresh(match3).version - 1)
    assert (raised.value.refusal, raised.value.code) == (moves.StaleMoment(match3.code), match3.code)


def test_r5_1_an_illegal_move_carries_the_engines_reason(match3):
    captain = player_in_role(match3, Role.CAPTAIN)
    with change():
        table = locked_table.load_table(match3.pk)
        discard = Discard(table.hand.cards_of(Role.CAPTAIN)[0])
        refusal = refusal_of(lambda: play.apply_move(table, table.position_of(captain), discard, captain))
    assert isinstance(refusal, moves.IllegalMove)
    assert refusal.reason == "upcard_first"


def test_an_admin_pause_twice_is_refused_and_the_players_hear_of_the_first_with_its_reason(match3, alice):
    letters = letters_of(lambda: moderation.pause(match3, "root", "a storm"))
    assert {letter.content for letter in letters if letter.player == alice} == {admin.Paused(match3.code, "a storm")}
    assert refusal_of(lambda: moderation.pause(refresh(match3), "root")) == admin.AlreadyPaused(match3.code)


def test_an_empty_extension_is_refused_and_changes_nothing(match3):
    before = snapshot(match3)
    assert refusal_of(lambda: moderation.extend(match3, timedelta(0), "root")) == admin.EmptyExtension()
    assert snapshot(match3) == before


def test_the_players_table_is_a_view_of_his_seat(match3):
    captain = player_in_role(match3, Role.CAPTAIN)
    with change():
        table = locked_table.load_table(match3.pk)
        view = table.view(table.position_of(captain))
    assert isinstance(view, TableView)
    assert (view.viewer, view.viewer_role, view.code) == (captain.display_name, "captain", match3.code)
    assert refresh(match3).status == Match.Status.RUNNING
