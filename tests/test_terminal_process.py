"""``manage.py play`` as a real process: a pipe for input, a pipe that closes, Ctrl-C,
and what arrives while it waits.

Why: ``make play`` runs in a terminal, under a pipe (``make play < moves.txt``,
``make play | tee log``) or in a script; the in-process tests fake ``input()``,
these check the real streams and signals: never a traceback.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from bot.terminal.screen import CLEAR_LINE
from games.models import Match
from games.services import handle
from tests.terminal_harness import ENGLISH, ROOT, process
from tests.test_play_command import terminal
from tests.workers import database_url, wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.any_database]


class Output:
    """What the process prints, read as it comes by a thread of its own."""

    def __init__(self, stream) -> None:
        self.chunks: list[bytes] = []
        self.thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self.thread.start()

    def _read(self, stream) -> None:
        for chunk in iter(lambda: stream.read1(4096), b""):
            self.chunks.append(chunk)

    @property
    def text(self) -> str:
        return b"".join(self.chunks).decode("utf-8", "replace")

    def shows(self, words: str, timeout: float = 20) -> None:
        wait_until(lambda: words in self.text, timeout)


class Terminal:
    """The side of a pseudo-terminal we read, as a stream that ends when the process
    has closed its side (Linux says EIO then, not end of file)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def read1(self, size: int) -> bytes:
        try:
            return os.read(self.fd, size)
        except OSError:
            return b""


def assert_quiet(stderr: bytes) -> None:
    assert b"Traceback" not in stderr
    assert b"Exception ignored" not in stderr
    assert stderr == b""


def test_a_piped_session_with_bad_bytes_ends_cleanly_at_end_of_input(tmp_path):
    lines = b"help\n\xff\xfe not utf-8\nd\x00raw\n\x1b[2J\nstatus\n" + "שלום\n".encode() + b"x" * 5000 + b"\n"
    player = process("--name", "pip", "--options", "5m", tmp_path=tmp_path)
    out, err = player.communicate(lines, timeout=120)
    text = out.decode("utf-8")
    assert player.returncode == 0
    assert_quiet(err)
    assert "> help" in text and "Always: status, score" in text
    assert "I don't know '\N{REPLACEMENT CHARACTER}\N{REPLACEMENT CHARACTER}'" in text
    assert "'raw' is not a card" in text
    assert "I don't know 'שלום'" in text
    assert "\x1b" not in text
    code = Match.objects.get(created_by__display_name="pip").code
    assert f"#{code} waits for you: make play ARGS='--name pip --join {code}'" in text
    assert text.rstrip().endswith("Bye.")


def test_a_closed_output_ends_the_session_without_a_word_on_stderr(tmp_path):
    player = process("--name", "pip", "--computers", "0", tmp_path=tmp_path)
    player.stdout.readline()
    player.stdout.close()
    try:
        player.stdin.write(b"help\n" * 200)
        player.stdin.close()
    except BrokenPipeError:
        pass  # it has ended already
    assert player.wait(timeout=60) == 1
    assert_quiet(player.stderr.read())


def test_ctrl_c_while_it_waits_for_a_line_leaves_with_the_hint(tmp_path):
    player = process("--name", "pip", "--computers", "0", tmp_path=tmp_path)
    output = Output(player.stdout)
    output.shows("Or type bot to add a computer player.")
    player.send_signal(signal.SIGINT)
    assert player.wait(timeout=30) == 0
    output.thread.join(5)
    code = Match.objects.get(created_by__display_name="pip").code
    assert f"#{code} waits for you: make play ARGS='--name pip --join {code}'" in output.text
    assert "Bye." in output.text
    assert_quiet(player.stderr.read())


def test_what_arrives_is_shown_as_it_arrives_and_the_end_of_the_match_ends_it(tmp_path):
    """Nothing is typed after the start: the other players' actions appear by themselves,
    and when the last match ends (with no offer to play it again, which it would wait
    for) the process ends too, with its input still open."""
    bea, cid = terminal("bea"), terminal("cid")
    player = process("--name", "pip", "--computers", "0", tmp_path=tmp_path, environment={"GIN3_REMATCH_HOURS": "0"})
    output = Output(player.stdout)
    output.shows("Or type bot to add a computer player.")
    code = Match.objects.get(created_by__display_name="pip").code
    handle(bea, f"join {code}", "terminal")
    output.shows(f"bea joined #{code}.")
    handle(cid, f"join {code}", "terminal")
    output.shows(f"#{code} starts. The cut for roles")
    handle(bea, f"#{code} resign yes", "terminal")
    output.shows(f"bea resigned #{code}.")
    assert player.wait(timeout=30) == 0
    output.thread.join(5)
    assert "No match of yours is running or waiting" in output.text
    assert_quiet(player.stderr.read())
    player.stdin.close()


def test_at_a_terminal_the_prompt_is_drawn_once_when_his_match_ends_while_he_waits(tmp_path):
    """When his last match ends while he waits, the refresher wakes the main thread
    out of its wait for a line and the line is cleared first: otherwise the prompt it
    had drawn stays, and what comes next is written after it ("> #K7Q2 is over", or
    the next prompt: "> > ")."""
    bea, cid = terminal("bea"), terminal("cid")
    main, side = os.openpty()
    env = {**os.environ, **ENGLISH, "TERM": "dumb", "DATABASE_URL": database_url(), "GIN3_BACKGROUND": "off"}
    env |= {"GIN3_VAR_DIR": str(tmp_path), "PYTHONUNBUFFERED": "1"}
    player = subprocess.Popen(
        [sys.executable, "manage.py", "play", "--name", "pip", "--computers", "0"],
        cwd=ROOT,
        env=env,
        stdin=side,
        stdout=side,
        stderr=subprocess.PIPE,
    )
    os.close(side)
    output = Output(Terminal(main))
    output.shows("Or type bot to add a computer player.")
    code = Match.objects.get(created_by__display_name="pip").code
    handle(bea, f"join {code}", "terminal")
    handle(cid, f"join {code}", "terminal")
    output.shows(f"#{code} starts.")
    handle(bea, f"#{code} resign yes", "terminal")
    output.shows(f"Type again to play #{code} again")
    time.sleep(2)  # the refresher's wake-up comes within a tick
    os.write(main, b"status\r")
    output.shows("You are in no match.")
    os.write(main, b"quit\r")
    assert player.wait(timeout=30) == 0
    shown = [line.split(CLEAR_LINE)[-1] for line in output.text.replace("\r\n", "\n").split("\n")]
    assert {line.rstrip() for line in shown if line.startswith(">")} <= {">", "> status", "> quit"}, output.text
