"""``python manage.py serve`` (``make run``): everything gin3 needs on one machine, in one terminal.

It migrates the database, collects the admin's static files, makes an admin
account the first time (``ensureadmin``), then runs each part as its own
process, as it would run on a server: the site (uvicorn), the Celery worker,
Celery beat (the sweep's clock) and, when ``TELEGRAM_BOT_TOKEN`` is set, the
Telegram bot by long polling. Their output is shown line by line behind
their names.

Why a small supervisor of our own rather than honcho or supervisord: the list
of processes depends on the settings (the bot only with a token, a single
worker process on SQLite), and stopping them cleanly is a few lines. Ctrl-C
(or SIGTERM) stops every process with SIGTERM, waits for them to finish what
they are doing, and kills what is left; if one process dies, the others are
stopped too, so nothing runs half-started.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
GRACE_SECONDS = 15  # a worker finishes its task before it stops
COLORS = ("36", "33", "35", "32", "34")


@dataclass
class Child:
    name: str
    argv: list[str]
    process: subprocess.Popen | None = None
    reader: threading.Thread | None = field(default=None, repr=False)


class Command(BaseCommand):
    help = "Run the site, the Celery worker and beat, and the Telegram bot if configured, until Ctrl-C."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--host", default="127.0.0.1", help="address the site listens on (127.0.0.1)")
        parser.add_argument("--port", type=int, default=8000, help="port of the site (8000)")

    def handle(self, *args, host: str, port: int, **options) -> None:
        call_command("migrate", interactive=False, verbosity=1)
        call_command("collectstatic", interactive=False, verbosity=0)
        call_command("ensureadmin")
        children = self.children(host, port)
        self.stdout.write(
            f"gin3 at http://{host}:{port}/ (admin: /admin/); Ctrl-C stops everything.\n"
            "Play from another terminal: make play (or .venv/bin/python manage.py play).\n"
            + ("" if settings.TELEGRAM_BOT_TOKEN else "Telegram is off: set TELEGRAM_BOT_TOKEN (README).\n")
            + ("" if settings.SMS_ENABLED else "SMS is off: set TWILIO_* (docs/sms.md).")
        )
        code = Supervisor(children, self.stdout).run()
        if code:
            sys.exit(code)

    def children(self, host: str, port: int) -> list[Child]:
        python = sys.executable
        celery = [python, "-m", "celery", "-A", "gin3site"]
        worker = [*celery, "worker", "--loglevel", "INFO"]
        if settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"):
            worker += ["--pool", "solo"]  # one writer at a time is all SQLite has
        if not settings.REDIS_URL:
            # The filesystem broker on one machine: no other worker to sync or gossip with.
            worker += ["--without-mingle", "--without-gossip", "--without-heartbeat"]
        children = [
            Child(
                "web",
                [
                    python,
                    "-m",
                    "uvicorn",
                    "gin3site.asgi:application",
                    "--host",
                    host,
                    "--port",
                    str(port),
                    "--lifespan",
                    "off",
                ],
            ),
            Child("worker", worker),
            Child("beat", [*celery, "beat", "--loglevel", "INFO"]),
        ]
        if getattr(settings, "TELEGRAM_BOT_TOKEN", ""):
            children.append(Child("bot", [python, str(settings.BASE_DIR / "manage.py"), "runbot"]))
        return children


class Supervisor:
    """Starts the children, prefixes their output, and stops them all together."""

    def __init__(self, children: list[Child], out) -> None:
        self.children = children
        self.out = out
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.width = max(len(child.name) for child in children)
        self.color = out.isatty()

    def run(self) -> int:
        """Run until a stop signal or a child's exit; return the exit code to give."""
        for signum in STOP_SIGNALS:
            signal.signal(signum, lambda *_: self.stop.set())
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        for index, child in enumerate(self.children):
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
            )
            child.reader = threading.Thread(target=self.relay, args=(child, index), daemon=True)
            child.reader.start()
            self.say(child, index, f"started (pid {child.process.pid}): {' '.join(child.argv[1:])}")
        code = 0
        while not self.stop.wait(0.2):
            ended = next((child for child in self.children if child.process.poll() is not None), None)
            if ended is not None:
                code = ended.process.returncode or 1
                self.say(ended, self.children.index(ended), f"exited with {ended.process.returncode}: stopping all")
                break
        self.terminate()
        return code

    def terminate(self) -> None:
        """SIGTERM to every child's process group, a grace period, then SIGKILL."""
        started = [child for child in self.children if child.process is not None]
        for child in started:
            self.signal(child, signal.SIGTERM)
        deadline = time.monotonic() + GRACE_SECONDS
        for child in started:
            index = self.children.index(child)
            try:
                child.process.wait(max(deadline - time.monotonic(), 0))
            except subprocess.TimeoutExpired:
                self.say(child, index, f"still running after {GRACE_SECONDS} s: killed")
                self.signal(child, signal.SIGKILL)
                child.process.wait()
            child.reader.join(2)
            code = child.process.returncode
            self.say(child, index, "stopped" + (f" ({signal.Signals(-code).name})" if code < 0 else f" ({code})"))

    @staticmethod
    def signal(child: Child, signum: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.process.pid, signum)

    def relay(self, child: Child, index: int) -> None:
        for line in child.process.stdout:
            self.say(child, index, line.rstrip("\n"))

    def say(self, child: Child, index: int, line: str) -> None:
        name = child.name.ljust(self.width)
        prefix = f"\x1b[{COLORS[index % len(COLORS)]}m{name} |\x1b[0m" if self.color else f"{name} |"
        with self.lock:
            self.out.write(f"{prefix} {line}")
            self.out.flush()
