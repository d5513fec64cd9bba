"""Making matches: create, join, computer players, leave, resign."""

from __future__ import annotations

import secrets
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from games.contract import matches as m
from games.contract.options import MatchOptions
from games.models import Event, Match, Outbox, Player, Seat, Strength
from games.services.errors import ServiceError
from games.services.plumbing import outbox, state
from games.services.plumbing.change import change, current
from games.services.write import play, players

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


def create(player: Player, options: MatchOptions | None = None) -> Match:
    """A new match in the lobby with its creator in the first seat. Codes are never
    reused (finished matches keep theirs): when the short ones get crowded, a few
    taken codes in a row make the next tries one character longer."""
    options = options or MatchOptions()
    with change() as work:
        _check_waiting(player)
        match = with_new_code(player, options)
        work.track(match)
        Seat.objects.create(match=match, player=player, position=0)
        created: dict[str, state.JSON] = options.as_fields()
        state.append_event(match, Event.Kind.CREATED, actor=player, **created)
        state.append_event(match, Event.Kind.JOINED, actor=player, position=0)
        return match


def with_new_code(player: Player, options: MatchOptions) -> Match:
    """A new match row with ``options``, made by ``player``, under a code no match has had."""
    for length in CODE_LENGTHS:
        for _attempt in range(TRIES_PER_LENGTH):
            try:
                with transaction.atomic():
                    return Match.objects.create(
                        code=new_code(length),
                        created_by=player,
                        deadline=timezone.now() + first_lobby_clock(options.is_open),
                        **options.as_fields(),
                    )
            except IntegrityError:
                continue
    raise ServiceError(m.NoFreeCode())


def join(player: Player, code: str) -> Match:
    """Take a seat; the third seat starts the match (the cut for roles)."""
    match_id = Match.objects.filter(code=code.upper()).values_list("pk", flat=True).first()
    if match_id is None:
        raise ServiceError(m.NoSuchMatch(code.upper()))
    with change():
        match = state.lock(match_id)
        if match.seats.filter(player=player).exists():
            raise ServiceError(m.AlreadySeated(match.code))
        if match.status == Match.Status.LOBBY:
            _check_waiting(player)
        return _seat(match, player)


def _check_waiting(player: Player) -> None:
    """A player may have only a few matches waiting for players at once: each one
    waits for strangers, and a thousand of them would fill the lobby."""
    waiting = Match.objects.filter(status=Match.Status.LOBBY, seats__player=player).count()
    if waiting >= MAX_WAITING:
        raise ServiceError(m.TooManyWaiting(waiting))


def add_computer(player: Player, match: Match, strength: str = Strength.NORMAL) -> tuple[Match, Player]:
    """Fill an empty seat with a computer player; return the match and the computer."""
    with change():
        match = state.lock(match.pk)
        if not match.seats.filter(player=player).exists():
            raise ServiceError(m.NotAPlayerOf(match.code))
        computer = players.computer_player(match, strength)
        return _seat(match, computer, added_by=player), computer


def _seat(match: Match, player: Player, added_by: Player | None = None) -> Match:
    if match.status in (Match.Status.FINISHED, Match.Status.ABORTED):
        raise ServiceError(m.MatchIsOver(match.code))
    if match.status != Match.Status.LOBBY:
        raise ServiceError(m.AlreadyStarted(match.code))
    taken = set(match.seats.values_list("position", flat=True))
    free = [position for position in range(SEATS) if position not in taken]
    if not free:
        raise ServiceError(m.MatchFull(match.code))
    Seat.objects.create(match=match, player=player, position=free[0])
    current().seats.pop(match.pk, None)  # read again when next needed
    state.append_event(match, Event.Kind.JOINED, actor=added_by or player, player=player.pk, position=free[0])
    for seat in state.seats_of(match):
        if seat.player not in (player, added_by):  # they are answered by their reply
            outbox.send(seat.player, Outbox.Kind.JOINED, m.Joined(player.display_name, match.code), match)
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
            raise ServiceError(m.StartedUseResign(match.code))
        match.seats.filter(player=player).delete()
        current().seats.pop(match.pk, None)
        state.append_event(match, Event.Kind.LEFT, actor=player)
        staying = [seat.player for seat in state.seats_of(match) if not seat.player.is_computer]
        if not staying:
            play.finish(match, None, "empty")
        for other in staying:
            outbox.send(other, Outbox.Kind.LEFT, m.Left(player.display_name, match.code), match)
        match.version += 1


def expire(match_id: int) -> bool:
    """A match that waited too long for its players is closed, and they are told."""
    with change():
        match = state.lock(match_id)
        if match.status != Match.Status.LOBBY or match.deadline is None or match.deadline > timezone.now():
            return False
        play.finish(match, None, "expired")
        match.version += 1
        closed = m.LobbyClosed(match.code, lobby_lifetime().total_seconds())
        for seat in state.seats_of(match):
            outbox.send(seat.player, Outbox.Kind.OVER, closed, match)
        return True


def resign(player: Player, match: Match) -> m.Resigned:
    """Give a running match up (R10.3): of the other two, the one with the higher
    score wins; with equal scores nobody does. Returns the news the other two get."""
    with change():
        match = state.lock(match.pk)
        check_resignable(match)
        seats = state.seats_of(match)
        others = [seat for seat in seats if seat.player_id != player.pk]
        best = max(seat.score for seat in others)
        leaders = [seat.player for seat in others if seat.score == best]
        winner = leaders[0] if len(leaders) == 1 else None
        state.append_event(match, Event.Kind.RESIGNED, actor=player)
        play.finish(match, winner, "resigned")
        match.version += 1
        scores = tuple((seat.player.display_name, seat.score) for seat in seats)
        resigned = m.Resigned(player.display_name, match.code, winner.display_name if winner else "", scores)
        for seat in others:  # the one who resigned is answered by his reply
            outbox.send(seat.player, Outbox.Kind.OVER, resigned, match)
        return resigned


def check_resignable(match: Match) -> None:
    """Only a running match can be given up: one that waits for players is left."""
    if match.status == Match.Status.LOBBY:
        raise ServiceError(m.NotStartedUseLeave(match.code))
    if match.status != Match.Status.RUNNING:
        raise ServiceError(m.MatchIsOver(match.code))
