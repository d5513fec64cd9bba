"""Cards, their values and their notation (R1)."""

import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine import DECK, Card, CardError, format_cards, parse_cards
from games.engine.cards import cards_of, mask_of, points_of, points_of_mask, sort_cards


def test_r1_1_one_deck_of_52_distinct_cards():
    assert len(DECK) == 52
    assert len(set(DECK)) == 52
    assert {(card.rank, card.suit) for card in DECK} == {(rank, suit) for rank in range(1, 14) for suit in range(4)}


def test_r1_1_no_jokers_or_other_cards():
    for text in ("jk", "Js0", "0s", "1s", "11s", "Ax", "14h", "", "s"):
        with pytest.raises(CardError):
            Card.parse(text)


@pytest.mark.parametrize("index", [52, 100, -1, -52])
def test_r1_1_no_card_outside_the_deck(index):
    with pytest.raises(CardError):
        Card(index)


@pytest.mark.parametrize(("rank", "suit"), [(0, "s"), (14, "h"), (1, 4), (1, "x"), (1, "sh"), (1, "")])
def test_r1_1_no_card_of_an_unknown_rank_or_suit(rank, suit):
    with pytest.raises(CardError):
        Card.of(rank, suit)


def test_r1_1_a_card_is_never_there_twice():
    with pytest.raises(CardError):
        mask_of(parse_cards("7h 8h 7h"))


def test_r1_2_ace_is_low_and_king_is_high():
    ace, two, king = parse_cards("As 2s Ks")
    assert ace.rank == 1 < two.rank < king.rank == 13
    assert [card.rank for card in parse_cards("As 2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks")] == list(range(1, 14))


@pytest.mark.parametrize(
    ("text", "points"),
    [
        ("As", 1),
        ("2h", 2),
        ("3d", 3),
        ("4c", 4),
        ("5s", 5),
        ("6h", 6),
        ("7d", 7),
        ("8c", 8),
        ("9s", 9),
        ("Th", 10),
        ("Jd", 10),
        ("Qc", 10),
        ("Ks", 10),
    ],
)
def test_r1_3_card_points(text, points):
    assert Card.parse(text).points == points


def test_r1_3_points_of_unmatched_cards_add_up():
    assert points_of(parse_cards("As Ks 7h Jd")) == 1 + 10 + 7 + 10
    assert points_of([]) == 0


def test_notation_accepts_the_ways_players_write_cards():
    assert parse_cards("As 10d Td q♠ QS 7♥, 2♦,3♣") == [
        Card.of(1, "s"),
        Card.of(10, "d"),
        Card.of(10, "d"),
        Card.of(12, "s"),
        Card.of(12, "s"),
        Card.of(7, "h"),
        Card.of(2, "d"),
        Card.of(3, "c"),
    ]
    assert parse_cards(["7h", "Kc"]) == [Card.of(7, "h"), Card.of(13, "c")]


def test_notation_prints_as_players_write_cards():
    cards = parse_cards("As Td Qs 7h")
    assert format_cards(cards) == "As Td Qs 7h"
    assert [card.symbol for card in cards] == ["A♠", "T♦", "Q♠", "7♥"]
    assert repr(cards) == "[As, Td, Qs, 7h]"


def test_every_card_reads_back_from_its_name():
    assert parse_cards(format_cards(DECK)) == list(DECK)


def test_cards_are_ints_indexed_by_suit_then_rank():
    assert [int(card) for card in parse_cards("As Ks Ah Kc")] == [0, 12, 13, 51]
    assert Card(5) is DECK[5]
    assert sort_cards(parse_cards("Kc As 2h 3s")) == parse_cards("As 3s 2h Kc")


def test_masks_round_trip():
    cards = parse_cards("As 7h Kc Td")
    assert cards_of(mask_of(cards)) == sorted(cards)
    assert cards_of(0) == []


def test_cards_pickle_as_cards():
    card = Card.parse("Qh")
    copy = pickle.loads(pickle.dumps(card))
    assert copy is card
    assert str(copy) == "Qh"


@pytest.mark.parametrize("text", ["7ſ", "K\u212a", "\u212as"])
def test_r1_1_lookalike_unicode_letters_are_not_cards(text):
    """Case-insensitive matching must not let 'ſ' pass for 's' or the Kelvin sign for 'K'."""
    with pytest.raises(CardError):
        Card.parse(text)


@given(st.sets(st.sampled_from(DECK), max_size=52))
def test_r1_3_points_of_a_mask_are_the_points_of_its_cards(cards):
    assert points_of_mask(mask_of(cards)) == points_of(cards)
