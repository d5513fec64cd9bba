"""What seeing the opponent's cards would be worth to the normal level's judgement.

Run it from the repository root:

    .venv/bin/python bench/headroom.py [--deals 6000] [--workers 2] [--seed 1]

A *seer* plays the normal level's judgement of the cards, but with the
opponent's hand in view: every card of it is treated as one he took from the
pile, so the seer weighs the danger of every discard against his real cards,
reckons its outs without them, and never knocks into an undercut it can see (R8.4):
it plays on instead, with the discard the normal level plays on with. It
cannot see the stock (R4.4).

A level that inferred the opponent's cards exactly and used them as the normal
level's judgement can (what it may throw, when it may knock) could do no better
than the seer, so the seer's margin is what such inference is worth to that
judgement; a margin beyond it has to come from judging the cards better. It
is played against ``easy`` and ``normal`` heads-up on duplicate deals, each deal
twice with the seats swapped, as ``bench/bots.py`` plays the levels, and the
run prints the seer's points a hand with a 95% interval, and the normal
level's own margin over ``easy`` on the same deals beside it.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import multiprocessing
import os
import random
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import DECK, Options, Role, deal
from games.engine.bots import BotView, SimpleBot, Strategy, StrongBot, bot_view
from games.engine.cards import mask_of
from games.engine.hand import Action, Event, Hand, Knock
from games.engine.melds import KNOCK_LIMIT
from games.engine.scoring import knock_score

Z_95 = 1.959964
OPPONENTS = {"easy": SimpleBot, "normal": StrongBot}


@dataclasses.dataclass
class Seer:
    """The normal level's judgement with the opponent's cards in view."""

    judgement: StrongBot
    # The same judgement, never knocking short of gin: its discard is the one
    # the normal level plays on with.
    playing_on: StrongBot

    @classmethod
    def new(cls, rng: random.Random) -> Seer:
        return cls(StrongBot(rng), StrongBot(rng, gin_hunt=KNOCK_LIMIT, gin_hunt_stock=-1))

    def choose(self, view: BotView, opponent_cards: Sequence) -> Action:
        seeing = dataclasses.replace(view, opponent_holds=frozenset(opponent_cards))
        action = self.judgement.choose(seeing)
        if type(action) is Knock:
            kept = mask_of(view.cards) ^ 1 << action.card
            options = view.options
            if knock_score(kept, mask_of(opponent_cards), options.gin_bonus, options.undercut_bonus) <= 0:
                return self.playing_on.choose(seeing)
        return action


def play(deck: Sequence, first: Strategy | Seer, other: Strategy, first_role: Role) -> int:
    """One hand, ``first`` holding ``first_role``: its points (negative: the other's)."""
    hand: Hand = deal(deck, Options())
    log: list[Event] = []
    while not hand.is_over:
        mover = hand.to_move
        view = bot_view(hand, mover, log)
        if mover is not first_role:
            action = other.choose(view)
        elif isinstance(first, Seer):
            action = first.choose(view, hand.cards_of(mover.opponent))
        else:
            action = first.choose(view)
        hand, events = hand.apply(action)
        log += events
    result = hand.result
    assert result is not None
    if result.winner is None:
        return 0
    return result.points if result.winner is first_role else -result.points


def duplicate_deal(job: tuple[str, str, int, int]) -> float:
    """One deal played twice, the seats swapped: ``first``'s mean points a hand."""
    first, other, seed, index = job
    deck = random.Random(f"deal:{seed}:{index}").sample(DECK, 52)
    points = []
    for role in (Role.CAPTAIN, Role.BOX):
        rng = random.Random(f"{seed}:{index}")
        player = Seer.new(rng) if first == "seer" else OPPONENTS[first](rng)
        points.append(play(deck, player, OPPONENTS[other](random.Random(f"{seed}:{index}:other")), role))
    return statistics.fmean(points)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=6000, help="duplicate deals a pair (default 6000)")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    pairs = [("normal", "easy"), ("seer", "easy"), ("seer", "normal")]
    with multiprocessing.Pool(args.workers) as pool:
        for first, other in pairs:
            jobs = [(first, other, args.seed, index) for index in range(args.deals)]
            means = list(pool.imap(duplicate_deal, jobs, chunksize=50))
            mean, half = statistics.fmean(means), Z_95 * statistics.stdev(means) / math.sqrt(len(means))
            print(f"{first} vs {other}: {mean:+.2f} ± {half:.2f} points a hand (95%), {len(means)} deals")
    return 0


if __name__ == "__main__":
    sys.exit(main())
