"""Health: the web process's /healthz and /healthz/ready, and the heartbeats of the
workers and beat that ``manage.py heartbeats`` reads (exit 1 when one is stale).

The worker's heartbeat is recorded by a real worker (tests/workers.py): the step of
its consumer is what must run, and stop, with the worker.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import timedelta
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import Client
from django.utils import timezone

from games import heartbeat
from games.models import Heartbeat
from tests.workers import database_url, running_worker, wait_until


def get(path: str, host: str = "127.0.0.1:8000"):
    return Client(HTTP_HOST=host).get(path)


def test_healthz_answers_200_when_the_database_answers(db):
    response = get("/healthz")
    assert response.status_code == 200
    assert json.loads(response.content) == {"database": "ok"}


def test_healthz_answers_whatever_host_it_is_called_by(db, settings):
    settings.ALLOWED_HOSTS = ["gin3.example.org"]
    assert get("/healthz", host="10.0.0.7:8000").status_code == 200
    assert get("/", host="10.0.0.7:8000").status_code == 400  # the site itself still refuses it


def test_healthz_is_not_sent_to_https(db, settings):
    settings.SECURE_SSL_REDIRECT = True
    assert get("/healthz/ready").status_code == 200


class Unreachable:
    """The health check's view of a database that does not answer."""

    def cursor(self):
        raise connection.Database.OperationalError("the database is down")


def test_healthz_answers_503_when_the_database_does_not(db, monkeypatch):
    monkeypatch.setattr("gin3site.health.connection", Unreachable())
    response = get("/healthz")
    assert response.status_code == 503
    assert json.loads(response.content) == {"database": "unavailable"}


def test_ready_says_every_migration_is_applied(db, settings):
    settings.REDIS_URL = ""
    response = get("/healthz/ready")
    assert response.status_code == 200
    assert json.loads(response.content) == {"database": "ok", "migrations": "ok"}


def test_ready_is_503_before_the_migrations_of_a_new_release(db, settings, monkeypatch):
    settings.REDIS_URL = ""
    monkeypatch.setattr("gin3site.health.MigrationExecutor.migration_plan", lambda self, targets: ["0018_next"])
    response = get("/healthz/ready")
    assert response.status_code == 503
    assert json.loads(response.content) == {"database": "ok", "migrations": "not applied"}


def test_ready_checks_the_broker_when_it_is_redis(db, settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    response = get("/healthz/ready")
    assert response.status_code == 503
    assert json.loads(response.content)["broker"] == "unavailable"


def beat_rows(**ages: float) -> None:
    now = timezone.now()
    for process, seconds in ages.items():
        queues = process.split("@")[0] if "@" in process else ""
        Heartbeat.objects.create(process=process, queues=queues, seen_at=now - timedelta(seconds=seconds))


def heartbeats(*args: str) -> tuple[int, str]:
    out = StringIO()
    try:
        call_command("heartbeats", *args, stdout=out)
    except CommandError as error:
        return error.returncode, out.getvalue() + str(error)
    return 0, out.getvalue()


ALL_ALIVE = {"beat": 3, "clock@h1": 4, "delivery@h1": 5, "computer@h1": 6, "review@h1": 7}


def test_heartbeats_exit_0_when_beat_and_a_worker_for_every_queue_are_alive(db):
    beat_rows(**ALL_ALIVE)
    code, output = heartbeats()
    assert code == 0, output
    assert "all alive" in output


def test_heartbeats_exit_1_and_name_a_stale_worker(db):
    beat_rows(**{**ALL_ALIVE, "delivery@h1": 95})
    code, output = heartbeats()
    assert code == 1
    assert "delivery@h1" in output and "STALE" in output
    assert "no live worker consumes the delivery queue" in output


def test_heartbeats_exit_1_when_beat_never_beat(db):
    beat_rows(**{name: age for name, age in ALL_ALIVE.items() if name != "beat"})
    code, output = heartbeats()
    assert code == 1 and "beat has no heartbeat" in output


def test_a_containers_check_looks_at_its_own_process_only(db):
    beat_rows(**{**ALL_ALIVE, "delivery@h2": 300})
    assert heartbeats("--process", "clock@h1")[0] == 0
    assert heartbeats("--process", "delivery@h2")[0] == 1
    code, output = heartbeats("--process", "computer@h9")
    assert code == 1 and "computer@h9 has no heartbeat" in output


@pytest.mark.django_db(transaction=True)
def test_beat_records_its_heartbeat(tmp_path):
    """A real ``celery beat``, as ``serve`` starts it, on the test database."""
    env = {**os.environ, "DATABASE_URL": database_url(), "REDIS_URL": "", "GIN3_VAR_DIR": str(tmp_path)}
    command = [sys.executable, "-m", "celery", "-A", "gin3site", "beat", "--loglevel", "WARNING"]
    with open(tmp_path / "beat.log", "w") as log:
        beat = subprocess.Popen(command, cwd=settings.BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_until(lambda: Heartbeat.objects.filter(process=heartbeat.BEAT).exists(), timeout=60)
    finally:
        beat.terminate()
        beat.wait(30)
    assert heartbeats("--process", "beat")[0] == 0


@pytest.mark.django_db(transaction=True)
def test_a_running_worker_records_its_heartbeat_with_its_queues_and_removes_it_when_it_stops():
    with running_worker("memory") as app:
        row = wait_until(lambda: Heartbeat.objects.filter(queues__contains="clock").first())
        assert set(row.queues.split(",")) == {"clock", "computer", "delivery", "review"}
        assert app is not None
    assert not Heartbeat.objects.filter(pk=row.pk).exists()
