"""The metrics at /metrics: not public, in Prometheus' format, added up over every
process, and counted where things happen (commands, moves, deliveries, clocks,
computer moves, webhooks), with the outbox, the queues and the heartbeats read
at scrape time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import timedelta

import pytest
from django.conf import settings as django_settings
from django.test import Client
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from games.contract.base import Worded
from games.contract.tables import Automatic
from games.models import Event, Heartbeat, Match, Outbox
from games.services import handle
from games.services.plumbing import delivery
from games.services.plumbing.backends import RetryLater, Unreachable
from games.services.plumbing.change import change
from games.services.plumbing.outbox import send
from games.services.write import clock_scan
from games.services.write.computer_moves import play_computer_move
from tests.conftest import mover, safe_action
from tests.fakes import backends as scripted
from tests.metrics_support import sample
from tests.telegram_harness import SECRET, fake_telegram
from tests.workers import flush_redis, redis_url

TOKEN = "metrics-token-for-the-tests"


@pytest.fixture
def token(settings):
    settings.GIN3_METRICS_TOKEN = TOKEN
    return TOKEN


def scrape(token: str | None = TOKEN):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return Client().get("/metrics", headers=headers)


def families() -> dict[str, list]:
    response = scrape()
    assert response.status_code == 200
    return {family.name: family.samples for family in text_string_to_metric_families(response.content.decode())}


def test_metrics_are_404_while_no_token_is_set(db, settings):
    settings.GIN3_METRICS_TOKEN = ""
    assert scrape(None).status_code == 404
    assert scrape("anything").status_code == 404


@pytest.mark.parametrize("given", [None, "wrong", TOKEN + "x"])
def test_metrics_without_the_token_are_403(db, token, given):
    assert scrape(given).status_code == 403


def test_metrics_with_the_token_are_prometheus_text(db, token):
    response = scrape()
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=")
    names = {family.name for family in text_string_to_metric_families(response.content.decode())}
    assert {"gin3_outbox_messages", "gin3_outbox_oldest_due_seconds", "gin3_heartbeat_age_seconds"} <= names


def test_commands_are_counted_by_channel_and_outcome(alice):
    done = sample("gin3_commands_total", channel="terminal", outcome="done")
    refused = sample("gin3_commands_total", channel="terminal", outcome="refused")
    handle(alice, "new", "terminal")
    handle(alice, "discard 7h", "terminal")  # no match is running
    assert sample("gin3_commands_total", channel="terminal", outcome="done") == done + 1
    assert sample("gin3_commands_total", channel="terminal", outcome="refused") == refused + 1


def test_a_move_is_counted_once_its_change_commits(match3, django_capture_on_commit_callbacks):
    before = sample("gin3_moves_total", by="player")
    with django_capture_on_commit_callbacks(execute=True):
        handle(mover(match3), str(safe_action(match3)), "terminal")
    assert sample("gin3_moves_total", by="player") == before + 1


def test_a_computer_move_is_counted_and_timed(match_vs_computers, django_capture_on_commit_callbacks):
    match = match_vs_computers
    timed = sample("gin3_computer_move_seconds_count")
    counted = sample("gin3_moves_total", by="computer")
    while not mover(match).is_computer:  # a draw leaves the turn to its discard
        handle(mover(match), str(safe_action(match)), "terminal")
    made = computer_moves(match)
    with django_capture_on_commit_callbacks(execute=True):
        assert play_computer_move(match.pk)
    moves = computer_moves(match) - made  # its commit may hand the turn to the next computer, which moves too
    assert moves >= 1
    assert sample("gin3_computer_move_seconds_count") == timed + moves
    assert sample("gin3_moves_total", by="computer") == counted + moves


def computer_moves(match: Match) -> int:
    return Event.objects.filter(match=match, kind=Event.Kind.MOVE, data__automatic=Automatic.COMPUTER).count()


def test_how_late_a_deadline_was_acted_on_is_observed(match3):
    Match.objects.filter(pk=match3.pk).update(deadline=timezone.now() - timedelta(seconds=40))
    count = sample("gin3_clock_lag_seconds_count", clock="deadline")
    late = sample("gin3_clock_lag_seconds_sum", clock="deadline")
    assert clock_scan.scan_clocks()["deadline"] == 1
    assert sample("gin3_clock_lag_seconds_count", clock="deadline") == count + 1
    assert sample("gin3_clock_lag_seconds_sum", clock="deadline") - late >= 40


def note(player, text: str) -> Outbox:
    with change():
        send(player, "note", Worded(text))
    return Outbox.objects.filter(recipient=player).latest("pk")


@pytest.fixture
def scripted_telegram(settings, telegram_user):
    settings.GIN3_BACKENDS = {**settings.GIN3_BACKENDS, "telegram": "tests.fakes.backends.ScriptedBackend"}
    scripted.script.clear()
    scripted.sent.clear()
    delivery._backend.cache_clear()
    yield telegram_user
    delivery._backend.cache_clear()


def test_delivery_attempts_count_429s_and_blocked_users_by_channel(scripted_telegram):
    tess = scripted_telegram
    counts = {
        outcome: sample("gin3_delivery_attempts_total", channel="telegram", outcome=outcome)
        for outcome in ("sent", "rate_limited", "unreachable")
    }
    failed = sample("gin3_delivery_failures_total", channel="telegram", reason="unreachable")
    scripted.script.extend([RetryLater(1), None])
    message = note(tess, "hello")
    delivery.deliver(message.pk)  # Telegram answers 429
    Outbox.objects.filter(pk=message.pk).update(next_attempt_at=timezone.now())
    delivery.deliver(message.pk)  # sent
    scripted.script.append(Unreachable("Forbidden: bot was blocked by the user"))
    delivery.deliver(note(tess, "again").pk)
    for outcome, count in counts.items():
        assert sample("gin3_delivery_attempts_total", channel="telegram", outcome=outcome) == count + 1, outcome
    assert sample("gin3_delivery_failures_total", channel="telegram", reason="unreachable") == failed + 1


def test_the_outbox_is_shown_by_status_with_the_wait_of_the_oldest_due_message(db, token, telegram_user):
    message = note(telegram_user, "waiting")
    Outbox.objects.filter(pk=message.pk).update(next_attempt_at=timezone.now() - timedelta(minutes=5))
    samples = families()
    by_status = {(s.labels["channel"], s.labels["status"]): s.value for s in samples["gin3_outbox_messages"]}
    assert by_status[("telegram", "pending")] == 1
    oldest = {s.labels["channel"]: s.value for s in samples["gin3_outbox_oldest_due_seconds"]}
    assert 300 <= oldest["telegram"] < 400
    assert oldest["sms"] == 0


def test_the_heartbeats_ages_are_shown(db, token):
    Heartbeat.objects.create(process="clock@h1", queues="clock", seen_at=timezone.now() - timedelta(seconds=42))
    (age,) = families()["gin3_heartbeat_age_seconds"]
    assert age.labels == {"process": "clock@h1"} and 42 <= age.value < 60


def test_the_celery_queues_lengths_are_shown_with_redis(db, token, settings):
    url = redis_url()
    import redis

    flush_redis(url)
    settings.REDIS_URL = url
    try:
        redis.Redis.from_url(url).lpush("delivery", "a", "b", "c")
        lengths = {s.labels["queue"]: s.value for s in families()["gin3_celery_queue_length"]}
        assert lengths == {"clock": 0, "delivery": 3, "computer": 0, "review": 0}
    finally:
        flush_redis(url)


def test_webhook_latency_is_observed(db, settings, monkeypatch):
    with fake_telegram(settings, monkeypatch) as fake:
        before = sample("gin3_webhook_seconds_count", webhook="telegram")
        update = fake.user(1001, "Mallory").message_update("help")
        response = Client().post(
            "/telegram/webhook/",
            data=json.dumps(update),
            content_type="application/json",
            headers={"X-Telegram-Bot-Api-Secret-Token": SECRET},
        )
        assert response.status_code == 200
        assert sample("gin3_webhook_seconds_count", webhook="telegram") == before + 1


def test_counts_of_every_process_are_added_up(db, token):
    """A worker is another process: what it counts is in /metrics all the same."""
    before = sample("gin3_commands_total", channel="sms", outcome="done")
    code = (
        "import django; django.setup(); from games import metrics; "
        "metrics.COMMANDS.labels(channel='sms', outcome='done').inc(2)"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "gin3site.settings"}
    subprocess.run([sys.executable, "-c", code], cwd=django_settings.BASE_DIR, env=env, check=True)
    assert sample("gin3_commands_total", channel="sms", outcome="done") == before + 2
    samples = families()["gin3_commands"]
    assert any(s.labels == {"channel": "sms", "outcome": "done"} and s.value >= 2 for s in samples)
