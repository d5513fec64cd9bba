"""The admin's actions: the moderation desk's only way to change a match or a player.

Each action is one transaction that locks the match, changes it, appends an
"admin" event (the action, the admin's username, the reason and details) and
tells the players through the outbox. Every one bumps the match's version
through ``turns.save``, so that buttons shown before it are refused and the
computer player and the turn clock are scheduled for the new state.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone

from games.contract import Notice
from games.contract import moderation as m
from games.models import Event, Match, Outbox, Player, Seat, Strength
from games.services.errors import ServiceError
from games.services.plumbing import clocks, outbox, state
from games.services.plumbing.change import change
from games.services.write import play, players, presence, turns
from games.services.write.locked_table import load_table

UNFINISHED = (Match.Status.LOBBY, Match.Status.RUNNING)
RUNNING = (Match.Status.RUNNING,)


# Matches -------------------------------------------------------------------


def abort(match: Match, admin: str, reason: str = "") -> Match:
    """End a match without a winner (status aborted)."""
    with change():
        match = _lock(match, UNFINISHED)
        _log(match, admin, "abort", reason)
        play.finish(match, None, "aborted")
        _save_and_tell(match, m.Aborted(match.code, reason))
        return match


def adjudicate(match: Match, position: int, admin: str, reason: str = "") -> Match:
    """End a running match with the player in seat ``position`` as its winner."""
    with change():
        match = _lock(match, RUNNING)
        winner = _seat(match, position).player
        _log(match, admin, "adjudicate", reason, winner=winner.pk, position=position)
        play.finish(match, winner, "adjudicated")
        _save_and_tell(match, m.Adjudicated(match.code, reason, winner.display_name))
        return match


def pause(match: Match, admin: str, reason: str = "") -> Match:
    """Stop the clock; the time left for the move is kept for ``resume``."""
    with change():
        match = _lock(match, RUNNING)
        if match.is_paused:
            raise ServiceError(m.AlreadyPaused(match.code))
        now = timezone.now()
        seat = _mover(match)
        left = clocks.time_left(match, clocks.clock_start(seat.player, now))
        _log(match, admin, "pause", reason, remaining=left.total_seconds())
        match.paused_at = now
        clocks.set_turn_clock(match, seat, left, now)
        _save_and_tell(match, m.Paused(match.code, reason))
        return match


def resume(match: Match, admin: str, reason: str = "") -> Match:
    """Start the clock again with the time that was left when it was paused, in the mover's
    own time (``clocks.set_turn_clock``: from the end of his time off, out of his quiet hours)."""
    with change():
        match = _lock(match, RUNNING)
        if not match.is_paused:
            raise ServiceError(m.NotPaused(match.code))
        now, seat = timezone.now(), _mover(match)
        left = clocks.time_left(match, clocks.clock_start(seat.player, now))
        match.paused_at = None
        clocks.set_turn_clock(match, seat, left, now)
        deadline = match.deadline
        if deadline is None:
            raise LookupError(f"match {match.code} resumed without a turn clock")
        _log(match, admin, "resume", reason, deadline=deadline.isoformat())
        _save_and_tell(match, m.Resumed(match.code, reason, deadline))
        return match


def extend(match: Match, by: timedelta, admin: str, reason: str = "") -> Match:
    """Give the player to move more time: added to the time left (kept for the resume if the
    clock is paused), in his own time as at a resume."""
    if by <= timedelta(0):
        raise ServiceError(m.EmptyExtension())
    with change():
        match = _lock(match, RUNNING)
        _log(match, admin, "extend", reason, seconds=by.total_seconds())
        now, seat = timezone.now(), _mover(match)
        left = clocks.time_left(match, clocks.clock_start(seat.player, now))
        clocks.set_turn_clock(match, seat, left + by, now)
        _save_and_tell(match, m.Extended(match.code, reason, by.total_seconds() / 3600, match.deadline))
        return match


def replace_with_computer(
    match: Match, position: int, admin: str, reason: str = "", strength: str = Strength.NORMAL
) -> Player:
    """Put a new computer player in seat ``position`` for the rest of the match.

    If that seat is to move, the computer moves: ``turns.save`` schedules it as
    after any move."""
    with change():
        match = _lock(match, RUNNING)
        seat = _seat(match, position)
        replaced = seat.player
        if replaced.is_computer:
            raise ServiceError(m.SeatIsComputer())
        computer = players.computer_player(match, strength)
        _log(
            match,
            admin,
            "replace",
            reason,
            position=position,
            replaced=replaced.pk,
            computer=computer.pk,
            strength=strength,
        )
        seat.player, seat.autopilot, seat.timeouts_in_row = computer, False, 0
        seat.save(update_fields=["player", "autopilot", "timeouts_in_row"])
        outbox.send(replaced, Outbox.Kind.ADMIN, m.YourSeatGiven(match.code, reason, computer.display_name), match)
        _save_and_tell(match, m.Replaced(match.code, reason, replaced.display_name, computer.display_name))
        return computer


# Players -------------------------------------------------------------------


def ban(player: Player, admin: str, reason: str = "", expires_at: datetime | None = None) -> Player:
    """Refuse the player's commands until ``expires_at`` (None: until unbanned).

    A computer player takes his seats at once (his seats' autopilot, as after
    three missed turns: the hands he played stay his), and the others in each
    of his matches are told, without the reason, which may be private; only
    he is told that. Once the ban is over, any command of his in a match gives
    him his seat back (``services.presence``)."""
    with change():
        player = Player.objects.select_for_update().get(pk=player.pk)
        if player.is_computer:
            raise ServiceError(m.CannotBanComputer(str(player)))
        player.banned, player.ban_reason, player.ban_expires_at = True, reason, expires_at
        player.save(update_fields=["banned", "ban_reason", "ban_expires_at"])
        expires = expires_at.isoformat() if expires_at else None
        for match in _locked_matches_of(player):
            _log(match, admin, "ban", reason, player=player.pk, expires=expires)
            _computer_takes_seat_of(player, match)
            turns.save(match)
        outbox.send(player, Outbox.Kind.ADMIN, ban_notice(player))
        return player


def ban_notice(player: Player) -> m.Banned:
    """What a banned player is told when he is banned, and in reply to any
    command while he is: why, and until when."""
    return m.Banned(player.ban_reason, player.ban_expires_at)


def _computer_takes_seat_of(player: Player, match: Match) -> None:
    """His seat's autopilot; the others hear that a computer plays for him, and not why."""
    notice = m.Suspended(player.display_name, match.code)
    if match.status == Match.Status.RUNNING:
        table = load_table(match.pk)
        presence.hand_over(table, table.position_of(player), Outbox.Kind.AUTOPILOT, notice, tell_him=False)
        return
    seat = match.seats.get(player=player)  # a match not started: it will not wait on his clock
    if not seat.autopilot:
        seat.autopilot, seat.timeouts_in_row = True, 0
        seat.save(update_fields=["autopilot", "timeouts_in_row"])
        for other in state.seats_of(match):
            if other.player_id != player.pk:
                outbox.send(other.player, Outbox.Kind.AUTOPILOT, notice, match)


def unban(player: Player, admin: str, reason: str = "") -> Player:
    """Lift a ban: his commands are accepted again. In a match not yet started
    his seat is his again at once; in a running one, with his first command there."""
    with change():
        player = Player.objects.select_for_update().get(pk=player.pk)
        if not player.banned:
            raise ServiceError(m.NotBanned(player.display_name))
        player.banned, player.ban_reason, player.ban_expires_at = False, "", None
        player.save(update_fields=["banned", "ban_reason", "ban_expires_at"])
        running = []
        for match in _locked_matches_of(player):
            _log(match, admin, "unban", reason, player=player.pk)
            if match.status == Match.Status.LOBBY:
                match.seats.filter(player=player).update(autopilot=False)
            else:
                running.append(match.code)
            turns.save(match)
        outbox.send(player, Outbox.Kind.ADMIN, m.Unbanned(tuple(running)))
        return player


def _locked_matches_of(player: Player) -> list[Match]:
    """The player's unfinished matches, each locked, in one order (no deadlock
    with another action that locks several)."""
    ids = Match.objects.filter(seats__player=player, status__in=UNFINISHED).order_by("pk").values_list("pk", flat=True)
    locked = [state.lock(match_id) for match_id in ids]
    return [match for match in locked if match.status in UNFINISHED]  # one may have ended before we had the lock


# Shared --------------------------------------------------------------------


def _lock(match: Match, statuses: tuple[str, ...]) -> Match:
    """The match locked for this transaction, refused unless its status allows the action."""
    locked = state.lock(match.pk)
    if locked.status not in statuses:
        raise ServiceError(m.NotPossibleNow(locked.code, locked.status))
    return locked


def _mover(match: Match) -> Seat:
    """The seat whose turn it is, with its player."""
    if match.turn_seat is None:
        raise LookupError(f"match {match.code} has nobody to move")
    return _seat(match, match.turn_seat)


def _seat(match: Match, position: int) -> Seat:
    seat = match.seats.select_related("player").filter(position=position).first()
    if seat is None:
        raise ServiceError(m.NoSuchSeat(match.code, position))
    return seat


def _log(match: Match, admin: str, action: str, reason: str, **details: state.JSON) -> None:
    """The admin event, appended before the action's own events (an end's "match_over")."""
    state.append_event(match, Event.Kind.ADMIN, action=action, admin=admin, reason=reason, **details)


def _save_and_tell(match: Match, notice: Notice) -> None:
    """Save the match with a new version and tell its players, each in his own language."""
    turns.save(match)
    for seat in state.seats_of(match):
        outbox.send(seat.player, Outbox.Kind.ADMIN, notice, match)
