"""A player's own settings: his language, his name, and whether he follows the hands he sits out."""

from __future__ import annotations

from django.db import IntegrityError, transaction

from games.contract import account as a
from games.text.protocol import Command

from ...models import Player
from ..errors import ServiceError
from ..write.players import reads_as_the_reader
from .choosing import Reply


def lang(player: Player, command: Command) -> Reply:
    player.language = command.text
    player.save(update_fields=["language"])
    return a.LanguageSet()


def name(player: Player, command: Command) -> Reply:
    """The name others see; no two players share one, whatever its case. A player who
    takes it between the check and the write wins: the database refuses the second
    (``player_name_unique``), in a savepoint of its own, and he hears it is taken."""
    wanted = command.text
    if reads_as_the_reader(wanted):
        raise ServiceError(a.NameReadsAsYou(wanted))
    if is_taken(wanted, player):
        raise ServiceError(a.NameTaken(wanted))
    previous, player.display_name = player.display_name, wanted
    try:
        with transaction.atomic():
            player.save(update_fields=["display_name"])
    except IntegrityError:
        player.display_name = previous
        raise ServiceError(a.NameTaken(wanted)) from None
    return a.NameSet(wanted)


def is_taken(wanted: str, player: Player) -> bool:
    return Player.objects.filter(display_name__iexact=wanted).exclude(pk=player.pk).exists()


def advise(player: Player, command: Command) -> Reply:
    """Whether, as the sitter, he gets the captain's cards at each of the captain's turns."""
    player.advises = command.text == "on"
    player.save(update_fields=["advises"])
    return a.AdviseSet(player.advises)
