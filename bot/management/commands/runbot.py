"""``python manage.py runbot``: the Telegram bot by long polling."""

from __future__ import annotations

import asyncio
import signal

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from bot.telegram.polling import build_application, serve

NO_TOKEN = (
    "TELEGRAM_BOT_TOKEN is not set. Ask @BotFather on Telegram for a bot (/newbot), then run: "
    "TELEGRAM_BOT_TOKEN=123456:ABC... python manage.py runbot"
)


class Command(BaseCommand):
    help = "Run the Telegram bot by long polling (no public address needed)."

    def handle(self, *args, **options) -> None:
        if not settings.TELEGRAM_BOT_TOKEN:
            raise CommandError(NO_TOKEN)
        asyncio.run(self._run())

    async def _run(self) -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        self.stdout.write(f"Polling {settings.TELEGRAM_API_URL} for updates; Ctrl-C stops.")
        await serve(build_application(), stop)
