"""Scale out, not only up: gin3 on many processes plays many matches at once.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/gin3 REDIS_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/python scripts/scale_out.py [--matches 50] [--target 50] [--clock 5m] [--compare]

It starts 2 web processes (``manage.py serve``'s ``manage.py web``, one worker each),
2 Celery workers and beat, on PostgreSQL (a database of its own,
``<name>_scaleout``, dropped at the end) and Redis (database ``--redis-db``,
flushed before and after), with a fake Telegram (tests/fakes) as the Bot API.
Then it plays the matches at once: each has one human, played by this script
as a Telegram user whose moves are real updates posted to the webhook (to
the web processes in turn), and two computer players, played by the workers.
The human knocks when he may and otherwise plays what a player who is away
plays; he reads the table from the database, as a shortcut for reading it
from Telegram.

When every match has finished and every message has been delivered, it
checks, and exits with status 1 on any failure:

* every match finished;
* no move lost or applied twice: every update it posted was answered 200
  and recorded once, and the human's moves in the event log are exactly the
  moves it posted;
* every message sent once: for each chat, the messages the outbox marked
  sent are exactly the calls the fake Telegram received (sendMessage or
  editMessageText), and nothing is left undelivered.

``--compare`` plays the same again with 1 web process and 1 worker first, and
prints how the throughput (moves per second, all players) grows from 1 to 2.
``--metrics`` prints gin3's metrics as a web process serves them at the end
(every process counts into one folder: games/metrics.py).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SECRET = "scale-out-webhook-secret"
METRICS_TOKEN = "scale-out-metrics-token"
BOT_USERNAME = "gin3_scale_bot"
PORTS = range(18170, 18200)
FIRST_USER = 8_000_000


def fail(message: str) -> None:
    raise SystemExit(f"scale_out: {message}")


def own_database_url(url: str) -> str:
    if not url.startswith("postgres"):
        fail("DATABASE_URL must be a PostgreSQL URL (postgres://...)")
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/") + "_scaleout", "", ""))


def own_redis_url(url: str, db: int) -> str:
    if not url.startswith("redis"):
        fail("REDIS_URL must be a Redis URL (redis://...)")
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{db}", "", ""))


def postgres_admin(url: str, statement: str) -> None:
    import psycopg

    parts = urlsplit(url)
    with psycopg.connect(urlunsplit(("postgresql", parts.netloc, "/postgres", "", "")), autocommit=True) as conn:
        conn.execute(statement)


def free_ports(count: int) -> list[int]:
    found = []
    for port in PORTS:
        with socket.socket() as probe, contextlib.suppress(OSError):
            probe.bind(("127.0.0.1", port))
            found.append(port)
            if len(found) == count:
                return found
    fail("not enough free ports in 18170-18199")
    return []


@dataclass
class Cluster:
    """The processes of one run, each in its own process group, output to a log file."""

    env: dict[str, str]
    log_dir: Path
    processes: list[tuple[str, subprocess.Popen]] = field(default_factory=list)
    web_ports: list[int] = field(default_factory=list)

    def start(self, name: str, argv: list[str], extra: dict[str, str] | None = None) -> None:
        log = (self.log_dir / f"{name}.log").open("w")
        process = subprocess.Popen(
            argv,
            cwd=ROOT,
            env={**os.environ, **self.env, **(extra or {})},
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.processes.append((name, process))

    def check_alive(self) -> None:
        for name, process in self.processes:
            if process.poll() is not None:
                fail(f"{name} exited with {process.returncode}: {(self.log_dir / f'{name}.log').read_text()[-3000:]}")

    def stop(self) -> None:
        for _name, process in self.processes:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
        for _name, process in self.processes:
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)


def start_cluster(env: dict[str, str], log_dir: Path, web: int, workers: int) -> Cluster:
    from games.management.commands.serve import web_command

    python = sys.executable
    cluster = Cluster(env, log_dir)
    cluster.web_ports = free_ports(web)
    for number, port in enumerate(cluster.web_ports, 1):
        cluster.start(f"web{number}", web_command(python, "127.0.0.1", port), {"GIN3_WEB_WORKERS": "1"})
    celery = [python, "-m", "celery", "-A", "gin3site"]
    for number in range(1, workers + 1):
        worker = [*celery, "worker", "--loglevel", "WARNING", "--concurrency", "1", "-n", f"scale{number}@%h"]
        cluster.start(f"worker{number}", worker)
    cluster.start("beat", [*celery, "beat", "--loglevel", "WARNING", "-s", str(log_dir / "celerybeat-schedule")])
    deadline = time.monotonic() + 60
    for port in cluster.web_ports:
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            cluster.check_alive()
            if time.monotonic() > deadline:
                fail(f"the web process on port {port} did not start")
            time.sleep(0.1)
    return cluster


class Human:
    """One match's human: a fake Telegram user whose moves go to the webhook over HTTP."""

    def __init__(self, user) -> None:
        self.user = user
        self.player = None
        self.match_id: int | None = None
        self.played_version: int | None = None
        self.moves_sent = 0
        self.statuses: Counter[int] = Counter()
        self.update_ids: list[int] = []


class Poster:
    """Posts updates to the web processes in turn, as Telegram would to a load balancer."""

    def __init__(self, ports: list[int]) -> None:
        self.ports = ports
        self.turn = 0

    def post(self, human: Human, text: str) -> int:
        update = human.user.message_update(text)
        port = self.ports[self.turn % len(self.ports)]
        self.turn += 1
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/telegram/webhook/",
            data=json.dumps(update).encode(),
            headers={"Content-Type": "application/json", "X-Telegram-Bot-Api-Secret-Token": SECRET},
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                status = response.status
        except urllib.error.HTTPError as error:
            status = error.code
        except OSError:
            status = 0
        human.statuses[status] += 1
        human.update_ids.append(update["update_id"])
        return status


def human_move(match_id: int, player_id: int, version: int):
    """The human's move if it is his turn at ``version``: a knock when he may, else a safe move."""
    from django.db import transaction

    from games.engine import Knock
    from games.models import Match
    from games.services.plumbing import state
    from games.services.write import computer_moves

    with transaction.atomic():
        match = Match.objects.get(pk=match_id)
        if match.version != version or match.status != Match.Status.RUNNING:
            return None
        seat = match.seats.get(position=match.turn_seat)
        if seat.player_id != player_id:
            return None
        hand = state.load_hand(match, state.current_hand_row(match))
    knocks = [action for action in hand.legal_actions() if isinstance(action, Knock)]
    if knocks:
        return min(knocks, key=lambda knock: hand.count_after_discard(knock.card))
    return computer_moves.safe_move(hand)


def play(fake, poster: Poster, count: int, target: int, clock: str, timeout: float, cluster: Cluster) -> dict:
    from games.models import Match, Player

    humans = [Human(fake.user(FIRST_USER + number, f"Human{number}")) for number in range(count)]
    started = time.monotonic()
    for human in humans:
        for text in (f"new {clock} to {target}", "bot", "bot"):
            if poster.post(human, text) != 200:
                fail(f"{text!r} from {human.user.first_name} was not answered 200")
    for human in humans:
        human.player = Player.objects.get(telegram_user_id=human.user.id)
        human.match_id = Match.objects.filter(created_by=human.player).latest("pk").pk
    ids = {human.match_id: human for human in humans}
    deadline = started + timeout
    while True:
        cluster.check_alive()
        running = list(Match.objects.filter(pk__in=ids).exclude(status=Match.Status.FINISHED).values("pk", "version"))
        if not running:
            break
        if time.monotonic() > deadline:
            fail(f"{len(running)} of {count} matches still not finished after {timeout:g} s")
        acted = False
        for row in running:
            human = ids[row["pk"]]
            if human.played_version == row["version"]:
                continue
            action = human_move(row["pk"], human.player.pk, row["version"])
            if action is None:
                continue
            human.played_version = row["version"]
            human.moves_sent += 1
            poster.post(human, str(action))
            acted = True
        if not acted:
            time.sleep(0.1)
    elapsed = time.monotonic() - started
    return {"humans": humans, "elapsed": elapsed}


def wait_delivered(timeout: float) -> None:
    from games.models import Outbox

    deadline = time.monotonic() + timeout
    waiting = Outbox.objects.filter(channel=Outbox.Channel.TELEGRAM, status__in=("pending", "sending"))
    while waiting.exists():
        if time.monotonic() > deadline:
            fail(f"{waiting.count()} messages still not delivered after {timeout:g} s")
        time.sleep(0.5)


def check(fake, humans: list[Human]) -> list[str]:
    """Every failure found, in words; none when all is well."""
    from games.models import Event, Match, Outbox, ProcessedUpdate

    failures = []
    ids = [human.match_id for human in humans]
    unfinished = Match.objects.filter(pk__in=ids).exclude(status=Match.Status.FINISHED).count()
    if unfinished:
        failures.append(f"{unfinished} matches not finished")
    for human in humans:
        name = human.user.first_name
        if set(human.statuses) != {200}:
            failures.append(f"{name}: answers {dict(human.statuses)}, not all 200")
        keys = [f"tg:{update_id}" for update_id in human.update_ids]
        recorded = Counter(ProcessedUpdate.objects.filter(key__in=keys).values_list("key", flat=True))
        if len(recorded) != len(keys) or any(n != 1 for n in recorded.values()):
            failures.append(f"{name}: {len(keys)} updates posted, {len(recorded)} recorded")
        moves = Event.objects.filter(match_id=human.match_id, kind=Event.Kind.MOVE, actor=human.player).count()
        if moves != human.moves_sent:
            failures.append(f"{name}: {human.moves_sent} moves posted, {moves} in the event log")
    sent = Counter(
        Outbox.objects.filter(channel=Outbox.Channel.TELEGRAM, status=Outbox.Status.SENT).values_list(
            "address", flat=True
        )
    )
    calls = Counter(
        str(params.get("chat_id")) for method, params in fake.calls if method in ("sendMessage", "editMessageText")
    )
    for chat in set(sent) | set(calls):
        if sent[chat] != calls[chat]:
            failures.append(f"chat {chat}: {sent[chat]} messages marked sent, {calls[chat]} received by Telegram")
    # A table that a newer table of its match replaced before it was sent is not sent, by design.
    done = (Outbox.Status.SENT, Outbox.Status.SUPERSEDED)
    other = Outbox.objects.filter(channel=Outbox.Channel.TELEGRAM).exclude(status__in=done).count()
    if other:
        failures.append(f"{other} messages not sent")
    return failures


def scrape(port: int) -> str:
    """/metrics of a web process: every process's counters and the gauges."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.read().decode()


def run(args, web: int, workers: int, base_env: dict[str, str], log_dir: Path) -> dict:
    """One run on a fresh database and Redis: start, play, check, stop."""
    import redis
    from django.core.management import call_command
    from django.db import connections

    from tests.fakes.telegram_api import FakeTelegram

    database_url = base_env["DATABASE_URL"]
    name = urlsplit(database_url).path.lstrip("/")
    for stale in Path(base_env["PROMETHEUS_MULTIPROC_DIR"]).glob("*.db"):
        stale.unlink()  # counts of this run only, as serve does when it starts
    connections.close_all()
    postgres_admin(database_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    postgres_admin(database_url, f'CREATE DATABASE "{name}"')
    redis.Redis.from_url(base_env["REDIS_URL"]).flushdb()
    call_command("migrate", verbosity=0, interactive=False)
    with FakeTelegram(username=BOT_USERNAME) as fake:
        env = {**base_env, "TELEGRAM_BOT_TOKEN": fake.token, "TELEGRAM_API_URL": fake.url}
        cluster = start_cluster(env, log_dir, web, workers)
        try:
            result = play(fake, Poster(cluster.web_ports), args.matches, args.target, args.clock, args.timeout, cluster)
            wait_delivered(args.timeout)
            if args.metrics:
                result["metrics"] = scrape(cluster.web_ports[0])
        finally:
            cluster.stop()
        from games.models import Event, Outbox

        result["moves"] = Event.objects.filter(kind=Event.Kind.MOVE).count()
        result["messages"] = Outbox.objects.filter(channel=Outbox.Channel.TELEGRAM).count()
        result["failures"] = check(fake, result["humans"])
    return result


def gin3_lines(exposition: str) -> str:
    """gin3's own samples (not the client's about itself), empty buckets left out."""
    lines = [line for line in exposition.splitlines() if line.startswith(("gin3_", "# HELP gin3_", "# TYPE gin3_"))]
    return "\n".join(line for line in lines if not ("_bucket{" in line and line.endswith(" 0.0")))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=50)
    parser.add_argument("--target", type=int, default=50, help="points to win a match (50 is the least)")
    parser.add_argument("--clock", default="5m", help="time for a move")
    parser.add_argument("--redis-db", type=int, default=14)
    parser.add_argument("--timeout", type=float, default=600, help="seconds for the matches to finish")
    parser.add_argument("--compare", action="store_true", help="also run with 1 web process and 1 worker first")
    parser.add_argument("--keep", action="store_true", help="keep the database and the logs")
    parser.add_argument("--metrics", action="store_true", help="print /metrics at the end of each run")
    args = parser.parse_args()
    # Stopped from outside (a CI run whose tests failed, a timeout), the run still stops
    # its processes and drops its database on the way out, as it does when it ends.
    signal.signal(signal.SIGTERM, lambda _signal, _frame: sys.exit(128 + signal.SIGTERM))

    database_url = own_database_url(os.environ.get("DATABASE_URL", ""))
    redis_url = own_redis_url(os.environ.get("REDIS_URL", ""), args.redis_db)
    log_dir = Path(tempfile.mkdtemp(prefix="gin3-scale-out-"))
    base_env = {
        "DJANGO_SETTINGS_MODULE": "gin3site.settings",
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "DB_CONN_MAX_AGE": "60",
        "GIN3_VAR_DIR": str(log_dir / "var"),
        "GIN3_BACKGROUND": "celery",
        "GIN3_PLAIN_HTTP": "1",  # the web processes serve plain HTTP on 127.0.0.1
        "TELEGRAM_BOT_USERNAME": BOT_USERNAME,
        "TELEGRAM_WEBHOOK_SECRET": SECRET,
        "LOG_LEVEL": "WARNING",
        "GIN3_METRICS_TOKEN": METRICS_TOKEN,
        "PROMETHEUS_MULTIPROC_DIR": str(log_dir / "metrics"),
        # The humans here are this script, which moves as fast as the server answers:
        # far past a person's pace, which the limit on commands per minute is for.
        "GIN3_COMMANDS_PER_MINUTE": "100000",
        # A computer captain waits for a person sitter's advice before its first move of
        # a hand; the script's humans never advise, so a person's 30 s would only idle.
        "GIN3_ADVICE_WAIT_SECONDS": "2",
        # Its workers take every queue, the review's too: a finished hand's review, 30 s of
        # search by default, held a worker while the moves queued behind it (258 s a run,
        # not 96). The review is still run and stored for every hand, in 1 s.
        "GIN3_REVIEW_SECONDS": "1",
    }
    os.environ.update(base_env)
    import django

    django.setup()
    print(f"scale-out: {args.matches} matches to {args.target}, {args.clock} a move; logs in {log_dir}")
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    setups = [(1, 1), (2, 2)] if args.compare else [(2, 2)]
    results = []
    failed = False
    try:
        for web, workers in setups:
            result = run(args, web, workers, base_env, log_dir)
            results.append((web, workers, result))
            humans = result["humans"]
            print(
                f"\n{web} web, {workers} workers, 1 beat: "
                f"{args.matches} matches finished in {result['elapsed']:.1f} s, "
                f"{result['moves']} moves ({result['moves'] / result['elapsed']:.1f}/s), "
                f"{sum(h.moves_sent for h in humans)} of them posted by the humans over the webhook, "
                f"{result['messages']} messages delivered"
            )
            for failure in result["failures"]:
                print(f"  FAILED: {failure}")
            if "metrics" in result:
                print(f"\n/metrics after the run:\n{gin3_lines(result['metrics'])}")
            if result["failures"]:
                failed = True
            else:
                print("  every match finished; no move lost or applied twice; every message sent once")
        if len(results) == 2:
            (_w1, _k1, one), (_w2, _k2, two) = results
            rate1, rate2 = one["moves"] / one["elapsed"], two["moves"] / two["elapsed"]
            print(f"\nthroughput 1 -> 2 processes of each: {rate1:.1f} -> {rate2:.1f} moves/s ({rate2 / rate1:.2f}x)")
    finally:
        print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        if not args.keep:
            from django.db import connections

            connections.close_all()
            postgres_admin(
                database_url, f'DROP DATABASE IF EXISTS "{urlsplit(database_url).path.lstrip("/")}" WITH (FORCE)'
            )
            import redis

            redis.Redis.from_url(redis_url).flushdb()
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
