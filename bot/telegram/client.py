"""What both transports and the backend share: the Bot API's address, the bot's
name, and the command list Telegram shows in its menu."""

from __future__ import annotations

import asyncio
import logging

from django.conf import settings
from telegram import Bot, BotCommand
from telegram.error import TelegramError

from games.text import links, offers

log = logging.getLogger(__name__)


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


def menu(language: str) -> list[BotCommand]:
    """The menu's commands with their descriptions in ``language``."""
    return [BotCommand(name, description) for name, description in offers.menu(language)]


async def register_commands(bot: Bot) -> None:
    """Show the commands in Telegram's menu, once per language gin3 speaks.

    Telegram shows each user the list registered for his app's language, and
    the list without a language code (English) to everyone else.
    """
    await bot.set_my_commands(menu(settings.LANGUAGE_CODE))
    for language, _name in settings.LANGUAGES:
        if language != settings.LANGUAGE_CODE:
            await bot.set_my_commands(menu(language), language_code=language)
