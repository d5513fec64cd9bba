"""Ctrl-C and the refresher's wake-up in the moment between a step and the wait for a line.

Why: a Ctrl-C that came while the session was finishing a step, after it had
looked for one and before it counted as reading, was noted and never acted
on; the session then waited for a line for ever (CI saw ``make play`` not
end 30 s after a Ctrl-C). The refresher's wake-up, when no match is left,
could be lost in the same moment.
"""

from __future__ import annotations

import io
import os
import signal
import sys
import time

import pytest

from bot.terminal.interrupts import Interrupts, Wake
from bot.terminal.screen import Screen
from tests.workers import wait_until


@pytest.fixture
def typed(monkeypatch):
    """A line is waiting on the input: reading it instead of acting on what was noted is the bug."""
    monkeypatch.setattr("sys.stdin", io.StringIO("status\n"))


def test_a_ctrl_c_while_busy_ends_the_next_wait_for_a_line_before_it_starts(typed):
    screen = Screen(io.StringIO())
    interrupts = Interrupts(screen)
    interrupts._interrupt(signal.SIGINT, None)
    assert interrupts.requested
    with pytest.raises(KeyboardInterrupt):
        screen.read_line(interrupts.raise_noted)
    assert not screen.reading


def test_a_wake_up_while_busy_ends_the_next_wait_for_a_line_once(typed):
    screen = Screen(io.StringIO())
    interrupts = Interrupts(screen)
    interrupts.wake_main()
    with pytest.raises(Wake):
        screen.read_line(interrupts.raise_noted)
    assert screen.read_line(interrupts.raise_noted) == "status"


def test_with_nothing_noted_the_line_is_read(typed):
    screen = Screen(io.StringIO())
    interrupts = Interrupts(screen)
    assert screen.read_line(interrupts.raise_noted) == "status"


def test_a_line_typed_at_a_terminal_is_seen_waiting_once_he_pressed_enter(monkeypatch):
    """What ``Session.send`` asks to stop catching up after his command: at a real
    terminal (a pseudo-terminal here) a line counts once it is whole, and is still
    there to be read."""
    main, side = os.openpty()
    with os.fdopen(side, "r") as stdin:
        monkeypatch.setattr(sys, "stdin", stdin)
        screen = Screen(io.StringIO())
        screen.interactive = True
        assert not screen.typed_ahead()
        os.write(main, b"sco")
        time.sleep(0.2)
        assert not screen.typed_ahead(), "half a line is not a line"
        os.write(main, b"re\n")
        assert wait_until(screen.typed_ahead, timeout=10)
        assert stdin.readline() == "score\n"
    os.close(main)


def test_piped_input_is_never_typed_ahead(typed):
    assert not Screen(io.StringIO()).typed_ahead()
