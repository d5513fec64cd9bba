"""Making matches: create, join, computer players, leave, resign."""

from __future__ import annotations

import secrets
from datetime import timedelta
from functools import partial

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.text.protocol import NewOptions
from games.text.style import duration_text

from ..models import Match, Player, Seat, Strength
from . import outbox, play, players, state
from .change import change, current
from .errors import ServiceError

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I to misread
CODE_LENGTHS = (4, 5, 6, 7, 8)  # Match.code holds 8; 4 give about a million codes
TRIES_PER_LENGTH = 5
SEATS = 3
MAX_WAITING = 5  # matches a player may have waiting for players at once


def lobby_lifetime() -> timedelta:
    """How long a match waits for its players before it is closed (``GIN3_LOBBY_DAYS``)."""
    return timedelta(days=settings.GIN3_LOBBY_DAYS)


def first_lobby_clock(is_open: bool) -> timedelta:
    """When the lobby clock first acts on a new match: an open one is offered a computer
    player first (``GIN3_LOBBY_BOT_OFFER_HOURS``, ``matchmaking.lobby_due``)."""
    if is_open:
        return min(timedelta(hours=settings.GIN3_LOBBY_BOT_OFFER_HOURS), lobby_lifetime())
    return lobby_lifetime()


def new_code(length: int = CODE_LENGTHS[0]) -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _position in range(length))


def create(player: Player, options: NewOptions | None = None) -> Match:
    """A new match in the lobby with its creator in the first seat. Codes are never
    reused (finished matches keep theirs): when the short ones get crowded, a few
    taken codes in a row make the next tries one character longer."""
    options = options or NewOptions()
    with change() as work:
        _check_waiting(player)
        match = with_new_code(player, options)
        work.track(match)
        Seat.objects.create(match=match, player=player, position=0)
        state.append_event(match, "created", actor=player, **options.__dict__)
        state.append_event(match, "joined", actor=player, position=0)
        return match


def with_new_code(player: Player, options: NewOptions) -> Match:
    """A new match row with ``options``, made by ``player``, under a code no match has had."""
    for length in CODE_LENGTHS:
        for _attempt in range(TRIES_PER_LENGTH):
            try:
                with transaction.atomic():
                    return Match.objects.create(
                        code=new_code(length),
                        created_by=player,
                        move_seconds=options.move_seconds,
                        target=options.target,
                        gin_bonus=options.gin_bonus,
                        undercut_bonus=options.undercut_bonus,
                        may_discard_taken=options.may_discard_taken,
                        is_open=options.is_open,
                        deadline=timezone.now() + first_lobby_clock(options.is_open),
                    )
            except IntegrityError:
                continue
    raise ServiceError(_("Could not make a new match code; try again."))


def join(player: Player, code: str) -> Match:
    """Take a seat; the third seat starts the match (the cut for roles)."""
    match_id = Match.objects.filter(code=code.upper()).values_list("pk", flat=True).first()
    if match_id is None:
        raise ServiceError(_("There is no match #%(code)s.") % {"code": code.upper()})
    with change():
        match = state.lock(match_id)
        if match.seats.filter(player=player).exists():
            raise ServiceError(_("You are already in #%(code)s.") % {"code": match.code})
        if match.status == Match.Status.LOBBY:
            _check_waiting(player)
        return _seat(match, player)


def _check_waiting(player: Player) -> None:
    """A player may have only a few matches waiting for players at once: each one
    waits for strangers, and a thousand of them would fill the lobby."""
    waiting = Match.objects.filter(status=Match.Status.LOBBY, seats__player=player).count()
    if waiting >= MAX_WAITING:
        raise ServiceError(
            ngettext(
                "You have %(count)s match waiting for players: start it (bot) or leave it first.",
                "You have %(count)s matches waiting for players: start one (bot) or leave one first.",
                waiting,
            )
            % {"count": waiting}
        )


def add_computer(player: Player, match: Match, strength: str = Strength.STRONG) -> tuple[Match, Player]:
    """Fill an empty seat with a computer player; return the match and the computer."""
    with change():
        match = state.lock(match.pk)
        if not match.seats.filter(player=player).exists():
            raise ServiceError(_("Only a player of #%(code)s can add a computer player.") % {"code": match.code})
        computer = players.computer_player(match, strength)
        return _seat(match, computer, added_by=player), computer


def _seat(match: Match, player: Player, added_by: Player | None = None) -> Match:
    if match.status != Match.Status.LOBBY:
        raise ServiceError(_("#%(code)s has already started.") % {"code": match.code})
    taken = set(match.seats.values_list("position", flat=True))
    free = [position for position in range(SEATS) if position not in taken]
    if not free:
        raise ServiceError(_("#%(code)s is full.") % {"code": match.code})
    Seat.objects.create(match=match, player=player, position=free[0])
    current().seats.pop(match.pk, None)  # read again when next needed
    state.append_event(match, "joined", actor=added_by or player, player=player.pk, position=free[0])
    for seat in state.seats_of(match):
        if seat.player not in (player, added_by):  # they are answered by their reply
            outbox.send(
                seat.player,
                "joined",
                lambda: _("%(name)s joined #%(code)s.") % {"name": player.display_name, "code": match.code},
                match,
            )
    if len(free) == 1:
        play.start(match)
    else:
        match.version += 1
    return match


def leave(player: Player, match: Match) -> None:
    """Leave a match that has not started; the last one out closes it."""
    with change():
        match = state.lock(match.pk)
        if match.status != Match.Status.LOBBY:
            raise ServiceError(_("#%(code)s has started: use resign to give it up.") % {"code": match.code})
        match.seats.filter(player=player).delete()
        current().seats.pop(match.pk, None)
        state.append_event(match, "left", actor=player)
        staying = [seat.player for seat in state.seats_of(match) if not seat.player.is_computer]
        if not staying:
            play.finish(match, None, "empty")
        for other in staying:
            outbox.send(
                other,
                "left",
                lambda: _("%(name)s left #%(code)s.") % {"name": player.display_name, "code": match.code},
                match,
            )
        match.version += 1


def expire(match_id: int) -> bool:
    """A match that waited too long for its players is closed, and they are told."""
    with change():
        match = state.lock(match_id)
        if match.status != Match.Status.LOBBY or match.deadline is None or match.deadline > timezone.now():
            return False
        play.finish(match, None, "expired")
        match.version += 1
        waited = duration_text(lobby_lifetime().total_seconds())
        for seat in state.seats_of(match):
            outbox.send(
                seat.player,
                "over",
                lambda: _("#%(code)s waited %(time)s for players and is closed. Start another: new")
                % {"code": match.code, "time": waited},
                match,
            )
        return True


def resign(player: Player, match: Match) -> Player | None:
    """Give a running match up (R10.3): of the other two, the one with the higher
    score wins; with equal scores nobody does. Returns the winner, if any."""
    with change():
        match = state.lock(match.pk)
        check_resignable(match)
        seats = state.seats_of(match)
        others = [seat for seat in seats if seat.player_id != player.pk]
        best = max(seat.score for seat in others)
        leaders = [seat.player for seat in others if seat.score == best]
        winner = leaders[0] if len(leaders) == 1 else None
        state.append_event(match, "resigned", actor=player)
        play.finish(match, winner, "resigned")
        match.version += 1
        for seat in others:  # the one who resigned is answered by his reply
            outbox.send(seat.player, "over", partial(_resigned_text, player, match, winner), match)
        return winner


def check_resignable(match: Match) -> None:
    """Only a running match can be given up: one that waits for players is left."""
    if match.status == Match.Status.LOBBY:
        raise ServiceError(_("#%(code)s has not started: use leave.") % {"code": match.code})
    if match.status != Match.Status.RUNNING:
        raise ServiceError(_("#%(code)s is over.") % {"code": match.code})


def _resigned_text(player: Player, match: Match, winner: Player | None) -> str:
    return _("%(name)s resigned #%(code)s.") % {"name": player.display_name, "code": match.code} + " " + outcome(winner)


def outcome(winner: Player | None) -> str:
    """Who wins a match given up (R10.3)."""
    if winner is None:
        return _("The other two have the same score: nobody wins the match.")
    return _("%(name)s wins the match!") % {"name": winner.display_name}
