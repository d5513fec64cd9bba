"""A backend for a local run without Telegram or Twilio: the message goes to the log."""

from __future__ import annotations

import logging

from games.models import Outbox
from games.services.plumbing.backends import Backend

log = logging.getLogger(__name__)


class ConsoleBackend(Backend):
    def send(self, message: Outbox) -> str:
        buttons = " | ".join(button["text"] for row in message.buttons for button in row)
        log.info(
            "%s to %s %s:\n%s%s",
            message.kind,
            message.channel,
            message.address,
            message.text,
            f"\n[{buttons}]" if buttons else "",
        )
        return f"console-{message.pk}"
