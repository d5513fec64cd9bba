"""One hand of three-handed gin as a value (R4 to R9).

A ``Hand`` never changes: ``hand.apply(action)`` returns the next hand and the
events that happened, or raises ``IllegalAction`` naming the rule and leaves
everything as it was. Given the shuffled deck, the same actions always give
the same hand, so a hand can be replayed from its events.

Only the box and the captain hold cards (R4.2); the sitter advises (R3.2),
which is the service layer's business, not the rules'.

>>> from games.engine import DECK
>>> hand = deal(DECK)
>>> hand.to_move, hand.phase
(<Role.CAPTAIN: 'captain'>, <Phase.UPCARD: 'upcard'>)
>>> hand, events = hand.apply(Pass())
>>> hand.to_move
<Role.BOX: 'box'>
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from .cards import DECK, Card, format_cards, parse_cards
from .errors import IllegalAction
from .melds import deadwood, knock_discards
from .options import Options
from .scoring import KNOCK_LIMIT, Settlement, settle

HAND_SIZE = 10
STOCK_AT_DEAL = 31
STOCK_LEFT_FOR_DRAW = 2  # R9.1
PILE_TAKES_FOR_DRAW = 50  # R9.3
# R9.1 and R9.3 bound a hand: every turn takes one card, from the stock or the
# pile, and the first discard without a knock after the 29th card from the
# stock or the 50th from the pile draws the hand. So at most 28 + 49 turns take
# the hand on, and the next one ends it (its player discards or knocks).
MAX_TURNS = (STOCK_AT_DEAL - STOCK_LEFT_FOR_DRAW - 1) + (PILE_TAKES_FOR_DRAW - 1) + 1
# Two actions a turn, and the captain and the box may each refuse the upcard once.
MAX_ACTIONS = 2 * MAX_TURNS + 2


class Role(str, Enum):
    BOX = "box"
    CAPTAIN = "captain"
    SITTER = "sitter"

    @property
    def opponent(self) -> Role:
        """The other active player (R6.3)."""
        if self is Role.BOX:
            return Role.CAPTAIN
        if self is Role.CAPTAIN:
            return Role.BOX
        raise ValueError("the sitter has no opponent: he sits the hand out (R3.1)")

    @property
    def cards_field(self) -> str:
        """The name of the ``Hand`` field that holds this player's cards."""
        if self is Role.SITTER:
            raise ValueError("the sitter holds no cards (R4.2)")
        return self._value_


class Phase(str, Enum):
    UPCARD = "upcard"  # R5: take the face-up card or pass
    DRAW = "draw"  # R6.1, first part: take from the stock or the pile
    DISCARD = "discard"  # R6.1, second part: discard, perhaps knocking
    OVER = "over"


# Actions ------------------------------------------------------------------


@dataclass(frozen=True)
class Pass:
    """Refuse the upcard on the first turn (R5.1, R5.2)."""

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True)
class Take:
    """Take the top of the discard pile (R5, R6.1)."""

    def __str__(self) -> str:
        return "take"


@dataclass(frozen=True)
class Draw:
    """Take the top of the stock (R6.1)."""

    def __str__(self) -> str:
        return "draw"


@dataclass(frozen=True)
class Discard:
    """Discard a card and end the turn (R6.1)."""

    card: Card

    def __str__(self) -> str:
        return f"discard {self.card}"


@dataclass(frozen=True)
class Knock:
    """Discard a card and knock (R7); gin when nothing is left over (R8.3)."""

    card: Card

    def __str__(self) -> str:
        return f"knock {self.card}"


Action = Pass | Take | Draw | Discard | Knock


def parse_action(text: str) -> Action:
    """Read an action as the event log writes it: ``pass``, ``discard 7h``..."""
    word, _, rest = text.strip().lower().partition(" ")
    simple: dict[str, type[Pass | Take | Draw]] = {"pass": Pass, "take": Take, "draw": Draw}
    if word in simple and not rest:
        return simple[word]()
    if word in ("discard", "knock") and rest:
        (card,) = parse_cards(rest)
        return Discard(card) if word == "discard" else Knock(card)
    raise ValueError(f"{text!r} is not an action")


# Events -------------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    """Something that happened in a hand. ``card`` is None when nobody but
    the actor may know it (the service decides who sees what)."""

    kind: str
    role: Role | None = None
    card: Card | None = None
    result: HandResult | None = None


@dataclass(frozen=True)
class HandResult:
    """How a hand ended: a knock (R8) or a draw (R9)."""

    kind: str  # "knock", "gin", "undercut" or "draw"
    knocker: Role | None = None
    winner: Role | None = None
    points: int = 0
    settlement: Settlement | None = None

    @property
    def loser(self) -> Role | None:
        return self.winner.opponent if self.winner else None


# The hand -----------------------------------------------------------------


@dataclass(frozen=True)
class Hand:
    """The state of one hand: who holds what, the stock, the pile, whose turn."""

    deck: tuple[Card, ...]
    box: tuple[Card, ...]
    captain: tuple[Card, ...]
    stock: tuple[Card, ...]  # stock[0] is the top
    pile: tuple[Card, ...]  # pile[-1] is the top
    options: Options = field(default_factory=Options)
    to_move: Role = Role.CAPTAIN
    phase: Phase = Phase.UPCARD
    passed: tuple[Role, ...] = ()
    taken: Card | None = None  # the card taken from the pile this turn (R6.2)
    turns: int = 0
    pile_takes: int = 0  # cards taken from the discard pile in this hand, the upcard included (R9.3)
    result: HandResult | None = None

    def cards_of(self, role: Role) -> tuple[Card, ...]:
        """The cards a player holds; the sitter holds none (R4.2)."""
        if role is Role.BOX:
            return self.box
        if role is Role.CAPTAIN:
            return self.captain
        return ()

    @property
    def upcard_taker_must_draw(self) -> bool:
        """After both refuse the upcard the captain begins from the stock (R5.4)."""
        return len(self.passed) == 2 and self.turns == 0

    @property
    def is_forced(self) -> bool:
        """Whether the player to move has one move only: the captain's draw after both
        refused the upcard (R5.4). Nothing to weigh: no advice is asked for or given."""
        return self.phase is Phase.DRAW and self.upcard_taker_must_draw

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def dealt_stock(self) -> tuple[Card, ...]:
        """The stock as it was dealt, top first: the cards the hand's draws take, in order (R4.3)."""
        return self.deck[2 * HAND_SIZE + 1 :]

    @property
    def drawn(self) -> Card | None:
        """The card the player to move drew from the stock this turn, while he has
        still to discard: the last card of his hand (a take sets ``taken`` instead)."""
        if self.phase is not Phase.DISCARD or self.taken is not None:
            return None
        return self.cards_of(self.to_move)[-1]

    def legal_actions(self) -> list[Action]:
        """Every action the player to move may take now."""
        if self.phase is Phase.UPCARD:
            return [Take(), Pass()]
        if self.phase is Phase.DRAW:
            return [Draw()] if self.upcard_taker_must_draw else [Take(), Draw()]
        if self.phase is Phase.DISCARD:
            discards = [card for card in self.cards_of(self.to_move) if self._may_discard(card)]
            knocking = knock_discards(self.cards_of(self.to_move))
            actions: list[Action] = [Discard(card) for card in discards]
            return actions + [Knock(card) for card in discards if card in knocking]
        return []

    def count_after_discard(self, card: Card) -> int:
        """The deadwood count the player to move would keep after discarding ``card``."""
        return deadwood([c for c in self.cards_of(self.to_move) if c != card])

    def apply(self, action: Action) -> tuple[Hand, list[Event]]:
        """The next hand and what happened, or ``IllegalAction``."""
        if self.phase is Phase.OVER:
            raise IllegalAction("hand_over")
        handler = _HANDLERS.get(type(action))
        if handler is None:
            raise IllegalAction("not_a_move", action=action)
        return handler(self, action)

    def _evolve(self, **changes: Any) -> Hand:
        """This hand with ``changes``: ``dataclasses.replace`` without its
        checks and ``__init__``, which cost most of a move, and the services
        replay a hand's every move on every move. A hand is a plain value with
        nothing to validate, so its fields are copied as they are."""
        hand = object.__new__(Hand)
        fields = hand.__dict__
        fields.update(self.__dict__)
        fields.update(changes)
        return hand

    # Each action -------------------------------------------------------

    def _pass(self, action: Pass) -> tuple[Hand, list[Event]]:
        if self.phase is not Phase.UPCARD:
            raise IllegalAction("pass_only_upcard")
        event = Event("pass", self.to_move)
        if self.to_move is Role.CAPTAIN:
            return self._evolve(to_move=Role.BOX, passed=(Role.CAPTAIN,)), [event]
        return self._evolve(to_move=Role.CAPTAIN, phase=Phase.DRAW, passed=(Role.CAPTAIN, Role.BOX)), [event]

    def _take(self, action: Take) -> tuple[Hand, list[Event]]:
        if self.phase is not Phase.UPCARD and self.phase is not Phase.DRAW:
            raise IllegalAction("already_took")
        if self.upcard_taker_must_draw:
            raise IllegalAction("must_draw")
        role, card = self.to_move, self.pile[-1]
        hand = self._evolve(
            **{role.cards_field: (*self.cards_of(role), card)},
            pile=self.pile[:-1],
            phase=Phase.DISCARD,
            taken=card,
            pile_takes=self.pile_takes + 1,
        )
        return hand, [Event("take", role, card)]

    def _draw(self, action: Draw) -> tuple[Hand, list[Event]]:
        if self.phase is Phase.UPCARD:
            raise IllegalAction("upcard_first")
        if self.phase is not Phase.DRAW:
            raise IllegalAction("already_took")
        role, card = self.to_move, self.stock[0]
        hand = self._evolve(
            **{role.cards_field: (*self.cards_of(role), card)}, stock=self.stock[1:], phase=Phase.DISCARD, taken=None
        )
        return hand, [Event("draw", role, card)]

    def _may_discard(self, card: Card) -> bool:
        return self.options.may_discard_taken or card != self.taken

    def _check_discard(self, card: Card) -> None:
        if self.phase is Phase.UPCARD:
            raise IllegalAction("upcard_first")  # not "draw or take": a draw is refused too (R5.1)
        if self.phase is not Phase.DISCARD:
            raise IllegalAction("must_draw" if self.is_forced else "take_first")  # R5.4: no take to offer
        if card not in self.cards_of(self.to_move):
            raise IllegalAction("not_held", card=card)
        if not self._may_discard(card):
            raise IllegalAction("taken_card", card=card)

    def _end_turn(self, card: Card) -> dict[str, Any]:
        """The changes of any discard: the card goes from the hand to the pile."""
        role = self.to_move
        return {
            role.cards_field: tuple(c for c in self.cards_of(role) if c != card),
            "pile": (*self.pile, card),
            "taken": None,
            "turns": self.turns + 1,
        }

    def _discard(self, action: Discard) -> tuple[Hand, list[Event]]:
        self._check_discard(action.card)
        events = [Event("discard", self.to_move, action.card)]
        if len(self.stock) <= STOCK_LEFT_FOR_DRAW or self.pile_takes >= PILE_TAKES_FOR_DRAW:
            result = HandResult("draw")
            events.append(Event("hand_drawn", result=result))
            return self._evolve(**self._end_turn(action.card), phase=Phase.OVER, result=result), events
        return self._evolve(**self._end_turn(action.card), to_move=self.to_move.opponent, phase=Phase.DRAW), events

    def _knock(self, action: Knock) -> tuple[Hand, list[Event]]:
        self._check_discard(action.card)
        knocker, defender = self.to_move, self.to_move.opponent
        kept = tuple(c for c in self.cards_of(knocker) if c != action.card)
        count = deadwood(kept)
        if count > KNOCK_LIMIT:
            raise IllegalAction("knock_limit", count=count, limit=KNOCK_LIMIT)
        settlement = settle(
            kept,
            self.cards_of(defender),
            gin_bonus=self.options.gin_bonus,
            undercut_bonus=self.options.undercut_bonus,
        )
        kind = "gin" if settlement.gin else "undercut" if settlement.undercut else "knock"
        winner = knocker if settlement.winner == "knocker" else defender
        result = HandResult(kind, knocker, winner, settlement.points, settlement)
        events = [Event("knock", knocker, action.card), Event("hand_over", result=result)]
        return self._evolve(**self._end_turn(action.card), phase=Phase.OVER, result=result), events

    def __str__(self) -> str:
        return (
            f"box [{format_cards(sorted(self.box))}] captain [{format_cards(sorted(self.captain))}] "
            f"pile {self.pile[-1] if self.pile else '-'} stock {len(self.stock)} "
            f"{self.to_move.value} to {self.phase.value}"
        )


_HANDLERS: dict[type, Callable[[Hand, Any], tuple[Hand, list[Event]]]] = {
    Pass: Hand._pass,
    Take: Hand._take,
    Draw: Hand._draw,
    Discard: Hand._discard,
    Knock: Hand._knock,
}


def deal(deck: Sequence[Card], options: Options | None = None) -> Hand:
    """Deal a hand from a shuffled deck (R4): ten cards each, the captain (the
    non-dealer) first and then in turn; the next card is the upcard; the
    remaining 31 are the stock, ``deck[21]`` on top."""
    deck = tuple(deck)
    if sorted(deck) != list(range(52)):
        raise IllegalAction("bad_deck")
    dealt = 2 * HAND_SIZE
    return Hand(
        deck=deck,
        captain=deck[0:dealt:2],
        box=deck[1:dealt:2],
        pile=(deck[dealt],),
        stock=deck[dealt + 1 :],
        options=options or Options(),
    )


def stacked_deck(captain: Sequence[Card], box: Sequence[Card], upcard: Card, stock: Sequence[Card] = ()) -> list[Card]:
    """The deck that ``deal`` turns into these hands, this upcard and a stock
    starting with ``stock``; the other cards follow in order. For puzzles and tests."""
    dealt = [card for pair in zip(captain, box, strict=True) for card in pair]
    top = [upcard, *stock]
    placed = {*dealt, *top}
    return dealt + top + [card for card in DECK if card not in placed]


def replay(deck: Sequence[Card], actions: Sequence[Action], options: Options | None = None) -> Hand:
    """The hand reached by playing ``actions`` from the deal of ``deck``."""
    hand = deal(deck, options)
    for action in actions:
        hand, _ = hand.apply(action)
    return hand
