"""``help``, ``status`` and ``score``: what a player may know of his matches, changing nothing."""

from __future__ import annotations

from games.contract import matches as m
from games.contract.groups import OnlyInAGroup
from games.contract.lists import HandLine, HelpView, MatchesView, ScoreView, is_hand_kind
from games.services.plumbing import state
from games.services.read.match_lines import away_until, match_line
from games.services.write import rematch
from games.services.write.announcements import since_last_turn
from games.services.write.locked_table import load_table
from games.text.protocol import Command

from ...models import Match, Player, Seat
from ..errors import ServiceError
from .choosing import ACTIVE, RUNNING, Reply, any_match, last_finished, my_seats, pick, sitter_advising, to_move

MAX_LISTED = 10  # a list longer than this would not fit a Telegram message or a few SMS


def help_(player: Player, command: Command) -> Reply:
    """What makes sense now in each of his matches, for his role and its state."""
    lines, more = _lines(player)
    last = None if lines else last_finished(player)
    if last is not None and not rematch.still_offered(last.match):
        last = None
    return HelpView(
        lines,
        more,
        telegram=bool(player.telegram_chat_id),
        phone=bool(player.phone),
        away_until=away_until(player),
        again=last.match.code if last else "",
    )


def status(player: Player, command: Command) -> Reply:
    """The table of his match; with several, the list of them and whose turn it is."""
    seats = my_seats(player, ACTIVE, code=command.code) if command.code else my_seats(player)
    if not seats:
        if command.code:
            raise ServiceError(m.NotInMatch(command.code))
        return m.NoMatch()
    if len(seats) > 1:
        lines, more = _lines(player, seats)
        return MatchesView(lines, more)
    seat = pick(player, command, any_match, ACTIVE)
    match = seat.match
    if match.status == Match.Status.LOBBY:
        names = tuple(other.player.display_name for other in state.lock_table(match.pk)[1])
        return m.WaitingForPlayers(match.code, names)
    if match.status != Match.Status.RUNNING:
        return m.SeeTheScore(match.code)
    table = load_table(match.pk)
    return table.view(seat.position, since_last_turn(table, seat.position))


def _lines(player: Player, seats: list[Seat] | None = None):
    """His matches as lines, the ones waiting on him first; a replay only where he may act."""
    seats = my_seats(player) if seats is None else seats
    seats = sorted(seats, key=lambda seat: not (to_move(seat.match, seat) or sitter_advising(seat.match, seat)))
    lines = []
    for seat in seats[:MAX_LISTED]:
        acting = to_move(seat.match, seat) or sitter_advising(seat.match, seat)
        hand = load_table(seat.match_id).hand if acting else None
        lines.append(match_line(seat, state.lock_table(seat.match_id)[1], hand))
    return tuple(lines), max(len(seats) - MAX_LISTED, 0)


def score(player: Player, command: Command) -> Reply:
    """The scores and every hand played so far, with who won it and how."""
    match = pick(player, command, any_match, (*RUNNING, Match.Status.FINISHED)).match
    seats = state.seats_of(match)
    names = {seat.position: seat.player.display_name for seat in seats}
    hands = tuple(
        HandLine(row.number, names[row.winner] if row.winner is not None else "", row.points, row.result)
        for row in match.hands.exclude(ended_at=None).order_by("number")
        if is_hand_kind(row.result)  # an ended hand always has its result
    )
    winner = match.winner.display_name if match.status == Match.Status.FINISHED and match.winner else ""
    return ScoreView(match.code, match.target, tuple((names[s.position], s.score) for s in seats), hands, winner)


def group(player: Player, command: Command) -> Reply:
    """``group CODE`` works in a Telegram group (``services.groups``); anywhere else it is explained."""
    raise ServiceError(OnlyInAGroup())
