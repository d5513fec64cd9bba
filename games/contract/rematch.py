"""Playing a finished match again (``again``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from .base import Notice, Refusal


@dataclass(frozen=True)
class RematchAsked(Notice):
    """His ``again``; the others are asked."""

    code: str


@dataclass(frozen=True)
class RematchStarts(Notice):
    """All three agreed: ``new``, a rematch of ``old``, starts."""

    new: str
    old: str


@dataclass(frozen=True)
class RematchOffer(Notice):
    """``name`` wants to play ``code`` again; the offer lapses at ``until``."""

    name: str
    code: str
    until: datetime


@dataclass(frozen=True)
class RematchAgreed(Notice):
    """``name`` agreed too; ``waiting_for`` have not answered."""

    name: str
    code: str
    waiting_for: tuple[str, ...]


@dataclass(frozen=True)
class NoRematch(Notice):
    """``silent`` did not answer in time: ``code`` will not be played again."""

    silent: tuple[str, ...]
    code: str


@dataclass(frozen=True)
class AlreadyAgreed(Refusal):
    waiting_for: tuple[str, ...]


@dataclass(frozen=True)
class NotPlayedToEnd(Refusal):
    code: str


@dataclass(frozen=True)
class NotOverYet(Refusal):
    code: str


@dataclass(frozen=True)
class BeingPlayedAgain(Refusal):
    code: str
    new: str


@dataclass(frozen=True)
class OfferLapsed(Refusal):
    code: str
