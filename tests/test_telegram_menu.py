"""Telegram's command menu in the player's language: one list per language that gin3
speaks, registered with ``setMyCommands(language_code=...)``, and the English list
without a language code for everyone else; the real python-telegram-bot talks to the
fake Bot API over HTTP, as the other Telegram tests do.

Why: Telegram shows the menu before a player has typed anything, so the language of
his Telegram app is all there is to go by; a menu in English is the first thing a
Hebrew or Marathi speaker would read.
"""

from __future__ import annotations

import asyncio
import time

import pytest
import telegram
from django.conf import settings
from django.core.management import call_command
from django.utils import translation

from bot.telegram import client
from games.text import offers
from tests.telegram_harness import PollingBot, fake_telegram
from tests.test_translations import LANGUAGES, TYPED

COMMANDS = [name for name, _description in offers.MENU]


@pytest.fixture
def tg(settings, monkeypatch):
    with fake_telegram(settings, monkeypatch) as fake:
        yield fake


async def _register(tg) -> None:
    async with tg.bot() as bot:
        await client.register_commands(bot)


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


def test_the_menus_are_registered_once_per_language_and_once_without_one(tg):
    asyncio.run(_register(tg))
    codes = [params.get("language_code", "") for method, params in tg.calls if method.lower() == "setmycommands"]
    assert sorted(codes) == sorted(["", *LANGUAGES])
    assert settings.LANGUAGE_CODE not in codes, "English is the default list, not a language of its own"


def test_the_polling_bot_registers_every_menu_when_it_starts(tg, monkeypatch):
    bot = PollingBot(monkeypatch).start()
    try:
        deadline = time.monotonic() + 10
        while not all(tg.commands_for(language_code=language) for language in LANGUAGES):
            assert time.monotonic() < deadline, "the polling bot did not register a menu per language"
            time.sleep(0.05)
    finally:
        bot.stop()
    assert tg.commands


@pytest.mark.django_db
def test_setting_the_webhook_registers_every_menu(tg):
    call_command("settelegramwebhook", "https://gin3.example.org/")
    assert all(tg.commands_for(language_code=language) for language in LANGUAGES)


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
