"""A player's own settings: his language, his name, and whether he follows the hands he sits out."""

from __future__ import annotations

from games.contract import account as a
from games.text.protocol import Command

from ...models import Player
from ..errors import ServiceError
from .choosing import Reply


def lang(player: Player, command: Command) -> Reply:
    player.language = command.text
    player.save(update_fields=["language"])
    return a.LanguageSet()


def name(player: Player, command: Command) -> Reply:
    """The name others see; no two players share one, whatever its case."""
    wanted = command.text
    if Player.objects.filter(display_name__iexact=wanted).exclude(pk=player.pk).exists():
        raise ServiceError(a.NameTaken(wanted))
    player.display_name = wanted
    player.save(update_fields=["display_name"])
    return a.NameSet(wanted)


def advise(player: Player, command: Command) -> Reply:
    """Whether, as the sitter, he gets the captain's cards at each of the captain's turns."""
    player.advises = command.text == "on"
    player.save(update_fields=["advises"])
    return a.AdviseSet(player.advises)
