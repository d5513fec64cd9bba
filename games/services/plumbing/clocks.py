"""A player's own time: his zone, his quiet hours, and the clock of a turn of his.

A turn's deadline is the one place where the player's time off and quiet hours
meet the match: his time starts when his time off ends (``Player.away_until``),
a deadline that would fall in his quiet hours moves to their end, and his
reminder comes before they start rather than during them. Quiet hours are whole
hours of his local day (``quiet 23-07``), so a day-light saving change moves
them in UTC: they are worked out in his zone for each moment asked about.

``set_turn_clock`` is the one function that sets a turn's deadline and reminder,
wherever they are set: a turn that starts (after a move, in a new match or a
rematch, when a seat changes hands), a pause and a resume, an extension, time
off and the return from it. So the pause, the time off and the quiet hours hold
for each of them alike.
"""

from __future__ import annotations

import functools
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from games.models import Match, Player, Seat

DEFAULT_ZONE = "UTC"
REMINDER_SHARE = 0.2  # the player to move is reminded when a fifth of his time is left
# A computer player moves at once, from the task the change publishes; if that task
# is lost, the clock scan plays the move when this much time has passed.
COMPUTER_GRACE = timedelta(seconds=10)
# A reminder that would fall in quiet hours comes this long before they start: the
# clock scan acts within seconds, and a reminder written in quiet hours would be held.
BEFORE_QUIET = timedelta(minutes=15)


@functools.cache
def zone(name: str) -> ZoneInfo:
    """The zone of that name; UTC for a name that is no zone (the parser lets none in)."""
    try:
        return ZoneInfo(name or DEFAULT_ZONE)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo(DEFAULT_ZONE)


def zone_of(player: Player) -> ZoneInfo:
    return zone(player.time_zone)


def has_quiet_hours(player: Player) -> bool:
    return player.quiet_from is not None and player.quiet_until is not None


def quiet_period(player: Player, moment: datetime) -> tuple[datetime, datetime] | None:
    """The quiet hours of ``player`` that ``moment`` falls in, as (start, end) in UTC;
    None when it falls outside them. ``quiet 23-07`` is from 23:00 to 07:00 of his
    local days, whatever their offset from UTC that night."""
    first, last = player.quiet_from, player.quiet_until
    if first is None or last is None:
        return None
    local_zone = zone_of(player)
    local = moment.astimezone(local_zone)
    day = local.date()
    if first < last:
        if not first <= local.hour < last:
            return None
        start_day, end_day = day, day
    elif local.hour >= first:
        start_day, end_day = day, day + timedelta(days=1)
    elif local.hour < last:
        start_day, end_day = day - timedelta(days=1), day
    else:
        return None
    start, end = _shows(start_day, first, local_zone)[0], _shows(end_day, last, local_zone)[1]
    return (start, end) if start <= moment < end else None


def _shows(day: date, hour: int, local_zone: ZoneInfo) -> tuple[datetime, datetime]:
    """The first and the last moment the clock of a local ``day`` shows ``hour`` o'clock, in
    UTC: quiet hours start at the first and end at the last. An autumn change may show it
    twice (Chatham's clocks go back from 03:45 to 02:45, so 03:00 comes twice); a spring
    change may skip it, and then both are the moment the clocks jump past it."""
    earlier = datetime.combine(day, time(hour), tzinfo=local_zone).astimezone(UTC)
    later = datetime.combine(day, time(hour, fold=1), tzinfo=local_zone).astimezone(UTC)
    if earlier.astimezone(local_zone).time() != time(hour):  # skipped: read before and after the jump
        jump = _jump(local_zone, later, earlier)
        return jump, jump
    return min(earlier, later), max(earlier, later)


def _jump(local_zone: ZoneInfo, before: datetime, after: datetime) -> datetime:
    """The moment between ``before`` and ``after`` at which the zone's offset changes, to the second."""
    offset = before.astimezone(local_zone).utcoffset()
    low, high = int(before.timestamp()), int(after.timestamp())
    while high - low > 1:
        middle = (low + high) // 2
        if datetime.fromtimestamp(middle, local_zone).utcoffset() == offset:
            low = middle
        else:
            high = middle
    return datetime.fromtimestamp(high, UTC)


def quiet_end(player: Player, moment: datetime) -> datetime | None:
    """When the quiet hours ``moment`` falls in end; None when it is outside them."""
    period = quiet_period(player, moment)
    return period[1] if period else None


def out_of_quiet(player: Player, moment: datetime) -> datetime:
    """``moment``, or the end of the quiet hours it falls in."""
    return quiet_end(player, moment) or moment


def clock_start(player: Player, now: datetime) -> datetime:
    """When his time starts to run: now, or when his time off ends."""
    return max(now, player.away_until) if player.away_until else now


def turn_clock(
    player: Player, now: datetime, time_left: timedelta, reminder_before: timedelta
) -> tuple[datetime, datetime | None]:
    """The deadline and the reminder of ``player``'s turn with ``time_left`` on his clock.

    His time runs from ``clock_start``; a deadline in his quiet hours moves to their
    end. The reminder is due ``reminder_before`` the deadline; if that is in his quiet
    hours it comes a little before they start, and if that is no later than his time
    starts, there is none (he has just been told it is his turn)."""
    start = clock_start(player, now)
    deadline = out_of_quiet(player, start + time_left)
    remind_at = deadline - reminder_before
    period = quiet_period(player, remind_at)
    if period is not None:
        remind_at = period[0] - BEFORE_QUIET
    return deadline, remind_at if remind_at > start else None


def time_left(match: Match, start: datetime) -> timedelta:
    """What the turn has left on its clock: the time a pause kept, or the time from
    ``start`` (when the mover's time starts: ``clock_start``) to the deadline; a whole
    move's time where no clock runs."""
    if match.is_paused and match.paused_remaining is not None:
        return match.paused_remaining
    if match.deadline is None:
        return timedelta(seconds=match.move_seconds)
    return max(match.deadline - start, timedelta(0))


def set_turn_clock(match: Match, seat: Seat, left: timedelta, now: datetime, remind: bool = True) -> None:
    """Give the turn of ``seat`` (the seat to move) ``left`` on its clock, from ``now``.

    While the match is paused no clock runs: the time is kept for the resume. A
    computer player (or a computer playing for an absent person) moves at once,
    after the commit, and by the clock scan ``COMPUTER_GRACE`` later if that is
    lost. A person's time runs from when his time off ends, his deadline moves
    out of his quiet hours and so does his reminder (``turn_clock``), which is
    left out if he was reminded already (``remind``)."""
    if match.is_paused:
        match.paused_remaining, match.deadline, match.remind_at = left, None, None
        return
    match.paused_remaining = None
    if seat.player.is_computer or seat.autopilot:
        match.deadline, match.remind_at = now + COMPUTER_GRACE, None
        return
    full = timedelta(seconds=match.move_seconds)
    match.deadline, remind_at = turn_clock(seat.player, now, left, full * REMINDER_SHARE)
    match.remind_at = remind_at if remind else None
