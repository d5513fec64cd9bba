"""Load benchmark of gin3's service layer, webhook, clock scan and pages (issue 11).

Run it from the repository root (``make bench-load`` does, passing ``ARGS``):

    .venv/bin/python bench/load.py                       # SQLite, a few minutes
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/gin3 REDIS_URL=redis://127.0.0.1:6379/13 \\
        .venv/bin/python bench/load.py --scale           # PostgreSQL, a million matches

It never touches the database it is given: on PostgreSQL it makes (and at the
end drops) ``<name>_bench`` on the same server; on SQLite it uses a file of
its own. It prints, with the machine's load average at the start and end:

* **A move through ``games.services.handle``**, with ``GIN3_BACKGROUND=celery``
  on Kombu's in-memory broker: SQL queries per move (and per knock that ends
  a hand), SAVEPOINT/RELEASE per move, broker publishes per move (calls of
  ``kombu.Producer.publish``), hand replays per move (calls of
  ``games.engine.replay`` wherever it was imported). Moves are legal: a
  knock when one is allowed, else what a player who is away plays.
* **``handle`` throughput** with 1, 2 and 4 processes, each on matches of its
  own: moves/s and p50/p99 of one call.
* **The Telegram webhook over HTTP**: a real server process, started the way
  ``manage.py serve`` starts it (``--server`` picks another set-up to compare),
  receives the real JSON of an update (tests/fakes' fake Telegram makes it)
  for the player to move in one of many matches, open-loop: updates are sent
  on schedule at 50, 100, 200 and 400 per second whatever the replies; the
  latency of each counts from its scheduled time. Outgoing messages go to the
  in-memory backend, tasks to the broker (Redis with ``REDIS_URL``, else the
  filesystem one) where no worker takes them. Beside the latencies: the most
  PostgreSQL connections the server held, and the CPU time per answered
  update of the server's processes and of their PostgreSQL backends, which
  says what the machine could serve were it not shared. Afterwards every move
  the server answered 200 must be in the event log, once.
* **The deadline scan** with 100,000 running matches of which 1,000 are due
  (a million with ``--scale``), seeded by one ``INSERT ... SELECT``: the clock
  scan's own query (``clock_scan.next_due``: the next due match, locked with
  SKIP LOCKED) run until it has found all 1,000, in a transaction rolled back
  after each pass; the time to find one, and all of them.
* **Pages** (``--pages``) with 10,000 finished matches and 1,000 players
  (1,000,000 and 100,000 with ``--scale``), timed in the process (server time,
  no network), the first call and the median of the next ones; a page slower
  than ``--page-timeout`` is cut off and says so.

Timings on a shared machine vary; read them side by side, in one run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import multiprocessing
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SECRET = "bench-webhook-secret"
BOT_USERNAME = "gin3_bench_bot"
PORTS = range(18130, 18150)
SERVERS = ("serve", "uvicorn", "gunicorn-sync", "gunicorn-gthread", "uvicorn-workers")


# Setting up ---------------------------------------------------------------------


def bench_database_url(url: str, var_dir: Path) -> str:
    """A database of the benchmark's own: ``<name>_bench`` beside PostgreSQL's, else a SQLite file."""
    if not url or url.startswith("sqlite"):
        return f"sqlite:///{var_dir / 'bench.sqlite3'}"
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/") + "_bench", "", ""))


def postgres_admin(url: str, statement: str) -> None:
    import psycopg

    parts = urlsplit(url)
    admin = urlunsplit(("postgresql", parts.netloc, "/postgres", "", ""))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(statement)


def fresh_database(url: str) -> None:
    if url.startswith("postgres"):
        name = urlsplit(url).path.lstrip("/")
        postgres_admin(url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        postgres_admin(url, f'CREATE DATABASE "{name}"')
    else:
        Path(urlsplit(url).path).unlink(missing_ok=True)


def drop_database(url: str) -> None:
    if url.startswith("postgres"):
        from django.db import connections

        connections.close_all()
        postgres_admin(url, f'DROP DATABASE IF EXISTS "{urlsplit(url).path.lstrip("/")}" WITH (FORCE)')


def configure(database_url: str, var_dir: Path, redis_url: str) -> dict[str, str]:
    """The environment of this process and of the server it starts; then Django."""
    env = {
        "DJANGO_SETTINGS_MODULE": "gin3site.settings",
        "DATABASE_URL": database_url,
        "GIN3_VAR_DIR": str(var_dir),
        "REDIS_URL": redis_url,
        "GIN3_BACKGROUND": "celery",
        "GIN3_PLAIN_HTTP": "1",  # the server serves plain HTTP on 127.0.0.1
        "GIN3_TELEGRAM_BACKEND": "bot.backends.memory.MemoryBackend",
        "GIN3_SMS_BACKEND": "bot.backends.memory.MemoryBackend",
        "TELEGRAM_BOT_TOKEN": "",
        "TELEGRAM_BOT_USERNAME": BOT_USERNAME,
        "TELEGRAM_WEBHOOK_SECRET": SECRET,
        "LOG_LEVEL": "WARNING",
    }
    os.environ.update(env)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    return env


def use_memory_broker() -> None:
    """Publishes go to Kombu's in-memory broker of this process: counted, never consumed."""
    import gin3site.celery

    gin3site.celery.app.conf.broker_url = "memory://"
    gin3site.celery.app.conf.broker_transport_options = {}


# Matches and legal moves -----------------------------------------------------------


@dataclass
class Game:
    """One match as the driver sees it: whose move it is and what he may play, kept in step
    with the server by applying each move locally too."""

    match_id: int
    code: str
    players: dict[int, object]  # seat position -> Player
    hand: object = None  # games.engine.Hand
    roles: dict[str, int] = field(default_factory=dict)  # role value -> position
    over: bool = False  # the hand (or match) ended: reload before playing on

    def load(self) -> Game:
        from django.db import transaction

        from games.models import Match
        from games.services.plumbing import state

        with transaction.atomic():
            match = Match.objects.get(pk=self.match_id)
            row = state.current_hand_row(match)
            self.hand = state.load_hand(match, row)
            self.roles = {"captain": row.captain, "box": row.box, "sitter": row.sitter}
            self.over = match.status != Match.Status.RUNNING or self.hand.is_over
        return self

    def mover(self):
        return self.players[self.roles[self.hand.to_move.value]]

    def next_move(self, knock: bool):
        """A knock when one is allowed and ``knock``, else the move of a player who is away."""
        from games.engine import Knock
        from games.services.write.computer_moves import safe_move

        if knock:
            knocks = [a for a in self.hand.legal_actions() if isinstance(a, Knock)]
            if knocks:
                return min(knocks, key=lambda k: self.hand.count_after_discard(k.card))
        return safe_move(self.hand)

    def played(self, action) -> None:
        self.hand, _events = self.hand.apply(action)
        self.over = self.hand.is_over


def make_games(count: int, first_user: int) -> list[Game]:
    """``count`` running matches of three Telegram players each, started through the services."""
    from games.models import Match
    from games.services import handle
    from games.services.write.players import telegram_player

    games = []
    for number in range(count):
        base = first_user + 3 * number
        people = [telegram_player(base + k, base + k, f"P{base + k}", f"p{base + k}", "en") for k in range(3)]
        handle(people[0], "new 1d", "telegram")
        match = Match.objects.filter(created_by=people[0]).latest("pk")
        for person in people[1:]:
            handle(person, f"join {match.code}", "telegram")
        match = Match.objects.get(pk=match.pk)
        seats = {seat.position: seat.player for seat in match.seats.select_related("player")}
        games.append(Game(match.pk, match.code, seats).load())
    return games


# Counting what a move costs ----------------------------------------------------------


class Counts:
    """SQL statements, savepoints, broker publishes and hand replays while ``counting``."""

    def __init__(self) -> None:
        self.counter: Counter[str] = Counter()
        self.on = False

    def __call__(self, execute, sql, params, many, context):  # a Django execute wrapper
        if self.on:
            head = sql.lstrip().split(None, 1)[0].upper() if sql.strip() else ""
            self.counter["savepoints" if head in ("SAVEPOINT", "RELEASE", "ROLLBACK") else "queries"] += 1
        return execute(sql, params, many, context)

    def install(self) -> None:
        import kombu.messaging

        import games.engine

        counts = self
        publish = kombu.messaging.Producer.publish

        def counted_publish(producer, *args, **kwargs):
            if counts.on:
                counts.counter["publishes"] += 1
            return publish(producer, *args, **kwargs)

        kombu.messaging.Producer.publish = counted_publish
        replay = games.engine.replay

        def counted_replay(*args, **kwargs):
            if counts.on:
                counts.counter["replays"] += 1
            return replay(*args, **kwargs)

        for name, module in list(sys.modules.items()):
            if name.startswith("games") and getattr(module, "replay", None) is replay:
                module.replay = counted_replay

    @contextlib.contextmanager
    def counting(self):
        from django.db import connection

        self.counter.clear()
        self.on = True
        with connection.execute_wrapper(self):
            try:
                yield self.counter
            finally:
                self.on = False


def measure_move_costs(games: list[Game], moves: int, knocks_wanted: int) -> dict[str, dict[str, float]]:
    """Average costs of a move that does not end the hand, and of a knock that does."""
    from games.engine import Knock
    from games.services import handle

    counts = Counts()
    counts.install()
    totals = {"move": Counter(), "knock": Counter()}
    done = {"move": 0, "knock": 0}
    deadline = time.monotonic() + 120
    while (done["move"] < moves or done["knock"] < knocks_wanted) and time.monotonic() < deadline:
        playable = [game for game in games if not game.over]
        if not playable:
            for game in games:
                game.load()
            playable = [game for game in games if not game.over]
            if not playable:
                break
        for game in playable:
            action = game.next_move(knock=True)
            kind = "knock" if isinstance(action, Knock) else "move"
            with counts.counting() as counter:
                handle(game.mover(), str(action), "telegram")
            totals[kind].update(counter)
            done[kind] += 1
            game.played(action)
    return {
        kind: {name: totals[kind][name] / done[kind] for name in ("queries", "savepoints", "publishes", "replays")}
        | {"n": done[kind]}
        for kind in totals
        if done[kind]
    }


# handle() with several processes ---------------------------------------------------


def drive_handle(match_ids: list[int], seconds: float, start_at: float, results) -> None:
    """In a child process: play moves on its own matches for ``seconds``; report the latencies."""
    from django.db import connections

    from games.models import Match
    from games.services import handle

    connections.close_all()
    games = []
    for match_id in match_ids:
        match = Match.objects.get(pk=match_id)
        seats = {seat.position: seat.player for seat in match.seats.select_related("player")}
        games.append(Game(match_id, match.code, seats).load())
    latencies = []
    time.sleep(max(start_at - time.time(), 0))
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for game in games:
            if game.over:
                game.load()
                if game.over:
                    continue
            action = game.next_move(knock=False)
            began = time.perf_counter()
            handle(game.mover(), str(action), "telegram")
            latencies.append(time.perf_counter() - began)
            game.played(action)
            if time.monotonic() >= end:
                break
    results.put(latencies)


def handle_throughput(games: list[Game], processes: int, seconds: float) -> dict[str, float]:
    from django.db import connections

    connections.close_all()
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    share = len(games) // processes
    start_at = time.time() + 1.0
    children = [
        context.Process(
            target=drive_handle,
            args=([g.match_id for g in games[i * share : (i + 1) * share]], seconds, start_at, results),
        )
        for i in range(processes)
    ]
    for child in children:
        child.start()
    latencies = [value for _child in children for value in results.get(timeout=seconds + 300)]
    for child in children:
        child.join()
    return {"rate": len(latencies) / seconds, **percentiles(latencies)}


def percentiles(latencies: list[float]) -> dict[str, float]:
    if not latencies:
        return {"p50": float("nan"), "p99": float("nan")}
    ordered = sorted(latencies)
    return {
        "p50": ordered[len(ordered) // 2] * 1000,
        "p99": ordered[min(int(len(ordered) * 0.99), len(ordered) - 1)] * 1000,
    }


# The webhook over HTTP -----------------------------------------------------------


def free_port() -> int:
    for port in PORTS:
        with socket.socket() as probe, contextlib.suppress(OSError):
            probe.bind(("127.0.0.1", port))
            return port
    raise SystemExit("no free port in 18130-18149")


def server_command(kind: str, port: int, workers: int, threads: int) -> list[str]:
    python = sys.executable
    if kind == "serve":
        from games.management.commands.serve import web_command

        return web_command(python, "127.0.0.1", port)
    if kind in ("uvicorn", "uvicorn-workers"):
        argv = [python, "-m", "uvicorn", "gin3site.asgi:application", "--host", "127.0.0.1", "--port", str(port)]
        argv += ["--lifespan", "off", "--no-access-log"]
        return argv + (["--workers", str(workers)] if kind == "uvicorn-workers" else [])
    argv = [python, "-m", "gunicorn", "gin3site.wsgi:application", "--bind", f"127.0.0.1:{port}"]
    argv += ["--workers", str(workers)]
    if kind == "gunicorn-gthread":
        argv += ["--worker-class", "gthread", "--threads", str(threads)]
    return argv


@contextlib.contextmanager
def running_server(argv: list[str], env: dict[str, str], port: int, log_path: Path):
    log = log_path.open("w")
    server = subprocess.Popen(
        argv, cwd=ROOT, env={**os.environ, **env}, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            if server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the server did not start: {log_path.read_text()[-2000:]}")
            time.sleep(0.1)
        yield server
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        log.close()


class HttpClient:
    """A minimal HTTP/1.1 client on asyncio streams, keeping connections alive when the
    server does: the load generator must cost little next to the server it measures."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []

    async def post(self, path: str, body: bytes, headers: dict[str, str]) -> int:
        """The response's status, or 0 if the connection failed. A kept-alive connection the
        server closed meanwhile fails before any answer: the request goes again on a new one."""
        head = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        request = (
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n{head}\r\n".encode()
            + body
        )
        while self.idle:
            status = await self._exchange(*self.idle.pop(), request)
            if status is not None:
                return status
        try:
            connection = await asyncio.open_connection("127.0.0.1", self.port)
        except OSError:
            return 0
        return await self._exchange(*connection, request) or 0

    async def _exchange(self, reader, writer, request: bytes) -> int | None:
        """Send and read the answer; None if the connection was closed before any answer."""
        try:
            writer.write(request)
            status_line = await reader.readline()
        except OSError:
            status_line = b""
        if not status_line:
            writer.close()
            return None
        try:
            status = int(status_line.split()[1])
            length, close = 0, False
            while (line := await reader.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("latin-1").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
                elif name.lower() == "connection" and value.strip().lower() == "close":
                    close = True
            await reader.readexactly(length)
        except (OSError, IndexError, ValueError, asyncio.IncompleteReadError):
            writer.close()
            return 0
        if close:
            writer.close()
        else:
            self.idle.append((reader, writer))
        return status

    def close(self) -> None:
        for _reader, writer in self.idle:
            writer.close()


async def open_loop(client: HttpClient, games: list[Game], users, rate: float, seconds: float) -> dict:
    """Send one move every 1/rate s to a match whose last move was answered; never wait for replies."""
    ready = deque(game for game in games if not game.over)
    latencies: list[float] = []
    errors = Counter()
    accepted = unsent = 0
    headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
    loop = asyncio.get_running_loop()
    pending = set()

    async def send(game: Game, scheduled: float) -> None:
        nonlocal accepted
        action = game.next_move(knock=False)
        user = users[game.mover().telegram_user_id]
        body = json.dumps(user.message_update(str(action))).encode()
        try:
            status = await asyncio.wait_for(client.post("/telegram/webhook/", body, headers), 60)
        except TimeoutError:
            status = 0
        latencies.append(loop.time() - scheduled)
        if status == 200:
            accepted += 1
            game.played(action)
            if not game.over:
                ready.append(game)
        else:
            errors[status] += 1
            game.over = True  # its state is unknown now: reloaded before it plays again

    start = loop.time() + 0.05
    total = int(rate * seconds)
    for number in range(total):
        scheduled = start + number / rate
        await asyncio.sleep(max(scheduled - loop.time(), 0))
        if not ready:
            unsent += 1  # every match still waits for the answer to its last move
            continue
        task = asyncio.create_task(send(ready.popleft(), scheduled))
        pending.add(task)
        task.add_done_callback(pending.discard)
    if pending:
        await asyncio.wait(pending)
    elapsed = loop.time() - start
    return {
        "offered": rate,
        "rate": len(latencies) / elapsed,
        "errors": sum(errors.values()),
        "error_kinds": dict(errors),
        "accepted": accepted,
        "unsent": unsent,
        **percentiles(latencies),
    }


SERVER_APP_NAME = "gin3-bench-server"  # the server's PostgreSQL connections, told apart by application_name
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process so far; 0 once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS


def session_cpu(session: int) -> float:
    """CPU time so far of every process in ``session`` (the server and its workers)."""
    total = 0.0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(FileNotFoundError, ProcessLookupError, IndexError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[3]) == session:
                    total += (int(fields[11]) + int(fields[12])) / TICKS
    return total


class ConnectionSampler:
    """Every 0.2 s: how many connections the server holds to PostgreSQL (the most at once),
    and the CPU time their backend processes used (each backend from when it was first seen)."""

    def __init__(self, database_url: str) -> None:
        self.url = database_url
        self.most = 0
        self.backend_cpu: dict[int, tuple[float, float]] = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        import psycopg

        with psycopg.connect(self.url.replace("postgres://", "postgresql://", 1), autocommit=True) as conn:
            while not self.stop.wait(0.2):
                pids = [
                    pid
                    for (pid,) in conn.execute(
                        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = %s",
                        [SERVER_APP_NAME],
                    )
                ]
                self.most = max(self.most, len(pids))
                for pid in pids:
                    now = cpu_seconds(pid)
                    first, _last = self.backend_cpu.get(pid, (now, now))
                    self.backend_cpu[pid] = (first, now)

    @property
    def database_cpu(self) -> float:
        return sum(last - first for first, last in self.backend_cpu.values())

    def __enter__(self) -> ConnectionSampler:
        if self.url.startswith("postgres"):
            self.thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop.set()
        if self.thread.is_alive():
            self.thread.join(5)


def webhook_load(fake, games: list[Game], env: dict, argv: list[str], port: int, rates, seconds: float, log: Path):
    """Each rate in turn against one server; every move answered 200 must be recorded once.
    ``fake`` is the fake Telegram (not started) that writes the updates' JSON and numbers them."""
    from games.models import Event

    users = {}
    for game in games:
        for player in game.players.values():
            users[player.telegram_user_id] = fake.user(player.telegram_user_id, player.display_name, "u")
    ids = [game.match_id for game in games]
    moves_before = Event.objects.filter(match_id__in=ids, kind=Event.Kind.MOVE).count()
    rows = []
    with running_server(argv, {**env, "PGAPPNAME": SERVER_APP_NAME}, port, log) as server:

        async def run_all() -> int:
            client = HttpClient(port)
            warm_up = await open_loop(client, games, users, 20, 2)  # imports, connections, caches
            for rate in rates:
                for game in games:
                    if game.over:
                        await asyncio.to_thread(game.load)
                cpu = session_cpu(server.pid)
                with ConnectionSampler(env["DATABASE_URL"]) as sampler:
                    rows.append(await open_loop(client, games, users, rate, seconds))
                answered = max(rows[-1]["accepted"], 1)
                rows[-1]["connections"] = sampler.most
                rows[-1]["server_cpu"] = (session_cpu(server.pid) - cpu) / answered * 1000
                rows[-1]["database_cpu"] = sampler.database_cpu / answered * 1000
            client.close()
            return warm_up["accepted"]

        answered = asyncio.run(run_all()) + sum(row["accepted"] for row in rows)
    for game in games:
        game.load()
    recorded = Event.objects.filter(match_id__in=ids, kind=Event.Kind.MOVE).count() - moves_before
    return rows, answered, recorded


# The deadline scan and the pages at scale ---------------------------------------------


def insert_select(model, count: int, values: dict[str, tuple[str, list]]) -> None:
    """``count`` rows of ``model`` in one statement: ``values`` gives, by column, an SQL
    expression of the row number ``i`` and its parameters; other columns get NULL or
    the field's default."""
    from django.db import connection

    columns, expressions, arguments = [], [], [count]
    for field_ in model._meta.concrete_fields:
        if field_.primary_key:
            continue
        columns.append(connection.ops.quote_name(field_.column))
        if field_.column in values:
            expression, params = values[field_.column]
            expressions.append(expression)
            arguments.extend(params)
        elif field_.null:
            expressions.append("NULL")
        else:
            expressions.append("%s")
            arguments.append(field_.get_db_prep_save(field_.get_default(), connection))
    series = (
        "SELECT generate_series(1, %s)"
        if connection.vendor == "postgresql"
        else "SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH RECURSIVE s(i) AS ({series}) INSERT INTO {model._meta.db_table} "
            f"({', '.join(columns)}) SELECT {', '.join(expressions)} FROM s",
            arguments,
        )


def code_expression(prefix: str) -> str:
    from django.db import connection

    if connection.vendor == "postgresql":
        return f"'{prefix}' || upper(lpad(to_hex(i), 7, '0'))"
    return f"'{prefix}' || printf('%%07X', i)"


def seed_running(total: int, due: int) -> None:
    """``total`` running matches, ``due`` of them past their deadline."""
    from datetime import timedelta

    from django.utils import timezone

    from games.models import Match

    now = timezone.now()
    values = {
        "code": (code_expression("R"), []),
        "status": ("'running'", []),
        "deadline": (
            "CASE WHEN i <= %s THEN %s ELSE %s END",
            [due, now - timedelta(minutes=1), now + timedelta(hours=12)],
        ),
        "version": ("1", []),
        "turn_seat": ("0", []),
        "started_at": ("%s", [now]),
    }
    insert_select(Match, total, values)


def seed_finished(matches: int, players: int) -> None:
    """``players`` players and ``matches`` finished matches of three of them, each with a hand."""
    from django.db import connection
    from django.utils import timezone

    from games.engine import DECK, format_cards
    from games.models import Hand, Match, Player, Seat
    from games.services.plumbing.state import commitment_of

    now = timezone.now()
    deck = format_cards(DECK)  # a real deck: the match page replays the hand from it
    insert_select(
        Player,
        players,
        {"display_name": ("'player ' || i", []), "terminal_user": ("'bench' || i", []), "created_at": ("%s", [now])},
    )
    first_player = Player.objects.filter(terminal_user="bench1").values_list("pk", flat=True).get()
    last_before = Match.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
    insert_select(
        Match,
        matches,
        {
            "code": (code_expression("F"), []),
            "status": ("'finished'", []),
            "winner_id": (f"{first_player} + ((i - 1) * 3) %% {players}", []),
            "version": ("30", []),
            "started_at": ("%s", [now]),
            "last_move_at": ("%s", [now]),
            "finished_at": ("%s", [now]),
        },
    )
    first_match = Match.objects.filter(pk__gt=last_before).order_by("pk").values_list("pk", flat=True).first()
    seat_table, match_table = Seat._meta.db_table, Match._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {seat_table} (match_id, player_id, position, score, timeouts_in_row, autopilot) "
            f"SELECT m.id, {first_player} + ((m.id - {first_match}) * 3 + k.pos) %% {players}, k.pos, "
            f"CASE k.pos WHEN 0 THEN 100 ELSE (m.id * 7 + k.pos) %% 90 END, 0, %s "
            f"FROM {match_table} m CROSS JOIN (SELECT 0 AS pos UNION ALL SELECT 1 UNION ALL SELECT 2) k "
            f"WHERE m.id >= {first_match}",
            [False],
        )
    insert_select(
        Hand,
        matches,
        {
            "match_id": (f"{first_match} + i - 1", []),
            "number": ("1", []),
            "box": ("0", []),
            "captain": ("1", []),
            "sitter": ("2", []),
            "result": ("CASE i %% 3 WHEN 0 THEN 'gin' WHEN 1 THEN 'knock' ELSE 'undercut' END", []),
            "winner": ("0", []),
            "points": ("20", []),
            "ended_at": ("%s", [now]),
            "deck": ("%s", [deck]),
            "salt": ("'00'", []),
            "commitment": ("%s", [commitment_of(deck, "00")]),
        },
    )


def time_scan(repeat: int = 5) -> dict:
    """The clock scan's query run until every due match is found, as ``scan_clocks`` runs it."""
    from django.db import transaction
    from django.utils import timezone

    from games.services.write import clock_scan

    clock = clock_scan.CLOCKS[0]  # deadlines
    times, found = [], 0
    for _ in range(repeat):
        with transaction.atomic():
            began, due, found = time.perf_counter(), None, 0
            while (due := clock_scan.next_due(clock, timezone.now(), due)) is not None:
                found += 1
            times.append(time.perf_counter() - began)
            transaction.set_rollback(True)
    all_due = statistics.median(times[1:] or times)
    return {
        "first": times[0] * 1000,
        "median": all_due * 1000,
        "per_match": all_due / max(found, 1) * 1000,
        "found": found,
    }


@contextlib.contextmanager
def time_limit(seconds: float):
    """Cut off a query that runs longer than ``seconds``: PostgreSQL's statement_timeout, SQLite's progress handler."""
    from django.db import connection

    connection.ensure_connection()
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET statement_timeout = %s", [int(seconds * 1000)])
        try:
            yield
        finally:
            with connection.cursor() as cursor:
                cursor.execute("SET statement_timeout = 0")
    else:
        end = time.monotonic() + seconds
        connection.connection.set_progress_handler(lambda: int(time.monotonic() > end), 10000)
        try:
            yield
        finally:
            connection.connection.set_progress_handler(None, 0)


def time_pages(pages: list[str], timeout: float, repeat: int = 3) -> list[dict]:
    from django.db import DatabaseError, transaction
    from django.test import Client

    from games.models import Match, Player

    match = Match.objects.filter(status=Match.Status.FINISHED).order_by("-pk").first()
    player = Player.objects.filter(terminal_user__startswith="bench").order_by("pk").first()
    fill = {"match": match.code if match else "NONE", "player": player.pk if player else 0}
    client = Client(HTTP_HOST="127.0.0.1", raise_request_exception=True)
    logging.getLogger("django.request").setLevel(logging.CRITICAL)  # a page cut off is reported below
    rows = []
    for page in pages:
        url = page.format(**fill)
        times, status = [], None
        for _ in range(repeat):
            began = time.perf_counter()
            try:
                with time_limit(timeout), transaction.atomic():
                    status = client.get(url).status_code
            except DatabaseError:
                status = f"cut off after {timeout:g} s"
                times.append(time.perf_counter() - began)
                break
            times.append(time.perf_counter() - began)
        rows.append(
            {
                "page": url,
                "status": status,
                "first": times[0] * 1000,
                "median": statistics.median(times[1:] or times) * 1000,
            }
        )
    return rows


# Printing ---------------------------------------------------------------------------


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def print_table(title: str, header: list[str], rows: list[list[object]]) -> None:
    cells = [[str(c) for c in row] for row in [header, *rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    print(f"\n{title}")
    for index, row in enumerate(cells):
        print(
            "  "
            + "  ".join(
                cell.rjust(width) if i else cell.ljust(width)
                for i, (cell, width) in enumerate(zip(row, widths, strict=True))
            )
        )
        if index == 0:
            print("  " + "  ".join("-" * width for width in widths))


def f1(value: float) -> str:
    return f"{value:.1f}"


# Main ---------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", action="store_true", help="seed a million matches (scan and pages)")
    parser.add_argument("--only", default="moves,handle,webhook,scan,pages", help="sections to run")
    parser.add_argument("--moves", type=int, default=200, help="moves counted through handle")
    parser.add_argument("--knocks", type=int, default=10, help="hand-ending knocks counted")
    parser.add_argument("--processes", default="1,2,4")
    parser.add_argument("--seconds", type=float, default=8, help="length of each throughput run")
    parser.add_argument("--rates", default="50,100,200,400", help="updates/s offered to the webhook")
    parser.add_argument("--matches", type=int, default=120, help="matches driven through the webhook")
    parser.add_argument("--server", default="serve", help=f"web set-ups, comma-separated: {', '.join(SERVERS)}")
    parser.add_argument("--workers", type=int, default=4, help="for --server gunicorn-*/uvicorn-workers")
    parser.add_argument("--threads", type=int, default=4, help="for --server gunicorn-gthread")
    parser.add_argument("--conn-max-age", default="", help="DB_CONN_MAX_AGE of the server (default: its own)")
    parser.add_argument("--pages", default="/,/m/{match}/", help="pages, {match} and {player} filled in")
    parser.add_argument("--page-timeout", type=float, default=60)
    parser.add_argument("--keep", action="store_true", help="keep the benchmark's database")
    args = parser.parse_args()
    sections = set(args.only.split(","))

    var_dir = Path(tempfile.mkdtemp(prefix="gin3-bench-"))
    database_url = bench_database_url(os.environ.get("DATABASE_URL", ""), var_dir)
    redis_url = os.environ.get("REDIS_URL", "")
    if redis_url:
        import redis

        redis.Redis.from_url(redis_url).flushdb()
    fresh_database(database_url)
    started_load = load_average()
    print(f"gin3 load benchmark: {database_url.split('@')[-1]}, broker {redis_url or 'filesystem'}")
    print(f"load average at start: {started_load} ({os.cpu_count()} cores)")
    env = configure(database_url, var_dir, redis_url)
    use_memory_broker()
    from django.db import connection

    try:
        if "moves" in sections:
            costs = measure_move_costs(make_games(12, 1_000_000), args.moves, args.knocks)
            print_table(
                "A move through games.services.handle (GIN3_BACKGROUND=celery, in-memory broker)",
                ["what", "moves", "SQL queries", "SAVEPOINT/RELEASE", "publishes", "hand replays"],
                [
                    [kind, int(c["n"]), f1(c["queries"]), f1(c["savepoints"]), f1(c["publishes"]), f1(c["replays"])]
                    for kind, c in costs.items()
                ],
            )
        if "handle" in sections:
            games = make_games(48, 2_000_000)
            rows = []
            for processes in [int(p) for p in args.processes.split(",")]:
                result = handle_throughput(games, processes, args.seconds)
                rows.append([processes, f1(result["rate"]), f1(result["p50"]), f1(result["p99"])])
            print_table("handle() throughput", ["processes", "moves/s", "p50 ms", "p99 ms"], rows)
        if "webhook" in sections:
            from tests.fakes.telegram_api import FakeTelegram

            games = make_games(args.matches, 3_000_000)
            fake = FakeTelegram(username=BOT_USERNAME)  # one for the run: update_ids never repeat
            for server in args.server.split(","):
                port = free_port()
                argv = server_command(server, port, args.workers, args.threads)
                server_env = dict(env)
                if args.conn_max_age:
                    server_env["DB_CONN_MAX_AGE"] = args.conn_max_age
                rates = [float(r) for r in args.rates.split(",")]
                rows, answered, recorded = webhook_load(
                    fake, games, server_env, argv, port, rates, args.seconds, var_dir / f"server-{server}.log"
                )
                print_table(
                    f"Telegram webhook over HTTP, open loop, {args.seconds:g} s a rate, server {server}: "
                    + " ".join(argv[1:]),
                    [
                        *("offered/s", "answered/s", "p50 ms", "p99 ms", "errors", "not sent"),
                        *("DB connections", "server CPU ms/update", "PostgreSQL CPU ms/update"),
                    ],
                    [
                        [
                            f"{r['offered']:g}",
                            f1(r["rate"]),
                            f1(r["p50"]),
                            f1(r["p99"]),
                            f"{r['errors']} {r['error_kinds'] or ''}",
                            r["unsent"],
                            r["connections"] if database_url.startswith("postgres") else "-",
                            f1(r["server_cpu"]),
                            f1(r["database_cpu"]) if database_url.startswith("postgres") else "-",
                        ]
                        for r in rows
                    ],
                )
                lost = answered - recorded
                print(f"  moves answered 200: {answered}, recorded: {recorded}" + (f"  LOST {lost}" if lost else ""))
        if "scan" in sections:
            total = 1_000_000 if args.scale else 100_000
            began = time.perf_counter()
            seed_running(total, 1000)
            seeded = time.perf_counter() - began
            result = time_scan()
            print_table(
                f"Deadline scan (clock_scan.next_due until none is left): {total:,} running matches, "
                f"1,000 due (seeded in {seeded:.1f} s)",
                ["all due, first ms", "all due, median ms", "per match ms", "found"],
                [[f1(result["first"]), f1(result["median"]), f"{result['per_match']:.2f}", result["found"]]],
            )
        if "pages" in sections:
            matches, players = (1_000_000, 100_000) if args.scale else (10_000, 1_000)
            began = time.perf_counter()
            seed_finished(matches, players)
            if connection.vendor == "postgresql":
                with connection.cursor() as cursor:
                    cursor.execute("ANALYZE")
            seeded = time.perf_counter() - began
            rows = time_pages(args.pages.split(","), args.page_timeout)
            print_table(
                f"Pages, server time: {matches:,} finished matches, {players:,} players (seeded in {seeded:.1f} s)",
                ["page", "status", "first ms", "median ms"],
                [[r["page"], r["status"], f1(r["first"]), f1(r["median"])] for r in rows],
            )
    finally:
        print(f"\nload average at end: {load_average()} (at start: {started_load})")
        if not args.keep:
            drop_database(database_url)
        if redis_url:
            import redis

            redis.Redis.from_url(redis_url).flushdb()


if __name__ == "__main__":
    main()
