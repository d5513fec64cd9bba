"""Time off: ``away 3d`` stops a player's clocks in every match he sits in, ``back`` starts them again.

A turn's deadline is worked out from when its player's time starts
(``clocks.turn_clock``): while he is away, a turn of his gets its time from
the end of his time off, so no deadline of his passes meanwhile (no timeout
counts against him, and no computer takes his seat for missed turns). Nothing
has to happen when the time off runs out: the deadline clock is the clock
that starts his time again. Going away re-times a turn he is on now (the
time he had left, from the end of his time off), and so does ``back``, from
now; a computer that played his seat (after missed turns) stops, since the
seat now waits for him.

Each player has an allowance a calendar year of his zone
(``GIN3_AWAY_DAYS_PER_YEAR``); every period counts as planned until he comes
back, and from then on as taken.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.utils import timezone

from games.contract import Notice
from games.contract import own_time as t
from games.models import Event, Match, Outbox, Player, Seat, TimeOff
from games.services.errors import ServiceError
from games.services.plumbing import clocks, outbox, state
from games.services.plumbing.change import change
from games.services.write import turns
from games.services.write.locked_table import Table, load_table

SHORTEST = timedelta(hours=1)
STARTS_A_DAY = 3  # each time off is told to everyone he plays with: no flood of notices


def allowance() -> timedelta:
    return timedelta(days=settings.GIN3_AWAY_DAYS_PER_YEAR)


def away_until(player: Player, now: datetime | None = None) -> datetime | None:
    """When his time off ends, if he is away now."""
    until = player.away_until
    return until if until and until > (now or timezone.now()) else None


def left_this_year(player: Player, now: datetime | None = None) -> timedelta:
    """The time off he may still take this year (of his zone); the period he is on counts in full."""
    now = now or timezone.now()
    return max(allowance() - _taken(player, _year(now, player)), timedelta(0))


def go_away(player: Player, length: timedelta) -> datetime:
    """Stop his clocks from now for ``length`` (a new time off replaces the one he is
    on); the others in each of his running matches are told until when. Returns
    when it ends."""
    with change():
        _lock(player)
        now = timezone.now()
        period = _current(player, now)
        start, until = (period.started_at if period else now), now + length
        if length < SHORTEST:
            raise ServiceError(t.TimeOffTooShort())
        if period is None and _started_since(player, now - timedelta(days=1)) >= STARTS_A_DAY:
            raise ServiceError(t.TooManyTimeOffStarts(STARTS_A_DAY))
        if not _fits(player, start, until, period):
            raise ServiceError(_too_much(player, now, period))
        period = period or TimeOff(player=player, started_at=now)
        period.ended_at = until
        period.save()
        before = clocks.clock_start(player, now)
        player.away_until = until
        player.save(update_fields=["away_until"])
        tables = _restart_clocks(player, before, now, Event.Kind.AWAY, until=until.isoformat())
        _tell_others(player, tables, lambda codes: t.PlayerAway(player.display_name, until, codes))
        return until


def come_back(player: Player) -> list[Match]:
    """End his time off now: his clocks run again, a turn of his with the time it had
    left; the others are told. Returns the matches whose turn is his."""
    with change():
        _lock(player)
        now = timezone.now()
        if away_until(player, now) is None:
            raise ServiceError(t.NotAway())
        period = _current(player, now)
        if period is not None:
            period.ended_at = now
            period.save(update_fields=["ended_at"])
        before = clocks.clock_start(player, now)
        player.away_until = None
        player.save(update_fields=["away_until"])
        tables = _restart_clocks(player, before, now, Event.Kind.BACK)
        _tell_others(player, tables, lambda codes: t.PlayerBack(player.display_name, codes))
        return [table.match for table in tables if table.mover == table.position_of(player)]


def _lock(player: Player) -> None:
    """One change of his time off at a time: his row is locked, then read again."""
    Player.objects.select_for_update().filter(pk=player.pk).values_list("pk").get()
    player.refresh_from_db(fields=["away_until"])


def _restart_clocks(player: Player, before: datetime, now: datetime, kind: str, **data: state.JSON) -> list[Table]:
    """In each of his running matches, his seat from now on in his own time: a computer that
    played it stops (the turn, if his, starts again), a turn of his keeps the time it had
    left from ``before`` (when his time was to start) and gets it from when it starts now."""
    ids = Seat.objects.filter(player=player, match__status=Match.Status.RUNNING).order_by("match_id")
    tables = []
    for match_id in ids.values_list("match_id", flat=True):
        table = load_table(match_id)
        position = table.position_of(player)
        seat = table.seat(position)
        seat.player.away_until = player.away_until
        if seat.autopilot:
            turns.set_autopilot(table, position, False)
        elif table.mover == position and table.match.deadline is not None:
            left, reminded = clocks.time_left(table.match, before), table.match.remind_at is None
            clocks.set_turn_clock(table.match, seat, left, now, remind=not reminded)
        state.append_event(table.match, kind, actor=player, **data)
        tables.append(table)
    return tables


def _tell_others(player: Player, tables: list[Table], notice: Callable[[tuple[str, ...]], Notice]) -> None:
    """One message to each other person who plays with him, naming their matches together."""
    shared: dict[int, tuple[Player, list[Match]]] = {}
    for table in tables:
        for seat in table.seats:
            if seat.player_id != player.pk and not seat.player.is_computer:
                shared.setdefault(seat.player_id, (seat.player, []))[1].append(table.match)
    for other, matches in shared.values():
        codes = tuple(match.code for match in matches)
        outbox.send(other, Outbox.Kind.AWAY, notice(codes), matches[0] if len(matches) == 1 else None)


# The allowance ----------------------------------------------------------------


def _current(player: Player, now: datetime) -> TimeOff | None:
    return TimeOff.objects.filter(player=player, started_at__lte=now, ended_at__gt=now).first()


def _started_since(player: Player, since: datetime) -> int:
    return TimeOff.objects.filter(player=player, started_at__gt=since).count()


def _year(moment: datetime, player: Player) -> int:
    return moment.astimezone(clocks.zone_of(player)).year


def _year_span(year: int, player: Player) -> tuple[datetime, datetime]:
    """A calendar year of his zone, in UTC."""
    zone = clocks.zone_of(player)
    return (datetime(year, 1, 1, tzinfo=zone).astimezone(UTC), datetime(year + 1, 1, 1, tzinfo=zone).astimezone(UTC))


def _overlap(start: datetime, end: datetime, span: tuple[datetime, datetime]) -> timedelta:
    return max(min(end, span[1]) - max(start, span[0]), timedelta(0))


def _taken(player: Player, year: int, leave_out: TimeOff | None = None) -> timedelta:
    """His time off in ``year``, but for ``leave_out`` (the period being changed)."""
    span = _year_span(year, player)
    periods = TimeOff.objects.filter(player=player, started_at__lt=span[1], ended_at__gt=span[0])
    if leave_out is not None and leave_out.pk is not None:
        periods = periods.exclude(pk=leave_out.pk)
    return sum((_overlap(p.started_at, p.ended_at, span) for p in periods), timedelta(0))


def _fits(player: Player, start: datetime, end: datetime, period: TimeOff | None) -> bool:
    """Whether time off from ``start`` to ``end`` keeps within the allowance of every year it touches."""
    return all(
        _taken(player, year, period) + _overlap(start, end, _year_span(year, player)) <= allowance()
        for year in range(_year(start, player), _year(end, player) + 1)
    )


def _too_much(player: Player, now: datetime, period: TimeOff | None) -> Notice:
    """The refusal of more time off than is left, with the most he may ask for now."""
    year = _year(now, player)
    used = _taken(player, year, period)
    if period is not None:
        used += _overlap(period.started_at, now, _year_span(year, player))
    left = allowance() - used
    if left < SHORTEST:
        return t.NoTimeOffLeft()
    example = f"{left.days}d" if left.days else f"{int(left.total_seconds() // 3600)}h"
    return t.TooMuchTimeOff(left.total_seconds(), example)


def time_off_left(player: Player) -> t.TimeOffLeft:
    """``away`` alone: whether he is away, and the time off he has left this year."""
    now = timezone.now()
    left = left_this_year(player, now)
    return t.TimeOffLeft(away_until(player, now), left.total_seconds(), allowance().total_seconds())
