"""Redis stopped and started again in the middle of a game loses nothing.

Redis is the broker and the store of the shared rate limits, never the record
of a move, so its absence must not fail a command: a limiter's connection
error would fail every command, and an update answered 200 but not recorded
is lost for good (Telegram, Twilio and long polling do not send it again). So
the limits fall back to the process (``games.services.plumbing.ratelimit``), a publish that
fails after a commit is left to the sweep and the clock scan
(``games.services.plumbing.scheduling``), and what still can't be recorded is refused the way
its platform retries it (``bot.unavailable``).

Everything here is real: a ``redis-server`` of the test's own, killed with
SIGKILL and started again (empty, as after a crash without persistence), a
Celery worker and beat as separate processes on it, the webhooks through
Django's test client, the polling bot in a thread. Delivery goes through a
backend that writes each message it sends to a file, so that the test counts
what was sent: once each, in order.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlencode
from xml.etree import ElementTree

import pytest
from django.conf import settings as django_settings
from django.test import Client
from django.utils import timezone

import gin3site.celery
from games.models import Match, Outbox, ProcessedUpdate
from games.services import handle
from games.services.plumbing import ratelimit, scheduling
from games.services.write.players import phone_player, telegram_player, terminal_player
from tests.conftest import code_in, mover, refresh, run_computers, safe_action
from tests.fakes.twilio_api import OUR_NUMBER, PUBLIC_URL, sign, sms_switched_on
from tests.outage import RedisServer
from tests.telegram_harness import SECRET, PollingBot, fake_telegram
from tests.workers import database_url, make_app, wait_until

pytestmark = pytest.mark.django_db(transaction=True)

SAM = "+15550001234"
DELIVERED = (Outbox.Status.SENT, Outbox.Status.SUPERSEDED)
CHANNELS_A_WORKER_SENDS = (Outbox.Channel.TELEGRAM, Outbox.Channel.SMS)


def against_computers(player, channel: str):
    """A running match of ``player`` and two computer players, at ``player``'s turn."""
    for _attempt in range(20):
        code = code_in(handle(player, "new 5m to 50", channel))
        handle(player, "bot", channel)
        handle(player, "bot", channel)
        match = Match.objects.get(code=code)
        run_computers(match)
        match = refresh(match)
        if match.status == Match.Status.RUNNING and mover(match) == player:
            return match
    raise AssertionError("the computers kept winning")


def background_process(kind: str, redis: RedisServer, folder: Path, sent_log: Path) -> subprocess.Popen:
    """``celery worker`` or ``celery beat`` on our Redis and the test database; the worker
    sends Telegram and SMS messages by writing their ids to ``sent_log``."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "REDIS_URL": redis.url,
        "GIN3_BACKGROUND": "celery",
        "GIN3_VAR_DIR": str(folder),
        "GIN3_CLOCK_SECONDS": "1",
        "GIN3_SWEEP_SECONDS": "2",
        "GIN3_TELEGRAM_BACKEND": "tests.fakes.backends.FileBackend",
        "GIN3_SMS_BACKEND": "tests.fakes.backends.FileBackend",
        "GIN3_TEST_MARKER": str(sent_log),
    }
    command = [sys.executable, "-m", "celery", "-A", "gin3site", kind, "--loglevel", "INFO"]
    if kind == "worker":
        command += ["--pool", "solo", "--without-mingle", "--without-gossip", "--without-heartbeat"]
    else:
        command += ["--schedule", str(folder / "beat-schedule")]
    with open(folder / f"{kind}.log", "w") as output:
        return subprocess.Popen(command, cwd=django_settings.BASE_DIR, env=env, stdout=output, stderr=subprocess.STDOUT)


def stop(*processes: subprocess.Popen) -> None:
    for process in processes:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def undelivered() -> list[int]:
    waiting = Outbox.objects.filter(channel__in=CHANNELS_A_WORKER_SENDS).exclude(status__in=DELIVERED)
    return list(waiting.values_list("pk", flat=True))


def text_sam(twilio, body: str) -> tuple[str, list[str]]:
    """Sam texts ``body`` through the SMS webhook; its MessageSid and the texts of the answer."""
    params = twilio.inbound_sms(SAM, OUR_NUMBER, body)
    response = Client().post(
        "/sms/inbound/",
        urlencode(params),
        content_type="application/x-www-form-urlencoded",
        HTTP_X_TWILIO_SIGNATURE=sign(PUBLIC_URL, params, twilio.auth_token),
    )
    assert response.status_code == 200
    return params["MessageSid"], [message.text or "" for message in ElementTree.fromstring(response.content)]


def post_update(update: dict) -> int:
    response = Client().post(
        "/telegram/webhook/",
        data=json.dumps(update),
        content_type="application/json",
        headers={"X-Telegram-Bot-Api-Secret-Token": SECRET},
    )
    return response.status_code


def recorded(key: str) -> bool:
    return ProcessedUpdate.objects.filter(key=key).exists()


@pytest.fixture
def redis_server(tmp_path):
    server = RedisServer(tmp_path).start()
    yield server
    server.kill()


@pytest.fixture
def broker(redis_server, monkeypatch):
    """This process (and every thread of it) publishes to our Redis."""
    app = make_app(redis_server.url)
    app.set_current()
    app.set_default()
    monkeypatch.setattr(scheduling, "_paused_until", 0.0, raising=False)
    yield app
    gin3site.celery.app.set_current()
    gin3site.celery.app.set_default()


def test_redis_killed_and_restarted_mid_game_loses_no_command_no_message_and_no_move(
    redis_server, broker, settings, monkeypatch, tmp_path
):
    with fake_telegram(settings, monkeypatch) as tg, sms_switched_on(settings, {}) as twilio:
        settings.TELEGRAM_BOT_USERNAME = "gin3_test_bot"
        tess_user, tom_user = tg.user(5001, "Tess", username="tess"), tg.user(5002, "Tom", username="tom")
        people = {
            "tess": (telegram_player(user_id=5001, chat_id=5001, name="Tess", language="en"), "telegram"),
            "tom": (telegram_player(user_id=5002, chat_id=5002, name="Tom", language="en"), "telegram"),
            "sam": (phone_player(SAM)[0], "sms"),
            "tia": (terminal_player("tia", "Tia"), "terminal"),
            "una": (terminal_player("una", "Una"), "terminal"),
        }
        matches = {name: against_computers(player, channel) for name, (player, channel) in people.items()}

        # From here on Redis is the broker and the limits' store, with a worker and beat on it.
        settings.REDIS_URL = redis_server.url
        settings.GIN3_BACKGROUND = "celery"
        ratelimit._limiter_for.cache_clear()
        sent_log = tmp_path / "sent"
        sent_log.touch()
        worker = background_process("worker", redis_server, tmp_path, sent_log)
        beat = background_process("beat", redis_server, tmp_path, sent_log)
        polling = PollingBot(monkeypatch).start()
        try:
            wait_until(lambda: not undelivered(), timeout=120)  # the sweep sends what the matches wrote
            last_before = Outbox.objects.order_by("-pk").values_list("pk", flat=True).first()

            redis_server.kill()
            commands = {}
            update = tess_user.message_update(str(safe_action(matches["tess"])))
            commands["webhook move"] = post_update(update) == 200 and recorded(f"tg:{update['update_id']}")
            update = tess_user.message_update("status")
            commands["webhook status"] = post_update(update) == 200 and recorded(f"tg:{update['update_id']}")
            sid, _replies = text_sam(twilio, str(safe_action(matches["sam"])))
            commands["sms move"] = recorded(f"sms:{sid}")  # a move that ends his turn is not answered
            sid, replies = text_sam(twilio, "score")
            commands["sms score"] = recorded(f"sms:{sid}") and bool(replies)
            commands["terminal move"] = bool(handle(people["tia"][0], str(safe_action(matches["tia"])), "terminal"))
            update = tom_user.send(str(safe_action(matches["tom"])))
            polling.wait_handled(1, timeout=30)
            wait_until(lambda: not tg.pending_updates, timeout=30)  # its offset was confirmed
            commands["polling move"] = recorded(f"tg:{update['update_id']}")
            assert [command for command, ok in commands.items() if not ok] == []
            Match.objects.filter(pk=matches["una"].pk).update(deadline=timezone.now())  # her time runs out meanwhile
            # What must move by itself once Redis is back: a computer's turn, and Una's timeout
            # (a person who only drew is still to move, and nothing moves for him).
            due = {name: refresh(match) for name, match in matches.items()}
            versions = {name: match.version for name, match in due.items() if name == "una" or mover(match).is_computer}
            time.sleep(3)  # beat and the worker try to reach Redis meanwhile
            written = list(
                Outbox.objects.filter(pk__gt=last_before, channel__in=CHANNELS_A_WORKER_SENDS).values_list(
                    "pk", flat=True
                )
            )

            redis_server.start()  # empty: the tasks it held are gone
            wait_until(lambda: not undelivered(), timeout=120)
            for match in matches.values():
                wait_until(lambda match=match: not mover(match).is_computer, timeout=120)
            # Una's clock is caught up by beat's next scan, which a busy machine may delay.
            wait_until(lambda: refresh(matches["una"]).version > versions["una"], timeout=120)
        finally:
            polling.stop()
            stop(worker, beat)

    # Every message written meanwhile sent once after Redis is back, in order, and the
    # computer players and Una's clock caught up by themselves.
    assert len(written) >= 3
    sent = [int(line) for line in sent_log.read_text().split()]
    assert [pk for pk, count in Counter(sent).items() if count > 1] == []
    assert set(sent) == set(sent_rows())
    assert set(written) <= set(sent) | set(superseded_rows())
    for pks in sent_by_address(sent).values():
        assert pks == sorted(pks)
    assert "una" in versions and len(versions) >= 2
    assert [name for name, version in versions.items() if refresh(matches[name]).version <= version] == []
    una_seat = matches["una"].seats.get(player=people["una"][0])
    assert una_seat.timeouts_in_row == 1


def sent_rows() -> list[int]:
    rows = Outbox.objects.filter(status=Outbox.Status.SENT, channel__in=CHANNELS_A_WORKER_SENDS)
    return list(rows.values_list("pk", flat=True))


def superseded_rows() -> list[int]:
    return list(Outbox.objects.filter(status=Outbox.Status.SUPERSEDED).values_list("pk", flat=True))


def sent_by_address(sent: list[int]) -> dict[str, list[int]]:
    addresses = dict(Outbox.objects.filter(pk__in=sent).values_list("pk", "address"))
    by_address: dict[str, list[int]] = {}
    for pk in sent:
        by_address.setdefault(addresses[pk], []).append(pk)
    return by_address


# Each piece on its own ------------------------------------------------------------------


def test_the_limiter_keeps_its_windows_in_the_process_while_redis_is_away(redis_server):
    limiter = ratelimit.RedisLimiter(redis_server.url)
    rule = [ratelimit.Rule("gin3:test", 2, 60.0)]
    assert limiter.acquire(rule) == 0
    redis_server.kill()
    assert limiter.acquire(rule) == 0  # counted in the process now: the window starts again
    assert limiter.acquire(rule) == 0
    assert limiter.acquire(rule) > 0
    redis_server.start()
    limiter._away_until = 0.0  # as REDIS_RETRY_AFTER later
    assert limiter.acquire(rule) == 0  # Redis again, emptied by the restart


def test_a_publish_the_broker_refuses_is_dropped_after_the_commit_and_the_next_ones_wait(broker, settings, caplog):
    settings.GIN3_BACKGROUND = "celery"
    broker.conf.broker_url = "redis://127.0.0.1:1/0"  # nothing listens there
    scheduling.follow_up([1], [])
    assert "not published, the broker is unavailable" in caplog.text
    caplog.clear()
    scheduling.follow_up([2], [])
    assert "the broker was unavailable moments ago" in caplog.text


@pytest.mark.parametrize("channel", ["webhook", "sms"])
def test_a_command_that_cannot_reach_redis_is_refused_the_way_its_platform_retries(channel, settings, monkeypatch):
    """Should a Redis error reach a transport all the same (nothing known does now), the
    update is not acknowledged: Telegram gets 503, an SMS asks to be sent again."""
    import redis

    from games.services import commands

    def unreachable(*args, **kwargs):
        raise redis.ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(commands, "_keep_pace", unreachable)
    if channel == "webhook":
        with fake_telegram(settings, monkeypatch) as tg:
            update = tg.user(5001, "Tess").message_update("new")
            assert post_update(update) == 503
            assert not recorded(f"tg:{update['update_id']}")
    else:
        with sms_switched_on(settings, {}) as twilio:
            sid, replies = text_sam(twilio, "new")
            assert replies == ["gin3 could not take that, please send it again in a minute."]
            assert not recorded(f"sms:{sid}")
