"""What both transports and the backend share: the Bot API's address, the bot's
name, and how the bot introduces itself: the command menus Telegram shows (a full
one in private chats, a short one in groups) and the bot's descriptions (what
gin3 is and how to start, on the empty chat a newcomer first sees), each in every
language gin3 speaks."""

from __future__ import annotations

import asyncio
import logging

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext
from django.utils.translation import gettext_noop as _
from telegram import Bot, BotCommand, BotCommandScopeAllGroupChats
from telegram.error import TelegramError

from games.text import links

log = logging.getLogger(__name__)

# Telegram's menu: the commands of docs/protocol.md a player types most. The command
# words stay as typed; their descriptions are in the player's language.
MENU = (
    ("help", _("The commands that make sense now")),
    ("new", _("Start a match: new [5m|1h|12h|1d|3d|7d] [to N] [gin 20]")),
    ("join", _("Join a match: join CODE")),
    ("status", _("Your cards and the table")),
    ("draw", _("Take the top of the stock")),
    ("take", _("Take the top of the discard pile")),
    ("pass", _("Refuse the upcard")),
    ("discard", _("Discard a card: discard 7h")),
    ("knock", _("Discard and knock: knock 7h")),
    ("suggest", _("Sitter: advise the captain, e.g. suggest draw")),
    ("accept", _("Captain: play the sitter's suggestion")),
    ("team", _("A message to your partner only")),
    ("score", _("The scores and the hands so far")),
    ("bot", _("Fill an empty seat with a computer player")),
    ("leave", _("Leave a match that has not started")),
    ("resign", _("Give a match up")),
    ("lang", _("Reply language: en mk he lt mr ms")),
)


# In a group only ``group CODE`` acts (cards are private); help there says so.
GROUP_MENU = (
    ("group", _("Follow a match in this group: group CODE")),
    ("help", _("How to play: in a private chat with the bot")),
)
# "What can this bot do?", on the empty chat before Start (at most 512 characters),
# and the short line on the bot's profile and in shared links (at most 120).
DESCRIPTION = _(
    "gin3 is gin rummy for three, played a move at a time: the box plays alone against a team, "
    "whose captain plays the hand while the sitter advises him. Press Start, then type new for a "
    "match of your own and share its invitation, or play at once against two computer players "
    "(new, then bot twice). help says what you can do at each moment."
)
SHORT_DESCRIPTION = _("Gin rummy for three, a move at a time. Press Start, then type new.")
MAX_DESCRIPTION = 512
MAX_SHORT_DESCRIPTION = 120


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


def menu(language: str, commands: tuple[tuple[str, str], ...] = MENU) -> list[BotCommand]:
    """The menu's commands with their descriptions in ``language``."""
    with translation.override(language):
        return [BotCommand(name, gettext(description)) for name, description in commands]


def in_language(text: str, language: str) -> str:
    with translation.override(language):
        return gettext(text)


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
        await bot.set_my_commands(menu(language, GROUP_MENU), scope=groups, language_code=code)


async def introduce(bot: Bot) -> None:
    """The command menus and the bot's descriptions, in every language gin3 speaks:
    what a newcomer reads before he has typed anything."""
    await register_commands(bot)
    for language, code in _languages():
        await bot.set_my_description(in_language(DESCRIPTION, language), language_code=code)
        await bot.set_my_short_description(in_language(SHORT_DESCRIPTION, language), language_code=code)
