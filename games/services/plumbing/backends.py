"""The delivery contract: a backend sends one outbox message and says how it went.

Like Django's email backends, the class for each channel is a setting
(``GIN3_BACKENDS``): the real platform, the console for a local run, memory
for tests. ``games.services.plumbing.delivery`` calls ``send`` from a Celery worker, synchronously,
one message at a time for an address and in the order they were written; it
claims the message first, so a message is never being sent by two workers.

What ``send`` may do, and what delivery does then:

- return the platform's id for the message (``Outbox.external_id``): sent.
- raise ``RetryLater(seconds)``: a rate limit (Telegram's 429 RetryAfter, our
  own limiter). The message and the later ones for its address wait; this
  does not count as a failed attempt.
- raise ``Unreachable(reason)``: the recipient blocked the bot, sent STOP, or
  the number does not exist. The message and the others waiting for that
  address fail, and ``games.services.write.presence.player_unreachable`` marks
  the player and tells the others in his matches.
- raise ``Rejected(reason)``: the platform refuses this message itself (a bad
  request that no retry will fix). It fails at once and the next one goes.
- raise anything else: a passing failure (the network). Retried with
  exponential backoff; after ``games.services.plumbing.delivery.MAX_ATTEMPTS`` it fails with
  ``last_error``. The address's later messages wait, to keep the order.

``send`` must return or raise well within ``games.services.plumbing.delivery.LEASE`` (use
timeouts on network calls): after the lease the message is taken to be lost
with its worker and is sent again.
"""

from __future__ import annotations

from games.models import Outbox


class RetryLater(Exception):
    """Not now: try this address again in ``seconds``."""

    def __init__(self, seconds: float, reason: str = "") -> None:
        super().__init__(reason or f"rate limited: retry in {seconds:g} s")
        self.seconds = seconds


class Unreachable(Exception):
    """The recipient can't be reached at this address any more."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Rejected(Exception):
    """The platform refuses this message (and would refuse it again)."""


class Backend:
    """Sends one message on one channel; see the module's docstring for the contract."""

    def send(self, message: Outbox) -> str:
        """Send ``message`` and return the platform's id for it."""
        raise NotImplementedError


def split_text(text: str, limit: int) -> list[str]:
    """``text`` in parts of at most ``limit`` characters, cut between lines where it
    can be: a platform refuses a longer message (Telegram 4,096, an SMS 1,600)."""
    parts: list[str] = []
    current = ""
    for line in text.split("\n"):
        while len(line) > limit:
            if current:
                parts.append(current)
                current = ""
            parts.append(line[:limit])
            line = line[limit:]
        candidate = f"{current}\n{line}" if current else line
        if len(candidate) > limit:
            parts.append(current)
            candidate = line
        current = candidate
    parts.append(current)
    return [part for part in parts if part] or [""]
