"""Playing: refusals of a move, the sitter's advice, team talk and the reminder."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from games.engine import Card, Role

from .base import Notice, Refusal


@dataclass(frozen=True)
class Suggested(Notice):
    """The sitter's ``suggest``: told to the captain ``name``."""

    name: str
    move: str


@dataclass(frozen=True)
class Accepted(Notice):
    """The captain's ``accept`` played his sitter's suggestion ``move``: the table after
    it shows where the move left the hand, not which move it was."""

    move: str


@dataclass(frozen=True)
class TeamSent(Notice):
    name: str


@dataclass(frozen=True)
class TeamMessage(Notice):
    """A word from ``name`` to his partner only."""

    code: str
    name: str
    text: str


@dataclass(frozen=True)
class Reminder(Notice):
    """The player to move has used four fifths of his time."""

    code: str
    deadline: datetime


# Refusals ---------------------------------------------------------------------


@dataclass(frozen=True)
class OldButton(Notice):
    """A button of a table that a newer table has replaced: the press will be refused
    (``StaleMoment``) and the table now follows; said at once where the button was."""


@dataclass(frozen=True)
class StaleMoment(Refusal):
    """A command made for an earlier moment of the match (an old button): the table now follows."""

    code: str


@dataclass(frozen=True)
class MatchPaused(Refusal):
    code: str


@dataclass(frozen=True)
class NotYourTurn(Refusal):
    """It is ``name``'s turn."""

    name: str


@dataclass(frozen=True)
class IllegalMove(Refusal):
    """The engine refused the move: ``reason`` is its stable code (``games.engine.errors``)."""

    reason: str
    params: Mapping[str, object] = field(default_factory=dict)
    message: str = ""  # the engine's own words, for a code the text layer does not know


@dataclass(frozen=True)
class SitterSuggests(Refusal):
    """The sitter typed a move: he advises with ``suggest``."""

    move: str


@dataclass(frozen=True)
class OnlySitterSuggests(Refusal):
    """A ``suggest`` from the captain or the box (``role``), who may not advise."""

    role: Role


@dataclass(frozen=True)
class WaitForCaptain(Refusal):
    pass


@dataclass(frozen=True)
class CaptainPlayedFirst(Notice):
    """``suggest`` to the computer captain ``name`` after it played: it waits for his
    advice at its next decisions of the hand."""

    name: str


@dataclass(frozen=True)
class NotOnThePile(Refusal):
    """``take Qs`` when the pile's top is another card: he meant another move."""

    named: Card
    top: Card


@dataclass(frozen=True)
class SayWhichCard(Refusal):
    """A ``discard`` or ``knock`` (``command``) without its card, at his discard;
    ``example`` is a card he may play with it now."""

    command: str
    example: Card


@dataclass(frozen=True)
class SayWhatToSuggest(Refusal):
    """A bare ``suggest``: ``example`` is a move the captain may play now."""

    example: str


@dataclass(frozen=True)
class CaptainCannot(Refusal):
    """The sitter suggested a move the captain may not play now: ``reason`` is the
    engine's code for it, as in ``IllegalMove``."""

    move: str
    reason: str = ""
    params: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class OnlyCaptainAccepts(Refusal):
    pass


@dataclass(frozen=True)
class NoSuggestion(Refusal):
    pass


@dataclass(frozen=True)
class NoPartner(Refusal):
    pass


@dataclass(frozen=True)
class TooManyTeamMessages(Refusal):
    count: int


@dataclass(frozen=True)
class TooFast(Refusal):
    """More commands than a person types: send it again in ``seconds``."""

    seconds: int
