"""The terminal channel's backend: the ``manage.py play`` process prints its player's messages.

Delivery by the worker skips the terminal channel (the worker has no
terminal); the play process sends its own player's messages with
``games.services.plumbing.delivery.deliver_address("terminal", user, TerminalBackend(screen))``,
from its main thread after a command and from its refresher thread while he waits.
"""

from __future__ import annotations

import sys
from typing import TextIO

from games.models import Match, Outbox
from games.services.plumbing.backends import Backend, RetryLater

from .screen import OutputGone, Screen


class TerminalBackend(Backend):
    def __init__(self, screen: Screen | TextIO | None = None) -> None:
        self.screen = screen if isinstance(screen, Screen) else Screen(screen or sys.stdout)

    def send(self, message: Outbox) -> str:
        """Print the message, headed by its match's code if it does not say it: a player in
        several matches must see which one it is from. A closed terminal leaves the message
        waiting for his next session."""
        try:
            self.screen.show(with_code(message))
        except OutputGone:
            raise RetryLater(0, "the terminal was closed") from None
        return f"terminal-{message.pk}"


def with_code(message: Outbox) -> str:
    if message.match_id is None:
        return message.text  # a reply to what he typed, shown right below it
    code = Match.objects.filter(pk=message.match_id).values_list("code", flat=True).first()
    if code is None or f"#{code}" in message.text:
        return message.text
    return f"#{code} {message.text}"
