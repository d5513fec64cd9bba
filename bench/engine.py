"""Benchmark the gin3 rules engine against rlcard and OpenSpiel.

Run it from the repository root, once the benchmark packages are installed:

    .venv/bin/pip install -r requirements-bench.txt
    .venv/bin/python bench/engine.py [--hands 20000] [--seed 1] [--repeat 5]

(``make bench`` does both.) ``--help`` lists the other options.

How it times (time.perf_counter): a batch is cut into chunks of about half a
millisecond each (at least one call: one game for the simulation), each chunk
is run once untimed and then timed, a chunk's time is the fastest of
``--repeat`` passes, and a figure is the batch's calls over the sum of those
times. The libraries compared take their passes in turn. So the load of a
shared machine, which comes and goes, is mostly filtered out chunk by chunk;
chunks of the same duration give the slow libraries and the fast the same
chance to run unpreempted; and each library is timed with its own data and
code in the caches, not after another library's pass has flushed them (which
cost gin3, timed after rlcard, about a quarter of its speed on uniform
hands). The load average is printed at the start and the end.

Every hand is converted to each library's own representation before the
clock starts: for gin3 a list of its ``Card`` objects, which ``deadwood``
turns into a 52-bit mask on every call, as the engine does.

What it measures:

* Minimum-deadwood evaluations per second on the same 10-card hands, three
  sets of ``--hands`` each: uniform random; meld-rich (two or three melds
  dealt on purpose, some of them a run and a set sharing a card); and
  set-rich (every other hand dealt from only 4 to 7 ranks, each of them
  present, so that many ranks are held two to four times; the others
  uniform): gin3's ``deadwood``, rlcard 1.2.0's ``get_best_meld_clusters``
  with its deadwood count (pure Python) and OpenSpiel 2.0.2's
  ``GinRummyUtils.min_deadwood`` (C++), with the ratios gin3/rlcard and
  gin3/OpenSpiel. ``--rlcard-hands``
  times the slow rlcard on only the first hands of each set (default: all);
  all three are checked to agree on every hand either way, and the first
  disagreement ends the run with exit status 1. The bars for gin3 are 10
  times rlcard's throughput and at least OpenSpiel's on every set: the run
  says whether each is met.
* Knock decisions per second on 11-card hands: gin3's ``knock_discards``
  against OpenSpiel's ``legal_discards(hand, 10)``, which names the discards
  that allow a knock but not the counts they leave. On every hand gin3's
  discards must be OpenSpiel's, and each count OpenSpiel's ``min_deadwood`` of
  the ten cards left. (OpenSpiel's ``min_deadwood`` of 11 cards is no
  reference: it drops the highest deadwood card of one best 11-card
  arrangement, which is sometimes not the best discard.)
* Full simulated games per second: ``games.engine.simulate.play_game`` with
  the bots of ``--players``, ``--games`` games a pass.
* Replays per second of one 60-move hand (``games.engine.replay``), which the
  services do on every move: both players refuse the upcard, then each turn
  draws from the stock and discards a card at random, until the 29th card
  drawn draws the hand (R9.1).
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

import pyspiel
from rlcard.games.base import Card as RlcardCard
from rlcard.games.gin_rummy.utils import melding as rlcard_melding
from rlcard.games.gin_rummy.utils import utils as rlcard_utils

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import Action, Card, Discard, Draw, Pass, deadwood, knock_discards, parse_cards, replay
from games.engine.simulate import play_game

RANKS = "A23456789TJQK"
SUITS = "shdc"  # gin3's suit order; a card's index is suit * 13 + rank - 1
KNOCK_LIMIT = 10  # R7.2
EXAMPLES = (("7s 7h 7d 5s 6s", 11), ("5s 5h 5d 5c 3s 4s", 0), ("Qs Ks As", 21))
# Cards that meld neither among themselves nor with any example: they pad the
# examples to the ten cards that rlcard insists on.
PADDING = "9c Jd 2h Kh 4c 9d Jh"

DECK = parse_cards(" ".join(rank + suit for suit in SUITS for rank in RANKS))
OPENSPIEL = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
# OpenSpiel numbers cards suit * 13 + rank - 1 too, but with the suits in the
# order s c d h, so hearts and clubs trade places: go through card names.
TO_OPENSPIEL = [OPENSPIEL.card_int(str(card)) for card in DECK]
# rlcard's cards are objects named by rank and upper-case suit: "TD".
TO_RLCARD = [rlcard_utils.card_from_text(str(card)[0] + str(card)[1].upper()) for card in DECK]


def rlcard_deadwood(hand: list[RlcardCard]) -> int:
    """rlcard's minimum deadwood, as its own scoring gets it (exactly 10 cards)."""
    clusters = rlcard_melding.get_best_meld_clusters(hand=hand)
    return rlcard_utils.get_deadwood_count(hand=hand, meld_cluster=clusters[0] if clusters else [])


def uniform_hands(rng: random.Random, count: int, size: int) -> list[list[int]]:
    """``count`` hands of ``size`` cards dealt from a full shuffled deck."""
    return [rng.sample(range(52), size) for _ in range(count)]


def meld_rich_hand(rng: random.Random, size: int) -> list[int]:
    """Two or three runs, sets or run-and-set crosses, cut or filled to ``size``."""
    cards: set[int] = set()
    for _ in range(rng.choice((2, 3, 3))):
        rank, suit, shape = rng.randint(1, 13), rng.randrange(4), rng.random()
        if shape < 0.35:
            length = rng.choice((3, 3, 4, 5))
            start = rng.randint(1, 14 - length)
            cards.update(suit * 13 + r - 1 for r in range(start, start + length))
        elif shape < 0.65:
            cards.update(s * 13 + rank - 1 for s in rng.sample(range(4), rng.choice((3, 4))))
        else:
            start = rng.randint(max(1, rank - 2), min(rank, 11))
            cards.update(suit * 13 + r - 1 for r in range(start, start + 3))
            others = rng.sample([s for s in range(4) if s != suit], 2)
            cards.update(s * 13 + rank - 1 for s in others)
    hand = rng.sample(sorted(cards), min(size, len(cards)))
    hand += rng.sample([card for card in range(52) if card not in cards], size - len(hand))
    return hand


def meld_rich_hands(rng: random.Random, count: int, size: int) -> list[list[int]]:
    """``count`` hands of ``meld_rich_hand``."""
    return [meld_rich_hand(rng, size) for _ in range(count)]


def set_rich_hand(rng: random.Random, size: int) -> list[int]:
    """``size`` cards of only 4 to 7 ranks, each of those ranks held at least once."""
    ranks = rng.sample(range(13), rng.randint(4, 7))
    hand = [rng.randrange(4) * 13 + rank for rank in ranks]
    rest = [suit * 13 + rank for rank in ranks for suit in range(4) if suit * 13 + rank not in hand]
    hand += rng.sample(rest, size - len(hand))
    rng.shuffle(hand)
    return hand


def set_rich_hands(rng: random.Random, count: int, size: int) -> list[list[int]]:
    """``count`` hands, every other one a ``set_rich_hand`` and the rest uniform."""
    return [set_rich_hand(rng, size) if index % 2 else rng.sample(range(52), size) for index in range(count)]


CHUNK_SECONDS = 0.0005


def chunk_size(evaluate: Callable[[Any], object], arguments: Sequence[Any]) -> int:
    """How many calls take about ``CHUNK_SECONDS``, from an untimed trial of a few."""
    trial = arguments[:20]
    start = time.perf_counter()
    for argument in trial:
        evaluate(argument)
    per_call = (time.perf_counter() - start) / len(trial)
    return max(1, round(CHUNK_SECONDS / per_call))


def best_rates(batches: Sequence[tuple[Callable[[Any], object], Sequence[Any]]], repeat: int) -> list[float]:
    """Calls per second of each ``(function, arguments)`` batch, timed side by
    side: each pass times every batch in turn, chunk by chunk, each chunk run
    once untimed first, and a chunk counts with its fastest pass."""
    sizes = [chunk_size(evaluate, arguments) for evaluate, arguments in batches]
    chunks = [
        [arguments[start : start + size] for start in range(0, len(arguments), size)]
        for (_, arguments), size in zip(batches, sizes, strict=True)
    ]
    fastest = [[float("inf")] * len(parts) for parts in chunks]
    gc.disable()
    try:
        for _ in range(repeat):
            for (evaluate, _), parts, times in zip(batches, chunks, fastest, strict=True):
                for index, part in enumerate(parts):
                    for argument in part:  # untimed: the chunk's data and code in the caches
                        evaluate(argument)
                    start = time.perf_counter()
                    for argument in part:
                        evaluate(argument)
                    times[index] = min(times[index], time.perf_counter() - start)
    finally:
        gc.enable()
    return [len(arguments) / sum(times) for (_, arguments), times in zip(batches, fastest, strict=True)]


def fail(message: str) -> NoReturn:
    print(f"DISAGREEMENT: {message}", file=sys.stderr)
    sys.exit(1)


def check_examples() -> None:
    """gin3's card indices, and the worked examples of R2.4 in all three libraries."""
    if [int(card) for card in DECK] != list(range(52)):
        fail("gin3's card indices are not suit * 13 + rank - 1 with suits s h d c")
    padding = parse_cards(PADDING)
    for text, expected in EXAMPLES:
        hand = parse_cards(text)
        padded = hand + padding[: 10 - len(hand)]
        padded_expected = expected + deadwood(padding[: 10 - len(hand)])
        got = {
            "gin3": deadwood(hand),
            "OpenSpiel": OPENSPIEL.min_deadwood([TO_OPENSPIEL[card] for card in hand]),
            "gin3 padded": deadwood(padded),
            "rlcard padded": rlcard_deadwood([TO_RLCARD[card] for card in padded]),
            "OpenSpiel padded": OPENSPIEL.min_deadwood([TO_OPENSPIEL[card] for card in padded]),
        }
        wanted = {name: padded_expected if "padded" in name else expected for name in got}
        if got != wanted:
            fail(f"worked example {text} (padded with {padding[: 10 - len(hand)]}): got {got}, want {wanted}")
    print("worked examples agree: " + ", ".join(f"{text} -> {count}" for text, count in EXAMPLES))


def describe(name: str, hands: list[list[int]], counts: list[int]) -> None:
    """How many melds OpenSpiel's best arrangement holds, and the mean deadwood."""
    melds = Counter(len(OPENSPIEL.best_meld_group([TO_OPENSPIEL[card] for card in hand])) for hand in hands)
    shares = " ".join(f"{n}:{100 * melds[n] / len(hands):.0f}%" for n in sorted(melds))
    knockable = 100 * sum(count <= KNOCK_LIMIT for count in counts) / len(counts)
    print(
        f"  {name}: melds in a best arrangement {shares}; "
        f"mean deadwood {sum(counts) / len(counts):.1f}; {knockable:.0f}% at {KNOCK_LIMIT} or less"
    )


def print_table(header: Sequence[str], rows: list[list[str]]) -> None:
    """Columns as wide as their widest cell: the first one left-aligned, the rest right."""
    widths = [max(len(row[column]) for row in [header, *rows]) for column in range(len(header))]
    print()
    for row in [header, *rows]:
        cells = [cell.rjust(width) for cell, width in zip(row, widths, strict=True)]
        cells[0] = row[0].ljust(widths[0])
        print("  ".join(cells))


def bench_deadwood(hand_sets: dict[str, list[list[int]]], repeat: int, rlcard_limit: int) -> tuple[float, float]:
    """Check and time minimum deadwood on each hand set; return the lowest
    gin3/rlcard and gin3/OpenSpiel ratios."""
    ratios, openspiel_ratios, rows = [], [], []
    for name, hands in hand_sets.items():
        gin3_hands = [[DECK[card] for card in hand] for hand in hands]
        rlcard_hands = [[TO_RLCARD[card] for card in hand] for hand in hands]
        openspiel_hands = [[TO_OPENSPIEL[card] for card in hand] for hand in hands]
        gin3 = [deadwood(hand) for hand in gin3_hands]
        rlcard = [rlcard_deadwood(hand) for hand in rlcard_hands]
        openspiel = [OPENSPIEL.min_deadwood(hand) for hand in openspiel_hands]
        for index, values in enumerate(zip(gin3, rlcard, openspiel, strict=True)):
            if len(set(values)) > 1:
                cards = " ".join(str(card) for card in gin3_hands[index])
                fail(f"{name} hand #{index} [{cards}]: gin3, rlcard, OpenSpiel say {values}")
        describe(name, hands, gin3)
        gin3_rate, rlcard_rate, openspiel_rate = best_rates(
            [
                (deadwood, gin3_hands),
                (rlcard_deadwood, rlcard_hands[:rlcard_limit]),
                (OPENSPIEL.min_deadwood, openspiel_hands),
            ],
            repeat,
        )
        ratios.append(gin3_rate / rlcard_rate)
        openspiel_ratios.append(gin3_rate / openspiel_rate)
        rates = (gin3_rate, rlcard_rate, openspiel_rate)
        ratio_cells = [f"{gin3_rate / rlcard_rate:.1f}x", f"{gin3_rate / openspiel_rate:.2f}x"]
        rows.append([name, *(f"{rate:,.0f}" for rate in rates), *ratio_cells])
    header = ["min deadwood, 10 cards", "gin3/s", "rlcard/s", "OpenSpiel/s", "gin3/rlcard", "gin3/OpenSpiel"]
    print_table(header, rows)
    return min(ratios), min(openspiel_ratios)


def bench_knock(hand_sets: dict[str, list[list[int]]], repeat: int) -> None:
    """Check and time knock decisions on 11 cards: gin3 against OpenSpiel."""

    def openspiel_knock(hand: list[int]) -> list[int]:
        return OPENSPIEL.legal_discards(hand, KNOCK_LIMIT)

    rows = []
    for name, hands in hand_sets.items():
        gin3_hands = [[DECK[card] for card in hand] for hand in hands]
        openspiel_hands = [[TO_OPENSPIEL[card] for card in hand] for hand in hands]
        knockable = 0
        for index, (gin3_hand, openspiel_hand) in enumerate(zip(gin3_hands, openspiel_hands, strict=True)):
            gin3 = knock_discards(gin3_hand)
            legal = openspiel_knock(openspiel_hand)
            left = {card: OPENSPIEL.min_deadwood([c for c in openspiel_hand if c != card]) for card in legal}
            if {TO_OPENSPIEL[card]: count for card, count in gin3.items()} != left:
                cards = " ".join(str(card) for card in gin3_hand)
                named = {OPENSPIEL.card_string(card): count for card, count in left.items()}
                fail(f"{name} 11-card hand #{index} [{cards}]: gin3 {gin3}, OpenSpiel {named}")
            knockable += bool(legal)
        gin3_rate, openspiel_rate = best_rates(
            [(knock_discards, gin3_hands), (openspiel_knock, openspiel_hands)], repeat
        )
        rows.append(
            [
                name,
                f"{gin3_rate:,.0f}",
                f"{openspiel_rate:,.0f}",
                f"{gin3_rate / openspiel_rate:.2f}x",
                f"{100 * knockable / len(hands):.0f}%",
            ]
        )
    print_table(["knock decisions, 11 cards", "gin3/s", "OpenSpiel/s", "gin3/OpenSpiel", "can knock"], rows)


def bench_games(players: list[str], games: int, seed: int, repeat: int) -> None:
    """Full simulated games per second: game ``i`` is played from seed ``seed + i``."""
    hands_per_game: list[int] = []

    def play(game_seed: int) -> None:
        hands_per_game.append(len(play_game(players, random.Random(game_seed)).hands))

    (rate,) = best_rates([(play, range(seed, seed + games))], repeat)
    print(
        f"\nsimulation: {rate:,.2f} full games/s ({games} games of {','.join(players)}, "
        f"{sum(hands_per_game) / len(hands_per_game):.1f} hands per game)"
    )


def sixty_move_hand(rng: random.Random) -> tuple[list[Card], list[Action]]:
    """A deck and the 60 moves of a hand played from it to a draw (R9.1)."""
    deck = rng.sample(DECK, 52)
    actions: list[Action] = [Pass(), Pass()]
    hand = replay(deck, actions)
    while not hand.is_over:
        hand, _ = hand.apply(Draw())
        discard = Discard(rng.choice(hand.cards_of(hand.to_move)))
        hand, _ = hand.apply(discard)
        actions += [Draw(), discard]
    return deck, actions


def bench_replay(seed: int, repeat: int, batch: int = 200) -> None:
    """Replays per second of 60-move hands, ``batch`` different ones a pass."""
    rng = random.Random(seed)
    hands = [sixty_move_hand(rng) for _ in range(batch)]
    if {len(actions) for _, actions in hands} != {60}:
        fail("a draw-and-discard hand did not take 60 moves")
    (rate,) = best_rates([(lambda hand: replay(*hand), hands)], repeat)
    print(f"replay of a 60-move hand: {rate:,.0f}/s ({1000 / rate:.2f} ms each)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--hands",
        type=int,
        default=20000,
        help="hands in each hand set (default 20000)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=1,
        help="seed of the random hands and games (default 1)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=5,
        help="timed passes per batch, the fastest of each chunk kept (default 5)",
    )
    parser.add_argument(
        "--rlcard-hands",
        type=int,
        help="time rlcard on only this many hands of each set (default: all)",
    )
    parser.add_argument(
        "--games",
        type=int,
        default=30,
        help="full games simulated per pass (default 30)",
    )
    parser.add_argument(
        "--players",
        default="simple,strong,strong",
        help="the three bot strategies of the simulated games (default simple,strong,strong)",
    )
    args = parser.parse_args()
    rlcard_hands = min(args.rlcard_hands or args.hands, args.hands)

    rng = random.Random(args.seed)
    print(f"gin3 engine benchmark: seed {args.seed}, fastest of {args.repeat} timed passes per chunk")
    print("load average at the start: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    check_examples()
    print(
        f"hands per set: {args.hands} checked by all three; timed on {args.hands} for gin3 and OpenSpiel, "
        f"{rlcard_hands} for rlcard"
    )
    ten = {
        "uniform random": uniform_hands(rng, args.hands, 10),
        "meld-rich": meld_rich_hands(rng, args.hands, 10),
        "set-rich": set_rich_hands(rng, args.hands, 10),
    }
    worst, worst_openspiel = bench_deadwood(ten, args.repeat, rlcard_hands)
    print(f"bar, gin3 at least 10x rlcard: {'met' if worst >= 10 else 'NOT met'} (lowest {worst:.1f}x)")
    print(
        f"bar, gin3 at least 1.0x OpenSpiel: {'met' if worst_openspiel >= 1 else 'NOT met'} "
        f"(lowest {worst_openspiel:.2f}x)"
    )

    eleven = {
        "uniform random": uniform_hands(rng, args.hands, 11),
        "meld-rich": meld_rich_hands(rng, args.hands, 11),
        "set-rich": set_rich_hands(rng, args.hands, 11),
    }
    bench_knock(eleven, args.repeat)
    bench_games(args.players.split(","), args.games, args.seed, args.repeat)
    bench_replay(args.seed, args.repeat)
    print("load average at the end: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()
