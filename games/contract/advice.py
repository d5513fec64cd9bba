"""A computer partner's advice, a captain's answer to it, and hints to a learner.

Everything here goes to one member of the team only (R3.2: the box never learns
what the team says). ``reason`` is a value of ``games.engine.advice.Reason``, kept
as its text so that a reason stored in the log still reads after a release, and
``card`` the card the reason names, if any (``Appraisal.card``), or "".
"""

from __future__ import annotations

from dataclasses import dataclass

from .base import Notice, Refusal


@dataclass(frozen=True)
class MoveReason(Notice):
    """A computer partner's answer to a team message: why ``move``, and the card ``reason`` names."""

    code: str
    name: str
    move: str
    reason: str
    card: str = ""


@dataclass(frozen=True)
class AdviceReason(MoveReason):
    """A computer sitter answers its captain: why it suggested ``move``."""


@dataclass(frozen=True)
class NoAdviceYet(Notice):
    """A computer sitter asked why before it has suggested anything this hand."""

    code: str
    name: str


@dataclass(frozen=True)
class PlayReason(MoveReason):
    """A computer captain answers its sitter: why it played ``move``, its last move of the hand."""


@dataclass(frozen=True)
class PlayedYourSuggestion(Notice):
    """A computer captain answers its sitter's team message: its last move was his
    suggestion ``move``; by its evaluation ``own``, its own choice, was worth ``margin``
    points more (0 or less: as good)."""

    code: str
    name: str
    move: str
    own: str
    margin: float


@dataclass(frozen=True)
class NothingPlayedYet(Notice):
    """A computer captain asked why before it has played anything this hand."""

    code: str
    name: str


@dataclass(frozen=True)
class AdviceDeclined(Notice):
    """A computer captain played ``played`` rather than its sitter's ``suggested``: by
    its own evaluation the suggestion was worth ``margin`` points less, for ``reason``."""

    code: str
    name: str
    suggested: str
    played: str
    margin: float
    reason: str
    card: str = ""


# What a computer partner says in team talk (``services.write.advice.tell_team``).
ComputerTalk = AdviceReason | NoAdviceYet | PlayReason | PlayedYourSuggestion | NothingPlayedYet | AdviceDeclined


@dataclass(frozen=True)
class SuggestionWaiting(Notice):
    """The sitter's suggestion ``move``, told to a captain who has his table of this
    moment on a channel that cannot edit it: one line, not the table again."""

    code: str
    move: str


@dataclass(frozen=True)
class Hint(Notice):
    """What the hard level would play now (or suggest, for a sitter), and why."""

    code: str
    move: str
    reason: str
    card: str = ""


@dataclass(frozen=True)
class HintNotFair(Refusal):
    """``hint`` in a match with another person: the computer would play for one of two people."""

    code: str


@dataclass(frozen=True)
class NothingToHint(Refusal):
    """``hint`` when he neither moves nor advises the captain to move."""

    code: str
