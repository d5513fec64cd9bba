"""Whose turn it is and who plays it: the turn's clock, and a computer's move after the commit.

A turn starts with a whole move's time on the mover's own clock. When a computer
is to move, or as a sitter has advice for the person who captains, the change asks
for a computer move after its commit; a computer captain whose sitter is a person
who advises waits for his suggestion first. A seat goes to a computer and back
(``set_autopilot``), and an admin's change (``save``) has the computer to move
play as after any move.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from games.engine import Role
from games.models import Event, Match
from games.models import Hand as HandRow
from games.services.plumbing import clocks
from games.services.plumbing.change import current
from games.services.write.locked_table import Table, begin_change


def start_turn(table: Table) -> None:
    """The turn's clock, a whole move's time in the mover's own time
    (``clocks.set_turn_clock``); a computer player is moved after the commit."""
    match = table.match
    match.turn_seat = table.mover
    clocks.set_turn_clock(match, table.seat(table.mover), timedelta(seconds=match.move_seconds), timezone.now())
    computer_next(table)


def computer_next(table: Table) -> None:
    """What a computer does next, after the commit: it moves, or as a sitter it advises
    the person who captains. A computer captain whose sitter is a person who advises
    waits ``advice_wait`` for his suggestion first: the clock scan moves it then, or
    his suggestion does (``advice.record_suggestion``)."""
    match = table.match
    if match.is_paused:
        return
    if waits_for_advice(table):
        match.deadline = timezone.now() + advice_wait()
    elif table.computer_plays(table.mover) or computer_advises(table):
        current().computer_move(match)


def advice_wait() -> timedelta:
    return timedelta(seconds=settings.GIN3_ADVICE_WAIT_SECONDS)


def computer_advises(table: Table) -> bool:
    """A computer sitter has advice to give: a person captains, and it is his move."""
    if table.hand.to_move is not Role.CAPTAIN or table.hand.is_over:
        return False
    sitter = table.seat(table.position_of_role(Role.SITTER))
    return sitter.player.is_computer and not table.computer_plays(table.mover)


def suggestion_stands(hand_row: HandRow, match: Match) -> bool:
    """Whether the hand has a suggestion made at the match's moment now (no move since)."""
    return bool(hand_row.suggestion) and hand_row.suggestion_version == match.version


def waits_for_advice(table: Table) -> bool:
    """A computer captain waits for a person sitter who advises (``advise on``), so that
    his suggestion can come before it moves; once one has come, it waits no more. It
    waits at its first decision of a hand, and at the others only if he has suggested
    something this hand: a sitter who lets the hand go is not waited for at every turn."""
    if table.hand.to_move is not Role.CAPTAIN or not advice_wait() or not table.computer_plays(table.mover):
        return False
    if table.hand.is_forced:
        return False
    sitter = table.seat(table.position_of_role(Role.SITTER))
    if sitter.player.is_computer or sitter.autopilot or not sitter.player.advises:
        return False
    if suggestion_stands(table.hand_row, table.match):
        return False
    first = not any(move["role"] == Role.CAPTAIN.value for move in table.moves)
    return first or table.hand_row.events.filter(kind=Event.Kind.SUGGESTION).exists()


def set_autopilot(table: Table, position: int, on: bool) -> None:
    """A computer plays the seat from now on (``on``), or its player again: a new
    version (old buttons and pending computer moves are void), and if the seat is
    to move, its turn starts again for whoever plays it now."""
    seat = table.seat(position)
    seat.autopilot = on
    seat.timeouts_in_row = seat.timeouts_in_row if on else 0
    seat.save(update_fields=["autopilot", "timeouts_in_row"])
    begin_change(table.match)
    if table.mover == position and not table.match.is_paused:
        start_turn(table)


def save(match: Match) -> None:
    """A change made outside a move (an admin's): a new version, and the computer
    player to move, if one is, is scheduled as after any move."""
    begin_change(match)
    if match.status == Match.Status.RUNNING and not match.is_paused and match.turn_seat is not None:
        seat = match.seats.select_related("player").get(position=match.turn_seat)
        if seat.player.is_computer or seat.autopilot:
            current().computer_move(match)
