"""Driving ``manage.py play`` in tests: in this process with scripted input, or as a real process.

Why a harness: every test of the terminal channel runs the whole command and
reads what it printed; they should read as what the player typed and saw.
The command's refresher thread reads the database on a connection of its
own, so the tests that run it are transactional (``django_db(transaction=True)``):
it sees only what was committed.
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from unittest import mock

from django.conf import settings
from django.core.management import call_command

from bot.terminal.interrupts import WAKE_SIGNAL
from tests.workers import database_url

ROOT = Path(__file__).resolve().parent.parent
Typist = Callable[..., str]


class Script:
    """Types ``lines`` one per prompt, then ends the input as Ctrl-D does."""

    def __init__(self, lines: Iterable[str]) -> None:
        self.lines = list(lines)
        self.read = 0

    def __call__(self, prompt: str = "") -> str:
        if self.read >= len(self.lines):
            raise EOFError
        self.read += 1
        return self.lines[self.read - 1]

    @property
    def left(self) -> int:
        return len(self.lines) - self.read


@dataclass
class Session:
    """What a run of the command printed and how it ended."""

    out: io.StringIO = field(default_factory=io.StringIO)
    status: int = 0

    @property
    def text(self) -> str:
        return self.out.getvalue()


# A new player speaks his locale's language: the tests' players speak English unless a test says otherwise.
ENGLISH = {"LANGUAGE": "en"}


def play(
    *args: str,
    typist: Typist | Iterable[str] = (),
    session: Session | None = None,
    environment: dict[str, str] | None = None,
) -> Session:
    """Run ``manage.py play ARGS`` here, answering each prompt with ``typist``
    (a function, or lines); the exit status is kept, not raised. ``environment``
    sets variables for the run (a locale)."""
    session = session or Session()
    answer = typist if callable(typist) else Script(typist)
    locale = mock.patch.dict(os.environ, {**ENGLISH, **(environment or {})})
    with mock.patch("builtins.input", _shielded(answer)), locale:
        try:
            call_command("play", *args, stdout=session.out)
        except SystemExit as exit:
            session.status = exit.code
    return session


def _shielded(typist: Typist) -> Typist:
    """The typist, with the refresher's wake-up held back while it types.

    A typist may read the database, and the wake-up is a signal whose handler
    raises: landing in the middle of a PostgreSQL query, it left the test's
    connection with "another command is already in progress". The signal is
    let through while the typist waits as a player who types nothing would
    (``idle``) and as it returns, so it ends this wait for a line as it would
    end a real ``input()``."""
    if WAKE_SIGNAL is None:
        return typist

    def typed(*args: str) -> str:
        signal.pthread_sigmask(signal.SIG_BLOCK, {WAKE_SIGNAL})
        try:
            return typist(*args)
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {WAKE_SIGNAL})

    return typed


def idle(seconds: float) -> None:
    """In a typist: type nothing for a while, which the refresher's wake-up may end (it raises)."""
    if WAKE_SIGNAL is not None:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {WAKE_SIGNAL})
    try:
        time.sleep(seconds)
    finally:
        if WAKE_SIGNAL is not None:
            signal.pthread_sigmask(signal.SIG_BLOCK, {WAKE_SIGNAL})


def assert_clean(text: str) -> None:
    """No traceback, and no sign of a bug caught on the way."""
    assert "Traceback" not in text
    assert "Something went wrong" not in text
    assert "Error" not in text


def process(*args: str, tmp_path: Path, environment: dict[str, str] | None = None) -> subprocess.Popen:
    """``manage.py play ARGS`` as a real process on the test database, its stdin,
    stdout and stderr pipes (bytes), with nothing going to a worker; ``environment``
    adds settings of its own."""
    env = {
        **os.environ,
        **ENGLISH,
        **(environment or {}),
        "DATABASE_URL": database_url(),
        "GIN3_BACKGROUND": "off",
        "GIN3_VAR_DIR": str(tmp_path),
        "SITE_URL": settings.GIN3_SITE_URL,
        "PYTHONUNBUFFERED": "1",
    }
    return subprocess.Popen(
        [sys.executable, "manage.py", "play", *args],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
