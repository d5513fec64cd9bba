"""A backend for tests, like Django's locmem email backend: messages are kept in ``sent``.

Point a channel at it (``settings.GIN3_BACKENDS["telegram"] =
"bot.backends.memory.MemoryBackend"``), clear ``memory.sent`` before a test
and read it after.
"""

from __future__ import annotations

from games.models import Outbox
from games.services.plumbing.backends import Backend

sent: list[Outbox] = []


class MemoryBackend(Backend):
    def send(self, message: Outbox) -> str:
        sent.append(message)
        return f"memory-{message.pk}"
