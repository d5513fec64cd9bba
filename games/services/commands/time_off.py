"""A player's own time: ``away`` and ``back`` (time off), ``quiet`` (quiet hours) and ``tz`` (his zone)."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone
from django.utils.translation import gettext as _

from games.text.protocol import Command
from games.text.style import deadline_text, duration_text

from ...models import Player
from .. import clocks, outbox, timeoff
from .choosing import Reply


def away(player: Player, command: Command) -> Reply:
    """``away N``: his clocks wait in every match for N; ``away`` alone: what he has left."""
    if command.number is None:
        return timeoff.status_text(player)
    until = timeoff.go_away(player, timedelta(seconds=command.number))
    left = duration_text(timeoff.left_this_year(player).total_seconds())
    return lambda: _(
        "You are away, back %(when)s: your clocks wait in every match, and nobody plays for you. "
        "Time off left this year: %(left)s. back ends it early."
    ) % {"when": deadline_text(until), "left": left}


def back(player: Player, command: Command) -> Reply:
    """``back``: his time off ends now; his clocks run again."""
    waiting = timeoff.come_back(player)
    if not waiting:
        return _("Welcome back: your clocks run again.")
    return _("Welcome back: your clocks run again. Your move in %(codes)s: status shows it.") % {
        "codes": ", ".join(f"#{match.code}" for match in waiting)
    }


def quiet(player: Player, command: Command) -> Reply:
    """``quiet 23-07``: no reminder or notice in those hours of his day; ``quiet off``; ``quiet`` alone shows them."""
    if command.text == "off":
        player.quiet_from = player.quiet_until = None
        player.save(update_fields=["quiet_from", "quiet_until"])
        outbox.release([player], timezone.now())
        return _("No quiet hours now: reminders and notices come at any hour.")
    if command.text:
        first, last = (int(hour) for hour in command.text.split("-"))
        player.quiet_from, player.quiet_until = first, last
        player.save(update_fields=["quiet_from", "quiet_until"])
    if not clocks.has_quiet_hours(player):
        return _("No quiet hours. quiet 23-07 holds reminders and notices from 23:00 to 07:00 of your day.")
    hours = {"from": f"{player.quiet_from:02d}:00", "until": f"{player.quiet_until:02d}:00", "zone": player.time_zone}
    reply = (
        _(
            "Quiet hours %(from)s-%(until)s (%(zone)s): reminders and notices wait until they end, and a deadline "
            "that would fall in them moves to %(until)s. quiet off ends them."
        )
        % hours
    )
    if player.time_zone == clocks.DEFAULT_ZONE:
        reply += " " + _("To keep them in your own time, name your zone: tz Europe/Skopje")
    return reply


def tz(player: Player, command: Command) -> Reply:
    """``tz ZONE``: the zone deadlines are shown in and quiet hours kept in; ``tz`` alone shows it."""
    if command.text:
        player.time_zone, player.time_zone_set = command.text, True
        player.save(update_fields=["time_zone", "time_zone_set"])
    zone = player.time_zone
    return lambda: _("Your time zone: %(zone)s, where it is %(time)s now. Deadlines are shown in it.") % {
        "zone": zone,
        "time": timezone.localtime().strftime("%H:%M %Z"),
    }
