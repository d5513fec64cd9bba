"""One seat's table as the table's page shows it (``bot.web``): his view of the hand,
the hand so far as anyone saw it, his team's talk, and the last result."""

from __future__ import annotations

from dataclasses import dataclass

from .base import Notice
from .public import PublicMove
from .tables import SeatView, TableView


@dataclass(frozen=True)
class TeamLine:
    """A word of team talk (``team TEXT``): who said it, and what; a computer partner's
    words are a notice (``said``), worded in the reader's language."""

    name: str
    text: str
    said: Notice | None = None


@dataclass(frozen=True)
class LastResult:
    """How the last hand that ended ended: its ``Hand.summary``, public to all."""

    number: int
    summary: dict
    roles: tuple[tuple[str, str], ...]  # (role, name) as dealt


@dataclass(frozen=True)
class SeatTable:
    """One player's table in one match, as the table's page shows it."""

    code: str
    status: str  # Match.Status
    version: str  # changes whenever anything on the page would
    position: int
    target: int
    seats: tuple[SeatView, ...]
    table: TableView | None = None  # while a hand is in play
    so_far: tuple[PublicMove, ...] = ()  # the hand in play, as anyone saw it
    team: tuple[TeamLine, ...] = ()  # his team's talk in the hand in play
    last_result: LastResult | None = None
    winner: str = ""
