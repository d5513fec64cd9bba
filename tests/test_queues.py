"""Queues and limits: the clock scan, delivery and computer moves each on a queue of
their own, each worker told which to consume, and time limits on every task."""

from __future__ import annotations

import pytest
from celery import current_app
from celery.contrib.testing.worker import start_worker
from django.conf import settings

from games.management.commands.serve import Command, worker_command
from games.models import Match
from games.services import handle
from tests.conftest import code_in, mover, player_in_role
from tests.workers import RESULT, make_app, purge


def queue_of(name: str) -> str:
    return current_app.amqp.router.route({}, name)["queue"].name


@pytest.mark.parametrize(
    ("task", "queue"),
    [
        ("games.tasks.scan_clocks", "clock"),
        ("games.tasks.sweep", "clock"),
        ("games.tasks.deliver_message", "delivery"),
        ("games.tasks.deliver_messages", "delivery"),
        ("games.tasks.follow_up", "delivery"),
        ("games.tasks.play_computer_move", "computer"),
        ("games.tasks.review_hand", "review"),
    ],
)
def test_each_task_goes_to_its_queue(task, queue):
    assert queue_of(task) == queue


def test_every_task_has_a_soft_and_a_hard_time_limit():
    ours = [task for name, task in current_app.tasks.items() if name.startswith("games.tasks.")]
    assert len(ours) == 7
    for task in ours:
        assert 0 < task.soft_time_limit < task.time_limit, task.name


@pytest.fixture
def published(settings, monkeypatch) -> list[tuple[str, dict]]:
    settings.GIN3_BACKGROUND = "celery"
    sent: list[tuple[str, dict]] = []
    monkeypatch.setattr(current_app, "send_task", lambda name, args=(), **options: sent.append((name, options)))
    return sent


def test_a_change_that_makes_a_computer_move_due_publishes_to_the_computer_queue(
    alice, published, django_capture_on_commit_callbacks
):
    code = code_in(handle(alice, "new", "terminal"))
    handle(alice, "bot", "terminal")
    with django_capture_on_commit_callbacks(execute=True):
        handle(alice, "bot", "terminal")  # the match starts: its first turn may be a computer's
    match = Match.objects.get(code=code)
    # Alice to move as the captain: her computer sitter's advice is computer work too (issue 19).
    if mover(match).is_computer or player_in_role(match, "captain") == alice:
        assert [options["queue"] for _name, options in published] == ["computer"]
    else:
        assert published == []


def test_a_change_with_messages_only_publishes_to_the_delivery_queue(
    match3, published, django_capture_on_commit_callbacks
):
    player = mover(match3)
    player.telegram_chat_id, player.notify_by = 9100, "telegram"
    player.save(update_fields=["telegram_chat_id", "notify_by"])
    with django_capture_on_commit_callbacks(execute=True):
        handle(player, "status", "telegram")
    assert [(name, options["queue"]) for name, options in published] == [("games.tasks.follow_up", "delivery")]


def test_serve_runs_a_worker_for_each_queue_each_told_its_queue():
    children = Command().children("127.0.0.1", 8000)
    workers = {child.name: child.argv for child in children if "worker" in child.argv}
    assert set(workers) == set(settings.GIN3_QUEUES)
    for queue, argv in workers.items():
        assert argv[argv.index("--queues") + 1] == queue
        assert argv[argv.index("--hostname") + 1] == f"{queue}@%h"


def test_the_clock_worker_has_one_process_on_postgresql(monkeypatch):
    monkeypatch.setitem(settings.DATABASES["default"], "ENGINE", "django.db.backends.postgresql")
    clock, delivery = worker_command("python", "clock"), worker_command("python", "delivery")
    assert clock[clock.index("--concurrency") + 1] == "1"
    assert "--concurrency" not in delivery  # CELERY_WORKER_CONCURRENCY, not one per core
    assert settings.CELERY_WORKER_CONCURRENCY == 2


@pytest.mark.django_db(transaction=True)
def test_a_backlog_of_deliveries_does_not_hold_up_the_clock_scan():
    """A worker of the clock queue alone scans while 200 deliveries wait for theirs."""
    app = make_app("memory://")
    purge(app)
    for message_id in range(200):
        app.send_task("games.tasks.deliver_message", (message_id,))
    with start_worker(app, pool="solo", perform_ping_check=False, queues=["clock"], shutdown_timeout=30):
        scan = app.send_task("games.tasks.scan_clocks")
        assert scan.get(**RESULT) == {"deadline": 0, "remind_at": 0, "lobby": 0, "rematch": 0}
    with app.connection_for_write() as conn:
        assert conn.default_channel.queue_declare("delivery", passive=True).message_count == 200
    purge(app)
