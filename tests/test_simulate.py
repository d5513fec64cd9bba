"""Whole simulated games and the simulate command (games/engine/simulate.py)."""

import random
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from games.engine import Discard, Options, Pass, Phase, Roles, Take
from games.engine.game import Game
from games.engine.simulate import Rate, play_game, play_hand, simulate

MIXES = [["simple", "strong", "strong"], ["strong", "simple", "simple"], ["random", "simple", "strong"]]


@pytest.mark.parametrize("players", MIXES)
def test_a_game_ends_with_exactly_one_winner_at_or_above_the_target(players):
    for seed in range(4):
        record = play_game(players, random.Random(seed), Options(target=60))
        at_target = [seat for seat, score in enumerate(record.scores) if score >= 60]
        assert at_target == [record.winner]  # R10.1, R10.2


@pytest.mark.parametrize("players", MIXES)
def test_only_the_box_or_the_captain_scores_a_hand(players):
    record = play_game(players, random.Random(7))
    totals = [0, 0, 0]
    for hand in record.hands:
        sitter = 3 - hand.box - hand.captain
        if hand.kind == "draw":
            assert hand.winner is None and hand.points == 0  # R9.1
            continue
        assert hand.winner in (hand.box, hand.captain) and hand.winner != sitter  # R8.5
        assert hand.points > 0
        totals[hand.winner] += hand.points
    assert tuple(totals) == record.scores


def test_roles_rotate_after_each_hand_as_the_rules_say():
    record = play_game(["simple", "strong", "strong"], random.Random(3))
    for before, after in zip(record.hands, record.hands[1:], strict=False):
        roles = Roles(before.box, before.captain, 3 - before.box - before.captain)
        expected = roles.after(before.winner)  # R3.4 after a won hand, R3.5 after a draw
        assert (after.box, after.captain) == (expected.box, expected.captain)


def test_the_gin_bonus_option_reaches_the_hands():
    record = play_game(["strong", "strong", "strong"], random.Random(2), Options(gin_bonus=20, target=300))
    gins = [hand for hand in record.hands if hand.kind == "gin"]
    assert gins and all(hand.points >= 20 for hand in gins)


class TakeEverything:
    """Takes every pile card it may and never knocks, so the stock never shrinks."""

    name = "take-everything"

    def choose(self, view):
        if view.phase is Phase.DISCARD:
            return next(action for action in view.legal_actions if type(action) is Discard)
        return Take() if Take() in view.legal_actions else Pass()


def test_r9_3_players_who_keep_taking_the_pile_draw_the_hand_on_the_50th_take():
    game = Game(roles=Roles(box=0, captain=1, sitter=2))
    bots = [TakeEverything()] * 3
    record = play_hand(game, bots, random.Random(0))
    assert (record.kind, record.winner, record.points, record.turns) == ("draw", None, 0, 50)


def test_simulate_counts_every_game_and_hand():
    stats = simulate(12, ["simple", "strong", "strong"], seed=5)
    assert stats.games == 12 and sum(stats.wins) == 12
    assert sum(stats.kinds.values()) == stats.hands
    assert sum(stats.duels.values()) == stats.decided_hands
    assert stats.strength_rate("strong").trials == 24
    assert stats.games_per_second > 0


def test_simulate_is_the_same_given_the_same_seed():
    first, again = (simulate(6, ["random", "simple", "strong"], seed=9) for _ in range(2))
    assert (first.wins, first.kinds, first.points) == (again.wins, again.kinds, again.points)


def test_win_rate_intervals_are_wilsons():
    low, high = Rate(5, 10).interval
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)
    assert Rate(0, 20).interval[0] == 0.0
    assert Rate(20, 20).interval[1] == 1.0


# The command ------------------------------------------------------------------------


def test_simulate_command_prints_every_section_without_a_database():
    out = StringIO()
    call_command("simulate", "--matches", "20", "--players", "simple,strong,strong", "--seed", "1", stdout=out)
    text = out.getvalue()
    for section in ("Wins per player", "Wins per strength", "Hands", "Speed"):
        assert section in text
    for line in ("player 1  simple", "strong   2 seats", "hands per game", "knocks", "gins", "undercuts"):
        assert line in text
    for line in ("drawn hands", "points per hand", "strong beat simple", "games/s", "seed 1"):
        assert line in text


def test_simulate_command_takes_the_target_and_the_gin_bonus():
    out = StringIO()
    call_command("simulate", "--matches", "3", "--seed", "2", "--target", "50", "--gin-bonus", "20", stdout=out)
    assert "target 50, gin bonus 20" in out.getvalue()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--players", "simple,strong"], "exactly three"),
        (["--players", "simple,strong,grandmaster"], "grandmaster"),
        (["--target", "20"], "R10.1"),
        (["--matches", "0"], "at least 1"),
    ],
)
def test_simulate_command_refuses_bad_arguments(arguments, message):
    with pytest.raises(CommandError, match=message):
        call_command("simulate", *arguments, stdout=StringIO())
