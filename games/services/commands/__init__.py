"""The text protocol's commands, carried out: what every channel calls.

``handle`` takes what a player typed (or a button carried) and returns the
reply; notifications for the others go to the outbox. Whatever goes wrong
with the input, the game is unchanged and the player gets a short reason.
The handlers live by subject: ``info`` (help, status, score), ``lobby``
(making and leaving matches), ``finding`` (the open matches), ``moves``
(play, advice, team talk), ``again`` (a rematch), ``report`` (to the
moderators), ``account`` and ``time_off`` (the player's own settings and
time); ``choosing`` finds the match a command is for.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from django.conf import settings
from django.utils import translation
from django.utils.translation import ngettext

from games.ratelimit import Rule, shared_limiter
from games.text.protocol import Command, ProtocolError, parse

from ...models import Match, Outbox, Player
from .. import linking, moderation, outbox, play, state
from ..change import change
from ..errors import ServiceError, StaleError
from ..visibility import TableView
from . import account, again, finding, info, lobby, moves, report, time_off
from .choosing import Reply

HANDLERS: dict[str, Callable[[Player, Command], Reply]] = {
    "help": info.help_,
    "status": info.status,
    "score": info.score,
    "new": lobby.new,
    "join": finding.join,
    "bot": lobby.bot,
    "leave": lobby.leave,
    "resign": lobby.resign,
    "pass": moves.move,
    "take": moves.move,
    "draw": moves.move,
    "discard": moves.move,
    "knock": moves.move,
    "suggest": moves.suggest,
    "accept": moves.accept,
    "team": moves.team,
    "lang": account.lang,
    "name": account.name,
    "advise": account.advise,
    "phone": linking.phone,
    "link": linking.link,
    "notify": linking.notify,
    "open": finding.open_matches,
    "again": again.again,
    "away": time_off.away,
    "back": time_off.back,
    "quiet": time_off.quiet,
    "tz": time_off.tz,
    "report": report.report,
}


def handle(
    player: Player,
    text: str,
    channel: str,
    update_key: str = "",
    reply_inline: bool = False,
    pressed: bool = False,
) -> str:
    """Carry out one command from ``player`` and answer it; return the reply's text.

    ``update_key`` makes a retried delivery (a Telegram update, an SMS) do
    nothing the second time: it is recorded in the same transaction as the
    effect. The reply is rendered for ``channel``; unless ``reply_inline``, it
    is also queued to the outbox for that channel. A command from a button
    (``pressed``) may be answered by editing the table the button was on; a
    typed one gets a new message below what he typed.

    A refused command changes nothing: its change is rolled back whole, and the
    refusal is answered (and the update recorded) in a change of its own.
    """
    try:
        with change(isolated=True):
            if not state.first_time(update_key):
                return ""
            _as_he_is_now(player)
            _note_channel(player, channel)
            with translation.override(player.language):
                command, reply = _carry_out(player, text, channel)
            letter = _answer(player, _worth_sending(command, reply, channel), channel, reply_inline, pressed)
    except (ProtocolError, ServiceError) as error:
        with change():
            if not state.first_time(update_key):
                return ""
            _note_channel(player, channel)
            with translation.override(player.language):
                reply = _refusal(player, error)
            letter = _answer(player, reply, channel, reply_inline, pressed)
    return letter.text if letter else ""  # rendered when the change ended


def _as_he_is_now(player: Player) -> None:
    """Read the player again, his row locked for the change: a channel may hold his row for
    long (a terminal session for hours), and a ban, a new language or time off set meanwhile
    hold from his next command. The lock waits for a ban being written (``moderation.ban``
    locks the row too), so that no command of his slips past it."""
    player.refresh_from_db(from_queryset=Player.objects.select_for_update(no_key=True))


def _carry_out(player: Player, text: str, channel: str) -> tuple[Command | None, Reply]:
    if player.is_banned():
        return None, moderation.ban_notice(player)
    _keep_pace(player, channel)
    command = parse(text)
    return command, HANDLERS[command.name](player, command)


class TooFast(ServiceError):
    """More commands than a person types: refused, and said so (not to every one of a flood)."""


# How often a player over the limit is told so: by SMS every text costs, so once a
# minute; elsewhere often enough that a person who typed a move is never left unanswered.
TOLD_TOO_FAST_EVERY = {Outbox.Channel.SMS: 60.0}
TOLD_TOO_FAST_OTHERWISE = 5.0


def _keep_pace(player: Player, channel: str) -> None:
    """A limit on a player's commands per minute (``GIN3_COMMANDS_PER_MINUTE``), so that
    nobody floods a match (300 team messages would bury the captain's turn notice)."""
    limiter = shared_limiter()
    wait = limiter.acquire([Rule(f"gin3:commands:{player.pk}", settings.GIN3_COMMANDS_PER_MINUTE, 60.0)])
    if wait:
        every = TOLD_TOO_FAST_EVERY.get(channel, TOLD_TOO_FAST_OTHERWISE)
        told = not limiter.acquire([Rule(f"gin3:told-too-fast:{player.pk}", 1, every)])
        seconds = max(1, round(wait))
        said = ngettext(
            "Too many commands: that one was not carried out. Send it again in %(seconds)s second.",
            "Too many commands: that one was not carried out. Send it again in %(seconds)s seconds.",
            seconds,
        )
        raise TooFast(said % {"seconds": seconds} if told else "")


def _worth_sending(command: Command | None, reply: Reply, channel: str) -> Reply | None:
    """By SMS, a move that ended his turn is not answered: every text costs, and his
    next one is his next turn (the turn notice and the reply to his draw are the two
    texts of a turn). On the other channels he sees the table as he left it."""
    ended_turn = command is not None and command.is_play and isinstance(reply, TableView) and not reply.moves
    return None if ended_turn and channel == Outbox.Channel.SMS else reply


def _answer(player: Player, reply: Reply | None, channel: str, inline: bool, pressed: bool) -> outbox.Letter | None:
    if reply is None:
        return None
    replaces = play.table_key(reply.code) if pressed and isinstance(reply, TableView) else ""
    return outbox.reply(player, reply, channel, replaces=replaces, inline=inline)


def _note_channel(player: Player, channel: str) -> None:
    if channel and player.last_channel != channel:
        player.last_channel = channel
        player.save(update_fields=["last_channel"])


def _refusal(player: Player, error: Exception) -> Reply | None:
    """Why a command was refused; an old button gets the table now below the reason.
    None: he was told already (commands too fast)."""
    if isinstance(error, StaleError) and error.code:
        return _with_table(player, error.code, str(error))
    return str(error) or None


def _with_table(player: Player, code: str, note: str) -> Reply:
    """The table now, headed by why the command was refused (an old button)."""
    match = Match.objects.filter(code=code, status=Match.Status.RUNNING, seats__player=player).first()
    if match is None:
        return note
    table = play.load_table(match.pk)
    return replace(table.view(table.position_of(player)), note=note)
