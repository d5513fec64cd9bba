"""Which match a command is for: named by ``#CODE``, or the one it fits (docs/protocol.md).

A player may sit in several matches at once. The matches he sits in are
locked and read in one query, with their seats, players and current hands,
so that choosing costs one read and the command needs no other. Only when a
move fits several (it is his turn in each) are their hands replayed, to send
it to the one match where it is legal (``draw`` where he must draw, not where
he must discard), else to the one where a move of its kind is (``d 2c`` where he
must discard, to be told there that he holds no 2c), or to name such a match in
the question.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from games.contract import Content
from games.contract import matches as m
from games.engine import Discard, Knock, Role
from games.services.plumbing import state
from games.services.write import presence, turns
from games.text.protocol import Command

from ...models import Match, Player, Seat
from ..errors import ServiceError

Reply = Content  # what games.text.render words
RUNNING = (Match.Status.RUNNING,)
LOBBY = (Match.Status.LOBBY,)
ACTIVE = (*RUNNING, *LOBBY)
DISCARD_STEP = (Discard, Knock)  # a turn's second step; pass, take and draw are its first


def my_seats(player: Player, statuses: tuple[str, ...] = ACTIVE, code: str | None = None) -> list[Seat]:
    """The player's seats in matches of these statuses (or in match ``code``), oldest
    match first. The matches are locked and read with all their seats, players and
    current hands in one query, so that the command then needs no other read of them."""
    mine = Seat.objects.filter(player=player)
    mine = mine.filter(match__code=code) if code else mine.filter(match__status__in=statuses)
    tables = state.lock_seats(mine.values("match_id"))
    own = [seat for seats in tables.values() for seat in seats if seat.player_id == player.pk]
    return sorted(own, key=lambda seat: (seat.match.created_at, seat.match_id))


Fits = Callable[[Match, Seat], bool]
Rank = Callable[[Match, Seat], int]  # how well a move suits a match: the best are kept


def pick(player: Player, command: Command, fits: Fits, statuses: tuple[str, ...], suits: Rank | None = None) -> Seat:
    """His seat in the one match a command is for; a player a computer plays for
    (he missed turns) takes his seat back with any command in that match."""
    seat = choose(player, command, fits, statuses, suits)
    if seat.autopilot and seat.match.status == Match.Status.RUNNING:
        presence.take_back(player, seat)
    return seat


def choose(player: Player, command: Command, fits: Fits, statuses: tuple[str, ...], suits: Rank | None = None) -> Seat:
    """The seat of the one match a command is for: named by ``#CODE``, or the only one it
    fits; among several it fits, those it ``suits`` best, if that is one."""
    if command.code:
        named = my_seats(player, (), code=command.code)
        if not named:
            raise ServiceError(m.NotInMatch(command.code))
        return named[0]
    active = my_seats(player)
    fitting = [seat for seat in active if seat.match.status in statuses and fits(seat.match, seat)]
    if len(fitting) > 1 and suits is not None:
        ranks = {seat.pk: suits(seat.match, seat) for seat in fitting}
        fitting = [seat for seat in fitting if ranks[seat.pk] == max(ranks.values())]
    if len(fitting) == 1:
        return fitting[0]
    if not fitting and Match.Status.FINISHED in statuses and (last := last_finished(player)) is not None:
        return last
    if not fitting:
        if len(active) == 1:
            return active[0]  # his one match: the handler says why the command does not fit it now
        if not active:
            raise ServiceError(m.NoMatch())
        raise ServiceError(m.NoneWaitsFor(command.as_text()))
    latest_first = sorted(fitting, key=_last_change, reverse=True)
    raise ServiceError(m.WhichMatch(command.as_text(), tuple(seat.match.code for seat in latest_first)))


def _last_change(seat: Seat) -> tuple[datetime, int]:
    """When his table of the match last changed: the one he has just read is the likely
    one he means, so "Which match?" gives it as the example."""
    match = seat.match
    return (match.last_move_at or match.started_at or match.created_at, match.pk)


def last_finished(player: Player) -> Seat | None:
    """His seat in the match he finished last (``score`` after the end)."""
    seats = Seat.objects.filter(player=player, match__status=Match.Status.FINISHED).order_by("-match__finished_at")
    return seats.select_related("match").first()


def role_now(match: Match, seat: Seat) -> Role | None:
    hand_row = match.current_hand
    if hand_row is None or match.status != Match.Status.RUNNING:
        return None
    return hand_row.roles.role_of(seat.position)


def to_move(match: Match, seat: Seat) -> bool:
    return match.status == Match.Status.RUNNING and match.turn_seat == seat.position


def sitter_advising(match: Match, seat: Seat) -> bool:
    return role_now(match, seat) is Role.SITTER and match.turn_seat == state.hand_in_play(match).captain


def on_team(match: Match, seat: Seat) -> bool:
    return role_now(match, seat) in (Role.CAPTAIN, Role.SITTER)


def any_match(match: Match, seat: Seat) -> bool:
    return True


def has_suggestion(match: Match, seat: Seat) -> int:
    """1 where his sitter's suggestion waits for him (made at the match's version now), else 0:
    ``accept`` goes to the one match where there is something to accept."""
    return int(turns.suggestion_stands(state.hand_in_play(match), match))


def playable(command: Command) -> Rank:
    """How well ``command``'s move suits a match where it is his turn, its hand replayed
    from the log: 2 if it is legal there (``take Qs``: and Qs tops the pile), 1 if it is the
    step of the turn he is at (a discard where he must discard, of a card he may not hold),
    else 0."""
    action = command.action()
    discarding = isinstance(action, DISCARD_STEP)
    named = command.named_top

    def suits(match: Match, seat: Seat) -> int:
        hand = state.load_hand(match, state.hand_in_play(match))
        legal = hand.legal_actions()
        if action in legal and (named is None or hand.pile[-1:] == (named,)):
            return 2
        return 1 if any(isinstance(move, DISCARD_STEP) == discarding for move in legal) else 0

    return suits
