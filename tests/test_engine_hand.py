"""One hand: the deal, the upcard, turns, knocks and draws (R4 to R9)."""

import copy
import dataclasses

import pytest

from games.engine import (
    DECK,
    Discard,
    Draw,
    IllegalAction,
    Knock,
    Options,
    Pass,
    Phase,
    Role,
    Take,
    deadwood,
    deal,
    parse_action,
    parse_cards,
    replay,
    stacked_deck,
)
from games.engine.hand import MAX_ACTIONS, MAX_TURNS


def cards(text):
    return parse_cards(text)


def card(text):
    (one,) = parse_cards(text)
    return one


def make_deck(captain, box, upcard, stock=""):
    """A deck dealt as the engine deals (R4.2): captain first, then box, in turn."""
    return stacked_deck(cards(captain), cards(box), card(upcard), cards(stock) if stock else ())


# Captain: As-2s-3s, 4-5-6h, 7-8-9d and Kc (count 10). Box: nothing melds (count 57).
CAPTAIN = "As 2s 3s 4h 5h 6h 7d 8d 9d Kc"
BOX = "Ac 3c 5c 7c 9c Jh Qd 2h 4d 6s"
DECK_A = make_deck(CAPTAIN, BOX, "Td", "Qs 8h Js")


def play(hand, *actions):
    for action in actions:
        hand, _ = hand.apply(action)
    return hand


def assert_illegal(hand, action, rule):
    before = copy.deepcopy(hand)
    with pytest.raises(IllegalAction) as error:
        hand.apply(action)
    assert error.value.rule == rule
    assert hand == before
    return error.value


def same_cards(held, text):
    return sorted(held) == sorted(cards(text))


# R4: the deal --------------------------------------------------------------


def test_r4_1_the_box_deals_so_the_captain_gets_the_first_card_and_plays_first():
    hand = deal(DECK)
    assert hand.captain[0] == DECK[0] and hand.box[0] == DECK[1]
    assert hand.to_move is Role.CAPTAIN


def test_r4_2_ten_cards_each_to_box_and_captain_the_sitter_gets_none():
    hand = deal(DECK_A)
    assert same_cards(hand.captain, CAPTAIN)
    assert same_cards(hand.box, BOX)
    assert hand.cards_of(Role.SITTER) == ()
    assert hand.cards_of(Role.CAPTAIN) == hand.captain and hand.cards_of(Role.BOX) == hand.box


def test_r4_2_dealing_alternates_from_the_non_dealer():
    hand = deal(DECK)
    assert hand.captain == DECK[0:20:2]
    assert hand.box == DECK[1:20:2]


def test_r4_3_one_upcard_starts_the_pile_the_other_31_are_the_stock():
    hand = deal(DECK_A)
    assert hand.pile == (card("Td"),)
    assert len(hand.stock) == 31
    assert hand.stock[:3] == tuple(cards("Qs 8h Js"))


def test_r1_1_a_deal_needs_the_52_cards_of_one_deck():
    for deck in (DECK[:51], (*DECK[:51], DECK[0]), (*DECK, DECK[0])):
        with pytest.raises(IllegalAction) as error:
            deal(deck)
        assert error.value.rule == "R1.1"


# R5: the upcard --------------------------------------------------------------


def test_r5_1_the_captain_decides_first_on_the_upcard():
    hand = deal(DECK_A)
    assert (hand.to_move, hand.phase) == (Role.CAPTAIN, Phase.UPCARD)
    assert hand.legal_actions() == [Take(), Pass()]


def test_r5_1_on_the_first_turn_nobody_draws_from_the_stock():
    assert_illegal(deal(DECK_A), Draw(), "R5.1")
    assert_illegal(play(deal(DECK_A), Pass()), Draw(), "R5.1")


def test_r5_3_captain_takes_the_upcard_discards_then_the_box_plays():
    hand, events = deal(DECK_A).apply(Take())
    assert [(e.kind, e.role, e.card) for e in events] == [("take", Role.CAPTAIN, card("Td"))]
    assert (hand.to_move, hand.phase, hand.pile) == (Role.CAPTAIN, Phase.DISCARD, ())
    assert len(hand.captain) == 11 and card("Td") in hand.captain
    hand, events = hand.apply(Discard(card("Kc")))
    assert [(e.kind, e.role, e.card) for e in events] == [("discard", Role.CAPTAIN, card("Kc"))]
    assert (hand.to_move, hand.phase, hand.pile) == (Role.BOX, Phase.DRAW, (card("Kc"),))
    assert hand.legal_actions() == [Take(), Draw()]
    assert len(hand.stock) == 31


def test_r5_2_captain_passes_and_the_box_takes_the_upcard():
    hand, events = deal(DECK_A).apply(Pass())
    assert [(e.kind, e.role) for e in events] == [("pass", Role.CAPTAIN)]
    assert (hand.to_move, hand.phase) == (Role.BOX, Phase.UPCARD)
    assert hand.legal_actions() == [Take(), Pass()]
    hand = play(hand, Take())
    assert (hand.to_move, hand.phase) == (Role.BOX, Phase.DISCARD)
    assert card("Td") in hand.box and len(hand.box) == 11
    hand = play(hand, Discard(card("Jh")))
    # R5.3: then the other player, the captain, takes a turn, and may take that discard.
    assert (hand.to_move, hand.phase) == (Role.CAPTAIN, Phase.DRAW)
    assert hand.legal_actions() == [Take(), Draw()]
    hand = play(hand, Take())
    assert card("Jh") in hand.captain


def test_r5_4_both_pass_so_the_captain_must_draw_from_the_stock():
    hand = play(deal(DECK_A), Pass(), Pass())
    assert (hand.to_move, hand.phase) == (Role.CAPTAIN, Phase.DRAW)
    assert hand.upcard_taker_must_draw
    assert hand.legal_actions() == [Draw()]
    assert_illegal(hand, Take(), "R5.4")
    hand, events = hand.apply(Draw())
    assert [(e.kind, e.role, e.card) for e in events] == [("draw", Role.CAPTAIN, card("Qs"))]
    assert card("Qs") in hand.captain and len(hand.stock) == 30
    hand = play(hand, Discard(card("Qs")))
    # From then on the box may take the captain's discard as usual.
    assert not hand.upcard_taker_must_draw
    assert hand.legal_actions() == [Take(), Draw()]


def test_r5_passing_is_only_for_the_upcard():
    hand = play(deal(DECK_A), Take())
    assert_illegal(hand, Pass(), "R5")
    hand = play(hand, Discard(card("Kc")))
    assert_illegal(hand, Pass(), "R5")


# R6: a turn ----------------------------------------------------------------


def test_r6_1_take_one_card_then_discard_one():
    hand = play(deal(DECK_A), Take())
    assert_illegal(hand, Take(), "R6.1")
    assert_illegal(hand, Draw(), "R6.1")
    hand = play(hand, Discard(card("Kc")))
    assert_illegal(hand, Discard(card("Jh")), "R6.1")
    assert_illegal(hand, Knock(card("Jh")), "R6.1")


def test_r6_1_a_card_not_held_cannot_be_discarded():
    hand = play(deal(DECK_A), Take())
    assert_illegal(hand, Discard(card("Jh")), "R6.1")
    assert_illegal(hand, Knock(card("Qs")), "R6.1")


def test_r6_1_taking_from_the_stock_takes_its_top_card():
    hand = play(deal(DECK_A), Pass(), Pass(), Draw(), Discard(card("Qs")), Draw())
    assert card("8h") in hand.box
    assert hand.stock[0] == card("Js")


def test_r6_1_the_card_drawn_from_the_stock_is_known_until_the_discard():
    hand = play(deal(DECK_A), Pass(), Pass(), Draw())
    assert hand.drawn == card("Qs")
    assert play(hand, Discard(card("Qs"))).drawn is None
    assert play(deal(DECK_A), Take()).drawn is None  # a take shows its card on the pile, not here
    assert deal(DECK_A).drawn is None


def test_r6_1_unknown_actions_are_refused():
    assert_illegal(deal(DECK_A), "take", "R6.1")


def test_r6_2_default_the_card_taken_from_the_pile_may_not_be_discarded():
    hand = play(deal(DECK_A), Take())
    error = assert_illegal(hand, Discard(card("Td")), "R6.2")
    assert "Td" in str(error)
    assert_illegal(hand, Knock(card("Td")), "R6.2")
    assert Discard(card("Td")) not in hand.legal_actions()
    assert Knock(card("Td")) not in hand.legal_actions()


def test_r6_2_option_on_the_card_taken_from_the_pile_may_be_discarded():
    hand = play(deal(DECK_A, Options(may_discard_taken=True)), Take())
    assert Discard(card("Td")) in hand.legal_actions()
    hand = play(hand, Discard(card("Td")))
    assert hand.pile == (card("Td"),)
    assert same_cards(hand.captain, CAPTAIN)


def test_r6_2_a_card_drawn_from_the_stock_may_be_discarded_at_once():
    hand = play(deal(DECK_A), Pass(), Pass(), Draw())
    assert Discard(card("Qs")) in hand.legal_actions()
    hand = play(hand, Discard(card("Qs")))
    assert hand.pile[-1] == card("Qs")


def test_r6_2_the_restriction_lasts_one_turn():
    hand = play(deal(DECK_A), Take(), Discard(card("Kc")), Draw(), Discard(card("Jh")), Draw())
    assert Discard(card("Td")) in hand.legal_actions()


def test_r6_3_box_and_captain_alternate_turns():
    hand = play(deal(DECK_A), Pass(), Pass())
    movers = []
    for _ in range(6):
        movers.append(hand.to_move)
        hand = play(hand, Draw())
        hand = play(hand, Discard(hand.cards_of(hand.to_move)[-1]))
    assert movers == [Role.CAPTAIN, Role.BOX] * 3


# R7: knocking --------------------------------------------------------------


def test_r7_1_the_captain_may_knock_on_the_first_turn_after_taking_the_upcard():
    hand = play(deal(DECK_A), Take())
    assert Knock(card("Kc")) in hand.legal_actions()
    hand, events = hand.apply(Knock(card("Kc")))
    assert hand.is_over and hand.phase is Phase.OVER
    assert [e.kind for e in events] == ["knock", "hand_over"]
    result = hand.result
    assert (result.kind, result.knocker, result.winner) == ("gin", Role.CAPTAIN, Role.CAPTAIN)
    assert result.points == 25 + deadwood(cards(BOX))
    assert events[1].result == result
    assert hand.pile[-1] == card("Kc")


def test_r7_1_the_box_may_knock_on_his_first_turn_after_taking_the_upcard():
    deck = make_deck(BOX, CAPTAIN, "4c")  # hands swapped: the strong one is the box's
    hand = play(deal(deck), Pass(), Take(), Knock(card("Kc")))
    assert (hand.result.kind, hand.result.knocker, hand.result.winner) == ("knock", Role.BOX, Role.BOX)
    assert hand.result.settlement.knocker_count == 4


def test_r7_1_knocking_comes_after_taking_a_card():
    assert_illegal(deal(DECK_A), Knock(card("Kc")), "R5.1")  # on the upcard: take it or pass
    assert_illegal(play(deal(DECK_A), Take(), Discard(card("Kc"))), Knock(card("Kc")), "R6.1")
    assert_illegal(play(deal(DECK_A), Pass(), Pass()), Knock(card("Kc")), "R5.4")  # the forced draw first


def test_r7_2_a_knock_over_10_is_refused_and_the_hand_is_unchanged():
    hand = play(deal(DECK_A), Take())
    error = assert_illegal(hand, Knock(card("As")), "R7.2")
    assert "10" in str(error)
    assert Knock(card("As")) not in hand.legal_actions()
    hand = play(hand, Discard(card("Kc")), Draw())
    assert_illegal(hand, Knock(card("Qs")), "R7.2")


def test_r7_2_a_knock_with_10_is_allowed():
    hand = play(deal(DECK_A), Pass(), Pass(), Draw())
    assert hand.count_after_discard(card("Qs")) == 10
    hand = play(hand, Knock(card("Qs")))
    assert (hand.result.kind, hand.result.settlement.knocker_count) == ("knock", 10)


def test_r7_2_knocking_is_never_required():
    hand = play(deal(DECK_A), Take())
    assert Discard(card("Kc")) in hand.legal_actions()
    hand = play(hand, Discard(card("Kc")))
    assert not hand.is_over


def test_r7_3_r7_4_after_a_knock_both_hands_are_laid_out():
    hand = play(deal(DECK_A), Pass(), Pass(), Draw(), Knock(card("Qs")))
    settlement = hand.result.settlement
    knocker = [c for meld in settlement.knocker.melds for c in meld.cards] + list(settlement.knocker.deadwood)
    assert sorted(knocker) == sorted(hand.captain)
    defender = [c for meld in settlement.defender.melds for c in meld.cards] + list(settlement.defender.deadwood)
    assert sorted(defender + [c for c, _ in settlement.layoffs]) == sorted(hand.box)


def test_r7_5_layoffs_happen_in_a_knocked_hand():
    # The box holds Td and 7h: both lay off on the captain's runs.
    deck = make_deck(CAPTAIN, "Td 7h 5c 7c 9c Jh Qd 2h 4d 6s", "Ac")
    hand = play(deal(deck), Take(), Knock(card("Kc")))
    settlement = hand.result.settlement
    assert sorted(str(c) for c, _ in settlement.layoffs) == ["7h", "Td"]
    assert settlement.defender_count == deadwood(cards("5c 7c 9c Jh Qd 2h 4d 6s"))
    assert hand.result.points == settlement.defender_count - 1


# R8: scoring a knocked hand ---------------------------------------------------


def test_r8_3_gin_bonus_option_reaches_the_hand():
    hand = play(deal(DECK_A, Options(gin_bonus=20)), Take(), Knock(card("Kc")))
    assert hand.result.points == 20 + deadwood(cards(BOX))


def test_r8_4_undercut_in_a_hand_goes_to_the_defender():
    # The box's hand counts 3 (Ac 2c); the captain knocks with 10.
    box = "Ac 2c 9h Th Jh Qh Kh 2d 3d 4d"
    deck = make_deck(CAPTAIN, box, "Ks", "Qs")
    hand = play(deal(deck, Options(undercut_bonus=15)), Pass(), Pass(), Draw(), Knock(card("Qs")))
    result = hand.result
    assert (result.kind, result.knocker, result.winner, result.loser) == (
        "undercut",
        Role.CAPTAIN,
        Role.BOX,
        Role.CAPTAIN,
    )
    assert (result.settlement.knocker_count, result.settlement.defender_count) == (10, 3)
    assert result.points == 15 + 10 - 3


def test_r8_6_an_undercut_for_0_in_a_hand_is_won_by_the_defender():
    # Equal counts, 10 each (the captain's Kc, the box's Js), and an undercut bonus of 0.
    box = "9h Th Jh Qh Kh 2c 3c 4c 5c Js"
    deck = make_deck(CAPTAIN, box, "Ks", "Qs")
    hand = play(deal(deck, Options(undercut_bonus=0)), Pass(), Pass(), Draw(), Knock(card("Qs")))
    result = hand.result
    assert (result.settlement.knocker_count, result.settlement.defender_count) == (10, 10)
    assert (result.kind, result.knocker, result.winner, result.loser, result.points) == (
        "undercut",
        Role.CAPTAIN,
        Role.BOX,
        Role.CAPTAIN,
        0,
    )


def test_r8_5_the_sitter_never_wins_a_hand():
    hand = play(deal(DECK_A), Take(), Knock(card("Kc")))
    assert hand.result.winner in (Role.BOX, Role.CAPTAIN)
    assert hand.cards_of(Role.SITTER) == ()


def test_r8_6_the_other_active_player_is_the_loser():
    hand = play(deal(DECK_A), Take(), Knock(card("Kc")))
    assert (hand.result.winner, hand.result.loser) == (Role.CAPTAIN, Role.BOX)


def test_r8_a_finished_hand_takes_no_more_actions():
    hand = play(deal(DECK_A), Take(), Knock(card("Kc")))
    assert hand.legal_actions() == []
    for action in (Draw(), Take(), Pass(), Discard(card("As")), Knock(card("As"))):
        assert_illegal(hand, action, "R8")


# R9: drawn hands ---------------------------------------------------------------


def draw_and_throw(hand, times):
    """Both refuse the upcard, then each turn draws from the stock and throws that card."""
    for _ in range(times):
        hand = play(hand, Draw())
        hand = play(hand, Discard(hand.cards_of(hand.to_move)[-1]))
    return hand


def test_example_the_29th_card_from_the_stock_discarded_without_knocking_draws_the_hand():
    hand = draw_and_throw(play(deal(DECK_A), Pass(), Pass()), 28)
    assert len(hand.stock) == 3 and not hand.is_over
    hand = play(hand, Draw())
    assert len(hand.stock) == 2 and hand.to_move is Role.CAPTAIN
    hand, events = hand.apply(Discard(hand.captain[-1]))
    assert hand.is_over
    assert [e.kind for e in events] == ["discard", "hand_drawn"]
    assert (hand.result.kind, hand.result.winner, hand.result.loser, hand.result.points) == ("draw", None, None, 0)


def test_example_the_taker_of_the_29th_card_may_still_knock():
    hand = draw_and_throw(play(deal(DECK_A), Pass(), Pass()), 28)
    hand = play(hand, Draw())
    hand = play(hand, Knock(hand.captain[-1]))
    assert (hand.result.kind, hand.result.knocker) == ("knock", Role.CAPTAIN)
    assert len(hand.stock) == 2


def test_r9_1_only_cards_taken_from_the_stock_count_towards_the_draw():
    hand = draw_and_throw(play(deal(DECK_A), Pass(), Pass()), 28)
    # The captain takes the box's discard instead: the stock keeps 3, play goes on.
    hand = play(hand, Take(), Discard(hand.captain[0]))
    assert len(hand.stock) == 3 and not hand.is_over
    hand = play(hand, Draw())
    hand = play(hand, Discard(hand.box[-1]))
    assert hand.result.kind == "draw"


def test_r9_1_the_hand_is_not_drawn_with_three_cards_left():
    hand = draw_and_throw(play(deal(DECK_A), Pass(), Pass()), 28)
    assert len(hand.stock) == 3
    assert hand.phase is Phase.DRAW and hand.result is None


def test_r9_1_a_drawn_hand_takes_no_more_actions():
    hand = draw_and_throw(play(deal(DECK_A), Pass(), Pass()), 29)
    assert hand.is_over and hand.legal_actions() == []
    assert_illegal(hand, Draw(), "R8")


def take_and_throw(hand, times, keep=""):
    """Each turn takes the top of the pile and throws the first card held that
    may be thrown (R6.2) and is not one of ``keep``."""
    kept = set(cards(keep)) if keep else set()
    for _ in range(times):
        hand = play(hand, Take())
        held = hand.cards_of(hand.to_move)
        hand = play(hand, Discard(next(c for c in held if c != hand.taken and c not in kept)))
    return hand


def test_r9_3_the_50th_take_from_the_pile_followed_by_a_discard_draws_the_hand():
    hand = take_and_throw(deal(DECK_A), 49)  # the upcard was the first take
    assert (hand.pile_takes, len(hand.stock), hand.is_over) == (49, 31, False)
    hand = play(hand, Take())
    assert hand.pile_takes == 50
    hand, events = hand.apply(Discard(next(c for c in hand.cards_of(hand.to_move) if c != hand.taken)))
    assert hand.is_over and len(hand.stock) == 31
    assert [e.kind for e in events] == ["discard", "hand_drawn"]
    assert (hand.result.kind, hand.result.winner, hand.result.loser, hand.result.points) == ("draw", None, None, 0)


def test_r9_3_49_takes_do_not_draw_the_hand_and_only_takes_count():
    hand = take_and_throw(deal(DECK_A), 49)
    assert hand.phase is Phase.DRAW and hand.result is None
    hand = draw_and_throw(hand, 1)  # a card from the stock is no take from the pile
    assert (hand.pile_takes, hand.is_over) == (49, False)
    hand = take_and_throw(hand, 1)
    assert (hand.pile_takes, hand.result.kind) == (50, "draw")


def test_r9_3_the_taker_of_the_50th_pile_card_may_still_knock():
    # The box holds the melds; each turn both throw their oldest loose card.
    deck = make_deck(BOX, CAPTAIN, "Td")
    hand = take_and_throw(deal(deck), 49, keep="As 2s 3s 4h 5h 6h 7d 8d 9d")
    hand = play(hand, Take())
    assert (hand.to_move, hand.pile_takes) == (Role.BOX, 50)
    loose = [c for c in hand.box if c not in cards("As 2s 3s 4h 5h 6h 7d 8d 9d")]
    hand = play(hand, Knock(loose[0]))
    assert (hand.result.kind, hand.result.knocker, hand.result.winner) == ("knock", Role.BOX, Role.BOX)
    assert hand.result.settlement.knocker_count == loose[1].points


def test_r9_1_r9_3_the_longest_hand_has_max_turns_and_max_actions():
    # Both refuse the upcard; 28 cards from the stock and 49 from the pile go on,
    # and the 29th card from the stock ends the hand on turn 78.
    hand = draw_and_throw(play(deal(DECK_A), Pass(), Pass()), 1)
    hand = take_and_throw(hand, 49)
    hand = draw_and_throw(hand, 27)
    assert (hand.turns, hand.pile_takes, len(hand.stock), hand.is_over) == (77, 49, 3, False)
    hand = draw_and_throw(hand, 1)
    assert hand.result.kind == "draw"
    assert hand.turns == MAX_TURNS == 78
    assert MAX_ACTIONS == 2 + 2 * 78


# Actions as text and replay ------------------------------------------------------


@pytest.mark.parametrize("action", [Pass(), Take(), Draw(), Discard(card("Td")), Knock(card("7h"))])
def test_actions_read_back_from_their_text(action):
    assert parse_action(str(action)) == action


def test_actions_accept_the_ways_players_write_cards():
    assert parse_action(" Discard 10d ") == Discard(card("Td"))
    assert parse_action("knock q♠") == Knock(card("Qs"))
    for text in ("", "hop", "discard", "pass 7h", "knock 7h 8h"):
        with pytest.raises(ValueError):
            parse_action(text)


def test_r9_3_replay_counts_the_takes_from_the_pile():
    actions = [Take(), Discard(card("Kc")), Take(), Discard(card("Ac")), Draw(), Discard(card("As"))]
    assert replay(DECK_A, actions).pile_takes == 2


def test_replay_reaches_the_same_hand():
    actions = [Pass(), Pass(), Draw(), Discard(card("Qs")), Take(), Discard(card("Jh"))]
    assert replay(DECK_A, actions) == play(deal(DECK_A), *actions)


def test_a_hand_after_moves_stays_a_frozen_value():
    actions = [Pass(), Pass(), Draw(), Discard(card("Qs")), Take(), Discard(card("Jh"))]
    hand, again = replay(DECK_A, actions), replay(DECK_A, actions)
    assert hand == again and hash(hand) == hash(again) and hand is not again
    assert copy.deepcopy(hand) == hand
    with pytest.raises(dataclasses.FrozenInstanceError):
        hand.turns = 0


def test_hand_prints_what_a_player_at_the_table_would_see():
    text = str(deal(DECK_A))
    assert "pile Td stock 31 captain to upcard" in text
