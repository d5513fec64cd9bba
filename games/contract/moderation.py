"""The moderators: what a player hears of their actions, what they refuse, and reports."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from .base import Notice, Refusal


@dataclass(frozen=True)
class AdminAction(Notice):
    """An action of the desk on a match; every player of it is told, with the reason given."""

    code: str
    reason: str


@dataclass(frozen=True)
class Aborted(AdminAction):
    pass


@dataclass(frozen=True)
class Adjudicated(AdminAction):
    winner: str


@dataclass(frozen=True)
class Paused(AdminAction):
    pass


@dataclass(frozen=True)
class Resumed(AdminAction):
    deadline: datetime


@dataclass(frozen=True)
class Extended(AdminAction):
    """``hours`` more for the move; the new ``deadline``, or None while the clock is paused."""

    hours: float
    deadline: datetime | None


@dataclass(frozen=True)
class YourSeatGiven(AdminAction):
    """To the replaced player: his seat went to ``computer``."""

    computer: str


@dataclass(frozen=True)
class Replaced(AdminAction):
    name: str
    computer: str


@dataclass(frozen=True)
class Banned(Notice):
    """To a banned player, when banned and in reply to any command: why, and until when."""

    reason: str
    until: datetime | None


@dataclass(frozen=True)
class Suspended(Notice):
    """To the others: ``name`` may not play for now, a computer plays for him in ``code``."""

    name: str
    code: str


@dataclass(frozen=True)
class Unbanned(Notice):
    """His ban was lifted; ``codes``: running matches where any command gives his seat back."""

    codes: tuple[str, ...]


@dataclass(frozen=True)
class ReportTaken(Notice):
    code: str


@dataclass(frozen=True)
class ReportsWaiting(Refusal):
    code: str


@dataclass(frozen=True)
class AlreadyPaused(Refusal):
    code: str


@dataclass(frozen=True)
class NotPaused(Refusal):
    code: str


@dataclass(frozen=True)
class EmptyExtension(Refusal):
    pass


@dataclass(frozen=True)
class SeatIsComputer(Refusal):
    pass


@dataclass(frozen=True)
class CannotBanComputer(Refusal):
    name: str


@dataclass(frozen=True)
class NotBanned(Refusal):
    name: str


@dataclass(frozen=True)
class NotPossibleNow(Refusal):
    """The match's status does not allow the action; ``status`` is its value (``Match.Status``:
    "lobby", "running", "finished" or "aborted")."""

    code: str
    status: str


@dataclass(frozen=True)
class NoSuchSeat(Refusal):
    code: str
    position: int
