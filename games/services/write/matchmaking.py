"""Playing with strangers: the open matches, ``join any``, and an open match that waits too long.

A match made with ``new ... open`` is listed in the lobby (``Match.is_open``)
until its third seat is taken. ``open`` lists the ones a player could join,
oldest first; ``join any`` seats him in the oldest one (of his move time, if
he names one), or opens a match of his own when none waits.

The lobby clock is the match's ``deadline`` while it waits: an open match is
offered a computer player for its free seats once it has waited
``GIN3_LOBBY_BOT_OFFER_HOURS``, and any match is closed once it has waited
``GIN3_LOBBY_DAYS`` (``matches.expire``).
"""

from __future__ import annotations

from django.db.models import Count, QuerySet
from django.utils import timezone

from games.contract.lists import OpenMatch
from games.contract.matches import ComputerOffer
from games.contract.options import MatchOptions
from games.models import Event, Match, Outbox, Player
from games.services.plumbing import outbox, state
from games.services.plumbing.change import change
from games.services.write import matches

MAX_LISTED = 5  # the open list fits a message, and a few SMS
CANDIDATES = 20  # join any tries at most these, oldest first, before it opens a match


def waiting_for(player: Player, move_seconds: int | None = None) -> QuerySet:
    """The open matches with a free seat that ``player`` is not in, oldest first."""
    found = (
        Match.objects.filter(status=Match.Status.LOBBY, is_open=True)
        .exclude(seats__player=player)
        .annotate(taken=Count("seats"))
        .filter(taken__lt=matches.SEATS)
    )
    if move_seconds is not None:
        found = found.filter(move_seconds=move_seconds)
    return found.order_by("created_at", "pk")


def open_matches(player: Player) -> tuple[list[OpenMatch], int]:
    """The first open matches ``player`` could join, and how many more there are."""
    found = waiting_for(player)
    listed = [
        OpenMatch(
            code=match.code,
            options=match.options,
            names=tuple(seat.player.display_name for seat in match.seats.all()),
            since=match.created_at,
        )
        for match in found.prefetch_related("seats__player")[:MAX_LISTED]
    ]
    more = found.count() - len(listed) if len(listed) == MAX_LISTED else 0
    return listed, more


def join_any(player: Player, move_seconds: int | None = None) -> tuple[Match, bool]:
    """Seat ``player`` in the oldest open match that fits; if none does, open one with
    the default options (and his move time). Returns the match and whether it is new.
    Each candidate is locked before it is taken, so two players never race for one seat."""
    with change():
        for match_id in list(waiting_for(player, move_seconds).values_list("pk", flat=True)[:CANDIDATES]):
            match = state.lock(match_id)
            seated = match.seats.values_list("player_id", flat=True)
            if match.status == Match.Status.LOBBY and len(seated) < matches.SEATS and player.pk not in seated:
                return matches.join(player, match.code), False
        options = MatchOptions(is_open=True) if move_seconds is None else MatchOptions(move_seconds, is_open=True)
        return matches.create(player, options), True


def lobby_due(match_id: int) -> bool:
    """The lobby clock of a waiting match has come. An open match that has waited
    ``GIN3_LOBBY_BOT_OFFER_HOURS`` is offered a computer player, once; any match that
    has waited ``GIN3_LOBBY_DAYS`` is closed. True if it acted."""
    with change():
        match = state.lock(match_id)
        now = timezone.now()
        if match.status != Match.Status.LOBBY or match.deadline is None or match.deadline > now:
            return False
        closes = match.created_at + matches.lobby_lifetime()
        if not match.is_open or closes <= now:
            return matches.expire(match_id)
        match.deadline = closes
        if match.events.filter(kind=Event.Kind.BOT_OFFERED).exists():
            return False
        state.append_event(match, Event.Kind.BOT_OFFERED)
        offer = ComputerOffer(match.code, (now - match.created_at).total_seconds(), closes)
        for seat in state.seats_of(match):
            outbox.send(seat.player, Outbox.Kind.LOBBY, offer, match)
        return True
