"""Playing: the moves, the sitter's advice, the captain's acceptance and team talk."""

from __future__ import annotations

from django.db.models import Max
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.engine import Role, parse_action
from games.text.protocol import Command

from ...models import Event, Player
from .. import automation, outbox, play, state
from ..errors import ServiceError
from .choosing import RUNNING, Reply, on_team, pick, role_now, sitter_advising, to_move

MAX_TEAM_MESSAGES = 5  # a player's team messages between two moves: advice, not a flood


def move(player: Player, command: Command) -> Reply:
    """pass, take, draw, discard, knock: the reply is the table after it, or the
    hand's result if the move ended the hand."""
    seat = pick(player, command, to_move, RUNNING)
    table = play.load_table(seat.match_id, command.version)
    if table.role_of(seat.position) is Role.SITTER:
        raise ServiceError(_("You are the sitter: advise with suggest %(move)s") % {"move": command.as_text()})
    result = play.apply_move(table, seat.position, parse_action(command.as_text()), player)
    return result or table.view(seat.position)


def suggest(player: Player, command: Command) -> Reply:
    """The sitter's advice: the captain gets his table with it, and may ``accept``."""
    seat = pick(player, command, sitter_advising, RUNNING)
    table = play.load_table(seat.match_id, command.version)
    if table.role_of(seat.position) is not Role.SITTER:
        raise ServiceError(_("Only the sitter suggests; the captain plays."))
    if table.hand.to_move is not Role.CAPTAIN:
        raise ServiceError(_("Wait for the captain's turn to suggest."))
    suggestion = command.suggestion
    action = parse_action(suggestion.as_text())
    if action not in table.hand.legal_actions():
        raise ServiceError(_("The captain can't play %(move)s now.") % {"move": suggestion.as_text()})
    table.hand_row.suggestion = suggestion.as_text()
    table.hand_row.suggestion_version = table.match.version
    table.hand_row.save(update_fields=["suggestion", "suggestion_version"])
    state.append_event(table.match, "suggestion", table.hand_row, player, move=suggestion.as_text())
    captain = table.seat(table.position_of_role(Role.CAPTAIN))
    view = table.view(captain.position)
    outbox.send(captain.player, "suggestion", view, table.match, replaces=play.table_key(table.match.code))
    return _("Suggested to %(name)s: %(move)s") % {"name": captain.player.display_name, "move": suggestion.as_text()}


def accept(player: Player, command: Command) -> Reply:
    """The captain plays the sitter's waiting suggestion."""
    seat = pick(player, command, to_move, RUNNING)
    table = play.load_table(seat.match_id, command.version)
    if table.role_of(seat.position) is not Role.CAPTAIN:
        raise ServiceError(_("Only the captain accepts a suggestion."))
    action = automation.waiting_suggestion(table)
    if action is None:
        raise ServiceError(_("There is no suggestion waiting."))
    result = play.apply_move(table, seat.position, action, player, automatic="suggestion")
    return result or table.view(seat.position)


def team(player: Player, command: Command) -> Reply:
    """A word to the partner only: the captain's sitter, or the sitter's captain."""
    seat = pick(player, command, on_team, RUNNING)
    match, seats = state.lock_table(seat.match_id)
    hand_row = match.current_hand
    role = role_now(match, seat)
    if role not in (Role.CAPTAIN, Role.SITTER):
        raise ServiceError(_("Only the captain and the sitter have a partner."))
    partner = seats[hand_row.sitter if role is Role.CAPTAIN else hand_row.captain].player
    if _said_this_turn(match, hand_row, player) >= MAX_TEAM_MESSAGES:
        raise ServiceError(
            ngettext(
                "You have sent %(count)s team message since the last move: wait for the next one.",
                "You have sent %(count)s team messages since the last move: wait for the next one.",
                MAX_TEAM_MESSAGES,
            )
            % {"count": MAX_TEAM_MESSAGES}
        )
    message = command.text
    state.append_event(match, "team", hand_row, player, text=message)  # the desk reads it: visibility.event_text
    outbox.send(
        partner,
        "team",
        lambda: _("#%(code)s %(name)s (team): %(text)s")
        % {"code": match.code, "name": player.display_name, "text": message},
        match,
    )
    return _("Sent to %(name)s.") % {"name": partner.display_name}


def _said_this_turn(match, hand_row, player: Player) -> int:
    """His team messages since the hand's last move."""
    events = Event.objects.filter(match=match, hand=hand_row)
    last_move = events.filter(kind=state.MOVE).aggregate(seq=Max("seq"))["seq"] or 0
    return events.filter(kind="team", actor=player, seq__gt=last_move).count()
