"""``python manage.py settelegramprofile``: how the bot introduces itself on Telegram,
its command menus (full in private chats, short in groups) and its descriptions, in
every language gin3 speaks. The polling bot and ``settelegramwebhook`` do the same
when they start; this sets them again without either, after a change of words."""

from __future__ import annotations

import asyncio

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from telegram.error import TelegramError

from bot.telegram.client import introduce, make_bot

from .runbot import NO_TOKEN


class Command(BaseCommand):
    help = "Set the bot's command menus and descriptions on Telegram, in every language."

    def handle(self, *args, **options) -> None:
        if not settings.TELEGRAM_BOT_TOKEN:
            raise CommandError(NO_TOKEN)
        try:
            asyncio.run(self._introduce())
        except TelegramError as error:
            raise CommandError(f"Telegram refused: {error}") from error
        self.stdout.write("The bot's menus and descriptions are set in every language.")

    async def _introduce(self) -> None:
        async with make_bot() as bot:
            await introduce(bot)
