"""What both transports and the backend share: the Bot API's address, the bot's
name, and how the bot introduces itself: the command menus Telegram shows (a full
one in private chats, a short one in groups) and the bot's descriptions (what
gin3 is and how to start, on the empty chat a newcomer first sees), each in every
language gin3 speaks."""

from __future__ import annotations

import asyncio
import logging

from django.conf import settings
from telegram import Bot, BotCommand, BotCommandScopeAllGroupChats
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


def menu(language: str, commands: tuple[tuple[str, str], ...] = offers.MENU) -> list[BotCommand]:
    """The menu's commands with their descriptions in ``language``."""
    return [BotCommand(name, description) for name, description in offers.menu(language, commands)]


def _languages() -> list[tuple[str, str | None]]:
    """Each language gin3 speaks and the code Telegram registers it under: English, the
    default, under none, so that a user of any other language gets it."""
    return [(code, None if code == settings.LANGUAGE_CODE else code) for code, _name in settings.LANGUAGES]


async def register_commands(bot: Bot) -> None:
    """Show the commands in Telegram's menu, once per language gin3 speaks: the full
    list everywhere, and in groups the short one.

    Telegram shows each user the list registered for his app's language, and
    the list without a language code (English) to everyone else.
    """
    groups = BotCommandScopeAllGroupChats()
    for language, code in _languages():
        await bot.set_my_commands(menu(language), language_code=code)
        await bot.set_my_commands(menu(language, offers.GROUP_MENU), scope=groups, language_code=code)


async def introduce(bot: Bot) -> None:
    """The command menus and the bot's descriptions, in every language gin3 speaks:
    what a newcomer reads before he has typed anything."""
    await register_commands(bot)
    for language, code in _languages():
        await bot.set_my_description(offers.in_language(offers.DESCRIPTION, language), language_code=code)
        await bot.set_my_short_description(offers.in_language(offers.SHORT_DESCRIPTION, language), language_code=code)
