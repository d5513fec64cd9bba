"""``help``, ``status`` and ``score``: what a player may know of his matches, changing nothing."""

from __future__ import annotations

from django.utils.translation import gettext as _

from games.text.protocol import Command
from games.text.style import HAND_KINDS

from ...models import Match, Player, Seat
from .. import play, state
from ..errors import ServiceError
from ..visibility import HelpView, MatchesView, away_until, match_line
from .choosing import ACTIVE, RUNNING, Reply, any_match, my_seats, pick, sitter_advising, to_move

MAX_LISTED = 10  # a list longer than this would not fit a Telegram message or a few SMS


def help_(player: Player, command: Command) -> Reply:
    """What makes sense now in each of his matches, for his role and its state."""
    lines, more = _lines(player)
    return HelpView(
        lines, more, telegram=bool(player.telegram_chat_id), phone=bool(player.phone), away_until=away_until(player)
    )


def status(player: Player, command: Command) -> Reply:
    """The table of his match; with several, the list of them and whose turn it is."""
    seats = my_seats(player, ACTIVE, code=command.code) if command.code else my_seats(player)
    if not seats:
        if command.code:
            raise ServiceError(_("You are not in a match #%(code)s.") % {"code": command.code})
        return _("You are in no match. Start one with: new - or join one with: join CODE")
    if len(seats) > 1:
        lines, more = _lines(player, seats)
        return MatchesView(lines, more)
    seat = pick(player, command, any_match, ACTIVE)
    match = seat.match
    if match.status == Match.Status.LOBBY:
        names = ", ".join(other.player.display_name for other in state.lock_table(match.pk)[1])
        return _("#%(code)s is waiting for players: %(names)s.") % {"code": match.code, "names": names}
    if match.status != Match.Status.RUNNING:
        return _("#%(code)s is over. Type score to see the hands.") % {"code": match.code}
    table = play.load_table(match.pk)
    return table.view(seat.position)


def _lines(player: Player, seats: list[Seat] | None = None):
    """His matches as lines, the ones waiting on him first; a replay only where he may act."""
    seats = my_seats(player) if seats is None else seats
    seats = sorted(seats, key=lambda seat: not (to_move(seat.match, seat) or sitter_advising(seat.match, seat)))
    lines = []
    for seat in seats[:MAX_LISTED]:
        acting = to_move(seat.match, seat) or sitter_advising(seat.match, seat)
        hand = play.load_table(seat.match_id).hand if acting else None
        lines.append(match_line(seat, state.lock_table(seat.match_id)[1], hand))
    return tuple(lines), max(len(seats) - MAX_LISTED, 0)


def score(player: Player, command: Command) -> Reply:
    """The scores and every hand played so far, with who won it and how."""
    match = pick(player, command, any_match, (*RUNNING, Match.Status.FINISHED)).match
    seats = state.seats_of(match)
    names = {seat.position: seat.player.display_name for seat in seats}
    lines = [
        _("#%(code)s to %(target)s: %(scores)s")
        % {
            "code": match.code,
            "target": match.target,
            "scores": ", ".join(f"{names[s.position]} {s.score}" for s in seats),
        }
    ]
    for hand_row in match.hands.exclude(ended_at=None).order_by("number"):
        if hand_row.winner is None:
            lines.append(_("Hand %(number)s: drawn") % {"number": hand_row.number})
        else:
            lines.append(
                _("Hand %(number)s: %(name)s +%(points)s (%(kind)s)")
                % {
                    "number": hand_row.number,
                    "name": names[hand_row.winner],
                    "points": hand_row.points,
                    "kind": HAND_KINDS[hand_row.result],
                }
            )
    return "\n".join(lines)
