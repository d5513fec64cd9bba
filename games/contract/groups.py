"""Telegram groups that follow a match."""

from __future__ import annotations

from dataclasses import dataclass

from .base import Notice, Refusal


@dataclass(frozen=True)
class GroupFollows(Notice):
    code: str


@dataclass(frozen=True)
class NothingToShow(Notice):
    """``group CODE`` from a player with no open match ``code``."""

    name: str
    code: str


@dataclass(frozen=True)
class CardsArePrivate(Notice):
    """Any other command in a group: play in the private chat, where the cards are."""


@dataclass(frozen=True)
class OnlyInAGroup(Refusal):
    """``group CODE`` typed where it means nothing: it links a Telegram group to a match."""


@dataclass(frozen=True)
class PlayElsewhere(Notice):
    """A command typed in a group by someone who plays no match it follows: where to play, briefly."""
