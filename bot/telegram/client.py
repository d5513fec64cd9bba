"""What both transports and the backend share: the Bot API's address, the bot's
name, and the command list Telegram shows in its menu."""

from __future__ import annotations

import asyncio
import logging

from django.conf import settings
from telegram import Bot, BotCommand
from telegram.error import TelegramError

from games.text import links

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


def base_url() -> str:
    """PTB's ``base_url``: it appends the token and the method itself."""
    return f"{settings.TELEGRAM_API_URL}/bot"


def make_bot() -> Bot:
    return Bot(settings.TELEGRAM_BOT_TOKEN, base_url=base_url())


def bot_username() -> str:
    """The bot's @username, without the @: from settings, or learned by getMe.

    Asked at most once per process, and never from inside a database
    transaction: the transports call this before handing an update on.
    """
    if not links.bot_username() and settings.TELEGRAM_BOT_TOKEN:
        try:
            links.remember_bot_username(asyncio.run(_get_username()))
        except (TelegramError, RuntimeError) as error:
            log.warning("getMe failed, invite links are left out: %s", error)
    return links.bot_username()


async def _get_username() -> str:
    async with make_bot() as bot:
        return bot.username


async def register_commands(bot: Bot) -> None:
    """Show the commands in Telegram's menu."""
    await bot.set_my_commands([BotCommand(name, description) for name, description in MENU])
