"""Knocks, layoffs and the score of a hand (R7.2 to R7.6, R8)."""

import pytest

from games.engine import IllegalAction, deadwood, parse_cards, settle


def cards(text):
    return parse_cards(text)


def laid(settlement):
    return [str(card) for card, _ in settlement.layoffs]


def laid_on(settlement):
    """Each laid-off card with the knocker's meld it joined, as text."""
    return {str(card): str(settlement.knocker.melds[index]) for card, index in settlement.layoffs}


def melds(arrangement):
    return sorted(str(meld) for meld in arrangement.melds)


KINGS_KNOCKER = "Ks Kc Kd 5s 6s 7s 9c Tc Jc 2h"  # count 2 (the worked example)
PLAIN_KNOCKER = "5s 6s 7s Ks Kh Kd Qc Qh Qd 2h"  # count 2, one run to lay off on


# Worked examples ---------------------------------------------------------


def test_example_knocker_kings_defender_lays_off_8s_9s_8c():
    s = settle(cards(KINGS_KNOCKER), cards("8s 9s 8c 2c 3c 4d 5d 6h Qh Ah"))
    assert s.knocker_count == 2
    assert laid(s) == ["8s", "9s", "8c"]
    assert laid_on(s) == {"8s": "5s-6s-7s", "9s": "5s-6s-7s", "8c": "9c-Tc-Jc"}
    assert s.defender_count == 2 + 3 + 4 + 5 + 6 + 10 + 1
    assert (s.winner, s.points, s.gin, s.undercut) == ("knocker", 29, False, False)


def test_example_counts_equal_knocker_not_gin_defender_scores_10():
    s = settle(cards("As 2s 3s 4h 5h 6h 7d 8d 9d 5c"), cards("Jc Qc Kc 8s 8h 8c Ts Th Tc 5s"))
    assert s.knocker_count == s.defender_count == 5
    assert (s.winner, s.points, s.undercut, s.gin) == ("defender", 10, True, False)


def test_example_knocker_gin_defender_count_18_scores_43():
    s = settle(cards("As 2s 3s 4h 5h 6h 7d 8d 9d Td"), cards("Jc Qc Kc 8s 8h 8c Ts 5c 2d Ah"))
    assert (s.knocker_count, s.defender_count) == (0, 18)
    assert (s.winner, s.points, s.gin, s.undercut) == ("knocker", 43, True, False)


def test_example_knocker_gin_defender_count_18_with_gin_bonus_20_scores_38():
    s = settle(cards("As 2s 3s 4h 5h 6h 7d 8d 9d Td"), cards("Jc Qc Kc 8s 8h 8c Ts 5c 2d Ah"), gin_bonus=20)
    assert (s.winner, s.points, s.gin) == ("knocker", 38, True)


# R7.2: the knock limit ---------------------------------------------------


def test_r7_2_a_knock_over_10_is_refused():
    with pytest.raises(IllegalAction) as error:
        settle(cards("2s 3s 4s 5s 7d 8d 9d Ah 4c 6c"), cards("Jc Qc Kc 8s 8h 8c Ts 5c 2d 3h"))
    assert error.value.rule == "R7.2"


def test_r7_2_a_knock_with_exactly_10_is_allowed():
    s = settle(cards("As 2s 3s 4h 5h 6h 7d 8d 9d Kc"), cards("Jc Qc 8s 8h 2c Ts 5c 2d 3h Jh"))
    assert s.knocker_count == 10


def test_r1_1_hands_that_share_a_card_are_refused():
    with pytest.raises(IllegalAction) as error:
        settle(cards(KINGS_KNOCKER), cards("2h 9s 8c 2c 3c 4d 5d 6h Qh Ah"))
    assert error.value.rule == "R1.1"


# R7.3, R7.4: both lay their cards out ------------------------------------


def test_r7_3_r7_4_both_hands_are_laid_out_in_melds_and_deadwood():
    knocker, defender = cards(KINGS_KNOCKER), cards("8s 9s 8c 2c 3c 4d 5d 6h Qh Ah")
    s = settle(knocker, defender)
    assert melds(s.knocker) == ["5s-6s-7s", "9c-Tc-Jc", "Ks-Kd-Kc"]
    assert [str(card) for card in s.knocker.deadwood] == ["2h"]
    knocker_cards = [card for meld in s.knocker.melds for card in meld.cards] + list(s.knocker.deadwood)
    assert sorted(knocker_cards) == sorted(knocker)
    defender_cards = [card for meld in s.defender.melds for card in meld.cards] + list(s.defender.deadwood)
    assert sorted(defender_cards + [card for card, _ in s.layoffs]) == sorted(defender)
    assert s.defender.count == s.defender_count


# R7.5: layoffs -----------------------------------------------------------


def test_r7_5_a_fourth_card_goes_on_a_set_of_three():
    s = settle(cards(PLAIN_KNOCKER), cards("Kc Ah 2d 3c 9h Jd 4h 8d Th 3s"))
    assert laid_on(s) == {"Kc": "Ks-Kh-Kd"}
    assert s.defender_count == deadwood(cards("Ah 2d 3c 9h Jd 4h 8d Th 3s"))


def test_r7_5_cards_go_on_either_end_of_a_run():
    s = settle(cards(PLAIN_KNOCKER), cards("4s 8s Ah 2d 3c 9h Jd 4h 8d Th"))
    assert laid_on(s) == {"4s": "5s-6s-7s", "8s": "5s-6s-7s"}


def test_r7_5_laying_off_chains_5_6_7_takes_8_then_9():
    s = settle(cards(PLAIN_KNOCKER), cards("8s 9s Ah 2d 3c 9h Jd 4h 8d Th"))
    assert laid(s) == ["8s", "9s"]
    assert s.defender_count == deadwood(cards("Ah 2d 3c 9h Jd 4h 8d Th"))


def test_r7_5_chains_run_downwards_too():
    s = settle(cards(PLAIN_KNOCKER), cards("4s 3s 2s Ah 2d 3c 9h Jd 8d Th"))
    # 2s-3s-4s is also the defender's own run: either way the three count nothing.
    assert s.defender_count == deadwood(cards("Ah 2d 3c 9h Jd 8d Th"))


def test_r7_5_a_card_beyond_a_gap_cannot_be_laid_off():
    s = settle(cards(PLAIN_KNOCKER), cards("9s Ah 2d 3c 9h Jd 4h 8d Th 3s"))
    assert laid(s) == []
    assert s.defender_count == deadwood(cards("9s Ah 2d 3c 9h Jd 4h 8d Th 3s"))


def test_r7_5_a_card_that_fits_a_set_and_a_run_goes_on_the_run_so_the_chain_follows():
    # 8c could be the fourth 8 or extend 5-6-7c; only on the run can 9c follow it.
    s = settle(cards("5c 6c 7c 8s 8h 8d Ks Kh Kd 2h"), cards("8c 9c 2d 3d 5d 7d 9d Jd Qs As"))
    assert laid_on(s) == {"8c": "5c-6c-7c", "9c": "5c-6c-7c"}
    assert s.defender_count == 2 + 3 + 5 + 7 + 9 + 10 + 10 + 1
    assert (s.winner, s.points) == ("knocker", 45)


def test_r7_5_defender_breaks_his_own_meld_to_lay_off_when_that_lowers_his_count():
    # Kept whole, the four 8s leave 9s too (35); 8s and 9s on 5-6-7s leave 26.
    defender = cards("8s 8h 8d 8c 9s Ah 2d 3c Jd Th")
    s = settle(cards(PLAIN_KNOCKER), defender)
    assert laid(s) == ["8s", "9s"]
    assert melds(s.defender) == ["8h-8d-8c"]
    assert s.defender_count == 26 < deadwood(defender) == 35


def test_r7_5_defender_keeps_his_meld_when_breaking_it_does_not_lower_his_count():
    s = settle(cards(PLAIN_KNOCKER), cards("8s 9s Ts Ah 2d 3c 9h Jd 4h 8d"))
    assert laid(s) == []
    assert melds(s.defender) == ["8s-9s-Ts"]


def test_r7_5_the_knocker_never_lays_off():
    # The knocker's 2h would extend the defender's 3-4-5h, but it stays deadwood.
    s = settle(cards(PLAIN_KNOCKER), cards("3h 4h 5h Ah 2d 3c 9h Jd 8d Th"))
    assert s.knocker_count == 2
    assert [str(card) for card in s.knocker.deadwood] == ["2h"]
    assert all(card in cards("3h 4h 5h Ah 2d 3c 9h Jd 8d Th") for card, _ in s.layoffs)


# R7.6: the engine arranges both hands ------------------------------------

# Two arrangements leave 10: 5s-5h-5d with 4s 6s, or 4s-5s-6s with 5h 5d.
TWO_WAY_KNOCKER = "4s 5s 6s 5h 5d 9c Tc Jc Qc Kc"


def test_r7_6_knocker_shows_the_set_when_the_run_would_take_the_defenders_7s_8s():
    defender = cards("7s 8s Ah 2d 3c Jd Qh 4h 9h Kd")
    s = settle(cards(TWO_WAY_KNOCKER), defender)
    assert melds(s.knocker) == ["5s-5h-5d", "9c-Tc-Jc-Qc-Kc"]
    assert laid(s) == []
    assert s.defender_count == deadwood(defender) == 64
    assert (s.winner, s.points) == ("knocker", 54)


def test_r7_6_knocker_shows_the_run_when_the_set_would_take_the_defenders_5c():
    defender = cards("5c Ah 2d 3c Jd Qh 4h 9h Kd 8h")
    s = settle(cards(TWO_WAY_KNOCKER), defender)
    assert melds(s.knocker) == ["4s-5s-6s", "9c-Tc-Jc-Qc-Kc"]
    assert laid(s) == []
    assert s.defender_count == deadwood(defender) == 62


def test_r7_6_defender_arrangement_has_the_lowest_count_he_can_reach():
    # 7-8-9h leaves 7d 7c (14), the set of 7s leaves 8h 9h (17); 4s lays off either way.
    s = settle(cards(PLAIN_KNOCKER), cards("7h 8h 9h 7d 7c 4s Jd Ts 2c Ac"))
    assert melds(s.defender) == ["7h-8h-9h"]
    assert laid(s) == ["4s"]
    assert s.defender_count == 7 + 7 + 10 + 10 + 2 + 1


# R8.1, R8.2: the knocker's lower count ------------------------------------


def test_r8_1_each_counts_his_deadwood_the_defender_after_layoffs():
    s = settle(cards(KINGS_KNOCKER), cards("8s 9s 8c 2c 3c 4d 5d 6h Qh Ah"))
    assert s.knocker_count == deadwood(cards(KINGS_KNOCKER))
    assert s.defender_count == deadwood(cards("2c 3c 4d 5d 6h Qh Ah"))


def test_r8_2_a_lower_knocker_scores_the_difference():
    s = settle(cards("As 2s 3s 4h 5h 6h 7d 8d 9d 4c"), cards("Jc Qc Kc 8s 8h 8c Ts Th Tc 5s"))
    assert (s.knocker_count, s.defender_count) == (4, 5)
    assert (s.winner, s.points, s.undercut) == ("knocker", 1, False)


# R8.3: gin -----------------------------------------------------------------

GIN_KNOCKER = "As 2s 3s 4h 5h 6h 7d 8d 9d Td"


def test_r8_3_gin_scores_25_plus_the_defenders_count():
    defender = cards("Jc Qc Kc 8s 8h 8c Ts 5c 2d Ah")
    s = settle(cards(GIN_KNOCKER), defender)
    assert (s.gin, s.winner, s.points) == (True, "knocker", 25 + deadwood(defender))


def test_r8_3_no_layoffs_after_gin():
    # 4s, 7h and Jd would all lay off on the knocker's runs after a plain knock.
    defender = cards("4s 7h Jd Kc Qh 9c 2c 3h Ks 6c")
    s = settle(cards(GIN_KNOCKER), defender)
    assert s.layoffs == ()
    assert s.defender_count == deadwood(defender)
    assert s.points == 25 + deadwood(defender)


def test_r8_3_gin_bonus_option_20():
    defender = cards("4s 7h Jd Kc Qh 9c 2c 3h Ks 6c")
    s = settle(cards(GIN_KNOCKER), defender, gin_bonus=20)
    assert s.points == 20 + deadwood(defender)


def test_r8_3_a_defender_with_0_cannot_score_against_gin():
    s = settle(cards(GIN_KNOCKER), cards("2c 3c 4c 5c 8s 8h 8c Js Jh Jd"))
    assert (s.defender_count, s.gin, s.undercut) == (0, True, False)
    assert (s.winner, s.points) == ("knocker", 25)


# R8.4: undercut ------------------------------------------------------------


def test_r8_4_equal_counts_is_undercut():
    s = settle(cards("As 2s 3s 4h 5h 6h 7d 8d 9d 5c"), cards("Jc Qc Kc 8s 8h 8c Ts Th Tc 5s"))
    assert (s.undercut, s.winner, s.points) == (True, "defender", 10)


def test_r8_4_equal_counts_after_layoffs_is_undercut():
    # The defender's 8s lays off on 5-6-7s and leaves him 2c, the knocker's count.
    s = settle(cards(PLAIN_KNOCKER), cards("8s 2c 8c 9c Tc Jc 3d 4d 5d 6d"))
    assert (s.knocker_count, s.defender_count) == (2, 2)
    assert (s.undercut, s.winner, s.points) == (True, "defender", 10)


def test_r8_4_a_higher_knocker_is_undercut_defender_scores_10_plus_the_difference():
    s = settle(cards("As 2s 3s 4h 5h 6h 7d 8d 9d 9c"), cards("Jc Qc Kc 8s 8h 8c Ts Th Tc 5s"))
    assert (s.knocker_count, s.defender_count) == (9, 5)
    assert (s.undercut, s.winner, s.points) == (True, "defender", 10 + 4)


@pytest.mark.parametrize("bonus", [0, 15, 25])
def test_r8_4_undercut_bonus_option(bonus):
    s = settle(
        cards("As 2s 3s 4h 5h 6h 7d 8d 9d 9c"),
        cards("Jc Qc Kc 8s 8h 8c Ts Th Tc 5s"),
        undercut_bonus=bonus,
    )
    assert s.points == bonus + 4


def test_r8_6_an_undercut_with_bonus_0_and_equal_counts_is_won_by_the_defender_for_0():
    s = settle(cards("As 2s 3s 4h 5h 6h 7d 8d 9d 5c"), cards("Jc Qc Kc 8s 8h 8c Ts Th Tc 5s"), undercut_bonus=0)
    assert s.knocker_count == s.defender_count == 5
    assert (s.undercut, s.gin, s.winner, s.points) == (True, False, "defender", 0)


def test_r8_4_gin_is_never_undercut():
    s = settle(cards(GIN_KNOCKER), cards("2c 3c 4c 5c 8s 8h 8c Js Jh Jd"))
    assert not s.undercut
