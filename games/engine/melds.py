"""Melds, deadwood and the best arrangements of a hand (R2).

The minimum deadwood count is exact (R2.4), never greedy, and fast: a hand is
a 52-bit mask, four 13-bit suit masks side by side. Within one suit, with no
sets, the best a player can do is meld every stretch of three or more
consecutive cards, so the count of each of the 8,192 possible suit masks is a
table lookup. Sets are what make cards compete, and a hand of ten or eleven
cards holds at most three ranks with three or more cards; the engine tries
every way to use those sets (none, all four, or each three of four) and looks
up the rest. Most hands have no such rank and cost four lookups.

>>> from games.engine import parse_cards
>>> deadwood(parse_cards("7s 7h 7d 5s 6s"))
11
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations, product

from .cards import DECK, POINTS, Card, cards_of, mask_of, points_of

SUIT_BITS = 0x1FFF
_RANK_ACROSS_SUITS = tuple(sum(1 << (suit * 13 + rank) for suit in range(4)) for rank in range(13))


def _runs_only_deadwood(suit_mask: int) -> int:
    """Count left in one suit when every stretch of 3+ consecutive cards is a run."""
    count, stretch = 0, []
    for rank in range(14):
        if rank < 13 and suit_mask >> rank & 1:
            stretch.append(rank)
            continue
        if len(stretch) < 3:
            count += sum(POINTS[r] for r in stretch)
        stretch = []
    return count


def _unmelded_by_runs(suit_mask: int) -> int:
    """The cards of one suit (as a suit mask) left over when stretches of 3+ are runs."""
    left, stretch = 0, 0
    for rank in range(14):
        if rank < 13 and suit_mask >> rank & 1:
            stretch |= 1 << rank
            continue
        if stretch.bit_count() < 3:
            left |= stretch
        stretch = 0
    return left


RUN_DEADWOOD: tuple[int, ...] = tuple(_runs_only_deadwood(mask) for mask in range(1 << 13))
RUN_LEFTOVER: tuple[int, ...] = tuple(_unmelded_by_runs(mask) for mask in range(1 << 13))


def _set_choices(cards_of_rank: int) -> tuple[int, ...]:
    """Ways to use one rank's cards in a set: none, all of them, or any three of four."""
    suits = [bit for bit in _bits(cards_of_rank)]
    choices = [0, cards_of_rank]
    if len(suits) == 4:
        choices += [sum(three) for three in combinations(suits, 3)]
    return tuple(choices)


def _bits(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low
        mask ^= low


_SET_CHOICES: dict[int, tuple[int, ...]] = {
    sum(suits): _set_choices(sum(suits))
    for rank in range(13)
    for size in (3, 4)
    for suits in combinations([1 << (suit * 13 + rank) for suit in range(4)], size)
}


def _ranks_with_three(mask: int) -> int:
    """A 13-bit mask of the ranks held in at least three suits."""
    a, b, c, d = mask & SUIT_BITS, mask >> 13 & SUIT_BITS, mask >> 26 & SUIT_BITS, mask >> 39
    return (a & b & (c | d)) | (c & d & (a | b))


def _runs_deadwood(mask: int) -> int:
    return (
        RUN_DEADWOOD[mask & SUIT_BITS]
        + RUN_DEADWOOD[mask >> 13 & SUIT_BITS]
        + RUN_DEADWOOD[mask >> 26 & SUIT_BITS]
        + RUN_DEADWOOD[mask >> 39]
    )


def _set_combinations(mask: int, ranks: int) -> Iterator[int]:
    """Every combination of set choices over the ranks held three or more times."""
    per_rank = [_SET_CHOICES[mask & _RANK_ACROSS_SUITS[low.bit_length() - 1]] for low in _bits(ranks)]
    for choice in product(*per_rank):
        yield sum(choice)


def deadwood_of_mask(mask: int) -> int:
    """The minimum deadwood count of the cards in a 52-bit mask (R2.4)."""
    ranks = _ranks_with_three(mask)
    if not ranks:
        return _runs_deadwood(mask)
    return min(_runs_deadwood(mask & ~in_sets) for in_sets in _set_combinations(mask, ranks))


_BITS = tuple(1 << index for index in range(52))


def deadwood(cards: Iterable[Card], _bits: tuple = _BITS, _runs: tuple = RUN_DEADWOOD) -> int:
    """The minimum deadwood count of any number of distinct cards (R2.4).

    The engine's hottest call, so ``mask_of`` and ``deadwood_of_mask`` are
    inlined for the common hand with no rank held three times, ten cards are
    unpacked rather than looped over, and the tables are bound as defaults
    (local names are faster than globals in CPython).
    """
    try:
        count = len(cards)
    except TypeError:
        cards = list(cards)
        count = len(cards)
    if count == 10:
        c0, c1, c2, c3, c4, c5, c6, c7, c8, c9 = cards
        mask = (
            _bits[c0] | _bits[c1] | _bits[c2] | _bits[c3] | _bits[c4]
            | _bits[c5] | _bits[c6] | _bits[c7] | _bits[c8] | _bits[c9]
        )  # fmt: skip
    else:
        mask = 0
        for card in cards:
            mask |= _bits[card]
    if mask.bit_count() != count:
        mask_of(list(cards))  # raises, naming the repeated card
    a, b, c, d = mask & SUIT_BITS, mask >> 13 & SUIT_BITS, mask >> 26 & SUIT_BITS, mask >> 39
    if (a & b & (c | d)) | (c & d & (a | b)):
        return deadwood_of_mask(mask)
    return _runs[a] + _runs[b] + _runs[c] + _runs[d]


def knock_discards(cards: Sequence[Card]) -> dict[Card, int]:
    """For 11 cards: each discard that allows a knock (R7.2), with the count it leaves.

    With no rank held three times, a discard changes only its own suit's
    lookup, so each option costs one table read.
    """
    mask = mask_of(cards)
    options = {}
    if _ranks_with_three(mask):
        for card in cards:
            count = deadwood_of_mask(mask ^ (1 << card))
            if count <= 10:
                options[DECK[card]] = count
        return options
    suits = [mask >> (13 * suit) & SUIT_BITS for suit in range(4)]
    runs = [RUN_DEADWOOD[suit_mask] for suit_mask in suits]
    total = sum(runs)
    for card in cards:
        suit = card // 13
        count = total - runs[suit] + RUN_DEADWOOD[suits[suit] ^ (1 << (card % 13))]
        if count <= 10:
            options[DECK[card]] = count
    return options


@dataclass(frozen=True, order=True)
class Meld:
    """A set (R2.1) or a run (R2.2), its cards in order."""

    cards: tuple[Card, ...]

    @property
    def kind(self) -> str:
        return "set" if self.cards[0].rank == self.cards[-1].rank else "run"

    @property
    def mask(self) -> int:
        return mask_of(self.cards)

    def __str__(self) -> str:
        return "-".join(str(card) for card in self.cards)

    __repr__ = __str__


def is_meld(cards: Sequence[Card]) -> bool:
    """Whether cards form a set of 3-4 (R2.1) or a run of 3+ in one suit (R2.2)."""
    if len(cards) < 3 or len(set(cards)) != len(cards):
        return False
    if len({card.rank for card in cards}) == 1:
        return len(cards) <= 4
    ranks = sorted(card.rank for card in cards)
    same_suit = len({card.suit for card in cards}) == 1
    return same_suit and ranks == list(range(ranks[0], ranks[0] + len(ranks)))


@dataclass(frozen=True)
class Arrangement:
    """A hand laid out as melds and deadwood."""

    melds: tuple[Meld, ...]
    deadwood: tuple[Card, ...]

    @property
    def count(self) -> int:
        return points_of(self.deadwood)

    def __str__(self) -> str:
        parts = [str(meld) for meld in self.melds]
        if self.deadwood:
            parts.append("| " + " ".join(str(card) for card in self.deadwood))
        return " ".join(parts) if parts else "-"


def _runs_in_suit_mask(suit: int, suit_mask: int) -> list[Meld]:
    """The maximal stretches of 3+ cards of one suit, each as one run."""
    runs, stretch = [], []
    for rank in range(14):
        if rank < 13 and suit_mask >> rank & 1:
            stretch.append(DECK[suit * 13 + rank])
            continue
        if len(stretch) >= 3:
            runs.append(Meld(tuple(stretch)))
        stretch = []
    return runs


def _arrangement(mask: int, in_sets: int) -> Arrangement:
    rest = mask & ~in_sets
    sets: dict[int, list[Card]] = {}
    for card in cards_of(in_sets):
        sets.setdefault(card.rank, []).append(card)
    melds = [Meld(tuple(cards)) for cards in sets.values()]
    left = 0
    for suit in range(4):
        suit_mask = rest >> (13 * suit) & SUIT_BITS
        melds += _runs_in_suit_mask(suit, suit_mask)
        left |= RUN_LEFTOVER[suit_mask] << (13 * suit)
    return Arrangement(tuple(sorted(melds)), tuple(cards_of(left)))


def best_arrangements(cards: Iterable[Card]) -> list[Arrangement]:
    """Every arrangement with the minimum count that differs in what it melds.

    Long runs are shown whole: splitting one changes nothing a player can use.
    """
    mask = mask_of(cards)
    ranks = _ranks_with_three(mask)
    choices = list(_set_combinations(mask, ranks)) if ranks else [0]
    counts = [_runs_deadwood(mask & ~in_sets) for in_sets in choices]
    best = min(counts)
    pairs = zip(choices, counts, strict=True)
    return [_arrangement(mask, in_sets) for in_sets, count in pairs if count == best]


def melds_in(mask: int) -> list[int]:
    """Every meld, as a mask, that can be made from the cards of ``mask``: all sets
    of three and four, and every run of three or more within each stretch."""
    melds = []
    for rank in range(13):
        held = mask & _RANK_ACROSS_SUITS[rank]
        if held.bit_count() >= 3:
            suits = list(_bits(held))
            melds += [sum(group) for size in (3, 4) for group in combinations(suits, size)]
    for suit in range(4):
        suit_mask = mask >> (13 * suit) & SUIT_BITS
        for low in range(11):
            run = 0
            for rank in range(low, 13):
                if not suit_mask >> rank & 1:
                    break
                run |= 1 << rank
                if rank - low >= 2:
                    melds.append(run << (13 * suit))
    return melds
