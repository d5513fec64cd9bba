"""The terminal channel's backend: the ``manage.py play`` process prints its player's messages.

Delivery by the worker skips the terminal channel (the worker has no
terminal); the play process sends its own player's messages with
``games.services.delivery.deliver_address("terminal", user, TerminalBackend())``.
"""

from __future__ import annotations

import sys
from typing import TextIO

from games.models import Outbox
from games.services.backends import Backend


class TerminalBackend(Backend):
    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stdout

    def send(self, message: Outbox) -> str:
        self.stream.write(message.text.rstrip("\n") + "\n\n")
        self.stream.flush()
        return f"terminal-{message.pk}"
