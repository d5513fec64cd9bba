"""Sending the outbox to Telegram through the Bot API (python-telegram-bot).

One live table per match in each chat: a table that changes is edited in place
rather than sent again, so that a chat shows one current table instead of a
scroll of old ones. It is sent anew only when it must be: when it needs its
reader (his turn: an edit makes no sound), or when other messages came after
it (an edit far above would go unseen). Whenever a message of a match is sent
anew, the match's previous message in the chat loses its move buttons first,
so that only the newest table carries live ones; the match's first table takes
theirs from the lobby's offers of a computer player, whose seats are taken by
then. Done before the send, it is harmless to repeat, and a retried delivery
shows nothing twice. A message that asks nothing of its reader
(``Outbox.silent``) is sent without a sound.

Sends keep to Telegram's limits with a limiter shared by all workers; a send
that would break them is not slept on but handed back with ``RetryLater``,
except the later parts of a message too long for one: once its first part is
sent, a retry would send that part again, so the others wait their turn (a
second each in a private chat, well within delivery's lease).
Network errors are left to delivery's retries; Telegram's PTB timeouts (5 s)
keep a call well within delivery's lease.
"""

from __future__ import annotations

import asyncio
import logging
import re
import threading
import time
import uuid
import warnings
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import TypeVar

from django.conf import settings
from django.db.models import Q
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo
from telegram.constants import InlineKeyboardButtonLimit, MessageLimit, ParseMode
from telegram.error import BadRequest, Forbidden, RetryAfter

from bot.telegram.client import base_url
from games.models import Outbox
from games.services.plumbing.backends import Backend, Rejected, RetryLater, Unreachable, split_text
from games.services.plumbing.ratelimit import Rule, shared_limiter

log = logging.getLogger(__name__)
T = TypeVar("T")

# Telegram's limits, counted from the end of each call (``_counted``), with a small
# margin for the clocks: about one message a second in a chat, 20 a minute in a
# group, 30 a second in all.
PRIVATE_CHAT = (1, 1.05)
GROUP_CHAT = (20, 60.5)
ALL_CHATS = (28, 1.0)
MAX_CALLBACK_DATA = InlineKeyboardButtonLimit.MAX_CALLBACK_DATA  # bytes
GONE = ("message to edit not found", "message can't be edited", "message_id_invalid")
TABLE_KEY = "table:"  # announcements.table_key: a table of a match
# A table sent without the key (a move made for him, news a newer table must not replace
# while it waits), and what ends a table's life: a hand's result, a match's end.
TABLE_ENDS = (Outbox.Kind.MOVED, Outbox.Kind.RESULT, Outbox.Kind.OVER)
MOVE_BUTTON = re.compile(r"^#\w+@\d+ ")  # a button played on one version of a table (``tables._move_buttons``)
COMPUTER_BUTTON = re.compile(r"^#\w+ bot\b")  # the lobby's offer of a computer player (``offers._add_computer``)


class TelegramBackend(Backend):
    """Sends (or edits) one outbox message; returns Telegram's message_id."""

    def send(self, message: Outbox) -> str:
        chat_id = int(message.address)
        markup = keyboard(message.buttons)
        parts = split_text(message.text, MessageLimit.MAX_TEXT_LENGTH)
        try:
            _connection()
            previous = edit_target(message) if len(parts) == 1 else ""
            if previous:
                with _counted(chat_id, new_message=False):
                    edited = _run(_edit, chat_id, int(previous), message.text, markup)
                if edited:
                    return previous
            for old in stale_buttons(message):
                with _counted(chat_id, new_message=False):
                    _run(_strip, chat_id, int(old))
            sent = 0
            for number, part in enumerate(parts, 1):  # a message too long for one: in order, buttons on the last
                with _counted(chat_id, new_message=True, waits=number > 1):
                    sent = _run(_send, chat_id, part, markup if number == len(parts) else None, message.silent)
            return str(sent)
        except RetryAfter as error:
            raise RetryLater(_seconds(error)) from error
        except Forbidden as error:
            raise Unreachable(error.message) from error
        except BadRequest as error:
            if "chat not found" in error.message.lower():
                raise Unreachable(error.message) from error
            raise Rejected(error.message) from error


def edit_target(message: Outbox) -> str:
    """The message_id to edit instead of sending, or "": the newest message sent to
    this chat, if the new one needs no sound and takes its place: a newer table of the
    same ``replaces``, or the result of the hand that table showed (to the player who
    ended it, who is reading, or to the sitter, who sat it out)."""
    if not message.silent or not (message.replaces or message.kind == Outbox.Kind.RESULT):
        return ""
    newest = (
        Outbox.objects.filter(channel=message.channel, address=message.address, status=Outbox.Status.SENT)
        .exclude(pk=message.pk)
        .order_by("-sent_at", "-pk")
        .first()
    )
    if newest is None or newest.recipient_id != message.recipient_id:
        return ""
    if message.replaces:
        return newest.external_id if newest.replaces == message.replaces else ""
    ends_its_table = newest.match_id == message.match_id and newest.replaces.startswith(TABLE_KEY)
    return newest.external_id if ends_its_table else ""


def stale_buttons(message: Outbox) -> list[str]:
    """The message_ids in this chat to take the buttons off before ``message`` is
    sent: if it takes the place of its match's table (a newer table, the hand's result,
    the match's end), the match's previous table, if its latest state has move buttons;
    if it is the match's first table here, the lobby's messages that offer a computer
    player for a seat that is no longer free. Talk, joins or the answer to ``score``
    leave the table as it is, buttons and all."""
    if message.match_id is None or not _takes_the_tables_place(message):
        return []
    mine = Outbox.objects.filter(
        channel=message.channel,
        address=message.address,
        match_id=message.match_id,
        recipient_id=message.recipient_id,
        status__in=(Outbox.Status.SENT, Outbox.Status.DELIVERED),
    ).exclude(pk=message.pk)
    tables = mine.filter(Q(replaces__startswith=TABLE_KEY) | Q(kind__in=TABLE_ENDS))
    latest = tables.order_by("-sent_at", "-pk").first()
    if latest is not None:
        return [latest.external_id] if latest.external_id and has_move_buttons(latest.buttons) else []
    offers = mine.filter(external_id__gt="").order_by("pk")
    return [offer.external_id for offer in offers if offers_a_computer(offer.buttons)]


def _takes_the_tables_place(message: Outbox) -> bool:
    return message.replaces.startswith(TABLE_KEY) or message.kind in TABLE_ENDS


def has_move_buttons(buttons: list[list[dict[str, str]]]) -> bool:
    return any(MOVE_BUTTON.match(button.get("data", "")) for row in buttons for button in row)


def offers_a_computer(buttons: list[list[dict[str, str]]]) -> bool:
    return any(COMPUTER_BUTTON.match(button.get("data", "")) for row in buttons for button in row)


def keyboard(buttons: list[list[dict[str, str]]]) -> InlineKeyboardMarkup | None:
    rows = []
    for row in buttons:
        keys = [key for button in row if (key := _key(button))]
        if keys:
            rows.append(keys)
    return InlineKeyboardMarkup(rows) if rows else None


def _key(button: dict[str, str]) -> InlineKeyboardButton | None:
    """A button that opens a page in Telegram (``web_app``: the table, a Mini App), a link
    (``url``: sharing an invitation), or one that sends its command back (``data``); None
    to leave out a command too long to carry."""
    if "web_app" in button:
        return InlineKeyboardButton(button["text"], web_app=WebAppInfo(button["web_app"]))
    if "url" in button:
        return InlineKeyboardButton(button["text"], url=button["url"])
    data = callback_data(button["data"])
    return InlineKeyboardButton(button["text"], callback_data=data) if data else None


def callback_data(command: str) -> str:
    """A button's command within Telegram's 64 bytes: in its short form if it
    must be (``d Th`` for ``discard 10h``), or "" to leave the button out (the
    command can still be typed).

    >>> callback_data("#K7Q2@12 discard 10h")
    '#K7Q2@12 discard 10h'
    """
    command = " ".join(command.split())
    if len(command.encode()) <= MAX_CALLBACK_DATA:
        return command
    short = {"discard": "d", "knock": "k"}
    words = [short.get(word.lower(), word) for word in command.split()]
    words = [("T" + word[2:] if word.startswith("10") and len(word) == 3 else word) for word in words]
    compact = " ".join(words)
    if len(compact.encode()) <= MAX_CALLBACK_DATA:
        return compact
    log.warning("button left out, its command is longer than %s bytes: %r", MAX_CALLBACK_DATA, command)
    return ""


def rules(chat_id: int, new_message: bool) -> list[Rule]:
    """The windows a send counts in: its chat's (for a new message) and everyone's.

    Edits count only in the overall window: Telegram's per-chat limits are for messages.
    """
    everyone = [Rule("telegram:all", *ALL_CHATS)]
    if not new_message:
        return everyone
    limit, window = GROUP_CHAT if chat_id < 0 else PRIVATE_CHAT
    return [Rule(f"telegram:chat:{chat_id}", limit, window), *everyone]


@contextmanager
def _counted(chat_id: int, new_message: bool, waits: bool = False) -> Iterator[None]:
    """Count the call made inside in the limiter's windows, or hand the message back
    with ``RetryLater`` (or, if it ``waits``, wait for its turn); once the call is done
    (answered or failed), count it from then: Telegram has it by then, however long
    the request took to arrive."""
    limiter, counted, send = shared_limiter(), rules(chat_id, new_message), uuid.uuid4().hex
    wait = limiter.acquire(counted, send)
    while wait > 0:
        if not waits:
            raise RetryLater(wait)
        time.sleep(wait)
        wait = limiter.acquire(counted, send)
    try:
        yield
    finally:
        limiter.finished(counted, send)


async def _edit(bot: Bot, chat_id: int, message_id: int, text: str, markup: InlineKeyboardMarkup | None) -> bool:
    """Edit a message in place; False if it is gone (deleted, too old) and a new one must be sent."""
    try:
        await bot.edit_message_text(
            text, chat_id=chat_id, message_id=message_id, parse_mode=ParseMode.HTML, reply_markup=markup
        )
    except BadRequest as error:
        reason = error.message.lower()
        if "message is not modified" in reason:
            return True
        if any(gone in reason for gone in GONE):
            log.info("message %s in chat %s is gone, sending a new one: %s", message_id, chat_id, error.message)
            return False
        raise
    return True


async def _send(bot: Bot, chat_id: int, text: str, markup: InlineKeyboardMarkup | None, silent: bool) -> int:
    sent = await bot.send_message(
        chat_id, text, parse_mode=ParseMode.HTML, reply_markup=markup, disable_notification=silent
    )
    return sent.message_id


async def _strip(bot: Bot, chat_id: int, message_id: int) -> None:
    """Take an old message's buttons away; done already, or the message gone, is as good."""
    try:
        await bot.edit_message_reply_markup(chat_id=chat_id, message_id=message_id, reply_markup=None)
    except BadRequest as error:
        reason = error.message.lower()
        if "message is not modified" not in reason and not any(gone in reason for gone in GONE):
            raise


def _seconds(error: RetryAfter) -> float:
    with warnings.catch_warnings():  # PTB 22 warns that the int form is deprecated
        warnings.simplefilter("ignore")
        value = error.retry_after
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


# One event loop and Bot per thread, kept between messages so that a worker
# reuses its HTTP connection instead of opening one per message.
_local = threading.local()


def _run(call: Callable[..., Awaitable[T]], *args: object) -> T:
    """Run ``call(bot, *args)`` on this thread's loop and Bot."""
    runner, bot = _connection()
    return runner.run(call(bot, *args))


def _connection() -> tuple[asyncio.Runner, Bot]:
    """This thread's loop and Bot, made (and checked with getMe) on first use. The
    backend makes it before asking the limiter, so that a send counted now is
    not held up by connecting and arrives when it was counted."""
    key = (settings.TELEGRAM_BOT_TOKEN, base_url())
    current = getattr(_local, "connection", None)
    if current is None or current[0] != key:
        if current is not None:
            _close(current[1], current[2])
        runner = asyncio.Runner()
        bot = Bot(key[0], base_url=key[1])
        try:
            runner.run(bot.initialize())
        except BaseException:
            runner.close()
            raise
        current = _local.connection = (key, runner, bot)
    return current[1], current[2]


def _close(runner: asyncio.Runner, bot: Bot) -> None:
    try:
        runner.run(bot.shutdown())
    finally:
        runner.close()
