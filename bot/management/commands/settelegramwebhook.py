"""``python manage.py settelegramwebhook https://example.org``: have Telegram
post updates to this site instead of being polled."""

from __future__ import annotations

import asyncio

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.urls import reverse
from telegram.error import TelegramError

from bot.telegram.client import introduce, make_bot
from bot.telegram.updates import ALLOWED_UPDATES

from .runbot import NO_TOKEN


class Command(BaseCommand):
    help = "Register this site's webhook (and the bot's menus and descriptions) with Telegram."

    def add_arguments(self, parser) -> None:
        parser.add_argument("public_url", help="The site's public HTTPS address, e.g. https://gin3.example.org")

    def handle(self, *args, public_url: str, **options) -> None:
        if not settings.TELEGRAM_BOT_TOKEN:
            raise CommandError(NO_TOKEN)
        if not settings.TELEGRAM_WEBHOOK_SECRET:
            raise CommandError(
                "TELEGRAM_WEBHOOK_SECRET is not set: choose one (letters, digits, _ and -, up to 256), "
                "for example with: python -c 'import secrets; print(secrets.token_urlsafe(32))'"
            )
        url = public_url.rstrip("/") + reverse("telegram-webhook")
        try:
            asyncio.run(self._register(url))
        except TelegramError as error:
            raise CommandError(f"Telegram refused the webhook: {error}") from error
        self.stdout.write(f"Telegram now posts updates to {url}")

    async def _register(self, url: str) -> None:
        async with make_bot() as bot:
            await bot.set_webhook(url, secret_token=settings.TELEGRAM_WEBHOOK_SECRET, allowed_updates=ALLOWED_UPDATES)
            await introduce(bot)
