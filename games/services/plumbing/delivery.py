"""Delivering the outbox: claim a message, send it through its channel's backend, record the outcome.

Services write messages as ``Outbox`` rows in the transaction of the change
that caused them; after the commit ``games.tasks.deliver_message`` calls
``deliver``. The backend contract is in ``games.services.plumbing.backends``.

Two rules shape this module:

- **A message is sent by one worker at a time.** It is claimed first: marked
  "sending" with a lease (``next_attempt_at`` = now + ``LEASE``) in a
  transaction that locks its row. A worker that dies while sending leaves the
  message "sending"; after the lease the sweep finds it and it is sent again
  (it may then arrive twice, which is better than never).
- **An address gets its messages in the order they were written** (a table,
  then the hand's result, then the next deal). Only the oldest unfinished
  message of an address can be claimed, and whoever sends it goes on with the
  next; a message waiting for a retry holds back the ones after it.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Case, Min, When
from django.utils import timezone
from django.utils.module_loading import import_string

from games import metrics
from games.models import Outbox, Player
from games.services.plumbing import scheduling
from games.services.plumbing.backends import Backend, Rejected, RetryLater, Unreachable

log = logging.getLogger(__name__)

LEASE = timedelta(minutes=2)
MAX_ATTEMPTS = 8
FIRST_RETRY = timedelta(seconds=10)  # then 20 s, 40 s, ...: about 20 minutes in all
UNFINISHED = (Outbox.Status.PENDING, Outbox.Status.SENDING)
# Sent when nothing of the game waits for the address: team talk, and the answers to
# commands typed in a Telegram group, which anyone there may flood (``groups.answer_command``).
CHAT_KINDS = (Outbox.Kind.TEAM, Outbox.Kind.POINTER)
TABLE_KEY = "table:"  # announcements.table_key: what a newer table of a match replaces
LOST_WITH_WORKER = "its worker stopped while sending it"

# What the game does when a player can't be reached on a channel any more: the write
# side (presence.player_unreachable) registers itself here, as the outbox does with
# the change, so that the plumbing imports nothing above it.
unreachable_handlers: list[Callable[[Player, str], object]] = []


def when_unreachable(handler: Callable[[Player, str], object]) -> Callable[[Player, str], object]:
    """Register ``handler`` to hear of a player delivery found unreachable on a channel."""
    unreachable_handlers.append(handler)
    return handler


def get_backend(channel: str) -> Backend:
    """The backend of ``channel`` from ``settings.GIN3_BACKENDS``, made once per process."""
    return _backend(settings.GIN3_BACKENDS[channel])


@functools.cache
def _backend(path: str) -> Backend:
    return import_string(path)()


def deliver(message_id: int) -> int:
    """Send the message, and what is due after it for the same address; return how many
    were sent. Terminal messages are left alone: the ``manage.py play`` process prints them."""
    message = Outbox.objects.filter(pk=message_id).exclude(channel=Outbox.Channel.TERMINAL).first()
    if message is None:
        return 0
    return deliver_address(message.channel, message.address)


def deliver_messages(message_ids: list[int]) -> int:
    """Send these messages, each address's in order with whatever else is due to it;
    return how many were sent. Terminal messages are left to the play process."""
    addresses = (
        Outbox.objects.filter(pk__in=message_ids)
        .exclude(channel=Outbox.Channel.TERMINAL)
        .values_list("channel", "address")
        .distinct()
    )
    return sum(deliver_address(channel, address) for channel, address in addresses)


def deliver_address(channel: str, address: str, backend: Backend | None = None) -> int:
    """Send an address's due messages, oldest first, until none is left or one must wait."""
    backend = backend or get_backend(channel)
    sent = 0
    while (message := claim(channel, address)) is not None:
        outcome = _send(message, backend)
        if outcome == Outbox.Status.SENT:
            sent += 1
        elif outcome == Outbox.Status.PENDING:
            break
    return sent


def claim(channel: str, address: str) -> Outbox | None:
    """The address's next message, now "sending" under our lease; None if there is
    nothing to send, it is not due yet, or another worker holds its lease.

    The next message is the oldest, except that chat (``CHAT_KINDS``) waits behind the
    game's own messages (a flood of chat never delays a turn notice), and a table that a
    newer table of the same match replaces is not sent at all (a player back after
    a while gets the table as it is, not every table he missed)."""
    now = timezone.now()
    while True:
        with transaction.atomic():
            message = (
                Outbox.objects.select_for_update()
                .filter(channel=channel, address=address, status__in=UNFINISHED)
                .order_by(Case(When(kind__in=CHAT_KINDS, then=1), default=0), "pk")
                .first()
            )
            if message is None or message.next_attempt_at > now:
                return None
            if _superseded(message):
                message.status = Outbox.Status.SUPERSEDED
                message.save(update_fields=["status"])
                continue
            if message.status == Outbox.Status.SENDING:
                # Its lease ran out: the worker died. We can't know whether it arrived.
                message.attempts += 1
                message.last_error = LOST_WITH_WORKER
                if message.attempts >= MAX_ATTEMPTS:
                    metrics.DELIVERY_FAILURES.labels(channel=channel, reason="attempts").inc()
                    message.status = Outbox.Status.FAILED
                    message.save(update_fields=["status", "attempts", "last_error"])
                    continue
            message.status = Outbox.Status.SENDING
            message.next_attempt_at = now + LEASE
            message.save(update_fields=["status", "next_attempt_at", "attempts", "last_error"])
            return message


def _superseded(message: Outbox) -> bool:
    """Whether a newer table of the same match waits for the same address; for a
    reminder, whether anything newer of its match does (the turn it was about has
    moved on, or a table says it better). A sitter's table is the last he gets of a
    hand's moves when the hand's result comes after it: the next hand's table does
    not replace it."""
    newer = Outbox.objects.filter(
        channel=message.channel, address=message.address, pk__gt=message.pk, status=Outbox.Status.PENDING
    )
    if message.kind == Outbox.Kind.REMINDER and message.match_id is not None:
        return newer.filter(match_id=message.match_id).exclude(kind__in=CHAT_KINDS).exists()
    if not message.replaces.startswith(TABLE_KEY):
        return False
    later = newer.filter(replaces=message.replaces).order_by("pk").values_list("pk", flat=True).first()
    if later is None or message.kind != Outbox.Kind.ADVISE or message.match_id is None:
        return later is not None
    return not newer.filter(match_id=message.match_id, kind=Outbox.Kind.RESULT, pk__lt=later).exists()


def _send(message: Outbox, backend: Backend) -> str:
    """Send one claimed message and record how it went; return its new status."""
    attempt = metrics.DELIVERY_ATTEMPTS.labels
    try:
        external_id = backend.send(message)
    except RetryLater as wait:
        attempt(channel=message.channel, outcome="rate_limited").inc()
        return _retry(message, timedelta(seconds=wait.seconds), str(wait), failed=False)
    except Unreachable as error:
        attempt(channel=message.channel, outcome="unreachable").inc()
        _fail(message, error.reason, reason="unreachable")
        Outbox.objects.filter(channel=message.channel, address=message.address, status=Outbox.Status.PENDING).update(
            status=Outbox.Status.FAILED, last_error=f"recipient unreachable: {error.reason}"
        )
        if message.recipient is not None:
            for handler in unreachable_handlers:
                handler(message.recipient, message.channel)
        return Outbox.Status.FAILED
    except Rejected as error:
        attempt(channel=message.channel, outcome="rejected").inc()
        return _fail(message, str(error), reason="rejected")
    except Exception as error:
        attempt(channel=message.channel, outcome="error").inc()
        log.warning("sending message %s to %s %s failed", message.pk, message.channel, message.address, exc_info=True)
        return _retry(message, FIRST_RETRY * 2**message.attempts, f"{type(error).__name__}: {error}", failed=True)
    attempt(channel=message.channel, outcome="sent").inc()
    Outbox.objects.filter(pk=message.pk).update(
        status=Outbox.Status.SENT, external_id=str(external_id)[:64], sent_at=timezone.now(), last_error=""
    )
    return Outbox.Status.SENT


def _retry(message: Outbox, wait: timedelta, error: str, failed: bool) -> str:
    """Back to pending for another try after ``wait``; a failed attempt counts towards the limit."""
    attempts = message.attempts + failed
    if attempts >= MAX_ATTEMPTS:
        return _fail(message, error, attempts)
    when: datetime = timezone.now() + wait
    Outbox.objects.filter(pk=message.pk, status=Outbox.Status.SENDING).update(
        status=Outbox.Status.PENDING, next_attempt_at=when, attempts=attempts, last_error=error
    )
    transaction.on_commit(lambda: scheduling.deliver(message.pk, when))
    return Outbox.Status.PENDING


def _fail(message: Outbox, error: str, attempts: int | None = None, reason: str = "attempts") -> str:
    log.warning("message %s to %s %s failed: %s", message.pk, message.channel, message.address, error)
    metrics.DELIVERY_FAILURES.labels(channel=message.channel, reason=reason).inc()
    Outbox.objects.filter(pk=message.pk).update(
        status=Outbox.Status.FAILED,
        attempts=message.attempts if attempts is None else attempts,
        last_error=error,
    )
    return Outbox.Status.FAILED


def due_messages(now: datetime | None = None) -> list[int]:
    """For the sweep: one message per address with something to send, a pending message
    whose time has come or one still "sending" after its lease (its worker died)."""
    now = now or timezone.now()
    return list(
        Outbox.objects.filter(status__in=UNFINISHED, next_attempt_at__lte=now)
        .exclude(channel=Outbox.Channel.TERMINAL)
        .values("channel", "address")
        .annotate(first=Min("pk"))
        .order_by("first")
        .values_list("first", flat=True)
    )
