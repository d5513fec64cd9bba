"""Who played each hand and who earned each point stay as it happened,
and the per-player totals kept with each hand and match."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from games.models import Hand, HeadToHead, Match, PlayerDay, PlayerMatch, PlayerRecord
from games.services import handle
from games.services.read.public import public_match_view
from games.services.write import moderation, records

from .conftest import code_in, play_move, player_in_role, refresh, rig


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


def new_match(players, options: str = "to 50") -> Match:
    code = code_in(handle(players[0], f"new {options}", "terminal"))
    for player in players[1:]:
        handle(player, f"join {code}", "terminal")
    return Match.objects.get(code=code)


def play_out(match: Match, limit: int = 5000) -> Match:
    for _step in range(limit):
        if refresh(match).status != Match.Status.RUNNING:
            return refresh(match)
        play_move(match)
    raise AssertionError("the match did not end")


def all_records() -> dict[str, tuple]:
    """Every record, comparable: totals and rating by name, days, results, head-to-head."""
    fields = ("matches", "wins", "points", "hands_won_box", "hands_won_captain", "knocks", "gins", "undercuts")
    return {
        "totals": sorted(PlayerRecord.objects.values_list("player__display_name", *fields, "mu", "sigma", "rating")),
        "days": sorted(PlayerDay.objects.values_list("player_id", "day", "matches", "wins", "points", "hands_won")),
        "results": sorted(
            PlayerMatch.objects.values_list(
                "player_id", "match_id", "won", "points", "rating_before", "rating_after", "left"
            )
        ),
        "pairs": sorted(HeadToHead.objects.values_list("player_id", "opponent_id", "matches", "wins", "losses")),
    }


def hand_totals(player) -> tuple[int, int]:
    """His points and hands won, counted from the hands of finished matches."""
    hands = Hand.objects.filter(winner_player=player, match__status=Match.Status.FINISHED)
    return sum(hands.values_list("points", flat=True)), hands.count()


@pytest.mark.django_db
def test_totals_kept_with_each_match_equal_the_ones_recomputed_from_the_log(alice, bob, carol, dave):
    play_out(new_match([alice, bob, carol]))
    play_out(new_match([dave, alice, bob]))
    resigned = new_match([carol, dave, alice])
    play_until_hands_end(resigned)
    handle(carol, "resign yes", "terminal")
    moderation.abort(new_match([bob, carol, dave]), "root", "test")  # counts for nothing
    kept = all_records()

    call_command("recomputerecords", stdout=StringIO())

    assert all_records() == kept
    assert sum(row[1] for row in kept["totals"]) == 9  # three finished matches of three players
    for player in (alice, bob, carol, dave):
        record = PlayerRecord.objects.get(player=player)
        assert (record.points, record.hands_won) == hand_totals(player)
    call_command("recomputerecords", stdout=StringIO())
    assert all_records() == kept  # the same log, the same ratings to the last bit


def captain_goes_gin(match: Match):
    """Rig the first hand so that its captain takes the upcard and goes gin (R8.3); return him."""
    rig(match, "2s 3s 4s 5s 6s 7s 8s 9s Ts As", "2h 5h 8h Jh 3d 6d 9d Qd 4c 7c", "Js")
    captain = player_in_role(match, "captain")
    handle(captain, "take", "terminal")
    handle(captain, "knock As", "terminal")
    return captain


@pytest.mark.django_db
def test_a_replaced_player_keeps_his_points_and_the_computer_gets_none_of_them(match3):
    scorer = captain_goes_gin(match3)
    earned = match3.hands.get(number=1).points
    assert earned >= 25
    computer = moderation.replace_with_computer(match3, position_of(match3, scorer), "root", "away")
    other = match3.seats.exclude(player=computer).first().player
    moderation.adjudicate(match3, position_of(match3, other), "root", "test")

    assert PlayerRecord.objects.get(player=scorer).points == earned
    assert PlayerRecord.objects.get(player=scorer).gins == 1
    assert PlayerRecord.objects.get(player=computer).points == 0
    assert PlayerMatch.objects.get(player=scorer).points == earned
    assert refresh(match3).seats.get(player=computer).score == earned  # the seat's score plays on


@pytest.mark.django_db
def test_a_replaced_players_match_counts_neither_as_his_win_nor_his_loss(match3):
    """It counted as his loss, with his replacement as his rival in head to head."""
    scorer = captain_goes_gin(match3)
    computer = moderation.replace_with_computer(match3, position_of(match3, scorer), "root", "away")
    winner = match3.seats.exclude(player=computer).first().player
    moderation.adjudicate(match3, position_of(match3, winner), "root", "test")

    record = PlayerRecord.objects.get(player=scorer)
    assert (record.matches, record.wins) == (0, 0)
    assert (record.mu, record.sigma) == (25.0, 25.0 / 3)  # not rated
    assert PlayerDay.objects.get(player=scorer).matches == 0
    result = PlayerMatch.objects.get(player=scorer)
    assert result.left and not result.won and result.rating_after is None
    assert not HeadToHead.objects.filter(player=scorer).exists()
    assert not HeadToHead.objects.filter(opponent=scorer).exists()
    assert HeadToHead.objects.filter(player=winner, opponent=computer, wins=1).exists()
    assert not PlayerMatch.objects.get(player=computer).left
    assert PlayerRecord.objects.get(player=computer).matches == 1


@pytest.mark.django_db
def test_recomputerecords_agrees_on_a_replaced_players_match(match3, alice, bob, carol):
    replaced = player_in_role(match3, "box")
    moderation.replace_with_computer(match3, position_of(match3, replaced), "root", "away")
    play_out(match3)
    play_out(new_match([alice, bob, carol]))
    kept = all_records()

    call_command("recomputerecords", stdout=StringIO())

    assert all_records() == kept
    assert PlayerRecord.objects.get(player=replaced).matches == 1  # the second match only
    assert PlayerMatch.objects.filter(player=replaced, left=True).count() == 1


@pytest.mark.django_db
def test_r10_3_ratings_rank_the_winner_first_and_one_who_resigned_last(match3, alice, bob, carol):
    match3.seats.filter(player=alice).update(score=10)  # the leader of the other two wins (R10.3)
    handle(bob, "resign yes", "terminal")
    rating = {r.player: r.rating for r in PlayerRecord.objects.all()}
    winner = refresh(match3).winner
    assert rating[winner] == max(rating.values())
    assert rating[bob] == min(rating.values())


@pytest.mark.django_db
def test_computers_are_rated_and_flagged_to_be_ranked_apart(alice):
    match = new_match([alice])
    handle(alice, "bot", "terminal")
    handle(alice, "bot", "terminal")
    moderation.adjudicate(refresh(match), 0, "root", "test")
    flags = dict(PlayerRecord.objects.values_list("player__display_name", "is_computer"))
    assert flags == {"Alice": False, "Bot 1": True, "Bot 2": True}


@pytest.mark.django_db
def test_adding_a_finished_match_takes_a_few_queries_however_long_it_was(match3, alice, django_assert_num_queries):
    Match.objects.filter(pk=match3.pk).update(target=500)  # three hands that never end the match
    match = play_until_hands_end(match3, 3)
    moderation.adjudicate(match, position_of(match, alice), "root", "test")
    for model in (PlayerMatch, HeadToHead, PlayerDay, PlayerRecord):
        model.objects.all().delete()
    match = Match.objects.select_related("winner").get(pk=match.pk)
    # hands, seats, players, totals, days, pairs, the locked ratings, their update, the results
    with django_assert_num_queries(9):
        records.match_finished(match, match.winner, "adjudicated")
