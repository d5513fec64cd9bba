"""Finding a match among strangers: ``open`` and ``join any`` (``join CODE`` is ``lobby.join``)."""

from __future__ import annotations

from games.contract import matches as m
from games.contract.lists import OpenMatchesView
from games.services.write import matchmaking
from games.text.protocol import ANY, Command

from ...models import Match, Player
from . import lobby
from .choosing import Reply


def open_matches(player: Player, command: Command) -> Reply:
    """The open matches he could join, oldest first."""
    lines, more = matchmaking.open_matches(player)
    return OpenMatchesView(tuple(lines), more)


def join(player: Player, command: Command) -> Reply:
    """``join CODE``, or ``join any [TIME]``: a seat in the oldest open match, or a new open one."""
    if command.text != ANY:
        return lobby.join(player, command)
    match, opened = matchmaking.join_any(player, command.number)
    if opened:
        return m.YouOpened(match.code, match.options)
    if match.status == Match.Status.RUNNING:
        return m.YouJoined(match.code, started=True)
    return m.YouJoined(match.code, started=False, options=match.options)
