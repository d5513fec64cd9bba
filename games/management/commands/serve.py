"""``python manage.py serve`` (``make run``): everything gin3 needs on one machine, in one terminal.

It migrates the database, collects the admin's static files, makes an admin
account the first time (``ensureadmin``), then runs each part as its own
process, as it would run on a server: the site (``manage.py web``, ``web_command``), a
Celery worker for each queue (``worker_command``: the clock scan, delivery,
computer moves), Celery beat (the clocks' pace) and, when
``TELEGRAM_BOT_TOKEN`` is set, the Telegram bot by long polling. Their output
is shown line by line behind their names. ``--only PART`` runs one part alone,
without the set-up (a container of docker-compose.yml: the migrations are a
service of their own there, the static files are in the image).

The admin account's password (and how to get a new one) is shown last, framed,
once every process has said what it says when it starts (and again if one says
more in its first minute): Celery's banner and its warnings came after it and
pushed it out of a 50-row terminal.

Why a small supervisor of our own rather than honcho or supervisord: the list
of processes depends on the settings (the bot only with a token, a single
worker process on SQLite), and stopping them cleanly is a few lines. Ctrl-C
(or SIGTERM) stops every process with SIGTERM, waits for them to finish what
they are doing, and kills what is left. A process that dies is started again
after a back-off (1 s, doubling to 30 s, reset once it has run a minute), as
a supervisor would: one crashed worker never takes the site or beat down.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
GRACE_SECONDS = 15  # a worker finishes its task before it stops
QUIET_SECONDS = 2.0  # no child has printed for this long: their start-up banners are over
COLORS = ("36", "33", "35", "32", "34")


@dataclass
class Child:
    name: str
    argv: list[str]
    process: subprocess.Popen | None = None
    reader: threading.Thread | None = field(default=None, repr=False)
    pass_fds: tuple[int, ...] = ()  # descriptors it inherits (the web's listening socket)
    started_at: float = 0.0
    failures: int = 0  # exits in a row, each after less than ``Supervisor.stable_after`` seconds
    restart_at: float | None = None  # set while it waits out its back-off


class Command(BaseCommand):
    help = "Run the site, the Celery worker and beat, and the Telegram bot if configured, until Ctrl-C."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--host", default="127.0.0.1", help="address the site listens on (127.0.0.1)")
        parser.add_argument("--port", type=int, default=8000, help="port of the site (8000)")
        parser.add_argument(
            "--only",
            choices=("web", *settings.GIN3_QUEUES, "beat", "bot"),
            help="run this part alone, without migrating or the admin account (a container)",
        )

    def handle(self, *args, host: str, port: int, only: str | None, **options) -> None:
        if only:
            children = [child for child in self.children(host, port, bot=True) if child.name == only]
            self.stdout.write(f"gin3's {only} only; Ctrl-C or SIGTERM stops it.")
            Supervisor(children, self.stdout).run()
            return
        call_command("migrate", interactive=False, verbosity=1)
        call_command("collectstatic", interactive=False, verbosity=0)
        admin = io.StringIO()
        call_command("ensureadmin", site=f"http://{host}:{port}", stdout=admin)
        forget_metrics()
        children = self.children(host, port)
        self.stdout.write(
            f"gin3 at http://{host}:{port}/ (admin: /admin/); Ctrl-C stops everything.\n"
            "Play from another terminal: make play (or .venv/bin/python manage.py play).\n"
            + ("" if settings.TELEGRAM_BOT_TOKEN else "Telegram is off: set TELEGRAM_BOT_TOKEN (README).\n")
            + ("" if settings.SMS_ENABLED else "SMS is off: set TWILIO_* (docs/sms.md).")
        )
        Supervisor(children, self.stdout, last_words=framed(admin.getvalue())).run()

    def children(self, host: str, port: int, bot: bool = False) -> list[Child]:
        """Every part to run; the bot only with a token (or when asked for by name)."""
        python = sys.executable
        children = [
            Child("web", web_command(python, host, port)),
            *(Child(queue, worker_command(python, queue)) for queue in settings.GIN3_QUEUES),
            # Not a line per scan; the scheduler records beat's heartbeat (games.heartbeat).
            Child("beat", [python, "-m", "celery", "-A", "gin3site", "beat", "--loglevel", "WARNING"]),
        ]
        if bot or getattr(settings, "TELEGRAM_BOT_TOKEN", ""):
            children.append(Child("bot", [python, str(settings.BASE_DIR / "manage.py"), "runbot"]))
        return children


def framed(text: str) -> str:
    """``text`` between two rules, a blank line before: what the eye must find."""
    lines = text.strip().splitlines()
    rule = "=" * (max((len(line) for line in lines), default=0) + 4)
    return "\n".join(["", rule, *(f"  {line}" for line in lines), rule])


def forget_metrics() -> None:
    """Empty the metrics folder when the whole set starts: the counts of processes
    that are gone would otherwise be added up for ever (games/metrics.py)."""
    from games import metrics

    for stale in Path(metrics.DIRECTORY).glob("*.db"):
        stale.unlink(missing_ok=True)


def worker_command(python: str, queue: str) -> list[str]:
    """A Celery worker for one queue (``settings.GIN3_QUEUES``), named after it.

    Each queue has workers of its own, so that a backlog of deliveries never makes
    a deadline or a computer move late. The clock worker needs one process: a
    scan is short and scans side by side only share the due matches. The others
    run ``CELERY_WORKER_CONCURRENCY`` processes, each with a database connection
    (docs/deploy.md, "Connections").
    """
    argv = [python, "-m", "celery", "-A", "gin3site", "worker", "--queues", queue, "--hostname", f"{queue}@%h"]
    argv += ["--loglevel", "INFO"]
    if settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"):
        argv += ["--pool", "solo"]  # one writer at a time is all SQLite has
    elif queue == "clock":
        argv += ["--concurrency", "1"]
    if not settings.REDIS_URL:
        # The filesystem broker on one machine: no other worker to sync or gossip with.
        argv += ["--without-mingle", "--without-gossip", "--without-heartbeat"]
    return argv


def web_command(python: str, host: str, port: int) -> list[str]:
    """The site's server, as ``serve`` runs it, a server's image runs it and bench/load.py
    measures it: ``manage.py web`` (waitress in ``GIN3_WEB_WORKERS`` processes of
    ``GIN3_WEB_THREADS`` threads; ``games/management/commands/web.py`` says why)."""
    return [python, str(settings.BASE_DIR / "manage.py"), "web", "--host", host, "--port", str(port)]


class Supervisor:
    """Starts the children, prefixes their output, restarts one that dies, and stops them all together.

    A child that exits while we are not stopping is started again after a
    back-off: ``first_delay`` seconds, doubled after each exit up to
    ``max_delay``, and back to ``first_delay`` once the child has run for
    ``stable_after`` seconds. One crashed process (a worker killed by the OOM
    killer, a web server that lost its socket) so never takes the others down,
    and a child that cannot start at all is retried slowly rather than in a loop.
    """

    def __init__(
        self,
        children: list[Child],
        out,
        first_delay: float = 1.0,
        max_delay: float = 30.0,
        stable_after: float = 60.0,
        grace: float = GRACE_SECONDS,
        last_words: str = "",
        quiet_after: float = QUIET_SECONDS,
        last_words_within: float = 60.0,
    ) -> None:
        self.children = children
        self.out = out
        self.first_delay = first_delay
        self.max_delay = max_delay
        self.stable_after = stable_after
        self.grace = grace
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.width = max(len(child.name) for child in children)
        self.color = out.isatty()
        self.last_words = last_words  # said once the children's start-up output is over
        self.quiet_after = quiet_after
        self.last_words_within = last_words_within
        self.heard: set[str] = set()  # the children that have printed something
        self.last_heard = 0.0
        self.said_at: float | None = None  # when the last words were said last

    def run(self) -> None:
        """Run until a stop signal (or until the caller sets ``stop``), then stop every child."""
        if threading.current_thread() is threading.main_thread():
            for signum in STOP_SIGNALS:
                signal.signal(signum, lambda *_: self.stop.set())
        for child in self.children:
            self.start(child)
        started = time.monotonic()
        while not self.stop.wait(0.2):
            for child in self.children:
                self.look_after(child)
            self.say_last_words(started)
        self.terminate()

    def say_last_words(self, started: float) -> None:
        """The last words, once every child has printed something and none has for
        ``quiet_after`` seconds (``last_words_within`` seconds after the start at the
        latest); and again after any output that follows them in that time, so that
        they stay the last thing on the screen whatever a slow child prints late."""
        if not self.last_words:
            return
        now = time.monotonic()
        starting = now - started < self.last_words_within
        if self.said_at is not None and (self.last_heard <= self.said_at or not starting):
            return
        quiet = len(self.heard) == len(self.children) and now - self.last_heard >= self.quiet_after
        if quiet or (self.said_at is None and not starting):
            with self.lock:
                self.out.write(self.last_words)
                self.out.flush()
            self.said_at = now

    def start(self, child: Child) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        child.process = subprocess.Popen(
            child.argv,
            cwd=settings.BASE_DIR,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            start_new_session=True,  # Ctrl-C reaches us only; we stop them in order
            pass_fds=child.pass_fds,
        )
        child.started_at = time.monotonic()
        child.restart_at = None
        child.reader = threading.Thread(target=self.relay, args=(child, child.process), daemon=True)
        child.reader.start()
        self.say(child, f"started (pid {child.process.pid}): {' '.join(child.argv[1:])}")

    def look_after(self, child: Child) -> None:
        """Notice that a child exited and plan its restart; restart it when its back-off is over."""
        if child.restart_at is not None:
            if time.monotonic() >= child.restart_at:
                self.start(child)
            return
        code = child.process.poll()
        if code is None:
            return
        child.reader.join(2)  # its last words before the news of its death
        ran = time.monotonic() - child.started_at
        child.failures = 1 if ran >= self.stable_after else child.failures + 1
        delay = min(self.first_delay * 2 ** (child.failures - 1), self.max_delay)
        child.restart_at = time.monotonic() + delay
        self.say(child, f"exited with {describe(code)} after {ran:.0f} s: restarting in {delay:g} s")

    def terminate(self) -> None:
        """SIGTERM to every running child's process group, a grace period, then SIGKILL."""
        running = [child for child in self.children if child.process is not None and child.restart_at is None]
        for child in running:
            self.signal(child, signal.SIGTERM)
        deadline = time.monotonic() + self.grace
        for child in running:
            try:
                child.process.wait(max(deadline - time.monotonic(), 0))
            except subprocess.TimeoutExpired:
                self.say(child, f"still running after {self.grace:g} s: killed")
                self.signal(child, signal.SIGKILL)
                child.process.wait()
            # What its process group left behind (a worker's pool, a server's workers) goes too.
            self.signal(child, signal.SIGKILL)
            child.reader.join(2)
            self.say(child, f"stopped ({describe(child.process.returncode)})")

    @staticmethod
    def signal(child: Child, signum: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(child.process.pid, signum)

    def relay(self, child: Child, process: subprocess.Popen) -> None:
        for line in process.stdout:
            self.heard.add(child.name)
            self.last_heard = time.monotonic()
            self.say(child, line.rstrip("\n"))

    def say(self, child: Child, line: str) -> None:
        index = self.children.index(child)
        name = child.name.ljust(self.width)
        prefix = f"\x1b[{COLORS[index % len(COLORS)]}m{name} |\x1b[0m" if self.color else f"{name} |"
        with self.lock:
            self.out.write(f"{prefix} {line}")
            self.out.flush()


def describe(code: int) -> str:
    """An exit status as people read it: ``3``, or ``SIGKILL`` for a process killed by a signal."""
    if code < 0:
        with contextlib.suppress(ValueError):
            return signal.Signals(-code).name
    return str(code)
