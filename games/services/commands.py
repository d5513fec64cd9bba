"""The text protocol's commands, carried out: what every channel calls.

``handle`` takes what a player typed (or a button carried) and returns the
reply; notifications for the others go to the outbox. Whatever goes wrong
with the input, the game is unchanged and the player gets a short reason.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace

from django.db import transaction
from django.utils import translation
from django.utils.translation import gettext as _

from games.engine import Role, parse_action
from games.text.links import join_link
from games.text.protocol import Command, ProtocolError, parse

from ..models import Match, Player, Seat
from . import automation, linking, matches, outbox, play, state
from .errors import ServiceError, StaleError
from .visibility import table_view

log = logging.getLogger(__name__)
Reply = object  # a str or a view that games.text.render renders


def handle(
    player: Player,
    text: str,
    channel: str,
    update_key: str = "",
    reply_inline: bool = False,
    pressed: bool = False,
) -> str:
    """Carry out one command from ``player`` and answer it.

    ``update_key`` makes a retried delivery (a Telegram update, an SMS) do
    nothing the second time: it is recorded in the same transaction as the
    effect. The reply is rendered for ``channel``; unless ``reply_inline``, it
    is also queued to the outbox for that channel. A command from a button
    (``pressed``) may be answered by editing the table the button was on; a
    typed one gets a new message below what he typed.
    """
    with transaction.atomic():
        if not state.first_time(update_key):
            return ""
        if channel and player.last_channel != channel:
            player.last_channel = channel
            player.save(update_fields=["last_channel"])
        with translation.override(player.language):
            reply = _carry_out(player, text)
        if reply_inline:
            from games.text.render import render

            with translation.override(player.language):
                return render(reply() if callable(reply) else reply, channel).text
        replaces = _replaces(reply) if pressed else ""
        message = outbox.send(player, "reply", reply, channel=channel, replaces=replaces)
        return message.text if message else ""


def _replaces(reply: Reply) -> str:
    code = getattr(reply, "code", "")
    return f"table:{code}" if code and hasattr(reply, "moves") else ""


def _carry_out(player: Player, text: str) -> Reply:
    if player.is_banned():
        return _("You are banned from gin3: %(reason)s") % {"reason": player.ban_reason or "-"}
    try:
        command = parse(text)
        handler = HANDLERS[command.name]
        with transaction.atomic():
            return handler(player, command)
    except (ProtocolError, ServiceError) as error:
        if isinstance(error, StaleError) and command.code:
            return _with_table(player, command.code, str(error))
        return str(error)


def _with_table(player: Player, code: str, note: str) -> Reply:
    """The table now, headed by why the command was refused (an old button)."""
    match = Match.objects.filter(code=code).first()
    seat = match and match.seats.filter(player=player).first()
    if not seat or match.status != Match.Status.RUNNING:
        return note
    table = play.load_table(match.pk)
    return replace(table_view(table.match, table.seats, table.hand_row, table.hand, seat.position), note=note)


# Choosing the match ---------------------------------------------------------


def _my_matches(player: Player, statuses: tuple[str, ...]) -> list[Match]:
    return list(Match.objects.filter(seats__player=player, status__in=statuses).order_by("created_at"))


def _pick(player: Player, command: Command, candidates: Callable[[Match, Seat], bool], statuses) -> Match:
    """The one match a command is for; a player on autopilot there takes his seat back."""
    match = _choose(player, command, candidates, statuses)
    _come_back(player, match)
    return match


def _choose(player: Player, command: Command, candidates: Callable[[Match, Seat], bool], statuses) -> Match:
    """The one match a command is for: named by ``#CODE``, or the only one it fits."""
    if command.code:
        match = Match.objects.filter(code=command.code, seats__player=player).first()
        if match is None:
            raise ServiceError(_("You are not in a match #%(code)s.") % {"code": command.code})
        return match
    mine = _my_matches(player, statuses)
    fitting = [match for match in mine if candidates(match, match.seats.get(player=player))]
    if len(fitting) == 1:
        return fitting[0]
    if not fitting:
        active = _my_matches(player, (*RUNNING, *LOBBY))
        if len(active) == 1:
            return active[0]  # his one match: the handler says why the command does not fit it now
        if not active:
            raise ServiceError(_("You are in no match. Start one with: new — or join one with: join CODE"))
        raise ServiceError(_("No match is waiting on you for that. Type status to see your matches."))
    codes = " ".join(f"#{match.code}" for match in fitting)
    raise ServiceError(
        _("Which match? Put its code first, like: #%(code)s %(command)s. Yours: %(codes)s")
        % {"code": fitting[0].code, "command": command.as_text(), "codes": codes}
    )


RUNNING = (Match.Status.RUNNING,)
LOBBY = (Match.Status.LOBBY,)


def _role_now(match: Match, seat: Seat) -> Role | None:
    hand_row = state.current_hand_row(match)
    if hand_row is None:
        return None
    return {hand_row.box: Role.BOX, hand_row.captain: Role.CAPTAIN, hand_row.sitter: Role.SITTER}[seat.position]


def _to_move(match: Match, seat: Seat) -> bool:
    return match.turn_seat == seat.position


def _sitter_advising(match: Match, seat: Seat) -> bool:
    hand_row = state.current_hand_row(match)
    return hand_row is not None and hand_row.sitter == seat.position and match.turn_seat == hand_row.captain


def _on_team(match: Match, seat: Seat) -> bool:
    return _role_now(match, seat) in (Role.CAPTAIN, Role.SITTER)


def _any(match: Match, seat: Seat) -> bool:
    return True


# Handlers -----------------------------------------------------------------


def _help(player: Player, command: Command) -> Reply:
    mine = _my_matches(player, (*RUNNING, *LOBBY))
    lines = [_("gin3: three-handed gin rummy.")]
    if not mine:
        lines.append(_("new [5m|1h|12h|1d|3d|7d] [to N] [gin 20]: start a match. join CODE: join one."))
    for match in mine:
        seat = match.seats.get(player=player)
        if match.status == Match.Status.LOBBY:
            lines.append(_("#%(code)s is waiting for players: bot, leave, status.") % {"code": match.code})
        elif _to_move(match, seat):
            table = play.load_table(match.pk)
            moves = ", ".join(play_moves(table))
            lines.append(_("#%(code)s, your move: %(moves)s.") % {"code": match.code, "moves": moves})
        elif _sitter_advising(match, seat):
            lines.append(_("#%(code)s: suggest MOVE, team TEXT.") % {"code": match.code})
        else:
            lines.append(_("#%(code)s: status, score, resign.") % {"code": match.code})
    lines.append(_("Also: status, score, team TEXT, lang CODE. Cards: 7h 10d Qs."))
    if player.telegram_chat_id:
        lines.append(_("Turns by: notify sms|telegram|auto") if player.phone else _("By SMS too: phone +15551234567"))
    return "\n".join(lines)


def play_moves(table: play.Table) -> list[str]:
    from .visibility import available_moves

    moves, _knocks = available_moves(table.hand)
    return [move for move in moves if not move.startswith("discard ")] + (
        ["discard CARD"] if any(move.startswith("discard ") for move in moves) else []
    )


def _new(player: Player, command: Command) -> Reply:
    match = matches.create(player, command.options)
    reply = _(
        "New match #%(code)s (%(time)s a move, to %(target)s). Friends join with: join %(code)s. "
        "Or type bot to add a computer player."
    ) % {"code": match.code, "time": _duration(match.move_seconds), "target": match.target}
    if player.last_channel == "telegram" and (link := join_link(match.code)):
        reply += " " + _("Or send them this link: %(link)s") % {"link": link}
    return reply


def _duration(seconds: int) -> str:
    from games.text.protocol import MOVE_TIMES

    return next((name for name, value in MOVE_TIMES.items() if value == seconds), f"{seconds}s")


def _join(player: Player, command: Command) -> Reply:
    match = matches.join(player, command.text)
    if match.status == Match.Status.RUNNING:
        return _("You joined #%(code)s. It starts now.") % {"code": match.code}
    return _("You joined #%(code)s. Waiting for one more player (or type bot).") % {"code": match.code}


def _bot(player: Player, command: Command) -> Reply:
    match = _pick(player, command, _any, LOBBY)
    match = matches.add_computer(player, match)
    if match.status == Match.Status.RUNNING:
        return _("A computer player joined #%(code)s. It starts now.") % {"code": match.code}
    return _("A computer player joined #%(code)s.") % {"code": match.code}


def _leave(player: Player, command: Command) -> Reply:
    match = _pick(player, command, _any, LOBBY)
    matches.leave(player, match)
    return _("You left #%(code)s.") % {"code": match.code}


def _resign(player: Player, command: Command) -> Reply:
    match = _pick(player, command, _any, RUNNING)
    winner = matches.resign(player, match)
    return (
        _("You resigned #%(code)s.") % {"code": match.code}
        + " "
        + _("%(name)s wins the match!") % {"name": winner.display_name}
    )


def _status(player: Player, command: Command) -> Reply:
    match = _pick(player, command, _any, (*RUNNING, *LOBBY))
    seat = match.seats.get(player=player)
    if match.status == Match.Status.LOBBY:
        names = ", ".join(seat.player.display_name for seat in match.seats.select_related("player"))
        return _("#%(code)s is waiting for players: %(names)s.") % {"code": match.code, "names": names}
    return _status_view(match, seat)


def _status_view(match: Match, seat: Seat) -> Reply:
    if match.status != Match.Status.RUNNING:
        # The move ended the match: everyone has the result; loading the table would refuse and undo it.
        return _("#%(code)s is over. Type score to see the hands.") % {"code": match.code}
    table = play.load_table(match.pk)
    return table_view(table.match, table.seats, table.hand_row, table.hand, seat.position)


def _score(player: Player, command: Command) -> Reply:
    match = _pick(player, command, _any, (*RUNNING, Match.Status.FINISHED))
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
                    "kind": hand_row.result,
                }
            )
    return "\n".join(lines)


def _move(player: Player, command: Command) -> Reply:
    match = _pick(player, command, _to_move, RUNNING)
    table = play.load_table(match.pk, command.version)
    position = table.position_of(player)
    if position is None:
        raise ServiceError(_("You are not in #%(code)s.") % {"code": match.code})
    if table.role_of(position) is Role.SITTER:
        raise ServiceError(_("You are the sitter: advise with suggest %(move)s") % {"move": command.as_text()})
    play.apply_move(table, position, parse_action(command.as_text()), player)
    return _status_view(table.match, table.seat(position))


def _come_back(player: Player, match: Match) -> None:
    """A player who was replaced by a computer after timeouts takes his seat back
    with any command in the match, as the autopilot message promises him."""
    seat = match.seats.filter(player=player, autopilot=True).first()
    if seat is None or match.status != Match.Status.RUNNING:
        return
    state.lock(match.pk)
    seat.autopilot = False
    seat.timeouts_in_row = 0
    seat.save(update_fields=["autopilot", "timeouts_in_row"])
    state.append_event(match, "returned", actor=player)


def _suggest(player: Player, command: Command) -> Reply:
    match = _pick(player, command, _sitter_advising, RUNNING)
    table = play.load_table(match.pk, command.version)
    position = table.position_of(player)
    if table.role_of(position) is not Role.SITTER:
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
    view = table_view(table.match, table.seats, table.hand_row, table.hand, captain.position)
    outbox.send(captain.player, "suggestion", view, table.match, replaces=f"table:{table.match.code}")
    return _("Suggested to %(name)s: %(move)s") % {"name": captain.player.display_name, "move": suggestion.as_text()}


def _accept(player: Player, command: Command) -> Reply:
    match = _pick(player, command, _to_move, RUNNING)
    table = play.load_table(match.pk, command.version)
    position = table.position_of(player)
    if table.role_of(position) is not Role.CAPTAIN:
        raise ServiceError(_("Only the captain accepts a suggestion."))
    action = automation.waiting_suggestion(table)
    if action is None:
        raise ServiceError(_("There is no suggestion waiting."))
    play.apply_move(table, position, action, player, automatic="suggestion")
    return _status_view(table.match, table.seat(position))


def _team(player: Player, command: Command) -> Reply:
    match = state.lock(_pick(player, command, _on_team, RUNNING).pk)  # the event's seq needs the lock
    seat = match.seats.get(player=player)
    hand_row = state.current_hand_row(match)
    role = _role_now(match, seat)
    if role not in (Role.CAPTAIN, Role.SITTER):
        raise ServiceError(_("Only the captain and the sitter have a partner."))
    partner_position = hand_row.sitter if role is Role.CAPTAIN else hand_row.captain
    partner = match.seats.select_related("player").get(position=partner_position).player
    state.append_event(match, "team", hand_row, player)
    message = command.text
    outbox.send(
        partner,
        "team",
        lambda: _("#%(code)s %(name)s (team): %(text)s")
        % {"code": match.code, "name": player.display_name, "text": message},
        match,
    )
    return _("Sent to %(name)s.") % {"name": partner.display_name}


def _lang(player: Player, command: Command) -> Reply:
    player.language = command.text
    player.save(update_fields=["language"])
    return lambda: _("Language: English.")


HANDLERS: dict[str, Callable[[Player, Command], Reply]] = {
    "help": _help,
    "new": _new,
    "join": _join,
    "bot": _bot,
    "leave": _leave,
    "resign": _resign,
    "status": _status,
    "score": _score,
    "pass": _move,
    "take": _move,
    "draw": _move,
    "discard": _move,
    "knock": _move,
    "suggest": _suggest,
    "accept": _accept,
    "team": _team,
    "lang": _lang,
    "phone": linking.phone,
    "link": linking.link,
    "notify": linking.notify,
}
