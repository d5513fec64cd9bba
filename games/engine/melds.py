"""Melds, deadwood and the best arrangements of a hand (R2).

The minimum deadwood count is exact (R2.4), never greedy, and fast: a hand is
a 52-bit mask, four 13-bit suit masks side by side. Within one suit, with no
sets, the best a player can do is meld every stretch of three or more
consecutive cards, so the count of each of the 8,192 possible suit masks is a
table lookup. Sets are what make cards compete, and only the cards of a rank
held three or four times that also sit in such a stretch (see "Sets" below).
Most hands have no rank held three times and cost four lookups; most of the
others, eight. ``best_arrangements``, which is not on the hot path, tries
every way to use the sets.

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
KNOCK_LIMIT = 10  # R7.2
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


# Sets. A card in no stretch of three or more of its suit can never be in a
# run: in a set or not, it changes no run. So a rank held three or four times
# whose cards are all such cards is best melded as one set of all of them, and
# most hands with a rank held three times are like that: four more lookups.
# A rank with a card in such a stretch is contested. Alone in the stretches of
# its suits, a contested rank's choice changes only its own cards' suits, so
# each is decided on its own: its loose cards (in no stretch) save their points
# in a set, each contested card pulled from its run into the set costs what its
# run loses, and a set needs three cards. Contested ranks that share a suit's
# stretches (sixes and sevens both held three times, with 5s 6s 7s 8s) are
# decided together by trying every useful combination of their sets.
IN_STRETCH: tuple[int, ...] = tuple(mask & ~RUN_LEFTOVER[mask] for mask in range(1 << 13))


def _useful_sets(held: int, contested: int) -> tuple[int, ...]:
    """For one rank, as 4-bit suit patterns: the sets worth trying, given the
    suits it is held in and those where its card is in a stretch.

    Every other choice is strictly worse, so the best arrangements are kept:
    a set leaves out no loose card (it is deadwood otherwise, and a set of
    three takes a fourth), and with three loose cards the set of them beats no
    set. "No set" is the pattern 0.
    """
    loose = held & ~contested
    sets = [
        pattern
        for pattern in range(16)
        if pattern & held == pattern and pattern & loose == loose and pattern.bit_count() >= 3
    ]
    return tuple(sets if loose.bit_count() >= 3 else [0, *sets])


def _across_suits(pattern: int, rank: int) -> int:
    """A 4-bit suit pattern as the 52-bit mask of ``rank`` (0 = ace) in those suits."""
    return sum(1 << (13 * suit + rank) for suit in range(4) if pattern >> suit & 1)


# The useful sets of each rank, as 52-bit masks, keyed by the rank's cards in
# the hand (as a 52-bit mask) or'ed with its cards in stretches shifted one up:
# a key costs two ands, a shift and an or, with no shift of the rank down.
_USEFUL_SETS: dict[int, tuple[int, ...]] = {
    _across_suits(held, rank) | _across_suits(stretched, rank) << 1: tuple(
        _across_suits(pattern, rank) for pattern in _useful_sets(held, stretched)
    )
    for rank in range(13)
    for held in range(16)
    if held.bit_count() >= 3
    for stretched in range(16)
    if stretched & held == stretched
}


def _contested_deadwood(
    a: int, b: int, c: int, d: int, three: int, _runs: tuple = RUN_DEADWOOD, _in_stretch: tuple = IN_STRETCH
) -> int:
    """The minimum count of the suits ``a`` to ``d`` when some rank of ``three``
    (the ranks held three or four times) has a card in a stretch. Unrolled
    over the four suits: loops cost more than the work here."""
    sa, sb, sc, sd = _in_stretch[a], _in_stretch[b], _in_stretch[c], _in_stretch[d]
    contested = three & (sa | sb | sc | sd)
    keep = ~(three ^ contested)  # the uncontested ranks are sets
    a, b, c, d = a & keep, b & keep, c & keep, d & keep
    count = _runs[a] + _runs[b] + _runs[c] + _runs[d]
    shared = 0  # contested ranks that share a suit's stretches with another
    for in_suit in (sa & contested, sb & contested, sc & contested, sd & contested):
        if in_suit & (in_suit - 1):
            shared |= in_suit
    alone = contested ^ shared
    while alone:
        low = alone & -alone
        alone ^= low
        loose, costs = 0, []
        if a & low:
            if sa & low:
                costs.append(_runs[a ^ low] - _runs[a])
            else:
                loose = 1
        if b & low:
            if sb & low:
                costs.append(_runs[b ^ low] - _runs[b])
            else:
                loose += 1
        if c & low:
            if sc & low:
                costs.append(_runs[c ^ low] - _runs[c])
            else:
                loose += 1
        if d & low:
            if sd & low:
                costs.append(_runs[d ^ low] - _runs[d])
            else:
                loose += 1
        saving = loose * POINTS[low.bit_length() - 1]
        if loose < 3:
            if len(costs) > 3 - loose:
                costs.sort()
                del costs[3 - loose :]
            saving -= sum(costs)
        if saving > 0:
            count -= saving
    if shared:
        count += _shared_sets_change(a, b, c, d, sa, sb, sc, sd, shared)
    return count


def _shared_sets_change(a: int, b: int, c: int, d: int, sa: int, sb: int, sc: int, sd: int, shared: int) -> int:
    """How much the best sets of the ranks in ``shared`` change the count of
    the suits ``a`` to ``d`` (stretches ``sa`` to ``sd``): every combination of
    their useful sets is tried. Other ranks' choices touch other stretches and
    loose cards, so they add up with these."""
    runs = RUN_DEADWOOD
    before = runs[a] + runs[b] + runs[c] + runs[d]
    hand = a | b << 13 | c << 26 | d << 39
    stretched = (sa | sb << 13 | sc << 26 | sd << 39) << 1
    per_rank = []
    while shared:
        low = shared & -shared
        shared ^= low
        across = _RANK_ACROSS_SUITS[low.bit_length() - 1]
        per_rank.append(_USEFUL_SETS[hand & across | stretched & across << 1])
    best = before
    for in_sets in map(sum, product(*per_rank)):
        left = hand & ~in_sets
        after = runs[left & 0x1FFF] + runs[left >> 13 & 0x1FFF] + runs[left >> 26 & 0x1FFF] + runs[left >> 39]
        if after < best:
            best = after
    return best - before


def deadwood_of_mask(mask: int, _runs: tuple = RUN_DEADWOOD, _in_stretch: tuple = IN_STRETCH) -> int:
    """The minimum deadwood count of the cards in a 52-bit mask (R2.4)."""
    a = mask & 0x1FFF  # SUIT_BITS, a literal: faster than a global
    b = mask >> 13 & 0x1FFF
    c = mask >> 26 & 0x1FFF
    d = mask >> 39
    three = (a & b & (c | d)) | (c & d & (a | b))
    if three:
        if three & (_in_stretch[a] | _in_stretch[b] | _in_stretch[c] | _in_stretch[d]):
            return _contested_deadwood(a, b, c, d, three)
        keep = ~three
        return _runs[a & keep] + _runs[b & keep] + _runs[c & keep] + _runs[d & keep]
    return _runs[a] + _runs[b] + _runs[c] + _runs[d]


_BITS = tuple(1 << index for index in range(52))


def deadwood(
    cards: Iterable[Card], _bits: tuple = _BITS, _runs: tuple = RUN_DEADWOOD, _in_stretch: tuple = IN_STRETCH
) -> int:
    """The minimum deadwood count of any number of distinct cards (R2.4).

    The engine's hottest call, so ``mask_of`` and ``deadwood_of_mask`` are
    inlined but for contested sets, ten cards are unpacked rather than looped
    over, and the tables are bound as defaults (local names are faster than
    globals in CPython).
    """
    if not isinstance(cards, tuple | list | frozenset | set):
        cards = tuple(cards)
    count = len(cards)
    if count == 10:
        c0, c1, c2, c3, c4, c5, c6, c7, c8, c9 = cards
        mask = (
            _bits[c0] + _bits[c1] + _bits[c2] + _bits[c3] + _bits[c4]
            + _bits[c5] + _bits[c6] + _bits[c7] + _bits[c8] + _bits[c9]
        )  # fmt: skip
    else:
        mask = 0
        for card in cards:
            mask += _bits[card]
    # Adding is faster than or-ing; a repeated card carries, and so lowers the bit count.
    if mask.bit_count() != count:
        mask_of(list(cards))  # raises, naming the repeated card
    a = mask & 0x1FFF
    b = mask >> 13 & 0x1FFF
    c = mask >> 26 & 0x1FFF
    d = mask >> 39
    three = (a & b & (c | d)) | (c & d & (a | b))
    if three:
        if three & (_in_stretch[a] | _in_stretch[b] | _in_stretch[c] | _in_stretch[d]):
            return _contested_deadwood(a, b, c, d, three)
        keep = ~three
        return _runs[a & keep] + _runs[b & keep] + _runs[c & keep] + _runs[d & keep]
    return _runs[a] + _runs[b] + _runs[c] + _runs[d]


def knock_discards(cards: Sequence[Card]) -> dict[Card, int]:
    """For 11 cards: each discard that allows a knock (R7.2), with the count it leaves.

    A discard lowers the count by at most its own points (the best
    arrangement of the ten cards left, plus the discard as deadwood, is an
    arrangement of the eleven), so only cards worth at least the count of
    the eleven less 10 are tried, and none when that count is over 20. With
    no rank held three times, a discard changes only its own suit's lookup.
    """
    mask = mask_of(cards)
    total = deadwood_of_mask(mask)
    least = total - KNOCK_LIMIT  # the points a discard needs to leave a knock
    options: dict[Card, int] = {}
    if least > 10:
        return options
    if _ranks_with_three(mask):
        for card in cards:
            if POINTS[card % 13] >= least:
                count = deadwood_of_mask(mask ^ (1 << card))
                if count <= KNOCK_LIMIT:
                    options[DECK[card]] = count
        return options
    suits = (mask & SUIT_BITS, mask >> 13 & SUIT_BITS, mask >> 26 & SUIT_BITS, mask >> 39)
    for card in cards:
        if POINTS[card % 13] >= least:
            suit = suits[card // 13]
            count = total - RUN_DEADWOOD[suit] + RUN_DEADWOOD[suit ^ (1 << (card % 13))]
            if count <= KNOCK_LIMIT:
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
