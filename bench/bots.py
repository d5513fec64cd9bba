"""Benchmark the computer levels against each other, heads-up, on duplicate deals.

Run it from the repository root (``make bench-bots`` runs the defaults):

    .venv/bin/python bench/bots.py [--deals 200] [--matches 40] [--pairs hard:easy,hard:normal,normal:easy]
                                   [--budget SECONDS] [--workers 2] [--seed 1]
                                   [--set NAME=VALUE,...] [--save FILE] [--against FILE]

Two levels play each other with no sitter to speak of (only the box and the
captain hold cards, R4.2). Each deal is played twice with the seats swapped,
so both levels hold the same cards once each and the luck of the deal
cancels out of their difference. For each pair the run prints:

* points a hand for the first level: the mean over hands of what it scored
  less what the other scored, with a 95% interval from the spread of the
  deals (each deal's two hands together are one sample), at the scores 0-0;
* the deals that interval would need to be ±1.5;
* the win rate of matches to the target (R10.1), each match also played
  twice with the seats of its first hand swapped: the winner of a hand is the
  next box (R3.4), a drawn hand keeps the roles (R3.5); a Wilson interval;
* for each level, the share of its hands it won by a knock, by gin (R8.3),
  and that it knocked and was undercut (R8.4); and the drawn hands (R9);
* for each level, the time of a move (its ``choose``): median and worst, in
  seconds of the processor the move had (``time.process_time``), which is its
  time on one core of its own however busy the machine.

Everything is drawn from ``--seed``, and a level's choices from seeds of its
own, so a run repeats. The deals go to ``--workers`` processes.

To weigh a change to the hard level, two runs on the same seed are compared
deal by deal: most deals go the same way in both, so their difference is
measured far more closely than either run's points. ``--set`` changes
constants of ``games.engine.search`` for a run (``--set RESAMPLES=16``),
``--save`` keeps each pair's points a deal in a JSON file, and ``--against``
prints, for each pair, the mean difference a deal from a saved run with its
95% interval.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import DECK, Event, Options, Role, deal, search
from games.engine.bots import bot_view
from games.engine.levels import make_strategy
from games.engine.simulate import Rate

Z_95 = 1.959964
TARGET_HALF_WIDTH = 1.5


@dataclass
class HandOutcome:
    """One hand, from the first level's side."""

    points: int  # the first level's points, negative when the other scored
    kind: str  # HandResult.kind
    knocker: int | None  # 0: the first level, 1: the other
    winner: int | None
    turns: int


@dataclass
class Timings:
    """Seconds per move, by level index (0 first, 1 other)."""

    moves: list[list[float]] = field(default_factory=lambda: [[], []])

    def extend(self, other: Timings) -> None:
        for mine, theirs in zip(self.moves, other.moves, strict=True):
            mine.extend(theirs)


def play_hand(
    deck: Sequence, levels: Sequence, first_role: Role, scores: Sequence[int], options: Options, timings: Timings
) -> HandOutcome:
    """Play one hand: the first level holds ``first_role``; ``scores`` are the
    match scores by level index."""
    hand = deal(deck, options)
    role_of = {0: first_role, 1: first_role.opponent}
    index_of = {role: index for index, role in role_of.items()}
    log: list[Event] = []
    score_by_role = {role_of[0]: scores[0], role_of[1]: scores[1], Role.SITTER: 0}

    while not hand.is_over:
        mover = index_of[hand.to_move]
        view = bot_view(hand, hand.to_move, log, score_by_role)
        start = time.process_time()
        action = levels[mover].choose(view)
        timings.moves[mover].append(time.process_time() - start)
        hand, events = hand.apply(action)
        log += events
    result = hand.result
    assert result is not None
    winner = index_of[result.winner] if result.winner else None
    knocker = index_of[result.knocker] if result.knocker else None
    points = 0 if winner is None else (result.points if winner == 0 else -result.points)
    return HandOutcome(points, result.kind, knocker, winner, hand.turns)


def _players(names: Sequence[str], seed: int, budget: float | None) -> list:
    return [make_strategy(name, random.Random(f"{seed}:{index}"), budget) for index, name in enumerate(names)]


def duplicate_deal(job: tuple[Sequence[str], int, int, float | None]) -> tuple[list[HandOutcome], Timings]:
    """One deal played twice, the first level as captain and then as box."""
    names, seed, index, budget = job
    deck = random.Random(f"deal:{seed}:{index}").sample(DECK, 52)
    timings = Timings()
    outcomes = []
    for role in (Role.CAPTAIN, Role.BOX):
        levels = _players(names, seed * 1_000_003 + index, budget)
        outcomes.append(play_hand(deck, levels, role, (0, 0), Options(), timings))
    return outcomes, timings


def match(job: tuple[Sequence[str], int, int, Role, float | None]) -> tuple[int, list[HandOutcome], Timings]:
    """One match to the target, the first level starting in ``role``; the deals
    come from the match's seed, so the two plays of a match share them while
    the hands go the same way. Returns the winner's index."""
    names, seed, index, role, budget = job
    options = Options()
    deals = random.Random(f"match:{seed}:{index}")
    levels = _players(names, seed * 1_000_003 + index, budget)
    timings = Timings()
    scores = [0, 0]
    outcomes = []
    while max(scores) < options.target:
        outcome = play_hand(deals.sample(DECK, 52), levels, role, scores, options, timings)
        outcomes.append(outcome)
        if outcome.winner is not None:
            scores[outcome.winner] += abs(outcome.points)
            # R3.4: the winner is the next box.
            role = Role.BOX if outcome.winner == 0 else Role.CAPTAIN
    return (0 if scores[0] >= options.target else 1), outcomes, timings


@dataclass
class PairReport:
    names: tuple[str, str]
    deal_means: list[float]
    hands: list[HandOutcome]
    match_wins: int
    matches: int
    timings: Timings
    seconds: float

    @property
    def mean(self) -> float:
        return statistics.fmean(self.deal_means)

    @property
    def half_width(self) -> float:
        return Z_95 * statistics.stdev(self.deal_means) / math.sqrt(len(self.deal_means))

    @property
    def deals_for_target(self) -> int:
        """The deals a ±TARGET_HALF_WIDTH interval needs at this spread."""
        return math.ceil((Z_95 * statistics.stdev(self.deal_means) / TARGET_HALF_WIDTH) ** 2)

    def rates(self, level: int) -> dict[str, float]:
        kinds: Counter[str] = Counter()
        for hand in self.hands:
            if hand.knocker == level:
                kinds[hand.kind] += 1
        total = len(self.hands)
        return {kind: kinds[kind] / total for kind in ("knock", "gin", "undercut")}


def run_pair(names: tuple[str, str], deals: int, matches: int, seed: int, budget: float | None, pool) -> PairReport:
    start = time.perf_counter()
    timings = Timings()
    deal_means, hands = [], []
    for outcomes, deal_timings in pool.imap(duplicate_deal, [(names, seed, i, budget) for i in range(deals)]):
        deal_means.append(statistics.fmean(o.points for o in outcomes))
        hands += outcomes
        timings.extend(deal_timings)
    wins = 0
    jobs = [(names, seed, i, role, budget) for i in range(matches // 2) for role in (Role.CAPTAIN, Role.BOX)]
    for winner, _, match_timings in pool.imap(match, jobs):
        wins += winner == 0
        timings.extend(match_timings)
    return PairReport(names, deal_means, hands, wins, len(jobs), timings, time.perf_counter() - start)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def print_report(report: PairReport) -> None:
    first, other = report.names
    rate = Rate(report.match_wins, report.matches)
    low, high = rate.interval
    drawn = sum(hand.kind == "draw" for hand in report.hands) / len(report.hands)
    print(f"\n{first} vs {other}: {len(report.deal_means)} deals ({len(report.hands)} hands), {report.seconds:.0f} s")
    print(
        f"  points a hand for {first}: {report.mean:+.2f} ± {report.half_width:.2f} (95%); "
        f"±{TARGET_HALF_WIDTH} needs {report.deals_for_target} deals"
    )
    print(f"  matches to 100 won by {first}: {rate.value:.0%} [{low:.0%}, {high:.0%}] of {report.matches}")
    for index, name in enumerate(report.names):
        rates = report.rates(index)
        moves = report.timings.moves[index]
        print(
            f"  {name:>7}: knock {rates['knock']:.1%}, gin {rates['gin']:.1%}, undercut {rates['undercut']:.1%} "
            f"of hands; a move {_ms(statistics.median(moves))} median, {_ms(max(moves))} worst "
            f"({len(moves)} moves)"
        )
    print(f"  drawn hands: {drawn:.1%}")


def apply_settings(settings: Sequence[str]) -> None:
    """Set constants of the search, ``NAME=VALUE``, each VALUE read as the type of
    the constant it replaces (an empty VALUE is False for a flag)."""
    for setting in settings:
        name, _, value = setting.partition("=")
        current = getattr(search, name)
        setattr(search, name, type(current)(value))


def paired(report: PairReport, saved: dict[str, list[float]]) -> str:
    """The mean difference a deal from the saved run of this pair, with its 95% interval."""
    key = ":".join(report.names)
    if key not in saved:
        return f"  no saved run of {key}"
    differences = [new - old for new, old in zip(report.deal_means, saved[key], strict=False)]
    half = Z_95 * statistics.stdev(differences) / math.sqrt(len(differences)) if len(differences) > 1 else math.inf
    changed = sum(difference != 0 for difference in differences)
    return (
        f"  against the saved run: {statistics.fmean(differences):+.2f} ± {half:.2f} points a hand (95%), "
        f"{changed} of {len(differences)} deals changed"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=200, help="duplicate deals a pair (default 200)")
    parser.add_argument("--matches", type=int, default=40, help="matches a pair, half each way round (default 40)")
    parser.add_argument("--pairs", default="hard:easy,hard:normal,normal:easy", help="first:other,...")
    parser.add_argument("--budget", type=float, default=None, help="seconds a move for hard (default: its own)")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--set", default="", help="NAME=VALUE,... constants of games.engine.search for this run")
    parser.add_argument("--save", type=Path, help="write each pair's points a deal to this JSON file")
    parser.add_argument("--against", type=Path, help="compare deal by deal with a file written by --save")
    args = parser.parse_args(argv)
    pairs = [tuple(pair.split(":")) for pair in args.pairs.split(",")]
    settings = [setting for setting in args.set.split(",") if setting]
    apply_settings(settings)
    saved = json.loads(args.against.read_text()) if args.against else None
    print(f"load average {os.getloadavg()[0]:.2f}; {args.workers} workers; seed {args.seed}; set {settings}")
    results = {}
    with multiprocessing.Pool(args.workers, initializer=apply_settings, initargs=(settings,)) as pool:
        for names in pairs:
            report = run_pair(names, args.deals, args.matches, args.seed, args.budget, pool)
            print_report(report)
            if saved is not None:
                print(paired(report, saved))
            results[":".join(names)] = report.deal_means
    if args.save:
        args.save.write_text(json.dumps(results))
    print(f"\nload average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
