"""Delivery backends that tests script: what the next sends do, or a send that hangs.

``ScriptedBackend`` plays ``script`` in order: an exception instance is
raised, anything else is a success. The other two are for a worker started
as a separate process (its settings name them through GIN3_TELEGRAM_BACKEND):
``HangingBackend`` marks a file when it starts sending and then hangs, so the
test can kill the worker mid-send; ``FileBackend`` records each message it
sends as a line in a file.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from games.models import Outbox
from games.services.plumbing.backends import Backend

script: list[object] = []
sent: list[Outbox] = []


class ScriptedBackend(Backend):
    def send(self, message: Outbox) -> str:
        outcome = script.pop(0) if script else None
        if isinstance(outcome, BaseException):
            raise outcome
        sent.append(message)
        return f"scripted-{message.pk}"


class HangingBackend(Backend):
    def send(self, message: Outbox) -> str:
        Path(os.environ["GIN3_TEST_MARKER"]).write_text(str(message.pk))
        time.sleep(600)
        raise AssertionError("the test kills this worker long before")


class FileBackend(Backend):
    def send(self, message: Outbox) -> str:
        with open(os.environ["GIN3_TEST_MARKER"], "a") as file:
            file.write(f"{message.pk}\n")
        return f"file-{message.pk}"
