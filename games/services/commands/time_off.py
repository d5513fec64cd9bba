"""A player's own time: ``away`` and ``back`` (time off), ``quiet`` (quiet hours) and ``tz`` (his zone)."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from games.contract import own_time as t
from games.services.plumbing import clocks, outbox
from games.services.write import timeoff
from games.text.protocol import Command

from ...models import Player
from .choosing import Reply


def away(player: Player, command: Command) -> Reply:
    """``away N``: his clocks wait in every match for N; ``away`` alone: what he has left."""
    if command.number is None:
        return timeoff.time_off_left(player)
    until = timeoff.go_away(player, timedelta(seconds=command.number))
    return t.YouAreAway(until, timeoff.left_this_year(player).total_seconds())


def back(player: Player, command: Command) -> Reply:
    """``back``: his time off ends now; his clocks run again."""
    waiting = timeoff.come_back(player)
    return t.WelcomeBack(tuple(match.code for match in waiting))


def quiet(player: Player, command: Command) -> Reply:
    """``quiet 23-07``: no reminder or notice in those hours of his day; ``quiet off``; ``quiet`` alone shows them."""
    if command.text == "off":
        player.quiet_from = player.quiet_until = None
        player.save(update_fields=["quiet_from", "quiet_until"])
        outbox.release([player], timezone.now())
        return t.QuietHoursOff()
    if command.text:
        first, last = (int(hour) for hour in command.text.split("-"))
        player.quiet_from, player.quiet_until = first, last
        player.save(update_fields=["quiet_from", "quiet_until"])
    if not clocks.has_quiet_hours(player):
        return t.QuietHours(None, None, player.time_zone)
    return t.QuietHours(
        player.quiet_from, player.quiet_until, player.time_zone, zone_is_default=player.time_zone == clocks.DEFAULT_ZONE
    )


def tz(player: Player, command: Command) -> Reply:
    """``tz ZONE``: the zone deadlines are shown in and quiet hours kept in; ``tz`` alone shows it."""
    if command.text:
        player.time_zone, player.time_zone_set = command.text, True
        player.save(update_fields=["time_zone", "time_zone_set"])
    return t.TimeZoneIs(player.time_zone)
