"""Playing a finished match again: ``again`` from all three starts a new one.

The final result offers it to every player. The first ``again`` (within
``GIN3_REMATCH_HOURS`` of the end) asks the others, who then have as long to
answer (``Match.rematch_until``, a clock of ``clock_scan.CLOCKS``); computer
players always agree. When the last one agrees, a new match with the same
players, seats and options starts with a fresh cut for roles, linked to the
old one (``Match.rematch_of``). If the time runs out first, the offer lapses
and those who agreed are told who did not answer.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from games.contract import rematch as r
from games.models import Event, Match, Outbox, Player, Seat
from games.services.errors import ServiceError
from games.services.plumbing import outbox, state
from games.services.plumbing.change import change, current
from games.services.write import matches, play


def answer_time() -> timedelta:
    return timedelta(hours=settings.GIN3_REMATCH_HOURS)


def again(player: Player, match: Match) -> Match | None:
    """``player`` agrees to play ``match`` again; returns the new match once all agreed."""
    with change():
        match = state.lock(match.pk)
        now = timezone.now()
        _check_open(match, now)
        agreed = set(match.events.filter(kind=Event.Kind.AGAIN).values_list("actor_id", flat=True))
        seats = state.seats_of(match)
        if player.pk in agreed:
            raise ServiceError(r.AlreadyAgreed(_names(_silent(seats, agreed))))
        state.append_event(match, Event.Kind.AGAIN, actor=player)
        agreed.add(player.pk)
        silent = _silent(seats, agreed)
        if silent:
            first = match.rematch_until is None
            match.rematch_until = match.rematch_until or now + answer_time()
            _ask(match, player, seats, agreed, first)
            return None
        match.rematch_until = None
        return _start(match, seats, _first_to_ask(match, player), player)


def still_offered(match: Match) -> bool:
    """Whether ``match`` may still be played again (``again`` would not be refused as too late)."""
    try:
        _check_open(match, timezone.now())
    except ServiceError:
        return False
    return True


def _check_open(match: Match, now: datetime) -> None:
    """Refuse ``again`` for a match that can't be played again now."""
    if match.status != Match.Status.FINISHED:
        if match.status == Match.Status.ABORTED:
            raise ServiceError(r.NotPlayedToEnd(match.code))
        raise ServiceError(r.NotOverYet(match.code))
    rematch = match.rematches.first()
    if rematch is not None:
        raise ServiceError(r.BeingPlayedAgain(match.code, rematch.code))
    lapsed = match.events.filter(kind=Event.Kind.AGAIN_LAPSED).exists()
    if match.rematch_until is not None:
        lapsed = lapsed or match.rematch_until <= now
    else:
        lapsed = lapsed or match.finished_at is None or match.finished_at + answer_time() <= now
    if lapsed:
        raise ServiceError(r.OfferLapsed(match.code))


def _silent(seats: list[Seat], agreed: set[int]) -> list[Player]:
    """The people who have not said again yet (a computer player always agrees)."""
    return [seat.player for seat in seats if not seat.player.is_computer and seat.player_id not in agreed]


def _names(players: list[Player]) -> tuple[str, ...]:
    return tuple(player.display_name for player in players)


def _ask(match: Match, player: Player, seats: list[Seat], agreed: set[int], first: bool) -> None:
    """The others hear of it: the first ``again`` asks those who have not answered; each
    one after it tells those who agreed before who is left."""
    until = match.rematch_until
    assert until is not None, "asked while the offer stands"
    silent = _silent(seats, agreed)
    for seat in seats:
        other = seat.player
        if other.pk == player.pk or other.is_computer:
            continue
        if other.pk in agreed:
            outbox.send(
                other, Outbox.Kind.AGAIN, r.RematchAgreed(player.display_name, match.code, _names(silent)), match
            )
        elif first:
            outbox.send(other, Outbox.Kind.AGAIN, r.RematchOffer(player.display_name, match.code, until), match)


def _first_to_ask(match: Match, player: Player) -> Player:
    """Who asked first: the new match is his, as a match is its creator's."""
    first = match.events.filter(kind=Event.Kind.AGAIN).order_by("seq").select_related("actor").first()
    return first.actor if first is not None and first.actor is not None else player


def _start(old: Match, seats: list[Seat], creator: Player, last: Player) -> Match:
    """The new match: the same players in the same seats, the same options, a fresh cut.
    Everyone hears that it starts, but ``last``, who agreed last: his reply says so."""
    options = old.options.without_lobby()
    new = current().track(matches.with_new_code(creator, options))
    new.rematch_of = old
    Seat.objects.bulk_create(Seat(match=new, player=seat.player, position=seat.position) for seat in seats)
    created: dict[str, state.JSON] = options.as_fields()
    state.append_event(new, Event.Kind.CREATED, actor=creator, rematch_of=old.code, **created)
    for seat in seats:
        state.append_event(new, Event.Kind.JOINED, actor=seat.player, position=seat.position)
    state.append_event(old, Event.Kind.REMATCH, code=new.code)
    starts = r.RematchStarts(new.code, old.code)
    for seat in seats:
        if seat.player_id != last.pk:
            outbox.send(seat.player, Outbox.Kind.AGAIN, starts, new)
    play.start(new)
    return new


def lapse(match_id: int) -> bool:
    """The time to answer ``again`` has run out: the offer lapses, and those who agreed
    are told who did not answer. True if it acted."""
    with change():
        match = state.lock(match_id)
        now = timezone.now()
        if match.status != Match.Status.FINISHED or match.rematch_until is None or match.rematch_until > now:
            return False
        match.rematch_until = None
        state.append_event(match, Event.Kind.AGAIN_LAPSED)
        agreed = set(match.events.filter(kind=Event.Kind.AGAIN).values_list("actor_id", flat=True))
        seats = state.seats_of(match)
        notice = r.NoRematch(_names(_silent(seats, agreed)), match.code)
        for seat in seats:
            if seat.player_id in agreed:
                outbox.send(seat.player, Outbox.Kind.AGAIN, notice, match)
        return True
