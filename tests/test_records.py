"""Who played each hand and who earned each point stay as it happened (issue 10,
item 6), and the per-player totals kept with each hand and match."""

from __future__ import annotations

import pytest

from games.models import Hand, Match
from games.services import moderation
from games.services.visibility import public_match_view

from .conftest import play_move, refresh


def play_until_hands_end(match: Match, count: int = 1) -> Match:
    while refresh(match).hands.filter(ended_at__isnull=False).count() < count:
        play_move(match)
    return refresh(match)


def position_of(match: Match, player) -> int:
    return match.seats.get(player=player).position


@pytest.mark.django_db
def test_replacing_a_player_keeps_the_names_of_the_hands_he_played(match3, bob):
    match = play_until_hands_end(match3)
    first = match.hands.get(number=1)
    computer = moderation.replace_with_computer(match, position_of(match, bob), "root", "away")

    view = public_match_view(refresh(match))

    roles = dict(view.hands[0].roles)
    assert bob.display_name in roles.values()
    assert computer.display_name not in roles.values()
    if first.winner_player == bob:
        assert view.hands[0].winner == bob.display_name
    moves = [str(move) for move in view.hands[0].moves]
    assert moves and not any(move.startswith(computer.display_name) for move in moves)


@pytest.mark.django_db
def test_a_hand_records_its_players_at_the_deal_and_its_scorer(match3, alice, bob, carol):
    match = play_until_hands_end(match3)
    hand = Hand.objects.get(match=match, number=1)
    seats = {seat.position: seat.player for seat in match.seats.all()}
    assert (hand.box_player, hand.captain_player, hand.sitter_player) == (
        seats[hand.box],
        seats[hand.captain],
        seats[hand.sitter],
    )
    if hand.winner is not None:
        assert hand.winner_player == seats[hand.winner]
