"""The text protocol's commands, carried out: what every channel calls.

``handle`` takes what a player typed (or a button carried) and returns the
reply; notifications for the others go to the outbox. Whatever goes wrong
with the input, the game is unchanged and the player gets a short reason.
The handlers live by subject: ``info`` (help, status, score), ``lobby``
(making and leaving matches), ``finding`` (the open matches), ``moves``
(play, advice, team talk), ``again`` (a rematch), ``report`` (to the
moderators), ``account`` and ``time_off`` (the player's own settings and
time); ``choosing`` finds the match a command is for. ``web`` (a link that
signs him in on a browser) lives with the sign-in it opens, in ``signin``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from django.conf import settings
from django.utils import translation

from games import metrics
from games.contract import Notice
from games.contract.base import Worded
from games.contract.matches import ConfirmResign, YouResigned
from games.contract.moves import OldButton, Suggested, TooFast
from games.contract.tables import TableView
from games.services.plumbing import outbox, state
from games.services.plumbing.change import change
from games.services.plumbing.ratelimit import Rule, shared_limiter
from games.services.write import announcements, linking, moderation, signin
from games.services.write.locked_table import load_table
from games.text.protocol import Command, ProtocolError, parse
from games.text.render import said

from ...models import Match, Outbox, Player
from ..errors import ServiceError, StaleError
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
    "hint": moves.hint,
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
    "group": info.group,
    "web": signin.web,
}


def handle(
    player: Player,
    text: str,
    channel: str,
    update_key: str = "",
    reply_inline: bool = False,
) -> str:
    """Carry out one command from ``player`` and answer it; return the reply's text (``answer``)."""
    return answer(player, text, channel, update_key, reply_inline).text


@dataclass(frozen=True)
class Answer:
    """What became of a command: the reply as its channel shows it, and whether the
    command was refused, with the reason alone (an old button's reply also shows the
    table below it). ``repeated``: its update key was seen before, nothing was done."""

    text: str
    refused: bool = False
    reason: str = ""
    repeated: bool = False


def answer(
    player: Player,
    text: str,
    channel: str,
    update_key: str = "",
    reply_inline: bool = False,
) -> Answer:
    """Carry out one command from ``player`` and answer it.

    ``update_key`` makes a retried delivery (a Telegram update, an SMS) do
    nothing the second time: it is recorded in the same transaction as the
    effect. The reply is rendered for ``channel``; unless ``reply_inline``, it
    is also queued to the outbox for that channel. A move answered with the
    table, typed or pressed, folds into his live table: on Telegram the table
    is edited rather than sent again.

    A refused command changes nothing: its change is rolled back whole, and the
    refusal is answered (and the update recorded) in a change of its own.
    """
    outcome = "error"  # counted whatever happens (metrics.COMMANDS)
    try:
        with change(isolated=True):
            if not state.first_time(update_key):
                outcome = "repeated"
                return Answer("", repeated=True)
            _as_he_is_now(player)
            _note_channel(player, channel)
            with translation.override(player.language):
                command, reply = _carry_out(player, text, channel)
            worth = _worth_sending(command, reply, channel, _after_a_refusal(player, channel))
            letter = _answer(player, worth, channel, reply_inline)
        outcome = "done"
    except (ProtocolError, ServiceError) as error:
        with change():
            if not state.first_time(update_key):
                outcome = "repeated"
                return Answer("", repeated=True)
            _note_channel(player, channel)
            with translation.override(player.language):
                refusal = _reason(error)
                reason = said(refusal) if refusal is not None else ""
                answer = _refusal(player, error)
            if channel == Outbox.Channel.SMS:
                Player.objects.filter(pk=player.pk, sms_refused_last=False).update(sms_refused_last=True)
            letter = _answer(player, answer, channel, reply_inline)
        too_fast = _reason(error) is None or isinstance(_reason(error), TooFast)  # told once, then silent
        outcome = "too_fast" if too_fast else "refused"
        return Answer(letter.text if letter else "", refused=True, reason=reason)
    finally:
        metrics.COMMANDS.labels(channel=channel or "none", outcome=outcome).inc()
    return Answer(letter.text if letter else "")  # rendered when the change ended


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


def press(data: str) -> Notice:
    """What pressing a button with ``data`` does, to say at once where it was pressed
    (Telegram's answer to the press), before the command runs: the command as he
    could have typed it, why it cannot be read, or that the button is old (its
    table has been replaced; the command will be refused, so he must not read it
    as done)."""
    try:
        command = parse(data)
    except ProtocolError as error:
        return Worded(str(error))
    if command.code and command.version is not None:
        version = Match.objects.filter(code=command.code).values_list("version", flat=True).first()
        if version != command.version:
            return OldButton()
    return Worded(command.as_text())


# How often a player over the limit is told so: by SMS every text costs, so once a
# minute; elsewhere often enough that a person who typed a move is never left unanswered.
TOLD_TOO_FAST_EVERY: dict[str, float] = {Outbox.Channel.SMS: 60.0}
TOLD_TOO_FAST_OTHERWISE = 5.0


def _keep_pace(player: Player, channel: str) -> None:
    """A limit on a player's commands per minute (``GIN3_COMMANDS_PER_MINUTE``), so that
    nobody floods a match (300 team messages would bury the captain's turn notice)."""
    limiter = shared_limiter()
    wait = limiter.acquire([Rule(f"gin3:commands:{player.pk}", settings.GIN3_COMMANDS_PER_MINUTE, 60.0)])
    if wait:
        every = TOLD_TOO_FAST_EVERY.get(channel, TOLD_TOO_FAST_OTHERWISE)
        told = not limiter.acquire([Rule(f"gin3:told-too-fast:{player.pk}", 1, every)])
        raise ServiceError(TooFast(max(1, round(wait))) if told else None)


def _worth_sending(command: Command | None, reply: Reply, channel: str, after_a_refusal: bool) -> Reply | None:
    """By SMS, a move that ended his turn is not answered: every text costs, and his
    next one is his next turn (the turn notice and the reply to his draw are the two
    texts of a turn). But when his text before was refused, silence would leave him
    wondering whether this one was taken: it is answered. On the other channels he sees
    the table as he left it. The sitter's advice is answered with his table on Telegram,
    where it folds into his live table."""
    ended_turn = command is not None and command.is_play and isinstance(reply, TableView) and not reply.moves
    if ended_turn and channel == Outbox.Channel.SMS and not after_a_refusal:
        return None
    if isinstance(reply, TableView) and isinstance(reply.note, Suggested) and channel != Outbox.Channel.TELEGRAM:
        return reply.note  # only Telegram edits the table he has: elsewhere the word alone costs less
    return reply


def _answer(player: Player, reply: Reply | None, channel: str, inline: bool) -> outbox.Letter | None:
    if reply is None:
        return None
    return outbox.reply(player, reply, channel, replaces=_takes_the_place_of(reply), inline=inline)


def _takes_the_place_of(reply: Reply) -> str:
    """What a reply replaces (``Outbox.replaces``: on Telegram it edits the newest message
    in its place when that is the one): a table, the last table of its match; the
    question ``resign`` asks and its answer, each other, so that the button "Yes,
    resign" goes once it is pressed."""
    if isinstance(reply, TableView):
        return announcements.table_key(reply.code)
    if isinstance(reply, ConfirmResign | YouResigned):
        return f"resign:{reply.code}"
    return ""


def _note_channel(player: Player, channel: str) -> None:
    """Where he last wrote from, which his messages follow (``notify auto``): a channel
    that delivers; the web page delivers nothing, it answers him itself."""
    if channel in Outbox.Channel.values and player.last_channel != channel:
        player.last_channel = channel
        player.save(update_fields=["last_channel"])


def _after_a_refusal(player: Player, channel: str) -> bool:
    """By SMS, whether his text before this one was refused (``Player.sms_refused_last``,
    set with the refusal); this one was not."""
    if channel != Outbox.Channel.SMS or not player.sms_refused_last:
        return False
    player.sms_refused_last = False
    player.save(update_fields=["sms_refused_last"])
    return True


def _reason(error: ProtocolError | ServiceError) -> Notice | None:
    """Why a command was refused; None: he was told already (commands too fast)."""
    return Worded(str(error)) if isinstance(error, ProtocolError) else error.refusal


def _refusal(player: Player, error: ProtocolError | ServiceError) -> Reply | None:
    """Why a command was refused; an old button gets the table now below the reason."""
    reason = _reason(error)
    if isinstance(error, StaleError) and reason is not None:
        return _with_table(player, error.code, reason)
    return reason


def _with_table(player: Player, code: str, note: Notice) -> Reply:
    """The table now, headed by why the command was refused (an old button)."""
    match = Match.objects.filter(code=code, status=Match.Status.RUNNING, seats__player=player).first()
    if match is None:
        return note
    table = load_table(match.pk)
    return replace(table.view(table.position_of(player)), note=note)
