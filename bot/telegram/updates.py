"""One Telegram update in, one service call: the code path of both transports.

Long polling (``polling.py``) and the webhook (``bot.views``) hand every update
to ``process``. It finds the player, turns the update into command text and
calls ``games.services.handle``, which answers through the outbox; the only
thing this module asks Telegram for is the answer to a button press, which it
returns for the transport to send (the webhook can put it in its response).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.utils import translation
from telegram import CallbackQuery, Chat, ChatMember, ChatMemberUpdated, Message, Update, User

from games.contract.groups import CardsArePrivate
from games.models import Player
from games.services import handle, press
from games.services.write import groups, players, presence
from games.text.protocol import ProtocolError, parse
from games.text.render import said

from .client import bot_username

log = logging.getLogger(__name__)

CHANNEL = "telegram"
ALLOWED_UPDATES = ["message", "callback_query", "my_chat_member"]
MAX_ANSWER = 200  # answerCallbackQuery's limit on its text
DEEP_LINK_JOIN = "join_"


@dataclass(frozen=True)
class PressAnswer:
    """What to answer a button press with: Telegram shows a spinner until it is answered."""

    callback_query_id: str
    text: str


class NotAnUpdate(ValueError):
    """The webhook got JSON that is not a Telegram update."""


def process_update(data: dict) -> PressAnswer | None:
    """Act on an update as Telegram sends it (JSON); ``NotAnUpdate`` if it is not one."""
    if not isinstance(data, dict) or not isinstance(data.get("update_id"), int):
        raise NotAnUpdate("not a Telegram update")
    try:
        update = Update.de_json(data)
    except Exception as error:  # whatever PTB makes of malformed fields
        raise NotAnUpdate(f"not a Telegram update: {error}") from error
    return process(update)


def process(update: Update) -> PressAnswer | None:
    """Act on one update at most once: ``update_id`` is recorded with its effect.
    ``NotAnUpdate`` if an id in it is out of the range Telegram's ids (and our
    columns) have: it could never be recorded, and no retry would change that."""
    _check_ids(update)
    key = f"tg:{update.update_id}"
    bot_username()  # learn it now, outside the transaction, for invite links
    if update.callback_query is not None:
        return _press(update.callback_query, key)
    if update.message is not None:
        _message(update.message, key)
    elif update.my_chat_member is not None:
        _membership(update.my_chat_member)
    return None


ID_RANGE = range(-(2**63), 2**63)  # a 64-bit signed integer: Telegram's ids, and the columns that keep them


def _check_ids(update: Update) -> None:
    ids = {"update_id": update.update_id}
    if update.effective_user is not None:
        ids["user id"] = update.effective_user.id
    if update.effective_chat is not None:
        ids["chat id"] = update.effective_chat.id
    for name, value in ids.items():
        if value not in ID_RANGE:
            raise NotAnUpdate(f"{name} {value} is out of range")


def _message(message: Message, key: str) -> None:
    user = message.from_user
    if user is None or user.is_bot:
        return
    text = message.text or ""
    if message.chat.type != Chat.PRIVATE:
        _group_message(message.chat, user, text, key)
        return
    handle(_player(user, message.chat), command_text(text), CHANNEL, update_key=key)


def _group_message(chat: Chat, user: User, text: str, key: str) -> None:
    """In a group only ``group CODE`` works (it links the group to a match); any
    other command gets a pointer to the private chat, where cards are, or a brief
    answer for someone who plays no match the group follows, as often as
    ``groups.answer_command`` allows."""
    try:
        command = parse(text)
    except ProtocolError:
        command = None
    player = Player.objects.filter(telegram_user_id=user.id).first()
    if command is not None and command.name == "group" and player is not None:
        groups.link_telegram_group(player, command.text, chat.id, update_key=key)
    elif text.startswith("/") or command is not None:
        groups.answer_command(chat.id, user.id, key, players.language_of(user.language_code))


def _press(query: CallbackQuery, key: str) -> PressAnswer:
    """Run a button's command; the answer says what was played, or that the button is old."""
    message = query.message
    if message is None or message.chat.type != Chat.PRIVATE:
        with translation.override(players.language_of(query.from_user.language_code)):
            return PressAnswer(query.id, said(CardsArePrivate()))
    player = _player(query.from_user, message.chat)
    data = query.data or ""
    with translation.override(player.language):
        answer = said(press(data))
    if not handle(player, data, CHANNEL, update_key=key):
        answer = ""  # a press delivered twice: the first one was answered
    return PressAnswer(query.id, answer[:MAX_ANSWER])


def _membership(update: ChatMemberUpdated) -> None:
    """A user blocked the bot: stop writing to him now rather than at the next failed send.
    (Unblocking needs nothing: his next message registers his chat again.)"""
    if update.chat.type != Chat.PRIVATE or update.new_chat_member.status != ChatMember.BANNED:
        return
    player = Player.objects.filter(telegram_user_id=update.from_user.id).first()
    if player is not None:
        presence.player_unreachable(player, CHANNEL)


def _player(user: User, chat: Chat) -> Player:
    return players.telegram_player(user.id, chat.id, user.full_name, user.username or "", user.language_code or "")


def command_text(text: str) -> str:
    """What a message says in the text protocol: ``/start`` is help and its deep
    link ``/start join_CODE`` joins; anything else the parser reads as it is.

    >>> command_text("/start@gin3_bot join_K7Q2")
    'join K7Q2'
    """
    words = text.split()
    if not words or words[0].split("@", 1)[0].lower() != "/start":
        return text
    payload = words[1] if len(words) > 1 else ""
    if payload.lower().startswith(DEEP_LINK_JOIN):
        return "join " + payload[len(DEEP_LINK_JOIN) :]
    return "help"
