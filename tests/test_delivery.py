"""games/services/plumbing/delivery.py: claiming, sending and retrying outbox messages, and nothing lost with a worker.

Why: a message is committed with the move that caused it (the transactional
outbox), so everything after the commit must get it to the player exactly
once where it can, in order, through rate limits, network errors and dead
workers, and must stop trying a player who blocked the bot. Backends are
scripted (tests/fakes/backends.py); time is moved with ``timezone.now``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.utils import timezone

from bot.backends import memory
from games import tasks
from games.contract.base import Worded
from games.models import Outbox, Player
from games.services import handle
from games.services.plumbing import delivery, outbox
from games.services.plumbing.backends import Rejected, RetryLater, Unreachable, split_text
from games.services.plumbing.change import change
from games.services.write import presence
from games.services.write.players import phone_player, telegram_player
from tests.conftest import code_in
from tests.fakes import backends as scripted
from tests.workers import BROKERS, RESULT, database_url, flush_redis, make_app, redis_url, running_worker, wait_until

SCRIPTED = "tests.fakes.backends.ScriptedBackend"


@pytest.fixture(autouse=True)
def backends(settings):
    """Telegram messages go to the scripted backend, SMS to memory."""
    settings.GIN3_BACKENDS = {
        **settings.GIN3_BACKENDS,
        "telegram": SCRIPTED,
        "sms": "bot.backends.memory.MemoryBackend",
    }
    scripted.script.clear()
    scripted.sent.clear()
    memory.sent.clear()


@pytest.fixture
def clock(monkeypatch):
    """``timezone.now`` that the test moves forward."""
    offset = [timedelta(0)]
    real_now = timezone.now
    monkeypatch.setattr(timezone, "now", lambda: real_now() + offset[0])

    def advance(seconds: float) -> None:
        offset[0] += timedelta(seconds=seconds)

    return advance


@pytest.fixture
def tess(db) -> Player:
    return telegram_player(user_id=5001, chat_id=5001, name="Tess")


def note(player: Player, text: str) -> Outbox:
    """A message waiting to be sent (its task is not run: tests deliver by hand)."""
    with change():
        outbox.send(player, "note", Worded(text))
    return Outbox.objects.filter(recipient=player).latest("pk")


def refresh(message: Outbox) -> Outbox:
    return Outbox.objects.get(pk=message.pk)


def texts() -> list[str]:
    return [message.text for message in scripted.sent]


# Sending --------------------------------------------------------------------------


def test_a_message_is_sent_and_marked_with_the_platforms_id(tess):
    message = note(tess, "hello")
    assert delivery.deliver(message.pk) == 1
    message = refresh(message)
    assert (message.status, message.external_id, message.attempts) == ("sent", f"scripted-{message.pk}", 0)
    assert message.sent_at is not None
    assert texts() == ["hello"]


def test_a_recipients_messages_go_out_in_the_order_they_were_written(tess):
    first, second, third = note(tess, "1"), note(tess, "2"), note(tess, "3")
    assert delivery.deliver(third.pk) == 3
    assert delivery.deliver(first.pk) == delivery.deliver(second.pk) == 0
    assert texts() == ["1", "2", "3"]


def test_terminal_messages_are_left_to_the_play_process(alice):
    message = note(alice, "for the terminal")
    assert message.channel == Outbox.Channel.TERMINAL
    assert delivery.deliver(message.pk) == 0
    assert refresh(message).status == Outbox.Status.PENDING
    assert delivery.due_messages() == []


def test_a_message_another_worker_is_sending_is_not_sent_twice(tess):
    message = note(tess, "hello")
    assert delivery.claim(message.channel, message.address).pk == message.pk  # another worker has it
    assert delivery.deliver(message.pk) == 0
    assert refresh(message).status == Outbox.Status.SENDING
    assert scripted.sent == []


def test_a_message_whose_worker_died_is_sent_again_after_the_lease(tess, clock):
    message = note(tess, "hello")
    delivery.claim(message.channel, message.address)  # ...and that worker is killed
    assert delivery.due_messages() == []
    clock(delivery.LEASE.total_seconds() + 1)
    assert delivery.due_messages() == [message.pk]
    assert delivery.deliver(message.pk) == 1
    message = refresh(message)
    assert (message.status, message.attempts) == ("sent", 1)


def test_the_sweep_finds_one_message_per_address_with_something_due(tess, alice):
    sms, _created = phone_player("+15550001234")
    first, _second = note(tess, "1"), note(tess, "2")
    text = note(sms, "sms")
    note(alice, "terminal")
    sent = note(tess, "sent already")
    Outbox.objects.filter(pk=sent.pk).update(status=Outbox.Status.SENT)
    later = note(telegram_player(user_id=5002, chat_id=5002, name="Ted"), "later")
    Outbox.objects.filter(pk=later.pk).update(next_attempt_at=timezone.now() + timedelta(minutes=1))
    assert delivery.due_messages() == [first.pk, text.pk]


# Retries and failures -------------------------------------------------------------------


def test_a_rate_limit_waits_without_counting_and_holds_back_the_next_message(tess, clock):
    first, second = note(tess, "1"), note(tess, "2")
    scripted.script.append(RetryLater(30))
    assert delivery.deliver(first.pk) == 0
    first = refresh(first)
    assert (first.status, first.attempts) == ("pending", 0)
    assert (first.next_attempt_at - timezone.now()).total_seconds() == pytest.approx(30, abs=2)
    assert delivery.deliver(second.pk) == 0  # not before the first
    clock(31)
    assert delivery.deliver(second.pk) == 2
    assert texts() == ["1", "2"]


def test_a_network_error_is_retried_with_growing_waits_then_the_message_fails(tess, clock):
    message = note(tess, "hello")
    scripted.script.extend([ConnectionError("connection reset")] * delivery.MAX_ATTEMPTS)
    waits = []
    for _attempt in range(delivery.MAX_ATTEMPTS):
        assert delivery.deliver(message.pk) == 0
        message = refresh(message)
        if message.status == Outbox.Status.FAILED:
            break
        waits.append(round((message.next_attempt_at - timezone.now()).total_seconds()))
        clock(waits[-1] + 1)
    assert waits == [10, 20, 40, 80, 160, 320, 640]
    assert (message.status, message.attempts) == ("failed", delivery.MAX_ATTEMPTS)
    assert message.last_error == "ConnectionError: connection reset"


def test_a_rejected_message_fails_alone_and_the_next_one_goes(tess):
    first, second = note(tess, "<b>broken"), note(tess, "fine")
    scripted.script.append(Rejected("Bad Request: can't parse entities"))
    assert delivery.deliver(first.pk) == 1
    assert (refresh(first).status, refresh(first).attempts) == ("failed", 0)
    assert refresh(second).status == Outbox.Status.SENT


def test_a_player_who_blocked_the_bot_is_marked_and_the_others_are_told(tess, alice, bob):
    code = code_in(handle(tess, "new", "telegram"))
    handle(alice, f"join {code}", "terminal")
    handle(bob, f"join {code}", "terminal")
    waiting = list(Outbox.objects.filter(recipient=tess, status=Outbox.Status.PENDING))
    assert len(waiting) > 1
    scripted.script.append(Unreachable("Forbidden: bot was blocked by the user"))
    assert delivery.deliver(waiting[0].pk) == 0
    assert not Outbox.objects.filter(recipient=tess).exclude(status=Outbox.Status.FAILED).exists()
    assert Player.objects.get(pk=tess.pk).telegram_blocked
    for other in (alice, bob):
        assert Outbox.objects.filter(recipient=other, kind="unreachable", text__contains="Tess").count() == 1
    assert presence.player_unreachable(tess, "telegram") is False  # news once


def test_a_player_still_reachable_elsewhere_is_not_announced(tess, alice, bob):
    Player.objects.filter(pk=tess.pk).update(phone="+15550009999")
    code = code_in(handle(tess, "new", "telegram"))
    handle(alice, f"join {code}", "terminal")
    assert presence.player_unreachable(Player.objects.get(pk=tess.pk), "telegram") is True
    assert not Outbox.objects.filter(kind="unreachable").exists()


# Through a worker -------------------------------------------------------------------------


@pytest.fixture(params=BROKERS)
def worker(request, transactional_db, settings):
    """A Celery worker on each broker; the services enqueue to it on commit."""
    with running_worker(request.param) as app:
        settings.GIN3_BACKGROUND = "celery"
        yield app
        settings.GIN3_BACKGROUND = "off"


@pytest.mark.django_db(transaction=True)
def test_a_committed_reply_is_delivered_by_the_worker(worker, tess):
    handle(tess, "help", "telegram")
    message = Outbox.objects.get(recipient=tess)
    wait_until(lambda: refresh(message).status == Outbox.Status.SENT)


@pytest.mark.django_db(transaction=True)
def test_a_rate_limited_message_is_retried_by_the_worker(worker, tess):
    scripted.script.append(RetryLater(0.2))
    handle(tess, "help", "telegram")
    message = Outbox.objects.get(recipient=tess)
    wait_until(lambda: refresh(message).status == Outbox.Status.SENT)
    assert len(scripted.sent) == 1


@pytest.mark.django_db(transaction=True)
def test_the_sweep_delivers_what_was_lost(worker, settings, tess, clock):
    settings.GIN3_BACKGROUND = "off"  # the tasks for these messages are lost
    lost = note(tess, "its task was lost")
    ted = telegram_player(user_id=5002, chat_id=5002, name="Ted")
    stuck = note(ted, "its worker died")
    delivery.claim(stuck.channel, stuck.address)
    clock(delivery.LEASE.total_seconds() + 1)
    assert tasks.sweep.delay().get(**RESULT) == 2
    wait_until(lambda: {refresh(lost).status, refresh(stuck).status} == {Outbox.Status.SENT})


# A worker process killed in the middle of a send ------------------------------------------


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("broker", ["filesystem", "redis"])
def test_killing_a_worker_in_the_middle_of_a_send_loses_nothing(broker, tess, tmp_path):
    """A real ``celery worker`` process takes the message and is killed with SIGKILL while
    sending; after the lease a second worker, woken by the sweep, sends it.

    Each worker is a fresh process that imports Django and Celery before it takes a
    task: on a machine busy with a parallel run that alone can take tens of seconds,
    so the waits are generous, and a failure shows what each worker logged."""
    env = {**os.environ, "DATABASE_URL": database_url(), "GIN3_BACKGROUND": "celery", "GIN3_VAR_DIR": str(tmp_path)}
    if broker == "redis":
        env["REDIS_URL"] = url = redis_url()
        flush_redis(url)
        app = make_app(url)
    else:
        env["REDIS_URL"] = ""
        app = filesystem_app(tmp_path)
    message = note(tess, "hello")
    hanging, delivered = tmp_path / "hanging", tmp_path / "delivered"
    first = start_worker_process(env, "HangingBackend", hanging, tmp_path / "first.log")
    second = None
    try:
        app.send_task("games.tasks.deliver_message", (message.pk,))
        wait_until(hanging.exists, timeout=WORKER_START)
        first.send_signal(signal.SIGKILL)
        first.wait(10)
        assert refresh(message).status == Outbox.Status.SENDING
        Outbox.objects.filter(pk=message.pk).update(next_attempt_at=timezone.now() - timedelta(seconds=1))
        second = start_worker_process(env, "FileBackend", delivered, tmp_path / "second.log")
        app.send_task("games.tasks.sweep")
        wait_until(lambda: refresh(message).status == Outbox.Status.SENT, timeout=WORKER_START)
        assert delivered.read_text().split() == [str(message.pk)]
        assert refresh(message).attempts == 1  # the lost attempt counts
    except BaseException:
        for log in ("first.log", "second.log"):
            if (tmp_path / log).exists():
                print(f"--- {log}", (tmp_path / log).read_text()[-4000:], sep="\n")
        raise
    finally:
        stop(first, second)
        if broker == "redis":
            flush_redis(url)


WORKER_START = 180  # seconds: the longest a worker process may take to start and act


def filesystem_app(folder: Path):
    """An app on the embedded broker in ``folder``, as gin3site/settings.py makes it there."""
    (folder / "broker").mkdir()
    app = make_app("filesystem://")
    app.conf.broker_transport = "gin3site.broker:Transport"
    app.conf.broker_transport_options = {
        "data_folder_in": str(folder / "broker"),
        "data_folder_out": str(folder / "broker"),
        "control_folder": str(folder / "broker-control"),
    }
    return app


def start_worker_process(env: dict, backend: str, marker: Path, log: Path) -> subprocess.Popen:
    command = [sys.executable, "-m", "celery", "-A", "gin3site", "worker", "--pool", "solo", "--loglevel", "INFO"]
    command += ["--without-mingle", "--without-gossip", "--without-heartbeat"]
    env = {**env, "GIN3_TELEGRAM_BACKEND": f"tests.fakes.backends.{backend}", "GIN3_TEST_MARKER": str(marker)}
    with open(log, "w") as output:
        return subprocess.Popen(command, cwd=django_settings.BASE_DIR, env=env, stdout=output, stderr=subprocess.STDOUT)


def stop(*processes: subprocess.Popen | None) -> None:
    for process in processes:
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@pytest.mark.parametrize("limit", [10, 50, 4096])
def test_a_long_text_is_split_between_lines_into_parts_a_platform_accepts(limit):
    text = "\n".join(f"line {number}: " + "y" * (number % 17) for number in range(60)) + "\n" + "z" * 120
    parts = split_text(text, limit)
    assert all(0 < len(part) <= limit for part in parts)
    assert "".join(parts).replace("\n", "") == text.replace("\n", "")
    if limit == 4096:
        assert parts == [text]
