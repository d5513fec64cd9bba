"""What both transports and the backend share: the Bot API's address, the bot's
name, and the command list Telegram shows in its menu."""

from __future__ import annotations

import asyncio
import logging

from django.conf import settings
from telegram import Bot, BotCommand
from telegram.error import TelegramError

log = logging.getLogger(__name__)

# Telegram's menu: the commands of PROTOCOL.md a player types most.
MENU = (
    ("help", "The commands that make sense now"),
    ("new", "Start a match: new [5m|1h|12h|1d|3d|7d] [to N] [gin 20]"),
    ("join", "Join a match: join CODE"),
    ("status", "Your cards and the table"),
    ("draw", "Take the top of the stock"),
    ("take", "Take the top of the discard pile"),
    ("pass", "Refuse the upcard"),
    ("discard", "Discard a card: discard 7h"),
    ("knock", "Discard and knock: knock 7h"),
    ("suggest", "Sitter: advise the captain, e.g. suggest draw"),
    ("accept", "Captain: play the sitter's suggestion"),
    ("team", "A message to your partner only"),
    ("score", "The scores and the hands so far"),
    ("bot", "Fill an empty seat with a computer player"),
    ("leave", "Leave a match that has not started"),
    ("resign", "Give a match up"),
    ("lang", "Reply language: en mk he lt mr ms"),
)

_learned_username = ""


def base_url() -> str:
    """PTB's ``base_url``: it appends the token and the method itself."""
    return f"{settings.TELEGRAM_API_URL}/bot"


def make_bot() -> Bot:
    return Bot(settings.TELEGRAM_BOT_TOKEN, base_url=base_url())


def remember_username(username: str) -> None:
    """Keep the name getMe gave, so that invite links need no setting."""
    global _learned_username
    _learned_username = username or ""


def bot_username() -> str:
    """The bot's @username, without the @: from settings, or learned by getMe.

    Asked at most once per process, and never from inside a database
    transaction: the transports call this before handing an update on.
    """
    if settings.TELEGRAM_BOT_USERNAME:
        return settings.TELEGRAM_BOT_USERNAME
    if not _learned_username and settings.TELEGRAM_BOT_TOKEN:
        try:
            remember_username(asyncio.run(_get_username()))
        except (TelegramError, RuntimeError) as error:
            log.warning("getMe failed, invite links are left out: %s", error)
    return _learned_username


async def _get_username() -> str:
    async with make_bot() as bot:
        return bot.username


def join_link(code: str) -> str:
    """The deep link that opens the bot and joins match ``code``; "" if the bot's name is unknown."""
    username = settings.TELEGRAM_BOT_USERNAME or _learned_username
    return f"https://t.me/{username}?start=join_{code}" if username else ""


async def register_commands(bot: Bot) -> None:
    """Show the commands in Telegram's menu."""
    await bot.set_my_commands([BotCommand(name, description) for name, description in MENU])
