"""No documented setting may lose a move: with DB_CONN_MAX_AGE
above 0, hundreds of webhook requests to a real server process leave the
number of its PostgreSQL connections bounded, and every move answered 200 is
in the event log.

Both ways gin3 can be served are tried: the WSGI set-up ``manage.py serve``
runs (waitress's threads, each keeping its connection: at most workers x
threads), and an ASGI server, where Django's persistent connections leaked one
per request thread and gin3site/asgi.py switches to psycopg's pool (at most
DB_POOL_MAX a process). The server's connections are told apart from the
test's by their ``application_name``.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from contextlib import suppress

import pytest
from django.conf import settings
from django.db import connection, transaction

from games.management.commands.serve import web_command
from games.models import Event, Match
from games.services import handle
from games.services.plumbing import state
from games.services.write import computer_moves
from games.services.write.players import telegram_player
from tests.fakes.telegram_api import FakeTelegram
from tests.workers import database_url, worker_ports

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]  # real servers, whole matches

SECRET = "connections-test-secret"
APP_NAME = "gin3-web-under-test"
PORTS = worker_ports(0, 30)
MATCHES = 24
MOVES_PER_MATCH = 10


@pytest.fixture(autouse=True)
def postgresql_only():
    if connection.vendor != "postgresql":
        if os.environ.get("GIN3_REQUIRE_SERVICES") == "1" and os.environ.get("DATABASE_URL", "").startswith("postgres"):
            pytest.fail("GIN3_REQUIRE_SERVICES=1 and DATABASE_URL is PostgreSQL, but the tests do not run on it")
        pytest.skip("counts PostgreSQL's connections; the run is on SQLite")


def free_port() -> int:
    for port in PORTS:
        with socket.socket() as probe, suppress(OSError):
            probe.bind(("127.0.0.1", port))
            return port
    pytest.fail(f"no free port in {PORTS.start}-{PORTS.stop - 1}")


def start_server(argv: list[str], port: int, extra_env: dict[str, str], log_path) -> subprocess.Popen:
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "DB_CONN_MAX_AGE": "60",
        "PGAPPNAME": APP_NAME,
        "GIN3_BACKGROUND": "off",
        "GIN3_TELEGRAM_BACKEND": "bot.backends.memory.MemoryBackend",
        "TELEGRAM_BOT_TOKEN": "",
        "TELEGRAM_BOT_USERNAME": "gin3_test_bot",
        "TELEGRAM_WEBHOOK_SECRET": SECRET,
        "LOG_LEVEL": "WARNING",
        **extra_env,
    }
    server = subprocess.Popen(
        argv,
        cwd=settings.BASE_DIR,
        env=env,
        stdout=log_path.open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while True:
        with suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return server
        assert server.poll() is None and time.monotonic() < deadline, log_path.read_text()
        time.sleep(0.1)


def stop_server(server: subprocess.Popen) -> None:
    with suppress(ProcessLookupError):
        os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(20)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()


class Sampler(threading.Thread):
    """The most connections the server under test held at once, every 50 ms."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.most = 0
        self.done = threading.Event()

    def run(self) -> None:
        import psycopg

        with psycopg.connect(database_url().replace("postgres://", "postgresql://", 1), autocommit=True) as conn:
            while not self.done.wait(0.05):
                (count,) = conn.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                    "AND application_name = %s",
                    [APP_NAME],
                ).fetchone()
                self.most = max(self.most, count)


def running_matches(fake: FakeTelegram) -> list[tuple[Match, dict]]:
    """Matches of three Telegram players; each with its players by seat position."""
    found = []
    for number in range(MATCHES):
        users = [fake.user(90_000 + 3 * number + k, f"P{number}-{k}") for k in range(3)]
        people = [telegram_player(u.id, u.id, u.first_name, "", "en") for u in users]
        handle(people[0], "new 1d", "telegram")
        match = Match.objects.filter(created_by=people[0]).latest("pk")
        for person in people[1:]:
            handle(person, f"join {match.code}", "telegram")
        match.refresh_from_db()  # dealt by the third join
        by_player = dict(zip((p.pk for p in people), users, strict=True))
        found.append((match, {seat.position: by_player[seat.player_id] for seat in match.seats.all()}))
    return found


def play(port: int, match: Match, users: dict, statuses: list[int]) -> None:
    """Send a legal move at a time for whoever is to move, as Telegram would post it.
    Run in a thread of its own, it closes the connection its read opened: left open, the
    test database could not be dropped at the end of the run."""
    try:
        with transaction.atomic():
            row = state.current_hand_row(match)
            hand = state.load_hand(match, row)
    finally:
        connection.close()
    positions = {"captain": row.captain, "box": row.box}
    client = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    for _move in range(MOVES_PER_MATCH):
        if hand.is_over:
            break
        action = computer_moves.safe_move(hand)
        user = users[positions[hand.to_move.value]]
        body = json.dumps(user.message_update(str(action)))
        try:
            client.request(
                "POST",
                "/telegram/webhook/",
                body,
                {"Content-Type": "application/json", "X-Telegram-Bot-Api-Secret-Token": SECRET},
            )
            response = client.getresponse()
            response.read()
        except (OSError, http.client.HTTPException):
            client.close()
            client = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            statuses.append(0)
            break
        statuses.append(response.status)
        if response.status != 200:
            break
        hand, _events = hand.apply(action)
    client.close()


SERVERS = {
    "wsgi-as-serve-runs-it": (
        lambda port: web_command(sys.executable, "127.0.0.1", port),
        {"GIN3_WEB_WORKERS": "2", "GIN3_WEB_THREADS": "4"},
        8,
    ),
    "asgi-uvicorn-with-the-pool": (
        lambda port: [
            *(sys.executable, "-m", "uvicorn", "gin3site.asgi:application", "--host", "127.0.0.1"),
            *("--port", str(port), "--lifespan", "off", "--no-access-log"),
        ],
        {"DB_POOL_MAX": "4"},
        4,
    ),
}


@pytest.mark.parametrize("server_kind", SERVERS)
def test_hundreds_of_webhook_moves_keep_the_servers_connections_bounded_and_all_are_recorded(
    server_kind, tmp_path, settings
):
    settings.GIN3_BACKGROUND = "off"
    command, extra_env, bound = SERVERS[server_kind]
    fake = FakeTelegram()  # not started: it writes the updates' JSON
    matches = running_matches(fake)
    before = Event.objects.filter(kind=Event.Kind.MOVE).count()
    port = free_port()
    server = start_server(command(port), port, extra_env, tmp_path / "server.log")
    sampler = Sampler()
    statuses: list[int] = []
    try:
        sampler.start()
        threads = [threading.Thread(target=play, args=(port, m, users, statuses)) for m, users in matches]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(300)
    finally:
        sampler.done.set()
        sampler.join(5)
        stop_server(server)
    sent = len(statuses)
    assert sent >= 200
    assert statuses.count(200) == sent, (sorted(set(statuses)), (tmp_path / "server.log").read_text()[-3000:])
    assert Event.objects.filter(kind=Event.Kind.MOVE).count() - before == sent
    assert 0 < sampler.most <= bound, f"{sampler.most} connections, at most {bound} expected"
