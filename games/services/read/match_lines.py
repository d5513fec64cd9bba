"""A player's matches as lines of his list (``status``, ``help``): each at a glance.

A line names his role, whose move it is and whether it is his, and, when he is
to move or advises on the move, the moves he may play and the upcard; the
captain's line carries his sitter's suggestion. No card but what lies face up.
"""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from games.contract.lists import MatchLine
from games.engine import Hand
from games.models import Match, Player, Seat
from games.services.plumbing import state
from games.services.read.public import role_names
from games.services.read.tables import available_moves


def match_line(seat: Seat, seats: list[Seat], hand: Hand | None) -> MatchLine:
    """``seat``'s match as a line of his list; ``hand`` is the hand in play, replayed,
    when he is to move or advises on the move (else None)."""
    match = seat.match
    if match.status != Match.Status.RUNNING:
        return MatchLine(match.code, match.status, len(seats))
    hand_row = state.hand_in_play(match)
    roles = role_names(hand_row)
    role = roles[seat.position]
    names = {other.position: other.player.display_name for other in seats}
    partner = {"captain": hand_row.sitter, "sitter": hand_row.captain}.get(role)
    moves, knocks = available_moves(hand) if hand is not None else ((), {})
    return MatchLine(
        code=match.code,
        status=match.status,
        players=len(seats),
        hand_number=hand_row.number,
        role=role,
        to_move=names.get(match.turn_seat, "") if match.turn_seat is not None else "",
        your_move=match.turn_seat == seat.position,
        moves=moves,
        knocks=knocks,
        upcard=hand.pile[-1] if hand is not None and hand.pile else None,
        partner=names[partner] if partner is not None else "",
        suggestion=hand_row.suggestion if role == "captain" else "",
        deadline=match.deadline,
        paused=match.is_paused,
        mover_away_until=away_until(next((other.player for other in seats if other.position == match.turn_seat), None)),
        hints=all(other.player.is_computer for other in seats if other.position != seat.position),
    )


def away_until(player: Player | None) -> datetime | None:
    """When ``player``'s time off ends, if he is away now: public, the others are told it."""
    if player is None or player.away_until is None or player.away_until <= timezone.now():
        return None
    return player.away_until
