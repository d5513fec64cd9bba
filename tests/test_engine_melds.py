"""Melds, deadwood and the best arrangements of a hand (R1.2, R2)."""

import pytest

from games.engine import CardError, Meld, best_arrangements, deadwood, is_meld, knock_discards, parse_cards
from games.engine.cards import cards_of, mask_of
from games.engine.melds import melds_in


def cards(text):
    return parse_cards(text)


def arrangement_texts(text):
    return sorted(str(arrangement) for arrangement in best_arrangements(cards(text)))


# R1.2: the ace is always low ---------------------------------------------


def test_r1_2_ace_two_three_is_a_run():
    assert is_meld(cards("As 2s 3s"))
    assert deadwood(cards("As 2s 3s")) == 0


def test_r1_2_queen_king_ace_is_not_a_run():
    assert not is_meld(cards("Qs Ks As"))
    assert deadwood(cards("Qs Ks As")) == 21


def test_r1_2_king_ace_two_is_not_a_run():
    assert not is_meld(cards("Ks As 2s"))
    assert deadwood(cards("Ks As 2s")) == 13


def test_r1_2_jack_queen_king_is_a_run():
    assert is_meld(cards("Jh Qh Kh"))
    assert deadwood(cards("Jh Qh Kh Ah")) == 1


# R2.1: sets --------------------------------------------------------------


def test_r2_1_three_or_four_of_a_rank_is_a_set():
    assert is_meld(cards("7s 7h 7d"))
    assert is_meld(cards("7s 7h 7d 7c"))
    assert Meld(tuple(cards("7s 7h 7d"))).kind == "set"


def test_r2_1_two_of_a_rank_is_not_a_set():
    assert not is_meld(cards("7s 7h"))
    assert deadwood(cards("7s 7h")) == 14


def test_r2_1_mixed_ranks_are_not_a_set():
    assert not is_meld(cards("7s 7h 8d"))


# R2.2: runs --------------------------------------------------------------


def test_r2_2_three_or_more_consecutive_of_a_suit_is_a_run():
    assert is_meld(cards("4h 5h 6h"))
    assert is_meld(cards("6h 4h 5h"))
    assert is_meld(cards("As 2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks"))
    assert Meld(tuple(cards("4h 5h 6h"))).kind == "run"


def test_r2_2_two_consecutive_cards_are_not_a_run():
    assert not is_meld(cards("4h 5h"))


def test_r2_2_a_run_needs_one_suit():
    assert not is_meld(cards("4h 5h 6d"))
    assert deadwood(cards("4h 5h 6d")) == 15


def test_r2_2_a_run_has_no_gap():
    assert not is_meld(cards("4h 5h 7h"))
    assert not is_meld(cards("4h 5h 6h 8h"))


def test_r2_2_the_same_card_twice_is_no_meld():
    seven = cards("7h")[0]
    assert not is_meld([seven, seven, seven])


# R2.3: a card belongs to one meld only -----------------------------------


def test_r2_3_a_card_is_in_one_meld_only():
    # 7s would complete both the set and the run; it can only be in one.
    assert deadwood(cards("5s 6s 7s 7h 7d")) == 11
    for arrangement in best_arrangements(cards("5s 6s 7s 7h 7d")):
        melded = [card for meld in arrangement.melds for card in meld.cards]
        assert len(melded) == len(set(melded))


def test_r2_3_a_fourth_card_may_go_to_a_run_instead_of_the_set():
    assert deadwood(cards("7s 7h 7d 7c 8c 9c")) == 0
    assert arrangement_texts("7s 7h 7d 7c 8c 9c") == ["7s-7h-7d 7c-8c-9c"]


# R2.4: the deadwood count is the minimum over all arrangements ------------


def test_r2_4_deadwood_is_the_sum_of_unmatched_points():
    assert deadwood(cards("As 5h Kd Qc")) == 1 + 5 + 10 + 10
    assert deadwood([]) == 0


def test_r2_4_deadwood_is_the_minimum_not_the_greedy_longest_meld():
    # Greedy on the longest run (4-5-6-7h) leaves 4s 4d; the minimum uses the set of fours.
    assert deadwood(cards("4h 5h 6h 7h 4s 4d")) == 0
    assert deadwood(cards("4h 5h 6h 7h 4s 4d 8s")) == 8


def test_r2_4_deadwood_tries_every_three_of_a_four_card_set():
    # Each of the four sevens is also needed by a different run.
    assert deadwood(cards("7s 7h 7d 7c 5s 6s")) == 0
    assert deadwood(cards("7s 7h 7d 7c 8h 9h")) == 0
    # Both runs would leave 7d 7c (14); 7s-7d-7c with 7-8-9h leaves 5s 6s (11).
    assert deadwood(cards("7s 7h 7d 7c 5s 6s 8h 9h")) == 11


def test_r2_4_sets_of_three_ranks_compete_with_runs():
    hand = cards("3h 4h 5h 3s 3d 4s 4d 5s 5d 5c")
    assert deadwood(hand) == 0


def test_r2_4_a_card_used_twice_is_refused():
    with pytest.raises(CardError):
        deadwood(cards("7h 7h 7s"))


def test_r2_4_best_arrangements_lists_each_minimum():
    # 4-5-6s or the set of fives: both leave 10.
    assert arrangement_texts("4s 5s 6s 5h 5d") == ["4s-5s-6s | 5h 5d", "5s-5h-5d | 4s 6s"]


def test_r2_4_best_arrangements_of_nothing():
    (arrangement,) = best_arrangements([])
    assert arrangement.melds == () and arrangement.deadwood == () and arrangement.count == 0


def test_r2_4_melds_in_lists_every_meld_that_can_be_made():
    masks = melds_in(mask_of(cards("5s 6s 7s 8s 7h 7d")))
    found = {frozenset(str(card) for card in cards_of(mask)) for mask in masks}
    assert found == {frozenset(text.split()) for text in ("5s 6s 7s", "6s 7s 8s", "5s 6s 7s 8s", "7s 7h 7d")}


# R7.2 helper: which discards allow a knock -------------------------------


def test_r7_2_knock_discards_lists_each_discard_leaving_ten_or_less():
    hand = cards("As 2s 3s 4h 5h 6h 7d 8d 9d Kc Qc")
    assert knock_discards(hand) == {cards("Kc")[0]: 10, cards("Qc")[0]: 10}


def test_r7_2_knock_discards_is_empty_when_no_discard_allows_a_knock():
    assert knock_discards(cards("As 2s 3s 4h 5h 6h 7d 8d Kc Qc Jh")) == {}


# Worked examples ---------------------------------------------------------


def test_example_sevens_set_beats_run_of_5_6_7_spades_count_11():
    hand = cards("7s 7h 7d 5s 6s")
    assert deadwood(hand) == 11
    assert arrangement_texts("7s 7h 7d 5s 6s") == ["7s-7h-7d | 5s 6s"]


def test_example_four_fives_with_3_4_spades_count_0():
    assert deadwood(cards("5s 5h 5d 5c 3s 4s")) == 0
    assert arrangement_texts("5s 5h 5d 5c 3s 4s") == ["3s-4s-5s 5h-5d-5c"]


def test_example_ace_two_three_is_a_run_queen_king_ace_is_not():
    assert is_meld(cards("As 2s 3s"))
    assert not is_meld(cards("Qs Ks As"))
