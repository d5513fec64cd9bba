"""Making, finding, leaving and giving up matches: the answers, the news and the refusals."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from games.engine import Card

from .base import Notice, Refusal
from .options import MatchOptions


@dataclass(frozen=True)
class MatchCreated(Notice):
    """``new``: the reply confirms every option; on Telegram it offers the invitation link."""

    code: str
    options: MatchOptions
    on_telegram: bool = False


@dataclass(frozen=True)
class YouJoined(Notice):
    """``join``: seated in ``code``; a match that still waits is named with its options
    when he did not choose it himself (``join any``)."""

    code: str
    started: bool
    options: MatchOptions | None = None


@dataclass(frozen=True)
class YouOpened(Notice):
    """``join any`` found no open match, so it opened one of his."""

    code: str
    options: MatchOptions


@dataclass(frozen=True)
class ComputerJoined(Notice):
    name: str
    code: str
    level: str = ""  # easy, normal or hard (``models.Strength``)


@dataclass(frozen=True)
class Joined(Notice):
    """News for the others seated: someone took a seat."""

    name: str
    code: str


@dataclass(frozen=True)
class YouLeft(Notice):
    code: str


@dataclass(frozen=True)
class Left(Notice):
    name: str
    code: str


@dataclass(frozen=True)
class LobbyClosed(Notice):
    """A match that waited ``waited_seconds`` for its players is closed."""

    code: str
    waited_seconds: float


@dataclass(frozen=True)
class ComputerOffer(Notice):
    """An open match has waited long: a computer player may take its free seats."""

    code: str
    waited_seconds: float
    closes: datetime


@dataclass(frozen=True)
class ConfirmResign(Notice):
    """``resign``: giving up ends the match for all three, so it is asked for twice."""

    code: str


@dataclass(frozen=True)
class YouResigned(Notice):
    """``resign yes``; ``winner`` wins it (R10.3), nobody if "" (the other two tie), on
    ``scores``: each player's total, in seat order."""

    code: str
    winner: str
    scores: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Resigned(Notice):
    """News for the other two: ``name`` gave the match up; ``winner`` and ``scores`` as in ``YouResigned``."""

    name: str
    code: str
    winner: str
    scores: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class CutRound:
    """One round of the cut for roles (R3.3): each player's card, a redraw after a tie."""

    draws: tuple[tuple[str, Card], ...]


@dataclass(frozen=True)
class CutForRoles(Notice):
    """The match starts: the cut, shown to all (R3.3), and who holds each role."""

    code: str
    rounds: tuple[CutRound, ...]
    box: str
    captain: str
    sitter: str


@dataclass(frozen=True)
class WaitingForPlayers(Notice):
    """``status`` of a match that waits: who sits in it so far."""

    code: str
    names: tuple[str, ...]


@dataclass(frozen=True)
class SeeTheScore(Notice):
    """``status`` of a match that is over."""

    code: str


@dataclass(frozen=True)
class NoMatch(Notice):
    """He sits in no match: how to start or join one."""


# Refusals ---------------------------------------------------------------------


@dataclass(frozen=True)
class NoFreeCode(Refusal):
    pass


@dataclass(frozen=True)
class NoSuchMatch(Refusal):
    code: str


@dataclass(frozen=True)
class NotInMatch(Refusal):
    code: str


@dataclass(frozen=True)
class AlreadySeated(Refusal):
    code: str


@dataclass(frozen=True)
class TooManyWaiting(Refusal):
    """A player may have only a few matches waiting for players at once."""

    count: int


@dataclass(frozen=True)
class NotAPlayerOf(Refusal):
    """Only a player of a match adds a computer player to it."""

    code: str


@dataclass(frozen=True)
class AlreadyStarted(Refusal):
    code: str


@dataclass(frozen=True)
class MatchFull(Refusal):
    code: str


@dataclass(frozen=True)
class StartedUseResign(Refusal):
    code: str


@dataclass(frozen=True)
class NotStartedUseLeave(Refusal):
    code: str


@dataclass(frozen=True)
class MatchIsOver(Refusal):
    code: str


@dataclass(frozen=True)
class NotRunning(Refusal):
    code: str


@dataclass(frozen=True)
class NoneWaitsFor(Refusal):
    """None of his matches waits on him for ``command``."""

    command: str


@dataclass(frozen=True)
class WhichMatch(Refusal):
    """``command`` fits several of his matches: put a code first."""

    command: str
    codes: tuple[str, ...]  # the match whose table changed last first: the example
