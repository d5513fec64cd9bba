"""Ratings for three players who play as one against two: openskill's Plackett-Luce.

Why this model: a gin3 match ends with one winner of three and an order
among the other two (their scores), and each hand is the box alone against
the captain and the sitter as a team. Elo and Glicko rate two sides of one
player each; Plackett-Luce (Weng and Lin, 2011, as in the ``openskill``
package) rates any number of teams of any size from a finishing order, which
covers both shapes, and updates in closed form (no sampling, so the same log
gives the same ratings to the last bit). We rate the match, not each hand:
the sitter takes no decision of his own in a hand, and a hand is mostly the
deal, so hand by hand the sitter would be rated on his captain's cards.

A rating is shown as a cautious estimate, ``mu - 3 sigma`` scaled to start
at 1000: a new player starts at 1000 and rises as his results make him
surely better, so a lucky first win does not top the board.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

START = 1000
SCALE = 40
_model = PlackettLuce()


@dataclass(frozen=True)
class Skill:
    mu: float
    sigma: float

    @property
    def shown(self) -> int:
        """The number on the pages: 1000 for a newcomer, cautious for everyone."""
        return round(START + SCALE * (self.mu - 3 * self.sigma))


def rate(skills: Sequence[Skill], ranks: Sequence[int]) -> list[Skill]:
    """New skills of players who finished a match in ``ranks`` (1 is first; equal
    ranks tie), each playing for himself."""
    teams = [[_model.create_rating([skill.mu, skill.sigma])] for skill in skills]
    rated = _model.rate(teams, ranks=list(ranks))
    return [Skill(team[0].mu, team[0].sigma) for team in rated]


def finishing_ranks(scores: Sequence[int], winner: int | None, last: int | None = None) -> list[int]:
    """The finishing order of three seats: the winner first (R10), a player who
    resigned last (R10.3), the others by their scores; equal scores share a rank."""

    def standing(index: int) -> tuple[int, int, int]:
        return (index != winner, index == last, -scores[index])

    keys = [standing(index) for index in range(len(scores))]
    return [1 + sum(other < key for other in keys) for key in keys]
