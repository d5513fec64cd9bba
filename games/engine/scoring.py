"""Knocks, layoffs and the score of a hand (R7, R8).

>>> from games.engine import parse_cards
>>> s = settle(parse_cards("Ks Kc Kd 5s 6s 7s 9c Tc Jc 2h"),
...            parse_cards("8s 9s 8c 2c 3c 4d 5d 6h Qh Ah"))
>>> s.winner, s.points, [str(c) for c, _ in s.layoffs]
('knocker', 29, ['8s', '9s', '8c'])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from .cards import DECK, Card, cards_of, mask_of, points_of_mask
from .errors import IllegalAction
from .melds import KNOCK_LIMIT, Arrangement, Meld, best_arrangements, deadwood_of_mask, melds_in

GIN_BONUS = 25
UNDERCUT_BONUS = 10


@dataclass(frozen=True)
class Settlement:
    """How a knocked hand ends: both arrangements, the layoffs and who scores what."""

    winner: str  # "knocker" or "defender"
    points: int
    knocker_count: int
    defender_count: int
    gin: bool
    undercut: bool
    knocker: Arrangement
    defender: Arrangement
    layoffs: tuple[tuple[Card, int], ...]  # (card, index of the knocker's meld it joins)


def _layoffs(melds: Sequence[Meld], loose: int) -> list[tuple[Card, int]]:
    """The defender's loose cards that join the knocker's melds, chains included (R7.5).

    Laying off only ever lowers a count, so every card that can go, goes. Runs
    come first: a card that could be the fourth of a set or extend a run must go
    on the run, where more cards may follow it (8c then 9c on 5-6-7c).
    """
    laid: list[tuple[Card, int]] = []
    runs_first = sorted(range(len(melds)), key=lambda index: melds[index].kind == "set")
    for index in runs_first:
        meld = melds[index]
        first, last = meld.cards[0], meld.cards[-1]
        if meld.kind == "set":
            if len(meld.cards) == 3:
                fourth = (_rank_mask(first.rank) & ~meld.mask) & loose
                if fourth:
                    laid.append((DECK[fourth.bit_length() - 1], index))
                    loose &= ~fourth
            continue
        base, low, high = first.suit * 13, first.rank, last.rank
        while low > 1 and loose >> (base + low - 2) & 1:
            low -= 1
            laid.append((DECK[base + low - 1], index))
            loose &= ~(1 << (base + low - 1))
        while high < 13 and loose >> (base + high) & 1:
            high += 1
            laid.append((DECK[base + high - 1], index))
            loose &= ~(1 << (base + high - 1))
    return laid


def _rank_mask(rank: int) -> int:
    return sum(1 << (suit * 13 + rank - 1) for suit in range(4))


def _defender_best(melds: Sequence[Meld], hand: int) -> tuple[int, int, list[tuple[Card, int]]]:
    """The defender's lowest count with layoffs: he may meld any of his cards, or
    break his own melds to lay cards off (R7.5 reading). Returns (count, melded mask, layoffs)."""
    own_melds = melds_in(hand)
    best: tuple[int, int, list[tuple[Card, int]]] | None = None

    def visit(start: int, melded: int) -> None:
        nonlocal best
        loose = hand & ~melded
        laid = _layoffs(melds, loose)
        count = points_of_mask(loose) - sum(card.points for card, _ in laid)
        if best is None or (count, -melded.bit_count()) < (best[0], -best[1].bit_count()):
            best = (count, melded, laid)
        for index in range(start, len(own_melds)):
            meld = own_melds[index]
            if not meld & melded:
                visit(index + 1, melded | meld)

    visit(0, 0)
    assert best is not None
    return best


def knock_score(knocker: int, defender: int, gin_bonus: int = GIN_BONUS, undercut_bonus: int = UNDERCUT_BONUS) -> int:
    """What ``settle`` scores for the knocker (negative: for the defender), from the two
    hands as masks, without the arrangements and layoffs it shows: what the hard
    level's search asks of each knock in each world it plays. The knock must be legal.

    >>> from games.engine import parse_cards
    >>> knock_score(mask_of(parse_cards("Ks Kc Kd 5s 6s 7s 9c Tc Jc 2h")),
    ...             mask_of(parse_cards("8s 9s 8c 2c 3c 4d 5d 6h Qh Ah")))
    29
    """
    knocker_count = deadwood_of_mask(knocker)
    if knocker_count == 0:
        return gin_bonus + deadwood_of_mask(defender)  # R8.3: no layoffs on gin
    defender_count = max(_defender_best(melds, defender)[0] for melds in _knocker_melds(knocker))
    if knocker_count < defender_count:
        return defender_count - knocker_count
    return -(undercut_bonus + knocker_count - defender_count)  # R8.4


@lru_cache(maxsize=4096)
def _knocker_melds(knocker: int) -> tuple[tuple[Meld, ...], ...]:
    """The melds of each of the knocker's best arrangements: a search scores the same
    knock against many hands of the defender."""
    return tuple(arrangement.melds for arrangement in best_arrangements(cards_of(knocker)))


def _as_arrangement(melded: int, loose: int) -> Arrangement:
    arrangement = best_arrangements(cards_of(melded))[0] if melded else Arrangement((), ())
    return Arrangement(arrangement.melds, tuple(cards_of(loose)))


def settle(
    knocker: Sequence[Card],
    defender: Sequence[Card],
    gin_bonus: int = GIN_BONUS,
    undercut_bonus: int = UNDERCUT_BONUS,
) -> Settlement:
    """Score a knock: the knocker's 10 cards after his discard against the defender's 10.

    Both arrangements are the engine's choice, each best for its owner (R7.6).
    """
    knocker_mask, defender_mask = mask_of(knocker), mask_of(defender)
    if knocker_mask & defender_mask:
        raise IllegalAction("shared_card")
    knocker_count = deadwood_of_mask(knocker_mask)
    if knocker_count > KNOCK_LIMIT:
        raise IllegalAction("knock_limit", count=knocker_count, limit=KNOCK_LIMIT)

    if knocker_count == 0:
        arrangement = best_arrangements(knocker)[0]
        defender_arrangement = best_arrangements(defender)[0]
        defender_count = defender_arrangement.count
        return Settlement(
            "knocker",
            gin_bonus + defender_count,
            0,
            defender_count,
            True,
            False,
            arrangement,
            defender_arrangement,
            (),
        )

    choices = []
    for arrangement in best_arrangements(knocker):
        count, melded, laid = _defender_best(arrangement.melds, defender_mask)
        choices.append((count, arrangement, melded, laid))
    defender_count, arrangement, melded, laid = max(choices, key=lambda choice: choice[0])
    laid_mask = mask_of(card for card, _ in laid)
    defender_arrangement = _as_arrangement(melded, defender_mask & ~melded & ~laid_mask)

    if knocker_count < defender_count:
        winner, points, undercut = "knocker", defender_count - knocker_count, False
    else:
        winner, points, undercut = "defender", undercut_bonus + knocker_count - defender_count, True
    return Settlement(
        winner,
        points,
        knocker_count,
        defender_count,
        False,
        undercut,
        arrangement,
        defender_arrangement,
        tuple(laid),
    )
