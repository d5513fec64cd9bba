"""How the bot introduces itself on Telegram, in the player's language: the command
menu (one list per language that gin3 speaks, registered with
``setMyCommands(language_code=...)``, and the English list without a language code
for everyone else; a short one in groups), and the descriptions a newcomer reads
before he presses Start. The real python-telegram-bot talks to the fake Bot API over
HTTP, as the other Telegram tests do.

Why: Telegram shows the menu and the description before a player has typed anything,
so the language of his Telegram app is all there is to go by; a menu in English is the
first thing a Hebrew or Marathi speaker would read, and an empty "What can this bot
do?" tells a newcomer nothing.
"""

from __future__ import annotations

import asyncio
import json
import time

import pytest
import telegram
from django.conf import settings
from django.core.management import call_command
from django.utils import translation

from bot.telegram import client
from games.text import offers
from tests.telegram_harness import PollingBot
from tests.test_translations import LANGUAGES, TYPED

COMMANDS = [name for name, _description in offers.MENU]


async def _register(tg) -> None:
    async with tg.bot() as bot:
        await client.register_commands(bot)


async def _introduce(tg) -> None:
    async with tg.bot() as bot:
        await client.introduce(bot)


def _descriptions(commands: list[dict]) -> dict[str, str]:
    return {command["command"]: command["description"] for command in commands}


def test_the_default_menu_is_in_english_and_has_no_language_code(tg):
    asyncio.run(_register(tg))
    assert _descriptions(tg.commands) == {name: description for name, description in offers.MENU}
    assert [command["command"] for command in tg.commands] == COMMANDS


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_language_gets_its_own_menu_in_its_own_words(tg, language):
    asyncio.run(_register(tg))
    english = _descriptions(tg.commands)
    translated = _descriptions(tg.commands_for(language_code=language))
    assert list(translated) == COMMANDS, "the same commands, in the same order"
    with translation.override(language):
        assert translated == {name: translation.gettext(description) for name, description in offers.MENU}
    for name in COMMANDS:
        assert translated[name] != english[name], f"{language}: /{name} is described in English"
        typed = {words for pattern in TYPED for words in pattern.findall(english[name])}
        assert all(words in translated[name] for words in typed), f"{language}: /{name} lost what players type"


GROUPS = {"type": "all_group_chats"}


def test_the_menus_are_registered_once_per_language_and_once_without_one_in_each_scope(tg):
    asyncio.run(_register(tg))
    registered = [
        (json.dumps(params.get("scope", {}), sort_keys=True), params.get("language_code", ""))
        for method, params in tg.calls
        if method.lower() == "setmycommands"
    ]
    for scope in ({}, GROUPS):
        codes = [code for key, code in registered if key == json.dumps(scope, sort_keys=True)]
        assert sorted(codes) == sorted(["", *LANGUAGES]), scope
    assert settings.LANGUAGE_CODE not in {code for _scope, code in registered}, "English is the default list"


@pytest.mark.parametrize("language", ["", *LANGUAGES])
def test_groups_get_a_short_menu_of_what_works_there_in_their_language(tg, language):
    """In a group only ``group CODE`` acts: 17 commands that each answer "cards are private" were noise."""
    asyncio.run(_register(tg))
    group_menu = tg.commands_for(GROUPS, language_code=language)
    assert [command["command"] for command in group_menu] == ["group", "help"]
    with translation.override(language or settings.LANGUAGE_CODE):
        assert _descriptions(group_menu) == {name: translation.gettext(text) for name, text in offers.GROUP_MENU}


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_bot_describes_itself_in_each_language_within_telegrams_limits(tg, language):
    asyncio.run(_introduce(tg))
    english, short_english = tg.description_for(), tg.description_for(short=True)
    assert "new" in english and len(english) <= offers.MAX_DESCRIPTION
    assert len(short_english) <= offers.MAX_SHORT_DESCRIPTION
    described, short = tg.description_for(language), tg.description_for(language, short=True)
    assert described and described != english, f"{language}: the description is in English"
    assert short and short != short_english, f"{language}: the short description is in English"
    assert len(described) <= offers.MAX_DESCRIPTION and len(short) <= offers.MAX_SHORT_DESCRIPTION
    assert "new" in described and "new" in short, f"{language}: the command to type is kept as typed"


@pytest.mark.django_db
def test_settelegramprofile_sets_the_menus_and_descriptions(tg):
    call_command("settelegramprofile")
    assert all(tg.description_for(language) for language in LANGUAGES)
    assert all(tg.commands_for(GROUPS, language_code=language) for language in LANGUAGES)


def test_the_polling_bot_introduces_itself_when_it_starts(tg, monkeypatch):
    bot = PollingBot(monkeypatch).start()
    try:
        deadline = time.monotonic() + 10
        while not all(tg.description_for(language, short=True) for language in LANGUAGES):
            assert time.monotonic() < deadline, "the polling bot did not describe itself in every language"
            time.sleep(0.05)
    finally:
        bot.stop()
    assert tg.commands


@pytest.mark.django_db
def test_setting_the_webhook_introduces_the_bot(tg):
    call_command("settelegramwebhook", "https://gin3.example.org/")
    assert all(tg.commands_for(language_code=language) for language in LANGUAGES)
    assert all(tg.description_for(language) for language in LANGUAGES)


def test_the_fake_refuses_a_language_code_the_bot_api_refuses(tg):
    """The Bot API takes two-letter ISO 639-1 codes only: the fake must refuse what
    Telegram would, or a menu registered as "he-IL" would pass here and fail there."""

    async def register(language_code: str) -> None:
        async with tg.bot() as bot:
            await bot.set_my_commands([telegram.BotCommand("help", "Help")], language_code=language_code)

    with pytest.raises(telegram.error.BadRequest, match="language code"):
        asyncio.run(register("he-IL"))
    asyncio.run(register("he"))
    assert tg.commands_for(language_code="he") == [{"command": "help", "description": "Help"}]
