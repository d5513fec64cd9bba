"""Playing a finished match again: ``again`` from all three starts a new one.

The final result offers it to every player. The first ``again`` (within
``GIN3_REMATCH_HOURS`` of the end) asks the others, who then have as long to
answer (``Match.rematch_until``, a clock of ``automation.CLOCKS``); computer
players always agree. When the last one agrees, a new match with the same
players, seats and options starts with a fresh cut for roles, linked to the
old one (``Match.rematch_of``). If the time runs out first, the offer lapses
and those who agreed are told who did not answer.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _

from games.text.offers import Offer
from games.text.protocol import NewOptions
from games.text.style import deadline_text

from ..models import Match, Player, Seat
from . import matches, outbox, play, state
from .change import change, current
from .errors import ServiceError

AGAIN = "again"
LAPSED = "again_lapsed"


def answer_time() -> timedelta:
    return timedelta(hours=settings.GIN3_REMATCH_HOURS)


def again(player: Player, match: Match) -> Match | None:
    """``player`` agrees to play ``match`` again; returns the new match once all agreed."""
    with change():
        match = state.lock(match.pk)
        now = timezone.now()
        _check_open(match, now)
        agreed = set(match.events.filter(kind=AGAIN).values_list("actor_id", flat=True))
        seats = state.seats_of(match)
        if player.pk in agreed:
            raise ServiceError(
                _("You already agreed to play again: waiting for %(names)s.")
                % {"names": _names(_silent(seats, agreed))}
            )
        state.append_event(match, AGAIN, actor=player)
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
            raise ServiceError(_("#%(code)s was not played to its end: start another with new.") % {"code": match.code})
        raise ServiceError(_("#%(code)s is not over yet.") % {"code": match.code})
    rematch = match.rematches.first()
    if rematch is not None:
        raise ServiceError(_("#%(code)s is being played again: #%(new)s.") % {"code": match.code, "new": rematch.code})
    lapsed = match.events.filter(kind=LAPSED).exists()
    if match.rematch_until is not None:
        lapsed = lapsed or match.rematch_until <= now
    else:
        lapsed = lapsed or match.finished_at is None or match.finished_at + answer_time() <= now
    if lapsed:
        raise ServiceError(
            _("The offer to play #%(code)s again has lapsed: start another with new.") % {"code": match.code}
        )


def _silent(seats: list[Seat], agreed: set[int]) -> list[Player]:
    """The people who have not said again yet (a computer player always agrees)."""
    return [seat.player for seat in seats if not seat.player.is_computer and seat.player_id not in agreed]


def _names(players: list[Player]) -> str:
    return ", ".join(player.display_name for player in players)


def _ask(match: Match, player: Player, seats: list[Seat], agreed: set[int], first: bool) -> None:
    """The others hear of it: the first ``again`` asks those who have not answered; each
    one after it tells those who agreed before who is left."""
    until = match.rematch_until
    silent = _silent(seats, agreed)
    for seat in seats:
        other = seat.player
        if other.pk == player.pk or other.is_computer:
            continue
        if other.pk in agreed:
            outbox.send(other, "again", _agreed_notice(match, player, silent), match)
        elif first:
            outbox.send(other, "again", _offer(match, player, until), match)


def _offer(match: Match, player: Player, until: datetime) -> Callable[[], Offer]:
    return lambda: Offer(
        _(
            "%(name)s wants to play #%(code)s again, with the same players and options. To agree: again. "
            "The offer lapses %(when)s."
        )
        % {"name": player.display_name, "code": match.code, "when": deadline_text(until)},
        _("Play again"),
        f"#{match.code} again",
    )


def _agreed_notice(match: Match, player: Player, silent: list[Player]) -> Callable[[], str]:
    return lambda: _("%(name)s agreed to play #%(code)s again; waiting for %(names)s.") % {
        "name": player.display_name,
        "code": match.code,
        "names": _names(silent),
    }


def _first_to_ask(match: Match, player: Player) -> Player:
    """Who asked first: the new match is his, as a match is its creator's."""
    first = match.events.filter(kind=AGAIN).order_by("seq").select_related("actor").first()
    return first.actor if first is not None and first.actor is not None else player


def _start(old: Match, seats: list[Seat], creator: Player, last: Player) -> Match:
    """The new match: the same players in the same seats, the same options, a fresh cut.
    Everyone hears that it starts, but ``last``, who agreed last: his reply says so."""
    options = NewOptions(
        move_seconds=old.move_seconds,
        target=old.target,
        gin_bonus=old.gin_bonus,
        undercut_bonus=old.undercut_bonus,
        may_discard_taken=old.may_discard_taken,
    )
    new = current().track(matches.with_new_code(creator, options))
    new.rematch_of = old
    Seat.objects.bulk_create(Seat(match=new, player=seat.player, position=seat.position) for seat in seats)
    state.append_event(new, "created", actor=creator, rematch_of=old.code, **options.__dict__)
    for seat in seats:
        state.append_event(new, "joined", actor=seat.player, position=seat.position)
    state.append_event(old, "rematch", code=new.code)
    for seat in seats:
        if seat.player_id == last.pk:
            continue
        outbox.send(
            seat.player,
            "again",
            lambda: _("All three agreed: #%(new)s, a rematch of #%(old)s, starts now.")
            % {"new": new.code, "old": old.code},
            new,
        )
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
        state.append_event(match, LAPSED)
        agreed = set(match.events.filter(kind=AGAIN).values_list("actor_id", flat=True))
        seats = state.seats_of(match)
        silent = _names(_silent(seats, agreed))
        for seat in seats:
            if seat.player_id in agreed:
                outbox.send(
                    seat.player,
                    "again",
                    lambda: _("%(names)s did not answer in time: #%(code)s will not be played again.")
                    % {"names": silent, "code": match.code},
                    match,
                )
        return True
