"""A turn's clock when it comes: the reminder, and the turn of a person whose time ran out.

At four fifths of his time the player to move is reminded once; at the deadline
his turn is played for him (``_time_out`` says how), and after three missed turns
in a row a computer takes his seat until he is back (``presence.hand_over``). A
computer whose follow-up task was lost moves at its deadline. Each is checked
against the version it was set for, so a late or repeated call does nothing.
"""

from __future__ import annotations

from django.utils import timezone

from games.contract.moves import Reminder
from games.contract.presence import MissedTurns
from games.contract.tables import Automatic
from games.engine.hand import Phase
from games.models import Match, Outbox, Strength
from games.services.plumbing import outbox
from games.services.plumbing.change import change
from games.services.write import presence
from games.services.write.advice import waiting_suggestion
from games.services.write.computer_moves import computer_choice, play_for_computer
from games.services.write.locked_table import Table, still_current
from games.services.write.play import apply_move

TIMEOUTS_BEFORE_AUTOPILOT = 3
# How the move of a person whose time ran out is chosen, when no advice of his sitter
# waits: as a computer player of this level would choose it (``_time_out`` says why).
# Not the hardest: the clock scan plays these, many in one pass, and hard thinks longer.
TIMEOUT_STRENGTH = Strength.NORMAL


def enforce_deadline(match_id: int, version: int | None = None) -> bool:
    """At the deadline: a computer player to move plays (its follow-up task was lost);
    a person's turn is played for him (``_time_out``). After three missed turns in a
    row a computer player takes the seat. True if it acted."""
    with change():
        table = still_current(match_id, version)
        if table is None:
            return False
        match = table.match
        if match.is_paused or match.deadline is None or match.deadline > timezone.now():
            return False
        if table.computer_plays(table.mover):
            play_for_computer(table)
            return True
        _time_out(table)
        return True


def _time_out(table: Table) -> None:
    """The turn of a person whose time ran out, played for him: his sitter's waiting
    suggestion (R3.2: by not answering, the captain deferred to it), or else the move
    a computer player would make (``TIMEOUT_STRENGTH``), and a whole turn either way.

    Why a computer's move rather than a harmless one (pass, draw, never a knock): the
    box sees every automatic move (R3.2: he never learns whether a move of the team
    was advised). If a timeout never took a card and never knocked, a timed-out take
    or knock could only be the sitter's suggestion; 5 of 5 boxes read "take 8c, d Kc
    (automatic: time ran out)" as advice. A computer takes and knocks when it should,
    so such a move is ordinary, and the choice depends on nothing of the advice: not
    on the suggestion, nor on whether one was made."""
    match = table.match
    position = table.mover
    seat = table.seat(position)
    suggestion = waiting_suggestion(table)
    action = suggestion or computer_choice(table, TIMEOUT_STRENGTH)
    seat.timeouts_in_row += 1
    seat.save(update_fields=["timeouts_in_row"])
    apply_move(table, position, action, None, Automatic.TIMEOUT_SUGGESTION if suggestion else Automatic.TIMEOUT)
    if table.match.status == Match.Status.RUNNING and table.mover == position and table.hand.phase is Phase.DISCARD:
        # A missed turn is one timeout: after taking a card the turn ends with a discard now,
        # not at a second deadline that has passed already (the turn's deadline stays).
        apply_move(table, position, computer_choice(table, TIMEOUT_STRENGTH), None, Automatic.TIMEOUT)
    if seat.timeouts_in_row >= TIMEOUTS_BEFORE_AUTOPILOT and table.match.status == Match.Status.RUNNING:
        notice = MissedTurns(seat.player.display_name, seat.timeouts_in_row, match.code)
        presence.hand_over(table, position, Outbox.Kind.AUTOPILOT, notice)


def send_reminder(match_id: int, version: int | None = None) -> bool:
    """Remind the player to move once, when four fifths of his time are used."""
    with change():
        table = still_current(match_id, version)
        if table is None:
            return False
        match = table.match
        if match.remind_at is None or match.remind_at > timezone.now() or match.is_paused or match.deadline is None:
            return False
        match.remind_at = None
        outbox.send(table.seat(table.mover).player, Outbox.Kind.REMINDER, Reminder(match.code, match.deadline), match)
        return True
