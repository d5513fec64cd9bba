"""A game of hands to the target: the cut for roles, rotation and scores (R3, R8.5, R10).

Players are seats 0, 1 and 2. ``Game`` is a value like ``Hand``.

>>> game = Game(roles=Roles(box=0, captain=1, sitter=2))
>>> game = game.after_hand(winner=1, points=30)
>>> game.scores, game.roles
((0, 30, 0), Roles(box=1, captain=2, sitter=0))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from .cards import DECK, Card
from .hand import Role
from .options import Options

SEATS = (0, 1, 2)


class Sampler(Protocol):
    """Anything with ``sample`` like ``random.Random`` or ``secrets.SystemRandom``."""

    def sample(self, population: Sequence[Card], k: int) -> list[Card]: ...


@dataclass(frozen=True)
class Roles:
    """Which seat holds each role in a hand (R3.1)."""

    box: int
    captain: int
    sitter: int

    def __post_init__(self) -> None:
        if sorted((self.box, self.captain, self.sitter)) != list(SEATS):
            raise ValueError(f"roles need three different seats, not {self}")

    def by_seat(self) -> dict[int, Role]:
        return {self.box: Role.BOX, self.captain: Role.CAPTAIN, self.sitter: Role.SITTER}

    def role_of(self, seat: int) -> Role:
        return self.by_seat()[seat]

    def seat_of(self, role: Role) -> int:
        return {Role.BOX: self.box, Role.CAPTAIN: self.captain, Role.SITTER: self.sitter}[role]

    def after(self, winner: int | None) -> Roles:
        """Roles for the next hand: the winner is the box, the old sitter the
        captain, the loser the sitter (R3.4); after a draw nothing moves (R3.5)."""
        if winner is None:
            return self
        if winner not in (self.box, self.captain):
            raise ValueError("the sitter never wins a hand (R8.5)")
        loser = self.captain if winner == self.box else self.box
        return Roles(box=winner, captain=self.sitter, sitter=loser)


@dataclass(frozen=True)
class CutRound:
    """One round of the cut: the card each seat drew."""

    draws: dict[int, Card]


def cut_for_roles(rng: Sampler, seats: tuple[int, ...] = SEATS) -> tuple[Roles, list[CutRound]]:
    """Each player draws a card; highest is box, middle captain, lowest sitter.
    Players who tie draw again among themselves until the order is strict (R3.3),
    from the cards nobody has drawn yet, as at a table: a redraw that could show a
    card already lying there read as a second copy of it."""
    rounds: list[CutRound] = []
    drawn: set[Card] = set()

    def order(players: tuple[int, ...]) -> list[int]:
        left = [card for card in DECK if card not in drawn]
        if len(left) < len(players):  # ties all through the deck: it is shuffled again
            drawn.clear()
            left = list(DECK)
        draws = dict(zip(players, rng.sample(left, len(players)), strict=False))
        drawn.update(draws.values())
        rounds.append(CutRound(draws))
        ranks = sorted({card.rank for card in draws.values()}, reverse=True)
        ordered: list[int] = []
        for rank in ranks:
            tied = tuple(seat for seat in players if draws[seat].rank == rank)
            ordered += order(tied) if len(tied) > 1 else list(tied)
        return ordered

    box, captain, sitter = order(seats)
    return Roles(box=box, captain=captain, sitter=sitter), rounds


@dataclass(frozen=True)
class Game:
    """Scores, roles and the winner of a game played to the target (R10)."""

    roles: Roles
    options: Options = field(default_factory=Options)
    scores: tuple[int, int, int] = (0, 0, 0)
    hands_played: int = 0
    winner: int | None = None

    def after_hand(self, winner: int | None, points: int) -> Game:
        """Add a hand's result: only its winner scores (R8.5, R8.6); the first to
        reach the target wins the game (R10.1)."""
        if self.winner is not None:
            raise ValueError("the game is over")
        scores = list(self.scores)
        if winner is not None:
            scores[winner] += points
        game_winner = winner if winner is not None and scores[winner] >= self.options.target else None
        return replace(
            self,
            roles=self.roles.after(winner),
            scores=(scores[0], scores[1], scores[2]),
            hands_played=self.hands_played + 1,
            winner=game_winner,
        )
