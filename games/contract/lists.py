"""A player's matches as lists (``status``, ``help``), the hands so far (``score``) and the lobby (``open``).

Each line holds where a match stands and what its reader may do in it,
never a card of anyone else's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, TypeGuard, get_args

from games.engine import Card

from .base import Notice
from .options import MatchOptions


@dataclass(frozen=True)
class MatchLine:
    """One of a player's matches as he may see it in a list (``status``, ``help``):
    where it stands and what he may do in it, never a card of anyone else's."""

    code: str
    status: str  # "lobby" or "running"
    players: int  # seats taken
    hand_number: int = 0
    role: str = ""  # his role in the hand in play
    to_move: str = ""  # who is to move
    your_move: bool = False
    moves: tuple[str, ...] = ()  # what he may play now, or suggest as the sitter
    knocks: dict[Card, int] = field(default_factory=dict)
    upcard: Card | None = None  # the pile's top, which "take" takes
    partner: str = ""  # the captain's sitter, the sitter's captain
    suggestion: str = ""  # the sitter's suggestion waiting for the captain
    deadline: datetime | None = None
    paused: bool = False
    mover_away_until: datetime | None = None  # the player to move is away until then (time off)
    hints: bool = False  # every other seat is a computer player: ``hint`` answers him


@dataclass(frozen=True)
class MatchesView(Notice):
    """A player's matches, for ``status`` with several."""

    lines: tuple[MatchLine, ...]
    more: int = 0  # matches left out of a long list


@dataclass(frozen=True)
class HelpView(Notice):
    """``help``: his matches as lines, and the ways he can be reached."""

    lines: tuple[MatchLine, ...]
    more: int = 0
    telegram: bool = False
    phone: bool = False
    away_until: datetime | None = None  # his own time off
    again: str = ""  # in no match: the code of the one he finished last, which ``again`` plays again


@dataclass(frozen=True)
class HandLine:
    """A hand that ended, for ``score``: who won it, how, and how much (no winner: drawn)."""

    number: int
    winner: str
    points: int
    kind: HandKind


HandKind = Literal["knock", "gin", "undercut", "draw"]


def is_hand_kind(value: str) -> TypeGuard[HandKind]:
    """Whether ``value`` (an ended hand's ``result`` column) is one of the ways a hand ends."""
    return value in get_args(HandKind)


@dataclass(frozen=True)
class ScoreView(Notice):
    """``score``: the scores and every hand played so far, and who won the match once it is over."""

    code: str
    target: int
    scores: tuple[tuple[str, int], ...]
    hands: tuple[HandLine, ...]
    winner: str = ""


@dataclass(frozen=True)
class OpenMatch:
    """An open match as anyone may see it in the lobby: its options, who waits, since when."""

    code: str
    options: MatchOptions
    names: tuple[str, ...]
    since: datetime


@dataclass(frozen=True)
class OpenMatchesView(Notice):
    """``open``: the open matches a player could join, oldest first, and how many more wait."""

    lines: tuple[OpenMatch, ...]
    more: int = 0
