"""Whole games between computer players, and what many games add up to.

A game designer asks how long games last, how hands end and whether a
stronger bot really wins more; ``simulate`` answers with counts and 95%
intervals. Everything is drawn from one seeded ``random.Random``, so the same
seed gives the same games.

>>> import random
>>> record = play_game(["simple", "strong", "strong"], random.Random(1))
>>> max(record.scores) >= 100 and record.scores[record.winner] == max(record.scores)
True
"""

from __future__ import annotations

import math
import random
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from .bots import Strategy, bot_view
from .cards import DECK
from .game import Game, cut_for_roles
from .hand import MAX_TURNS, Event, Role, deal
from .levels import make_strategy
from .options import Options

# R9.1 and R9.3 bound a hand (hand.MAX_TURNS), but nothing bounds a game: in
# principle every hand could be drawn. This turns such a run into an error
# instead of a hang.
MAX_HANDS = 1000
Z_95 = 1.959964


@dataclass(frozen=True)
class HandRecord:
    """How one hand went, by seat."""

    kind: str  # "knock", "gin", "undercut" or "draw" (HandResult.kind)
    box: int
    captain: int
    winner: int | None
    points: int
    turns: int

    @property
    def loser(self) -> int | None:
        if self.winner is None:
            return None
        return self.captain if self.winner == self.box else self.box


@dataclass(frozen=True)
class GameRecord:
    """A whole game: who played which seat, every hand, the final scores."""

    strategies: tuple[str, ...]  # by seat
    winner: int
    scores: tuple[int, int, int]
    hands: tuple[HandRecord, ...]


def play_hand(game: Game, bots: Sequence[Strategy], rng: random.Random) -> HandRecord:
    """Deal and play one hand of ``game``, each seat's bot choosing its actions."""
    hand = deal(rng.sample(DECK, 52), game.options)
    roles = game.roles
    scores = {role: game.scores[roles.seat_of(role)] for role in Role}
    log: list[Event] = []
    while not hand.is_over:
        assert hand.turns < MAX_TURNS, f"R9.1 and R9.3 end every hand within {MAX_TURNS} turns: {hand}"
        action = bots[roles.seat_of(hand.to_move)].choose(bot_view(hand, hand.to_move, log, scores))
        hand, events = hand.apply(action)
        log += events
    result = hand.result
    assert result is not None
    winner = roles.seat_of(result.winner) if result.winner else None
    return HandRecord(result.kind, roles.box, roles.captain, winner, result.points, hand.turns)


def play_game(strategies: Sequence[str], rng: random.Random, options: Options | None = None) -> GameRecord:
    """Play a game to the target (R10): cut for roles (R3.3), then hands with
    the roles rotating after each (R3.4, R3.5). Seat ``i`` plays ``strategies[i]``."""
    if len(strategies) != 3:
        raise ValueError("a game needs exactly three players (R3.1)")
    bots = [make_strategy(name, rng) for name in strategies]
    roles, _ = cut_for_roles(rng)
    game = Game(roles=roles, options=options or Options())
    hands: list[HandRecord] = []
    while game.winner is None:
        if len(hands) >= MAX_HANDS:
            raise RuntimeError(f"no winner after {MAX_HANDS} hands: {game}")
        record = play_hand(game, bots, rng)
        hands.append(record)
        game = game.after_hand(record.winner, record.points)
    return GameRecord(tuple(strategies), game.winner, game.scores, tuple(hands))


@dataclass(frozen=True)
class Rate:
    """Hits out of trials, with the Wilson 95% interval, which stays inside
    [0, 1] and is honest for rates near the ends."""

    hits: int
    trials: int

    @property
    def value(self) -> float:
        return self.hits / self.trials if self.trials else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        if not self.trials:
            return (0.0, 1.0)
        n, p, z2 = self.trials, self.value, Z_95 * Z_95
        centre = (p + z2 / (2 * n)) / (1 + z2 / n)
        half = Z_95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
        return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class Stats:
    """Totals over many games. A "player" is an entry of the strategy list;
    players change seats from game to game."""

    players: tuple[str, ...]
    games: int = 0
    wins: list[int] = field(default_factory=lambda: [0, 0, 0])  # by player
    hands: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    points: int = 0  # scored in all won hands
    duels: Counter[tuple[str, str]] = field(default_factory=Counter)  # (winner's, loser's strategy)
    box_wins: int = 0
    longest_hand: int = 0  # turns
    seconds: float = 0.0

    def add(self, record: GameRecord, player_of_seat: Sequence[int]) -> None:
        self.games += 1
        self.wins[player_of_seat[record.winner]] += 1
        for hand in record.hands:
            self.hands += 1
            self.kinds[hand.kind] += 1
            self.longest_hand = max(self.longest_hand, hand.turns)
            if hand.winner is not None and hand.loser is not None:
                self.points += hand.points
                self.box_wins += hand.winner == hand.box
                self.duels[record.strategies[hand.winner], record.strategies[hand.loser]] += 1

    @property
    def strengths(self) -> list[str]:
        return list(dict.fromkeys(self.players))

    def player_rate(self, player: int) -> Rate:
        """How often one player won the game."""
        return Rate(self.wins[player], self.games)

    def strength_rate(self, strategy: str) -> Rate:
        """How often one seat of ``strategy`` won, pooled over its seats. Two
        seats in one game are not independent trials: at most one of them
        wins, which makes the pooled count vary less than the interval assumes,
        so with a repeated strength the interval errs on the wide side."""
        players = [p for p, name in enumerate(self.players) if name == strategy]
        return Rate(sum(self.wins[p] for p in players), self.games * len(players))

    def duel(self, strategy: str, other: str) -> Rate:
        """How often ``strategy`` won the hands it played against ``other``."""
        won, lost = self.duels[strategy, other], self.duels[other, strategy]
        return Rate(won, won + lost)

    @property
    def decided_hands(self) -> int:
        return self.hands - self.kinds["draw"]

    def share(self, kind: str) -> float:
        return self.kinds[kind] / self.hands if self.hands else 0.0

    @property
    def hands_per_game(self) -> float:
        return self.hands / self.games if self.games else 0.0

    @property
    def points_per_hand(self) -> float:
        """Average points of a hand that someone won (drawn hands score nothing)."""
        return self.points / self.decided_hands if self.decided_hands else 0.0

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else 0.0

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds if self.seconds else 0.0


def simulate(n: int, strategies: Sequence[str], seed: int | None, options: Options | None = None) -> Stats:
    """Play ``n`` games and total them. Player ``p`` sits in seat ``(p + g) % 3``
    in game ``g``, so no strategy keeps a seat and seating cannot bias a result."""
    if len(strategies) != 3:
        raise ValueError("a game needs exactly three players (R3.1)")
    rng = random.Random(seed)
    stats = Stats(players=tuple(strategies))
    start = time.perf_counter()
    for g in range(n):
        player_of_seat = [(seat - g) % 3 for seat in range(3)]
        record = play_game([strategies[p] for p in player_of_seat], rng, options)
        stats.add(record, player_of_seat)
    stats.seconds = time.perf_counter() - start
    return stats
