"""Signs of life of the background processes: each refreshes a ``Heartbeat`` row.

A web process answers ``/healthz``; a Celery worker, beat and the polling bot
answer nothing, so each writes the time into its row every ``INTERVAL``
seconds and ``manage.py heartbeats`` (a compose health check, an operator)
says which is stale. A row in the database rather than a file or a Redis key:
the database is the one thing every process of every machine reaches, on
SQLite as on PostgreSQL.

- A worker refreshes its row (named after it, ``delivery@host``, with its
  queues) from a step of its consumer: only while it is connected to the
  broker and its loop turns. It removes the row when it stops cleanly, so a
  worker scaled down is not missed; a worker killed leaves its row to go
  stale until it is back under the same name.
- Beat refreshes ``beat`` from its scheduler's tick (``Scheduler``).
- The polling bot refreshes ``bot`` after each ``getUpdates`` (every 30 s at most).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from celery import bootsteps
from celery.beat import PersistentScheduler
from django.db import connection
from django.utils import timezone

from .models import Heartbeat

log = logging.getLogger(__name__)

INTERVAL = 10.0  # seconds between two refreshes of a row
STALE_AFTER = timedelta(seconds=60)  # a row older than this: the process is stuck or gone
BEAT, BOT = "beat", "bot"


def record(process: str, queues: str = "") -> None:
    """``process`` is alive now. Never raises: a database outage must not stop a worker.
    The connection is closed after: a heartbeat holds none between two."""
    try:
        Heartbeat.objects.update_or_create(process=process, defaults={"queues": queues, "seen_at": timezone.now()})
    except Exception:
        log.warning("the heartbeat of %s could not be recorded", process, exc_info=True)
    finally:
        connection.close()


def forget(process: str) -> None:
    """``process`` stopped cleanly: nobody should wait for it."""
    try:
        Heartbeat.objects.filter(process=process).delete()
    except Exception:
        log.warning("the heartbeat of %s could not be removed", process, exc_info=True)
    finally:
        connection.close()


@dataclass(frozen=True)
class Sign:
    """A process's last sign of life, as ``manage.py heartbeats`` shows it."""

    process: str
    queues: tuple[str, ...]
    age: timedelta

    @property
    def stale(self) -> bool:
        return self.age > STALE_AFTER


def signs(now: datetime | None = None) -> list[Sign]:
    now = now or timezone.now()
    return [
        Sign(row.process, tuple(q for q in row.queues.split(",") if q), now - row.seen_at)
        for row in Heartbeat.objects.order_by("process")
    ]


class WorkerHeartbeat(bootsteps.StartStopStep):
    """A step of the worker's consumer (``gin3site.celery``): it starts once the
    worker is connected to the broker, and stops when the connection is lost."""

    requires = {"celery.worker.consumer.tasks:Tasks"}

    def __init__(self, consumer, **kwargs) -> None:
        super().__init__(consumer, **kwargs)
        self.timer_ref = None

    def start(self, consumer) -> None:
        name = consumer.hostname
        queues = ",".join(sorted(queue.name for queue in consumer.task_consumer.queues))
        record(name, queues)
        self.timer_ref = consumer.timer.call_repeatedly(INTERVAL, record, (name, queues))

    def stop(self, consumer) -> None:
        if self.timer_ref is not None:
            self.timer_ref.cancel()
            self.timer_ref = None

    def shutdown(self, consumer) -> None:
        self.stop(consumer)
        forget(consumer.hostname)


class Scheduler(PersistentScheduler):
    """Beat's scheduler, which also records beat's heartbeat (``CELERY_BEAT_SCHEDULER``)."""

    last_recorded = 0.0

    def tick(self, *args, **kwargs) -> float:
        if time.monotonic() - self.last_recorded >= INTERVAL:
            self.last_recorded = time.monotonic()
            record(BEAT)
        return min(super().tick(*args, **kwargs), INTERVAL)
