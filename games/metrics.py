"""What gin3 counts, in Prometheus' format (served at ``/metrics``: gin3site/metrics_view.py).

Counters and histograms are kept by the process that counts (a web thread, a
worker process) with the official client in its multiprocess mode: each
process writes its values into a file of its own in ``PROMETHEUS_MULTIPROC_DIR``
and ``/metrics`` adds up the files of every process that shares the folder (on
one machine: ``make run``'s processes, the containers of the compose file
through a volume). Files are named after the host and the process id, so that
containers sharing the folder never write into one file. The folder should be
emptied when the whole set starts (``manage.py serve`` does); counters then
start again from zero, which Prometheus reads as a restart.

The gauges (the outbox by status, how long the oldest due message has waited,
the Celery queues, the heartbeats) are read from the database and Redis at
scrape time (``StateCollector``), so they are right whatever process died.

The calls that count are few: where a command is answered
(``services.commands``), a move applied (``services.play``), a message sent
(``services.delivery``), a clock acted on (``services.clock_scan``), a computer
move played (``services.computer_moves``), a webhook answered (gin3site/access.py)
and a carrier reports an SMS (``services.sms_status``).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

from django.conf import settings
from django.db import transaction
from prometheus_client import Counter, Histogram, values
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

# Before the first metric is made: its values go to files in this folder.
DIRECTORY = os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", str(settings.VAR_DIR / "metrics"))
Path(DIRECTORY).mkdir(parents=True, exist_ok=True)
values.ValueClass = values.MultiProcessValue(process_identifier=lambda: f"{socket.gethostname()}_{os.getpid()}")

SECONDS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
LATE = (0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 900.0, 3600.0)

COMMANDS = Counter(
    "gin3_commands",
    "Commands from players, by channel and outcome (done, refused, too_fast, repeated)",
    ["channel", "outcome"],
)
MOVES = Counter(
    "gin3_moves", "Moves applied, by who made them (player, suggestion, computer, autopilot, timeout)", ["by"]
)
DELIVERY_ATTEMPTS = Counter(
    "gin3_delivery_attempts",
    "Attempts to send a message, by channel and outcome (sent, rate_limited, unreachable, rejected, error)",
    ["channel", "outcome"],
)
DELIVERY_FAILURES = Counter(
    "gin3_delivery_failures",
    "Messages given up on, by channel and reason (unreachable, rejected, attempts, carrier)",
    ["channel", "reason"],
)
SMS_STATUS = Counter("gin3_sms_status_callbacks", "Twilio's status callbacks, by the status they report", ["status"])
CLOCK_LAG = Histogram(
    "gin3_clock_lag_seconds",
    "How late a clock (deadline, remind_at, lobby, rematch) was acted on after its moment",
    ["clock"],
    buckets=LATE,
)
COMPUTER_MOVE = Histogram(
    "gin3_computer_move_seconds", "Time to play a computer move, its transaction included", buckets=SECONDS
)
WEBHOOK = Histogram("gin3_webhook_seconds", "Time to answer a webhook, by webhook", ["webhook"], buckets=SECONDS)


def count_on_commit(counter: Counter, **labels: str) -> None:
    """Count once the transaction in progress commits: a move rolled back was never made."""
    transaction.on_commit(counter.labels(**labels).inc)


class StateCollector(Collector):
    """Gauges read at scrape time: the outbox, the Celery queues and the heartbeats."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        from django.db.models import Count, Min
        from django.utils import timezone

        from games import heartbeat
        from games.models import Outbox

        now = timezone.now()
        by_status = GaugeMetricFamily(
            "gin3_outbox_messages", "Messages in the outbox, by channel and status", labels=["channel", "status"]
        )
        rows = Outbox.objects.values_list("channel", "status").annotate(n=Count("pk")).order_by()
        for channel, status, count in rows:
            by_status.add_metric([channel, status], count)
        yield by_status
        oldest = GaugeMetricFamily(
            "gin3_outbox_oldest_due_seconds",
            "How long the oldest message that is due (pending, or sending past its lease) has waited, by channel",
            labels=["channel"],
        )
        due = (
            Outbox.objects.filter(status__in=(Outbox.Status.PENDING, Outbox.Status.SENDING), next_attempt_at__lte=now)
            .exclude(channel=Outbox.Channel.TERMINAL)
            .values_list("channel")
            .annotate(first=Min("next_attempt_at"))
            .order_by()
        )
        waits = dict(due)
        for channel in (Outbox.Channel.TELEGRAM, Outbox.Channel.SMS):
            first = waits.get(channel)
            oldest.add_metric([channel], (now - first).total_seconds() if first else 0.0)
        yield oldest
        ages = GaugeMetricFamily(
            "gin3_heartbeat_age_seconds", "Seconds since a background process's last heartbeat", labels=["process"]
        )
        for sign in heartbeat.signs(now):
            ages.add_metric([sign.process], sign.age.total_seconds())
        yield ages
        if settings.REDIS_URL:
            yield queue_lengths()


def queue_lengths() -> GaugeMetricFamily:
    """Tasks waiting in each Celery queue (a Redis list per queue)."""
    import redis

    family = GaugeMetricFamily("gin3_celery_queue_length", "Tasks waiting in a Celery queue", labels=["queue"])
    client = redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=2, socket_timeout=2)
    try:
        for queue in settings.GIN3_QUEUES:
            family.add_metric([queue], client.llen(queue))
    except redis.RedisError:
        pass  # the gauge is left out: an alert on its absence is the operator's
    finally:
        client.close()
    return family
