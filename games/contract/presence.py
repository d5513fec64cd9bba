"""A player gone and back: a computer playing his seat, a player who can't be reached."""

from __future__ import annotations

from dataclasses import dataclass

from .base import Notice


@dataclass(frozen=True)
class MissedTurns(Notice):
    """``name`` missed ``count`` turns in a row: a computer plays his seat in ``code``."""

    name: str
    count: int
    code: str


@dataclass(frozen=True)
class Unreachable(Notice):
    """``name`` can't be reached any more: a computer plays for him in ``code``."""

    name: str
    code: str


@dataclass(frozen=True)
class UnreachableInLobby(Notice):
    """``name`` can't be reached any more: ``code``, not started, may wait for him in vain."""

    name: str
    code: str


@dataclass(frozen=True)
class PlayerReturned(Notice):
    name: str
    code: str


@dataclass(frozen=True)
class YouAreBackIn(Notice):
    """The note on his table when he takes his seat back from the computer."""

    code: str
