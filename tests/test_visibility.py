"""No message or view ever shows a card hidden from its reader (R3.2, R4.4, docs/protocol.md).

Why: the box must never see the captain's cards or the stock, and the captain
and the sitter never the box's cards or the stock, on any channel, in text or
in a button. A card once face up on the pile is public, even after someone took
it back into his hand. This is checked on random states of a hand, for every
seat and every channel, and on every message of whole simulated matches.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.contract.tables import MoveView
from games.engine import DECK, Card, Discard, Hand, Knock, Role, deal, parse_action
from games.models import Hand as HandRow
from games.models import Match, Outbox, Player, Seat
from games.services import handle
from games.services.plumbing import state
from games.services.read.tables import table_view
from games.services.write import computer_moves
from games.text.render import render
from tests.conftest import best_action, code_in, hand_row, mover, refresh

CHANNELS = ("sms", "terminal", "telegram")
NAMES = ("Alice", "Bob", "Carol")
PLAIN_CARD = re.compile(r"(?<!\w)(10|[2-9TJQKA])([shdc])(?!\w)")
SYMBOL_CARD = re.compile(r"(?<!\w)(10|[2-9TJQKA])([♠♥♦♣])")


def cards_in(texts: Iterable[str]) -> set[Card]:
    """Every card named in ``texts``, as plain ASCII (``7h Td``) or with suit symbols (``10♦``)."""
    found = set()
    for text in texts:
        for pattern in (PLAIN_CARD, SYMBOL_CARD):
            found.update(Card.parse(rank + suit) for rank, suit in pattern.findall(text))
    return found


def hidden_from(role: Role, hand: Hand, public: set[Card]) -> set[Card]:
    """What ``role`` may not know: the stock, and the other side's cards that never lay face up."""
    other = Role.CAPTAIN if role is Role.BOX else Role.BOX
    return (set(hand.cards_of(other)) - public) | set(hand.stock)


def seen_by(role: Role, hand: Hand) -> set[Card]:
    """The cards his view shows him: his own, or the captain's for the sitter (R3.2)."""
    return set(hand.cards_of(Role.BOX if role is Role.BOX else Role.CAPTAIN))


def rendered_texts(content: object, channel: str) -> list[str]:
    """The message as it would be sent: its text and every button's label and data."""
    rendered = render(content, channel)
    buttons = [value for row in rendered.buttons for button in row for value in (button["text"], button["data"])]
    return [rendered.text, *buttons]


# Random states of one hand -------------------------------------------------------


@st.composite
def tables(draw):
    """A hand after random legal moves (not ended), random roles for the seats,
    perhaps a sitter's suggestion, and the last moves as the services describe them."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    hand = deal(rng.sample(DECK, len(DECK)))
    public = {hand.pile[-1]}
    box, captain, sitter = draw(st.permutations(range(3)))
    positions = {Role.BOX: box, Role.CAPTAIN: captain}
    described = []
    for _move in range(draw(st.integers(0, 70))):
        action = rng.choice(hand.legal_actions())
        after, _events = hand.apply(action)
        if after.is_over:
            break
        described.append(MoveView(NAMES[positions[hand.to_move]], str(action)))
        hand = after
        public.update(hand.pile)
    suggestion = ""
    if hand.to_move is Role.CAPTAIN and draw(st.booleans()):
        suggestion = str(rng.choice(hand.legal_actions()))
    match = Match(code="K7Q2", version=draw(st.integers(0, 500)), target=100)
    seats = [
        Seat(position=position, score=rng.randrange(100), player=Player(display_name=name, is_computer=position == 2))
        for position, name in enumerate(NAMES)
    ]
    row = HandRow(number=1, box=box, captain=captain, sitter=sitter, suggestion=suggestion, commitment="c0ffee")
    return match, seats, row, hand, public, tuple(described[-2:])


@given(tables())
@settings(max_examples=150, deadline=None)
def test_no_view_on_any_channel_shows_a_card_hidden_from_its_viewer(table):
    match, seats, row, hand, public, last_moves = table
    for position in range(3):
        role = Role(state_role(row, position))
        view = table_view(match, seats, row, hand, position, last_moves)
        hidden = hidden_from(role, hand, public)
        for channel in CHANNELS:
            shown = cards_in(rendered_texts(view, channel))
            assert not shown & hidden, f"{role.value} sees {sorted(shown & hidden)} on {channel}"
            assert seen_by(role, hand) <= shown  # the check would see a leak: it reads the cards he may see


def state_role(row: HandRow, position: int) -> str:
    return {row.box: "box", row.captain: "captain", row.sitter: "sitter"}[position]


# Every message of whole matches --------------------------------------------------


def public_cards(row: HandRow) -> set[Card]:
    """Cards that lay face up in this hand so far: the upcard and every discard."""
    played = [parse_action(data["move"]) for data in state.moves_of(row)]
    return {Card.parse(row.deck.split()[20])} | {
        action.card for action in played if isinstance(action, (Discard, Knock))
    }


PUBLIC_KINDS = ("result", "cut")  # a hand's end shows all; the cut's cards come from a deck of its own (R3.3)


def check_new_messages(match: Match, human: Player, after: int) -> int:
    """Check the messages written since ``after`` against what the human may know now;
    return the last message's id."""
    messages = list(Outbox.objects.filter(pk__gt=after).order_by("pk"))
    row = hand_row(match)
    hidden, role = set(), None  # before the deal (or after the last hand) nothing is hidden
    if row is not None and not row.is_over:
        hand = state.load_hand(match, row)
        role = Role(state_role(row, refresh(match).seats.get(player=human).position))
        hidden = hidden_from(role, hand, public_cards(row))
    for message in messages:
        assert message.recipient == human  # computer players are never written to
        if message.kind in PUBLIC_KINDS:
            continue
        buttons = (value for line in message.buttons for button in line for value in button.values())
        texts = [message.text, *buttons]
        leaked = cards_in(texts) & hidden
        assert not leaked, f"{message.kind} to the {role} shows {sorted(leaked)}:\n{message.text}"
    return messages[-1].pk if messages else after


@pytest.fixture(params=["telegram", "sms"])
def human(request, db):
    """One human, reached on Telegram (HTML, suit symbols, buttons) or by SMS (compact ASCII)."""
    return request.getfixturevalue(f"{request.param}_user"), request.param


@pytest.mark.any_database
def test_no_message_of_a_whole_match_shows_a_card_hidden_from_its_recipient(human):
    player, channel = human
    match = Match.objects.get(code=code_in(handle(player, "new 5m to 50", channel)))
    checked = check_new_messages(match, player, 0)
    handle(player, "bot", channel)
    handle(player, "bot", channel)
    for _step in range(5000):
        match = refresh(match)
        checked = check_new_messages(match, player, checked)
        if match.status != Match.Status.RUNNING:
            break
        if mover(match) == player:
            handle(player, "status", channel)
            checked = check_new_messages(match, player, checked)
            handle(player, str(best_action(match)), channel)
        else:
            assert computer_moves.play_computer_move(match.pk)
    assert match.status == Match.Status.FINISHED
    assert Outbox.objects.filter(recipient=player, kind="result").exists()


@pytest.mark.parametrize("channel", CHANNELS)
def test_r3_2_the_card_just_drawn_is_named_to_the_captain_and_his_sitter_never_the_box(channel):
    """Sorted into the hand, a drawn card would pass unnoticed: the table names it
    until the discard, to the hand that holds it and to the sitter who sees it (R3.2)."""
    hand = deal(random.Random(7).sample(DECK, len(DECK)))
    for action in ("pass", "pass", "draw"):
        hand, _events = hand.apply(parse_action(action))
    drawn = hand.drawn
    assert drawn is not None
    match = Match(code="K7Q2", version=3, target=100)
    seats = [Seat(position=position, score=0, player=Player(display_name=name)) for position, name in enumerate(NAMES)]
    row = HandRow(number=1, box=0, captain=1, sitter=2, commitment="c0ffee")
    first_lines = {
        position: render(table_view(match, seats, row, hand, position), channel).text.splitlines()[1]
        for position in range(3)
    }
    card = drawn.symbol if channel == "telegram" else str(drawn)
    assert first_lines[1] == f"You drew {card}."
    assert first_lines[2] == f"Bob drew {card}."
    assert "drew" not in first_lines[0]
