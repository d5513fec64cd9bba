"""Making and leaving matches: ``new``, ``join``, ``bot``, ``leave`` and ``resign``."""

from __future__ import annotations

from games.contract import matches as m
from games.services.write import matches
from games.text.protocol import Command

from ...models import Match, Player, Strength
from .choosing import LOBBY, RUNNING, Reply, any_match, pick

# What plain ``bot`` seats: a fair game for a newcomer; ``bot hard`` for a real test.
DEFAULT_LEVEL = Strength.NORMAL


def new(player: Player, command: Command) -> Reply:
    """A match in the lobby; the reply confirms every option it set."""
    match = matches.create(player, command.options)
    return m.MatchCreated(match.code, match.options, on_telegram=player.last_channel == "telegram")


def join(player: Player, command: Command) -> Reply:
    match = matches.join(player, command.text)
    return m.YouJoined(match.code, started=match.status == Match.Status.RUNNING)


def bot(player: Player, command: Command) -> Reply:
    """``bot`` or ``bot hard``: a computer player of that level (normal unless said) takes a seat."""
    level = Strength(command.text) if command.text else DEFAULT_LEVEL
    match, computer = matches.add_computer(player, pick(player, command, any_match, LOBBY).match, level)
    return m.ComputerJoined(computer.display_name, match.code, computer.strength)


def leave(player: Player, command: Command) -> Reply:
    match = pick(player, command, any_match, LOBBY).match
    matches.leave(player, match)
    return m.YouLeft(match.code)


def resign(player: Player, command: Command) -> Reply:
    """Giving up ends the match for all three, so it is asked for twice: ``resign``, then ``resign yes``."""
    match = pick(player, command, any_match, RUNNING).match
    matches.check_resignable(match)
    if command.text != "yes":
        return m.ConfirmResign(match.code)
    news = matches.resign(player, match)
    return m.YouResigned(news.code, news.winner, news.scores)
