"""A game of hands: the cut, the roles, the scores, the target (R3, R8.5, R8.6, R10) and options."""

import random
import secrets

import pytest

from games.engine import DECK, EngineError, Game, Options, Role, Roles, cut_for_roles, parse_cards


class ScriptedSampler:
    """Draws the cards it is told to, one list per call, so a test can force ties."""

    def __init__(self, *rounds):
        self.rounds = [parse_cards(text) for text in rounds]
        self.calls = []

    def sample(self, population, k):
        self.calls.append(k)
        drawn = self.rounds.pop(0)
        assert len(drawn) == k
        assert all(card in population for card in drawn)
        return drawn


def cut(*rounds):
    sampler = ScriptedSampler(*rounds)
    roles, draws = cut_for_roles(sampler)
    assert sampler.rounds == [], "every scripted round was drawn"
    return roles, draws, sampler.calls


ROLES = Roles(box=0, captain=1, sitter=2)


# R3.1: three players, three roles ---------------------------------------------


def test_r3_1_each_hand_has_a_box_a_captain_and_a_sitter():
    assert (ROLES.role_of(0), ROLES.role_of(1), ROLES.role_of(2)) == (Role.BOX, Role.CAPTAIN, Role.SITTER)
    assert [ROLES.seat_of(role) for role in (Role.BOX, Role.CAPTAIN, Role.SITTER)] == [0, 1, 2]


@pytest.mark.parametrize("seats", [(0, 0, 1), (0, 1, 3), (1, 1, 1)])
def test_r3_1_roles_need_three_different_players(seats):
    with pytest.raises(ValueError):
        Roles(*seats)


def test_r3_1_the_box_plays_against_the_captain():
    assert Role.BOX.opponent is Role.CAPTAIN
    assert Role.CAPTAIN.opponent is Role.BOX


# R3.3: the cut for the first hand ----------------------------------------------


def test_r3_3_highest_card_is_box_middle_captain_lowest_sitter():
    roles, draws, calls = cut("2s Ks 7h")
    assert roles == Roles(box=1, captain=2, sitter=0)
    assert calls == [3]
    assert [round.draws for round in draws] == [dict(zip((0, 1, 2), parse_cards("2s Ks 7h"), strict=True))]


def test_r3_3_the_ace_is_low_in_the_cut():
    roles, _, _ = cut("As Kd 2c")
    assert roles == Roles(box=1, captain=2, sitter=0)


def test_r3_3_suits_do_not_count_tied_players_redraw_for_box():
    roles, draws, calls = cut("Ks Kh 2c", "3d 9s")
    assert roles == Roles(box=1, captain=0, sitter=2)
    assert calls == [3, 2]
    assert draws[1].draws == {0: parse_cards("3d")[0], 1: parse_cards("9s")[0]}


def test_r3_3_tied_players_redraw_for_captain_and_sitter():
    roles, draws, calls = cut("Ks 4h 4d", "Jc 2c")
    assert roles == Roles(box=0, captain=1, sitter=2)
    assert calls == [3, 2]
    assert set(draws[1].draws) == {1, 2}


def test_r3_3_the_redraw_ranks_only_the_tied_players():
    roles, _, _ = cut("Qs 5h 5d", "Ks As")
    assert roles == Roles(box=0, captain=1, sitter=2)
    # Seat 1 redraws an ace, lower than seat 0's 2, yet still ranks above him.
    roles, _, _ = cut("2s 5h 5d", "As Ks")
    assert roles == Roles(box=2, captain=1, sitter=0)


def test_r3_3_three_way_tie_redraws_all_three():
    roles, _, calls = cut("7s 7h 7d", "Qs Qh 3c", "5s 6h")
    assert roles == Roles(box=1, captain=0, sitter=2)
    assert calls == [3, 3, 2]


def test_r3_3_tied_players_redraw_until_the_order_is_strict():
    roles, draws, calls = cut("9s 9h 2c", "4d 4c", "Th Tc", "Jd 3s")
    assert roles == Roles(box=0, captain=1, sitter=2)
    assert calls == [3, 2, 2, 2]
    assert len(draws) == 4


def test_r3_3_a_redraw_comes_from_the_cards_nobody_has_drawn():
    ties = 0
    for seed in range(3000):
        _roles, rounds = cut_for_roles(random.Random(seed))
        cards = [card for round_ in rounds for card in round_.draws.values()]
        assert len(cards) == len(set(cards)), (seed, cards)
        ties += len(rounds) > 1
    assert ties > 300  # about one cut in six has a tie


def test_r3_3_a_scripted_redraw_of_a_card_already_drawn_is_not_offered():
    with pytest.raises(AssertionError):
        cut("9s 9h 2c", "9s 4c")


def test_r3_3_ties_all_through_the_deck_shuffle_it_again():
    """Seats 0 and 1 tie again and again, pairs of one rank, until one card is left for the two."""
    ranks = "A3456789TJQ"
    pairs = ["Kd Kc", "2s 2h"] + [f"{rank}s {rank}h" for rank in ranks] + [f"{rank}d {rank}c" for rank in ranks]
    roles, rounds, calls = cut("Ks Kh 2c", *pairs, "9s 9h", "Qs 3d")
    assert roles == Roles(box=0, captain=1, sitter=2)
    assert calls == [3] + [2] * 26
    assert len(rounds) == 27


@pytest.mark.parametrize("rng", [random.Random(7), random.Random(2024), secrets.SystemRandom()])
def test_r3_3_the_cut_works_with_a_real_random_source(rng):
    roles, draws = cut_for_roles(rng)
    assert sorted((roles.box, roles.captain, roles.sitter)) == [0, 1, 2]
    first = draws[0].draws
    assert set(first) == {0, 1, 2}
    assert all(card in DECK for card in first.values())
    if len({card.rank for card in first.values()}) == 3:
        assert first[roles.box].rank > first[roles.captain].rank > first[roles.sitter].rank


# R3.4, R3.5: roles after a hand ------------------------------------------------


def test_r3_4_box_wins_he_stays_in_the_box_and_the_other_two_switch():
    assert ROLES.after(winner=0) == Roles(box=0, captain=2, sitter=1)


def test_r3_4_captain_wins_he_goes_into_the_box_the_sitter_becomes_captain():
    assert ROLES.after(winner=1) == Roles(box=1, captain=2, sitter=0)


def test_r3_4_winner_is_box_old_sitter_is_captain_loser_is_sitter():
    for winner, loser in ((0, 1), (1, 0)):
        after = ROLES.after(winner)
        assert (after.box, after.captain, after.sitter) == (winner, ROLES.sitter, loser)


def test_r3_4_roles_rotate_through_a_game():
    game = Game(roles=ROLES)
    game = game.after_hand(winner=1, points=20)
    assert game.roles == Roles(box=1, captain=2, sitter=0)
    game = game.after_hand(winner=1, points=20)
    assert game.roles == Roles(box=1, captain=0, sitter=2)
    game = game.after_hand(winner=0, points=5)
    assert game.roles == Roles(box=0, captain=2, sitter=1)


def test_r3_5_after_a_drawn_hand_all_roles_stay():
    assert ROLES.after(winner=None) == ROLES
    game = Game(roles=ROLES, scores=(10, 20, 30)).after_hand(winner=None, points=0)
    assert (game.roles, game.scores, game.hands_played, game.winner) == (ROLES, (10, 20, 30), 1, None)


def test_r9_2_after_a_drawn_hand_the_same_box_deals_again():
    game = Game(roles=ROLES).after_hand(winner=None, points=0)
    assert game.roles.box == ROLES.box


# R8.5, R8.6: who scores ------------------------------------------------------------


def test_r8_5_the_sitter_never_scores():
    game = Game(roles=ROLES)
    with pytest.raises(ValueError):
        game.after_hand(winner=2, points=30)
    assert game.scores == (0, 0, 0)


def test_r8_5_points_the_team_wins_are_the_captains():
    game = Game(roles=ROLES).after_hand(winner=1, points=30)
    assert game.scores == (0, 30, 0)


def test_r8_6_the_winner_scores_the_loser_becomes_sitter():
    game = Game(roles=ROLES).after_hand(winner=0, points=12)
    assert game.scores == (12, 0, 0)
    assert game.roles.sitter == 1


def test_r8_6_an_undercut_for_0_still_rotates_the_roles_with_the_defender_as_winner():
    # The captain (seat 1) knocked and was undercut for 0 points: the box (seat 0) won.
    game = Game(roles=ROLES, scores=(40, 7, 3)).after_hand(winner=0, points=0)
    assert game.scores == (40, 7, 3)
    assert game.roles == Roles(box=0, captain=2, sitter=1)  # R3.4: not R3.5's "nothing moves"
    assert (game.hands_played, game.winner) == (1, None)


def test_r8_6_a_winner_already_at_the_target_wins_with_an_undercut_for_0():
    game = Game(roles=ROLES, scores=(0, 100, 0)).after_hand(winner=1, points=0)
    assert game.winner == 1


# R10: winning the game ----------------------------------------------------------


def test_r10_1_reaching_100_wins_the_game():
    game = Game(roles=ROLES, scores=(90, 0, 0)).after_hand(winner=0, points=9)
    assert game.winner is None
    game = game.after_hand(winner=0, points=1)
    assert (game.scores, game.winner) == ((100, 0, 0), 0)


def test_r10_1_passing_100_wins_the_game():
    game = Game(roles=ROLES, scores=(0, 95, 0)).after_hand(winner=1, points=43)
    assert (game.scores, game.winner) == ((0, 138, 0), 1)


def test_r10_1_the_game_is_over_once_won():
    game = Game(roles=ROLES, scores=(0, 95, 0)).after_hand(winner=1, points=43)
    with pytest.raises(ValueError):
        game.after_hand(winner=1, points=10)


@pytest.mark.parametrize("target", [50, 250, 500])
def test_r10_1_target_score_option(target):
    game = Game(roles=ROLES, options=Options(target=target), scores=(target - 10, 0, 0))
    assert game.after_hand(winner=0, points=9).winner is None
    assert game.after_hand(winner=0, points=10).winner == 0


def test_r10_1_the_default_target_is_100():
    assert Options().target == 100


def test_r10_2_only_the_hands_winner_can_reach_the_target():
    game = Game(roles=ROLES, scores=(99, 99, 99))
    after = game.after_hand(winner=1, points=1)
    assert after.scores == (99, 100, 99)
    assert after.winner == 1


# Options a match may set -----------------------------------------------------------


def test_options_default_to_the_rules_as_written():
    assert Options().to_dict() == {
        "gin_bonus": 25,
        "undercut_bonus": 10,
        "target": 100,
        "may_discard_taken": False,
    }


@pytest.mark.parametrize("bonus", [20, 25])
def test_r8_3_gin_bonus_option_is_25_or_20(bonus):
    assert Options(gin_bonus=bonus).gin_bonus == bonus


@pytest.mark.parametrize("bonus", [0, 10, 21, 30])
def test_r8_3_other_gin_bonuses_are_refused(bonus):
    with pytest.raises(EngineError, match=r"\(R8\.3\)"):
        Options(gin_bonus=bonus)


@pytest.mark.parametrize("bonus", [0, 10, 25])
def test_r8_4_undercut_bonus_option_is_0_to_25(bonus):
    assert Options(undercut_bonus=bonus).undercut_bonus == bonus


@pytest.mark.parametrize("bonus", [-1, 26])
def test_r8_4_other_undercut_bonuses_are_refused(bonus):
    with pytest.raises(EngineError, match=r"\(R8\.4\)"):
        Options(undercut_bonus=bonus)


@pytest.mark.parametrize("target", [49, 501, 0])
def test_r10_1_other_targets_are_refused(target):
    with pytest.raises(EngineError, match=r"\(R10\.1\)"):
        Options(target=target)
