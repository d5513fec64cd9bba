"""Making matches: create, join, computer players, leave, resign."""

from __future__ import annotations

import secrets

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from games.text.protocol import NewOptions

from ..models import Match, Player, Seat, Strength
from . import outbox, play, players, state
from .errors import ServiceError

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I to misread
CODE_LENGTH = 4
SEATS = 3


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _position in range(CODE_LENGTH))


def create(player: Player, options: NewOptions | None = None) -> Match:
    """A new match in the lobby with its creator in the first seat."""
    options = options or NewOptions()
    for _attempt in range(20):
        try:
            with transaction.atomic():
                match = Match.objects.create(
                    code=new_code(),
                    created_by=player,
                    move_seconds=options.move_seconds,
                    target=options.target,
                    gin_bonus=options.gin_bonus,
                )
                Seat.objects.create(match=match, player=player, position=0)
                state.append_event(match, "created", actor=player, **options.__dict__)
                state.append_event(match, "joined", actor=player, position=0)
                return match
        except IntegrityError:
            continue
    raise ServiceError(_("Could not make a new match code; try again."))


def join(player: Player, code: str) -> Match:
    """Take a seat; the third seat starts the match (the cut for roles)."""
    match_id = Match.objects.filter(code=code.upper()).values_list("pk", flat=True).first()
    if match_id is None:
        raise ServiceError(_("There is no match #%(code)s.") % {"code": code.upper()})
    with transaction.atomic():
        match = state.lock(match_id)
        if match.seats.filter(player=player).exists():
            raise ServiceError(_("You are already in #%(code)s.") % {"code": match.code})
        return _seat(match, player)


def add_computer(player: Player, match: Match, strength: str = Strength.STRONG) -> Match:
    """Fill an empty seat with a computer player."""
    with transaction.atomic():
        match = state.lock(match.pk)
        if not match.seats.filter(player=player).exists():
            raise ServiceError(_("Only a player of #%(code)s can add a computer player.") % {"code": match.code})
        return _seat(match, players.computer_player(match, strength), added_by=player)


def _seat(match: Match, player: Player, added_by: Player | None = None) -> Match:
    if match.status != Match.Status.LOBBY:
        raise ServiceError(_("#%(code)s has already started.") % {"code": match.code})
    taken = set(match.seats.values_list("position", flat=True))
    free = [position for position in range(SEATS) if position not in taken]
    if not free:
        raise ServiceError(_("#%(code)s is full.") % {"code": match.code})
    Seat.objects.create(match=match, player=player, position=free[0])
    state.append_event(match, "joined", actor=added_by or player, player=player.pk, position=free[0])
    for seat in state.seats_of(match):
        if seat.player != player:
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
        match.save()
    return match


def leave(player: Player, match: Match) -> None:
    """Leave a match that has not started; the last one out closes it."""
    with transaction.atomic():
        match = state.lock(match.pk)
        if match.status != Match.Status.LOBBY:
            raise ServiceError(_("#%(code)s has started: use resign to give it up.") % {"code": match.code})
        match.seats.filter(player=player).delete()
        state.append_event(match, "left", actor=player)
        if not match.seats.filter(player__is_computer=False).exists():
            match.status = Match.Status.ABORTED
            state.append_event(match, "match_over", reason="empty")
        match.version += 1
        match.save()


def resign(player: Player, match: Match) -> Player:
    """Give a running match up: the leader of the others wins it; return him."""
    with transaction.atomic():
        match = state.lock(match.pk)
        if match.status == Match.Status.LOBBY:
            raise ServiceError(_("#%(code)s has not started: use leave.") % {"code": match.code})
        if match.status != Match.Status.RUNNING:
            raise ServiceError(_("#%(code)s is over.") % {"code": match.code})
        seats = state.seats_of(match)
        others = [seat for seat in seats if seat.player_id != player.pk]
        winner = max(others, key=lambda seat: (seat.score, -seat.position)).player
        state.append_event(match, "resigned", actor=player)
        play.finish(match, winner, "resigned")
        match.version += 1
        match.save()
        for seat in others:  # the one who resigned is answered by his reply
            outbox.send(
                seat.player,
                "over",
                lambda: _("%(name)s resigned #%(code)s. %(winner)s wins the match.")
                % {"name": player.display_name, "code": match.code, "winner": winner.display_name},
                match,
            )
        return winner
