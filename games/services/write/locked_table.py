"""The table a change acts on: a running match, locked, with everything a move needs.

``load_table`` locks the match and its seats, refuses it if it is not running or
a command was made for an earlier version of it, and rebuilds the hand in play
from the event log, once per change; a task made for a moment that has passed
finds None instead (``still_current``). Every change then takes a new version
(``begin_change``), which old buttons and late tasks are checked against.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from games.contract.matches import NotRunning
from games.contract.moves import StaleMoment
from games.contract.tables import MoveView
from games.engine import Hand, Role
from games.models import Hand as HandRow
from games.models import Match, Player, Seat
from games.services.errors import ServiceError, StaleError
from games.services.plumbing import state
from games.services.read.tables import table_view


@dataclass
class Table:
    """A locked match with everything a move needs, loaded once."""

    match: Match
    seats: list[Seat]
    hand_row: HandRow
    hand: Hand
    moves: list[dict] = field(default_factory=list)  # the hand's logged moves (``state.moves_of``)

    def seat(self, position: int) -> Seat:
        return self.seats[position]

    def position_of(self, player: Player) -> int:
        """The seat of ``player``, who sits at this table."""
        for seat in self.seats:
            if seat.player_id == player.pk:
                return seat.position
        raise LookupError(f"{player} has no seat in match {self.match.code}")

    def role_of(self, position: int) -> Role:
        return self.hand_row.roles.role_of(position)

    def position_of_role(self, role: Role) -> int:
        return self.hand_row.roles.seat_of(role)

    @property
    def mover(self) -> int:
        return self.position_of_role(self.hand.to_move)

    def name(self, position: int) -> str:
        return self.seats[position].player.display_name

    def computer_plays(self, position: int) -> bool:
        seat = self.seat(position)
        return seat.player.is_computer or seat.autopilot

    def view(self, position: int, last_moves: tuple[MoveView, ...] = ()):
        """The table as the player in ``position`` may see it now."""
        return table_view(self.match, self.seats, self.hand_row, self.hand, position, last_moves, self.moves)


def load_table(match_id: int, version: int | None = None) -> Table:
    """Lock and load a running match; refuse a stale version."""
    match, seats = state.lock_table(match_id)
    if match.status != Match.Status.RUNNING:
        raise ServiceError(NotRunning(match.code))
    if version is not None and version != match.version:
        raise StaleError(StaleMoment(match.code), match.code)
    hand_row = state.hand_in_play(match)
    moves = state.moves_of(hand_row)
    return Table(match, seats, hand_row, state.load_hand(match, hand_row, moves), moves)


def still_current(match_id: int, version: int | None) -> Table | None:
    """The locked table, if the match still runs at ``version``: a task made for an
    earlier moment, or run twice, finds None and does nothing."""
    try:
        return load_table(match_id, version)
    except ServiceError:
        return None


def begin_change(match: Match) -> None:
    """Every change gets a new version, which old buttons and late tasks are
    checked against; it is taken first so that the messages the change writes
    carry it on their buttons."""
    match.version += 1
