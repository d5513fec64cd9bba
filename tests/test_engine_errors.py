"""Every refusal of the engine carries a documented code and its parameters, so
the text layer can tell a player why in his language (errors.REASONS)."""

import copy
import pickle

import pytest

from games.engine import (
    DECK,
    Card,
    CardError,
    Discard,
    Draw,
    EngineError,
    IllegalAction,
    Knock,
    Options,
    Pass,
    Take,
    deadwood,
    deal,
    parse_cards,
    settle,
    stacked_deck,
)
from games.engine.cards import mask_of
from games.engine.errors import CODES, REASON_OF, REASONS


def card(text):
    return Card.parse(text)


CAPTAIN = "As 2s 3s 4h 5h 6h 7d 8d 9d Kc"  # count 10
BOX = "Ac 3c 5c 7c 9c Jh Qd 2h 4d 6s"
DECK_A = stacked_deck(parse_cards(CAPTAIN), parse_cards(BOX), card("Td"), parse_cards("Qs 8h Js"))


def play(*actions, options=None):
    hand = deal(DECK_A, options)
    for action in actions:
        hand, _ = hand.apply(action)
    return hand


def attempt(*actions):
    """Play all but the last action, then try the last one."""
    *before, last = actions
    return lambda: play(*before).apply(last)


def drawn_hand():
    """Both refuse the upcard, then each turn draws and throws the card drawn (R9.1)."""
    hand = play(Pass(), Pass())
    while not hand.is_over:
        hand, _ = hand.apply(Draw())
        hand, _ = hand.apply(Discard(hand.cards_of(hand.to_move)[-1]))
    return hand


# (what is tried, the error class, its code, its parameters)
CASES = [
    ("a move after a knock", attempt(Take(), Knock(card("Kc")), Draw()), IllegalAction, "hand_over", {}),
    ("a move after a drawn hand", lambda: drawn_hand().apply(Draw()), IllegalAction, "hand_over", {}),
    ("something that is no action", attempt("take"), IllegalAction, "not_a_move", {"action": "take"}),
    ("drawing on the first turn", attempt(Draw()), IllegalAction, "upcard_first", {}),
    ("the box drawing on the first turn", attempt(Pass(), Draw()), IllegalAction, "upcard_first", {}),
    ("passing after the upcard", attempt(Take(), Pass()), IllegalAction, "pass_only_upcard", {}),
    ("passing in a later turn", attempt(Take(), Discard(card("Kc")), Pass()), IllegalAction, "pass_only_upcard", {}),
    ("taking after both passed", attempt(Pass(), Pass(), Take()), IllegalAction, "must_draw", {}),
    ("taking twice", attempt(Take(), Take()), IllegalAction, "already_took", {}),
    ("drawing after taking", attempt(Take(), Draw()), IllegalAction, "already_took", {}),
    (
        "discarding before taking",
        attempt(Take(), Discard(card("Kc")), Discard(card("Jh"))),
        IllegalAction,
        "take_first",
        {},
    ),
    (
        "R5.1: discarding on the upcard says take it or pass",
        attempt(Discard(card("Kc"))),
        IllegalAction,
        "upcard_first",
        {},
    ),
    (
        "R5.4: knocking before the forced draw says draw",
        attempt(Pass(), Pass(), Knock(card("Kc"))),
        IllegalAction,
        "must_draw",
        {},
    ),
    (
        "R5.4: discarding before the forced draw says draw",
        attempt(Pass(), Pass(), Discard(card("Kc"))),
        IllegalAction,
        "must_draw",
        {},
    ),
    (
        "knocking before taking",
        attempt(Take(), Discard(card("Kc")), Knock(card("Jh"))),
        IllegalAction,
        "take_first",
        {},
    ),
    (
        "discarding a card not held",
        attempt(Take(), Discard(card("Jh"))),
        IllegalAction,
        "not_held",
        {"card": card("Jh")},
    ),
    ("knocking a card not held", attempt(Take(), Knock(card("Qs"))), IllegalAction, "not_held", {"card": card("Qs")}),
    (
        "discarding the card taken",
        attempt(Take(), Discard(card("Td"))),
        IllegalAction,
        "taken_card",
        {"card": card("Td")},
    ),
    ("knocking the card taken", attempt(Take(), Knock(card("Td"))), IllegalAction, "taken_card", {"card": card("Td")}),
    ("knocking over 10", attempt(Take(), Knock(card("As"))), IllegalAction, "knock_limit", {"count": 15, "limit": 10}),
    ("dealing 51 cards", lambda: deal(DECK[:51]), IllegalAction, "bad_deck", {}),
    ("dealing a card twice", lambda: deal((*DECK[:51], DECK[0])), IllegalAction, "bad_deck", {}),
    (
        "settling hands that share a card",
        lambda: settle(parse_cards(CAPTAIN), parse_cards("Kc 3c 5c 7c 9c Jh Qd 2h 4d 6s")),
        IllegalAction,
        "shared_card",
        {},
    ),
    (
        "settling a knock over 10",
        lambda: settle(parse_cards("As 2s 3s 4h 5h 6h 7d 8d Jd Kc"), parse_cards(BOX)),
        IllegalAction,
        "knock_limit",
        {"count": 35, "limit": 10},
    ),
    ("text that is not a card", lambda: Card.parse("1x"), CardError, "not_a_card", {"text": "1x"}),
    ("an index that is no card", lambda: Card(52), CardError, "no_card_index", {"index": 52}),
    ("a negative index", lambda: Card(-1), CardError, "no_card_index", {"index": -1}),
    ("a rank that is no card", lambda: Card.of(14, "s"), CardError, "no_card_rank_suit", {"rank": 14, "suit": "s"}),
    ("a suit that is no card", lambda: Card.of(3, "x"), CardError, "no_card_rank_suit", {"rank": 3, "suit": "x"}),
    (
        "a hand with a card twice",
        lambda: deadwood(parse_cards("As 2s As")),
        CardError,
        "card_twice",
        {"card": card("As")},
    ),
    ("a mask of a card twice", lambda: mask_of(parse_cards("9d Kc 9d")), CardError, "card_twice", {"card": card("9d")}),
    ("a gin bonus of 30", lambda: Options(gin_bonus=30), EngineError, "gin_bonus_choice", {"value": 30}),
    (
        "an undercut bonus of 26",
        lambda: Options(undercut_bonus=26),
        EngineError,
        "undercut_bonus_range",
        {"value": 26, "low": 0, "high": 25},
    ),
    ("a target of 40", lambda: Options(target=40), EngineError, "target_range", {"value": 40, "low": 50, "high": 500}),
]


@pytest.mark.parametrize(("tried", "thunk", "kind", "code", "params"), CASES, ids=[case[0] for case in CASES])
def test_every_refusal_raises_its_documented_code_and_parameters(tried, thunk, kind, code, params):
    with pytest.raises(kind) as raised:
        thunk()
    error = raised.value
    assert (error.code, error.params) == (code, params)
    assert error.rule == REASON_OF[code].rule
    for name, value in params.items():
        assert getattr(error, name) == value
    assert error.message == REASON_OF[code].english.format(**params)
    assert str(error) == (f"{error.message} ({error.rule})" if error.rule else error.message)


def test_every_documented_code_has_a_case_above():
    assert {case[3] for case in CASES} == set(CODES)


def test_codes_are_unique_and_each_sentence_uses_exactly_its_parameters():
    assert len(CODES) == len(REASONS)
    for reason in REASONS:
        params = {name: f"<{name}>" for name in reason.params}
        assert reason.english.format(**params)
        for name in reason.params:
            missing = {other: value for other, value in params.items() if other != name}
            with pytest.raises(KeyError):
                reason.english.format(**missing)


def test_an_error_needs_the_parameters_of_its_code():
    with pytest.raises(TypeError):
        IllegalAction("not_held")
    with pytest.raises(TypeError):
        IllegalAction("hand_over", card=card("7h"))
    with pytest.raises(KeyError):
        IllegalAction("no_such_code")


def test_the_english_message_is_kept_for_logs():
    with pytest.raises(IllegalAction) as raised:
        play(Take()).apply(Discard(card("Jh")))
    assert str(raised.value) == "you do not hold Jh (R6.1)"
    with pytest.raises(CardError) as raised:
        Card.parse("zz")
    assert str(raised.value) == "'zz' is not a card (try 7h, 10d, Qs)"


def test_an_error_survives_pickling_and_copying_with_its_code():
    with pytest.raises(IllegalAction) as raised:
        play(Take()).apply(Knock(card("As")))
    for again in (pickle.loads(pickle.dumps(raised.value)), copy.deepcopy(raised.value)):
        assert type(again) is IllegalAction
        assert (again.code, again.params, str(again)) == (raised.value.code, raised.value.params, str(raised.value))
