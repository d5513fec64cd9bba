"""Computer players: each chooses its player's next action from what he may know.

A bot sees a ``BotView``, never a ``Hand``: his own cards, what was done face
up (the pile, the cards the opponent took from it, passed over or threw away),
the stock's size, the phase, the legal actions, the options and the scores.
The opponent's hidden cards and the order of the stock (R4.4) are not in it,
so no strategy can cheat by accident. ``bot_view`` builds the view from a
hand and its event log, which is all the service layer stores.

Bots play the box or the captain. A bot sitter advises the captain with the
captain's own view, since the sitter sees everything the captain sees (R3.2):
``strategy.choose(bot_view(hand, Role.CAPTAIN, log))`` is his suggestion.

Players choose among three levels (``levels.make_strategy``): ``easy``
(``SimpleBot``), ``normal`` (``StrongBot``) and ``hard`` (``search.HardBot``,
which searches over the cards it cannot see). ``simple`` and ``strong`` are
older names of the first two. ``advice.appraise`` says what a level would play, what each move is
worth and why.

Every strategy is deterministic given its ``random.Random``, which is its
only source of chance, so a simulation can be replayed from its seed.

>>> import random
>>> from games.engine import DECK, deal
>>> hand = deal(random.Random(3).sample(DECK, 52))
>>> bot = SimpleBot(random.Random(0))
>>> bot.choose(bot_view(hand, hand.to_move)) in hand.legal_actions()
True
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from .cards import DECK, POINTS, Card, indices_of, mask_of
from .hand import HAND_SIZE, STOCK_AT_DEAL, Action, Discard, Draw, Event, Hand, Knock, Pass, Phase, Role, Take
from .melds import SUIT_BITS, deadwood_of_mask
from .options import Options
from .scoring import KNOCK_LIMIT

ALL_CARDS = (1 << 52) - 1
MEMO_SIZE = 50_000
_RANK_ROWS = tuple(sum(1 << (suit * 13 + rank) for suit in range(4)) for rank in range(13))
_ACES, _TWOS, _QUEENS, _KINGS = _RANK_ROWS[0], _RANK_ROWS[1], _RANK_ROWS[11], _RANK_ROWS[12]
_ONE_PER_SUIT = 1 | 1 << 13 | 1 << 26 | 1 << 39
_CARD_POINTS = tuple(POINTS[index % 13] for index in range(52))
_SHED_ORDER = tuple(-100 * POINTS[index % 13] - index % 13 for index in range(52))  # lowest goes first


@dataclass(frozen=True)
class BotView:
    """What the player to move may know (R3.2, R4.4), and nothing more."""

    role: Role
    phase: Phase
    cards: tuple[Card, ...]
    pile: tuple[Card, ...]  # every card face up on the discard pile, the top last
    stock_size: int
    legal_actions: tuple[Action, ...]
    options: Options
    turns: int = 0  # turns completed in this hand
    opponent_holds: frozenset[Card] = frozenset()  # taken from the pile, not discarded since
    opponent_discards: tuple[Card, ...] = ()
    opponent_refused: tuple[Card, ...] = ()  # pile tops he passed or drew over
    score: int = 0
    opponent_score: int = 0


def bot_view(
    hand: Hand,
    role: Role,
    public_log: Iterable[Event] = (),
    scores: Mapping[Role, int] | None = None,
) -> BotView:
    """The view of ``role`` (box or captain) on ``hand``.

    ``public_log`` is the hand's events in order, as ``Hand.apply`` returned
    them; only what happened face up is read from it (a card drawn from the
    stock stays secret even if the event carries it). ``scores`` are the game
    scores by role. A sitter has no view of his own: he advises with the
    captain's (R3.2).
    """
    if role is Role.SITTER:
        raise ValueError("the sitter holds no cards: advise with the captain's view (R3.2)")
    opponent = role.opponent
    holds: set[Card] = set()
    discards: list[Card] = []
    refused: list[Card] = []
    pile = [hand.deck[2 * HAND_SIZE]]  # the upcard, dealt face up (R4.3)
    for event in public_log:
        if event.kind in ("discard", "knock") and event.card is not None:
            pile.append(event.card)
            if event.role is opponent:
                discards.append(event.card)
                holds.discard(event.card)
        elif event.kind == "take" and pile:
            card = pile.pop()
            if event.role is opponent:
                holds.add(card)
        elif event.kind in ("pass", "draw") and event.role is opponent and pile:
            refused.append(pile[-1])
    scores = scores or {}
    to_move = hand.to_move is role and not hand.is_over
    return BotView(
        role=role,
        phase=hand.phase,
        cards=hand.cards_of(role),
        pile=hand.pile,
        stock_size=len(hand.stock),
        legal_actions=tuple(hand.legal_actions()) if to_move else (),
        options=hand.options,
        turns=hand.turns,
        opponent_holds=frozenset(holds),
        opponent_discards=tuple(discards),
        opponent_refused=tuple(refused),
        score=scores.get(role, 0),
        opponent_score=scores.get(opponent, 0),
    )


class Strategy(Protocol):
    """A computer player: one legal action for the view it is given."""

    name: str

    def choose(self, view: BotView) -> Action: ...


# Card arithmetic on 52-bit masks (see melds.py) ----------------------------


def _meld_outs(mask: int) -> int:
    """The cards not in ``mask`` that would make a new meld with two of its cards:
    the third of a pair, the fourth of a set, a card at either end or in the
    gap of two cards of a suit (R2)."""
    below1 = (mask & ~_KINGS) << 1
    below2 = (mask & ~(_KINGS | _QUEENS)) << 2
    above1 = (mask & ~_ACES) >> 1
    above2 = (mask & ~(_ACES | _TWOS)) >> 2
    runs = (below1 & below2) | (above1 & above2) | (below1 & above1)
    s, h, d, c = mask & SUIT_BITS, mask >> 13 & SUIT_BITS, mask >> 26 & SUIT_BITS, mask >> 39
    pairs = (s & (h | d | c)) | (h & (d | c)) | (d & c)
    return (runs | pairs * _ONE_PER_SUIT) & ~mask & ALL_CARDS


def _neighbours(mask: int) -> int:
    """Cards that could one day meld with a card of ``mask``: same rank, or the
    same suit within two ranks."""
    near = 0
    for shift, guard in ((1, _KINGS), (2, _KINGS | _QUEENS)):
        near |= (mask & ~guard) << shift
    for shift, guard in ((1, _ACES), (2, _ACES | _TWOS)):
        near |= (mask & ~guard) >> shift
    return (near | _same_rank(mask)) & ~mask & ALL_CARDS


def _same_rank(mask: int) -> int:
    """Every card of a rank that ``mask`` holds."""
    return (mask & SUIT_BITS | mask >> 13 & SUIT_BITS | mask >> 26 & SUIT_BITS | mask >> 39) * _ONE_PER_SUIT


_NEIGHBOURS = tuple(_neighbours(1 << card) for card in range(52))


def _joins_meld(mask: int, card: int) -> bool:
    """Whether ``card`` is melded in every best arrangement of the hand plus it:
    adding it then costs less than its own points."""
    return deadwood_of_mask(mask | 1 << card) < deadwood_of_mask(mask) + _CARD_POINTS[card]


def _best_discard(view: BotView) -> tuple[Card, int]:
    """The legal discard that leaves the lowest count, and that count; among
    equals the highest card goes (the simple bot's whole discard rule)."""
    mask = mask_of(view.cards)
    counts = {a.card: deadwood_of_mask(mask ^ 1 << a.card) for a in view.legal_actions if type(a) is Discard}
    card = min(counts, key=lambda c: (counts[c], _SHED_ORDER[c], c))
    return card, counts[card]


# The strategies -------------------------------------------------------------


@dataclass
class RandomBot:
    """Any legal action, uniformly: a baseline, and a stress test for the engine."""

    rng: random.Random
    name: str = "random"

    def choose(self, view: BotView) -> Action:
        return self.rng.choice(view.legal_actions)


@dataclass
class SimpleBot:
    """A beginner: takes the pile's top card only when it joins a meld,
    discards the highest deadwood card and knocks as soon as the rules allow."""

    rng: random.Random
    name: str = "simple"

    def choose(self, view: BotView) -> Action:
        if view.phase is Phase.DISCARD:
            card, count = _best_discard(view)
            return Knock(card) if count <= KNOCK_LIMIT else Discard(card)
        if Take() in view.legal_actions and _joins_meld(mask_of(view.cards), view.pile[-1]):
            return Take()
        return Pass() if view.phase is Phase.UPCARD else Draw()


@dataclass
class StrongBot:
    """A careful player, tuned by simulation against ``SimpleBot``.

    It values a hand by its count less what the live cards (neither on the
    pile nor known to be the opponent's) would meld with it, so it keeps pairs
    and near-runs while they have outs, and sheds them when they are dead or
    the stock runs short. Among discards it avoids feeding the opponent: a
    card near one he took from the pile is dangerous, one like a card he threw
    away or passed over is safe. It takes the pile's card when that beats the
    average stock card.

    It knocks as soon as it may, except with a count of ``gin_hunt`` or less
    while the stock is long: then it plays on for gin (R8.3), since if the
    opponent knocks first, so low a count will likely undercut him (R8.4).
    Waiting with a middling count loses: in simulation, knock limits falling
    as the hand went on lost points against both bots, the opponent knocking
    first too often.

    The fields are the tuning a game designer may change.
    """

    rng: random.Random
    name: str = "strong"
    outs_weight: float = 4.0  # worth of the melds live cards would make, early in a hand
    feed_meld: float = 6.0  # cost of a discard that melds with the opponent's known cards
    feed_near: float = 3.0  # ... that is near one of them
    feed_live: float = 0.25  # ... per unseen card it could meld with, his perhaps
    safe: float = 2.0  # gain of a discard like one he threw away or passed over
    take_margin: float = 0.5  # what showing the opponent a taken card costs
    far_take_points: int = 3  # the highest card not near any held card worth a look
    gin_hunt: int = 4  # with this count or less, play on for gin...
    gin_hunt_stock: int = 5  # ... while the stock has more cards than this
    window: int = 5  # discards leaving more than the lowest count plus this are not weighed
    _counts: dict[int, int] = field(default_factory=dict, init=False, repr=False, compare=False)

    def choose(self, view: BotView) -> Action:
        mask = mask_of(view.cards)
        # Outs count for less as the stock shrinks: fewer draws are left to find them.
        seen = _Seen(view, mask, self.outs_weight * math.sqrt(view.stock_size / STOCK_AT_DEAL))
        if view.phase is Phase.DISCARD:
            return self._discard(view, mask, seen)
        if Take() in view.legal_actions and self._takes(view, mask, seen):
            return Take()
        return Pass() if view.phase is Phase.UPCARD else Draw()

    def _count(self, hand: int) -> int:
        """``deadwood_of_mask``, remembered: a turn's hands are mostly the last
        turn's give or take the card that moved."""
        count = self._counts.get(hand)
        if count is None:
            if len(self._counts) > MEMO_SIZE:
                self._counts.clear()
            count = self._counts[hand] = deadwood_of_mask(hand)
        return count

    def _value(self, hand: int, count: int, live: int, seen: _Seen) -> float:
        """The count less the expected saving of the melds live cards would make."""
        saving = 0
        for card in indices_of(_meld_outs(hand) & live):
            saving += count + _CARD_POINTS[card] - self._count(hand | 1 << card)
        return count - seen.outs_scale * saving

    def _danger(self, card: int, seen: _Seen) -> float:
        """How much throwing ``card`` may help the opponent."""
        bit = 1 << card
        if bit & seen.opponent_outs:
            return self.feed_meld
        danger = self.feed_live * (_NEIGHBOURS[card] & seen.unseen).bit_count()
        if bit & seen.opponent_near:
            danger += self.feed_near
        elif bit & seen.opponent_unwanted:
            danger -= self.safe
        return danger

    def _discards(self, hand: int, cards: Iterable[int], seen: _Seen) -> list[tuple[float, int, int, int]]:
        """(score, count, tie-break, card) for each discard from ``hand``, best
        first. Among equals the highest card goes, and of two tens the least
        flexible: a king makes runs one way only. Discards far above the lowest
        count break melds; they are ranked last without weighing their outs."""
        counts = [(self._count(hand ^ 1 << card), card) for card in cards]
        lowest = min(count for count, _ in counts)
        options = []
        for count, card in counts:
            score = math.inf
            if count <= lowest + self.window:
                live = seen.unseen & ~(1 << card)
                score = self._value(hand ^ 1 << card, count, live, seen) + self._danger(card, seen)
            options.append((score, count, _SHED_ORDER[card], card))
        options.sort()
        return options

    def _discard(self, view: BotView, mask: int, seen: _Seen) -> Action:
        options = self._discards(mask, [a.card for a in view.legal_actions if type(a) is Discard], seen)
        _, count, _, card = min(options, key=lambda option: option[1:])
        hunting = count <= self.gin_hunt and view.stock_size > self.gin_hunt_stock
        if count == 0 or (count <= KNOCK_LIMIT and not hunting):
            return Knock(DECK[card])
        return Discard(DECK[options[0][3]])

    def _takes(self, view: BotView, mask: int, seen: _Seen) -> bool:
        """Whether the pile's top beats the average stock card. A card near none
        of the held ones can only be worth it when low; the others are passed
        over without a look, which saves most of the time."""
        top = view.pile[-1]
        if _CARD_POINTS[top] > self.far_take_points and not _neighbours(mask) >> top & 1:
            return False
        count = self._count(mask)
        now = self._value(mask, count, seen.unseen, seen)
        with_top = mask | 1 << top
        keep = indices_of(with_top if view.options.may_discard_taken else mask)  # R6.2
        taking = self._discards(with_top, keep, seen)[0][0]
        return taking + self.take_margin < now - self._draw_saving(mask, count, seen.unseen)

    def _draw_saving(self, hand: int, count: int, live: int) -> float:
        """What a stock card saves on average: a card that melds saves what it
        melds, and any card lower than the worst deadwood card replaces it."""
        worst = count - min(self._count(hand ^ 1 << card) for card in indices_of(hand))
        outs = _meld_outs(hand) & live
        total = 0
        for card in indices_of(outs):
            total += max(0, count - self._count(hand | 1 << card) + worst)
        others = live & ~outs
        for rank, row in enumerate(_RANK_ROWS):
            if POINTS[rank] < worst:
                total += (worst - POINTS[rank]) * (others & row).bit_count()
        return total / max(1, live.bit_count())


class _Seen:
    """Where the view says the other cards are, as masks, and what an out is worth."""

    __slots__ = ("opponent_near", "opponent_outs", "opponent_unwanted", "outs_scale", "unseen")

    def __init__(self, view: BotView, mask: int, outs_weight: float) -> None:
        holds = mask_of(view.opponent_holds)
        self.unseen = ALL_CARDS & ~mask & ~mask_of(view.pile) & ~holds
        self.outs_scale = outs_weight / max(1, self.unseen.bit_count())
        self.opponent_outs = _meld_outs(holds)
        self.opponent_near = _neighbours(holds)
        thrown = mask_of(set(view.opponent_discards) | set(view.opponent_refused))
        self.opponent_unwanted = _same_rank(thrown) | (thrown & ~_KINGS) << 1 | (thrown & ~_ACES) >> 1
