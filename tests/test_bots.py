"""Computer players: legal, blind to hidden cards, and as documented (games/engine/bots.py)."""

import random
from dataclasses import fields, replace

import pytest

from games.engine import (
    DECK,
    Discard,
    Draw,
    Knock,
    Options,
    Pass,
    Phase,
    Role,
    Take,
    deal,
    parse_cards,
    stacked_deck,
)
from games.engine.bots import BotView, RandomBot, bot_view
from games.engine.levels import STRATEGIES, make_strategy
from games.engine.simulate import play_game

# A searching level's budget in these tests: a few worlds a move, enough to test
# that it plays by the rules, not how well.
QUICK = 0.005


def card(text):
    (one,) = parse_cards(text)
    return one


def make_deck(captain, box, upcard, stock=""):
    """A deck dealt as the engine deals (R4.2): captain first, then box, in turn."""
    return stacked_deck(parse_cards(captain), parse_cards(box), card(upcard), parse_cards(stock) if stock else ())


def play(hand, *actions):
    log = []
    for action in actions:
        hand, events = hand.apply(action)
        log += events
    return hand, log


def random_states(seed, hands, options=None):
    """Every state (hand, log so far) of ``hands`` hands played by random bots."""
    rng = random.Random(seed)
    mover = RandomBot(rng)
    for _ in range(hands):
        hand, log = deal(rng.sample(DECK, 52), options), []
        while not hand.is_over:
            yield hand, log
            hand, events = hand.apply(mover.choose(bot_view(hand, hand.to_move, log)))
            log = log + events


# Legal, and blind -------------------------------------------------------------


@pytest.mark.parametrize("options", [Options(), Options(may_discard_taken=True)], ids=["R6.2", "no-R6.2"])
@pytest.mark.parametrize("name", list(STRATEGIES))
def test_every_bot_only_ever_chooses_a_legal_action(name, options):
    bot = make_strategy(name, random.Random(1), budget=QUICK)
    # The search costs a few milliseconds a move even on the quickest budget.
    hands = 4 if name == "hard" else 25
    for hand, log in random_states(seed=2, hands=hands, options=options):
        action = bot.choose(bot_view(hand, hand.to_move, log))
        assert action in hand.legal_actions(), f"{name} chose {action} in {hand}"


@pytest.mark.parametrize("name", list(STRATEGIES))
def test_every_bot_plays_whole_hands_against_itself(name):
    rng = random.Random(5)
    bot = make_strategy(name, rng, budget=QUICK)
    for _ in range(10):
        hand, log = deal(rng.sample(DECK, 52)), []
        while not hand.is_over:
            hand, events = hand.apply(bot.choose(bot_view(hand, hand.to_move, log)))
            log += events
        assert hand.result.kind in ("knock", "gin", "undercut", "draw")


def test_the_view_has_no_field_for_the_opponents_hand_or_the_stock_order():
    names = {field.name for field in fields(BotView)}
    assert not names & {"deck", "stock", "box", "captain", "hand", "opponent_cards"}
    assert "stock_size" in names


def hide(hand, role):
    """The same hand with the opponent's hidden cards swapped for stock cards and the
    stock reversed: nothing the player may know differs (R4.4)."""
    opponent = role.opponent
    held = list(hand.cards_of(opponent))
    stock = list(hand.stock)
    for index, held_card in enumerate(held):
        if held_card != hand.taken and stock:
            held[index], stock[0] = stock[0], held_card
            stock = stock[1:] + stock[:1]
    changed = {opponent.value: tuple(held), "stock": tuple(reversed(stock))}
    return replace(hand, **changed)


def test_the_view_is_the_same_whatever_the_opponent_hides_and_the_stock_order():
    for hand, log in random_states(seed=3, hands=10):
        role = hand.to_move
        # The opponent's cards taken from the pile are public; keep them out of the swap.
        public = {e.card for e in log if e.kind == "take" and e.role is role.opponent}
        if public & set(hand.cards_of(role.opponent)):
            continue
        view = bot_view(hand, role, log)
        assert bot_view(hide(hand, role), role, log) == view
        strong = make_strategy("strong", random.Random(0))
        assert strong.choose(view) == strong.choose(bot_view(hide(hand, role), role, log))


def test_a_card_drawn_from_the_stock_stays_secret_even_if_the_log_carries_it():
    deck = make_deck("As 2s 3s 4h 5h 6h 7d 8d 9d Kc", "Ac 3c 5c 7c 9c Jh Qd 2h 4d 6s", "Td", "Qs 8h")
    hand, log = play(deal(deck), Pass(), Pass(), Draw(), Discard(card("Qs")))
    view = bot_view(hand, Role.BOX, log)
    assert card("Qs") in view.opponent_discards
    assert view.opponent_holds == frozenset()
    assert card("Td") in view.opponent_refused


def test_the_view_knows_the_cards_the_opponent_took_from_the_pile():
    deck = make_deck("As 2s 3s 4h 5h 6h 7d 8d 9d Kc", "Ac 3c 5c 7c 9c Jh Qd 2h 4d 6s", "Td", "Qs 8h")
    hand, log = play(deal(deck), Take(), Discard(card("Kc")))
    view = bot_view(hand, Role.BOX, log)
    assert view.opponent_holds == {card("Td")}
    assert view.opponent_discards == (card("Kc"),)
    assert view.pile == (card("Kc"),)


def test_a_sitter_has_no_view_of_his_own():
    hand = deal(DECK)
    with pytest.raises(ValueError, match=r"R3\.2"):
        bot_view(hand, Role.SITTER)


def test_make_strategy_names_the_choices_for_an_unknown_name():
    with pytest.raises(ValueError, match="simple"):
        make_strategy("grandmaster", random.Random(0))


# The simple bot -------------------------------------------------------------------


def test_simple_bot_takes_the_upcard_when_it_joins_a_meld():
    deck = make_deck("7s 7h 2c 4d 9c Jh Qd Kc 3s As", "Ac 3c 5c 7c 9d Js Qh 2h 4h 6s", "7d")
    hand = deal(deck)
    assert make_strategy("simple", random.Random(0)).choose(bot_view(hand, Role.CAPTAIN)) == Take()


def test_simple_bot_refuses_an_upcard_that_joins_no_meld_however_low():
    deck = make_deck("7s 7h 2c 4d 9c Jh Qd Kc 3s 5h", "Ac 3c 5c 7c 9d Js Qh 2h 4h 6s", "Ad")
    hand = deal(deck)
    assert make_strategy("simple", random.Random(0)).choose(bot_view(hand, Role.CAPTAIN)) == Pass()


def test_simple_bot_takes_the_pile_card_in_play_only_when_it_joins_a_meld():
    deck = make_deck("7s 7h 2c 4d 9c Jh Qd Kc 3s 5h", "Ac 3c 5c 7c 9d Js Qh 2h 4h 6s", "Ad", "Kd 7d")
    simple = make_strategy("simple", random.Random(0))
    hand, log = play(deal(deck), Pass(), Pass(), Draw(), Discard(card("Kd")))
    assert simple.choose(bot_view(hand, Role.BOX, log)) == Draw()  # Kd joins nothing of the box
    hand, log = play(deal(deck), Pass(), Pass(), Draw(), Discard(card("Kd")), Draw(), Discard(card("7d")))
    assert simple.choose(bot_view(hand, Role.CAPTAIN, log)) == Take()  # 7d joins 7s 7h


def test_simple_bot_discards_the_highest_deadwood_card():
    # After taking 7d the captain holds 7s 7h 7d and deadwood 2c 4d 9c Jh Qd Kc 3s: Kc goes.
    deck = make_deck("7s 7h 2c 4d 9c Jh Qd Kc 3s As", "Ac 3c 5c 7c 9d Js Qh 2h 4h 6s", "7d")
    hand, log = play(deal(deck), Take())
    action = make_strategy("simple", random.Random(0)).choose(bot_view(hand, Role.CAPTAIN, log))
    assert action == Discard(card("Kc"))


def test_simple_bot_knocks_as_soon_as_it_may():
    # As-2s-3s, 4-5-6h, 7-8-9d, Kc and the upcard Td: discarding Kc leaves 10 (R7.2).
    deck = make_deck("As 2s 3s 4h 5h 6h 7d 8d 9d Kc", "Ac 3c 5c 7c 9c Jh Qd 2h 4d 6s", "Tc")
    hand, log = play(deal(deck), Pass(), Pass(), Draw())
    view = bot_view(hand, Role.CAPTAIN, log)
    action = make_strategy("simple", random.Random(0)).choose(view)
    assert isinstance(action, Knock)
    assert hand.count_after_discard(action.card) == min(
        hand.count_after_discard(c) for c in hand.cards_of(Role.CAPTAIN) if c != hand.taken
    )


def test_simple_bot_always_discards_a_card_that_leaves_the_lowest_count():
    simple = make_strategy("simple", random.Random(0))
    for hand, log in random_states(seed=4, hands=15):
        if hand.phase is not Phase.DISCARD:
            continue
        action = simple.choose(bot_view(hand, hand.to_move, log))
        lowest = min(hand.count_after_discard(a.card) for a in hand.legal_actions() if type(a) is Discard)
        assert hand.count_after_discard(action.card) == lowest
        assert isinstance(action, Knock) == (lowest <= 10)


# The strong bot -------------------------------------------------------------------


def test_strong_bot_goes_gin_when_it_can():
    # Td joins 7-8-9d; with Kc thrown As-2s-3s, 4-5-6h, 7-8-9-Td is gin (R8.3).
    deck = make_deck("As 2s 3s 4h 5h 6h 7d 8d 9d Kc", "Ac 3c 5c 7c 9c Jh Qd 2h 4d 6s", "Tc", "Td")
    hand, log = play(deal(deck), Pass(), Pass(), Draw())
    assert make_strategy("strong", random.Random(0)).choose(bot_view(hand, Role.CAPTAIN, log)) == Knock(card("Kc"))


def test_strong_bot_keeps_a_card_near_one_the_opponent_took_at_a_small_cost():
    # The box took 8h from the pile. Throwing Th would leave the lowest count (18), but
    # Th may meld with 8h; 9s leaves 19 and feeds nothing known. The simple bot throws Th.
    deck = make_deck("Ks Kh Kd 3c 4c 5c As Th 9s 2d", "8s 8c Ah 3h Jd Qd Td 4h 7s Jc", "8h", "6d")
    hand, log = play(deal(deck), Pass(), Take(), Discard(card("7s")), Draw())
    view = bot_view(hand, Role.CAPTAIN, log)
    assert view.opponent_holds == {card("8h")}
    assert make_strategy("simple", random.Random(0)).choose(view) == Discard(card("Th"))
    assert make_strategy("strong", random.Random(0)).choose(view) == Discard(card("9s"))


def test_strong_bot_beats_the_simple_bot_head_to_head():
    rng = random.Random(11)
    strong, simple = make_strategy("strong", rng), make_strategy("simple", rng)
    net = 0
    for index in range(300):
        strong_role = Role.CAPTAIN if index % 2 else Role.BOX
        hand, log = deal(rng.sample(DECK, 52)), []
        while not hand.is_over:
            bot = strong if hand.to_move is strong_role else simple
            hand, events = hand.apply(bot.choose(bot_view(hand, hand.to_move, log)))
            log += events
        if hand.result.winner is not None:
            net += hand.result.points if hand.result.winner is strong_role else -hand.result.points
    assert net > 0


# Determinism ------------------------------------------------------------------------


@pytest.mark.parametrize("players", [["simple", "strong", "strong"], ["random", "simple", "strong"]])
def test_a_game_is_the_same_given_the_same_seed(players):
    first = play_game(players, random.Random(42), Options(target=50))
    again = play_game(players, random.Random(42), Options(target=50))
    assert first == again
