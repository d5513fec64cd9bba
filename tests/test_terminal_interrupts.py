"""Ctrl-C and the refresher's wake-up in the moment between a step and the wait for a line.

Why: a Ctrl-C that came while the session was finishing a step, after it had
looked for one and before it counted as reading, was noted and never acted
on; the session then waited for a line for ever (CI saw ``make play`` not
end 30 s after a Ctrl-C). The refresher's wake-up, when no match is left,
could be lost in the same moment.
"""

from __future__ import annotations

import io
import signal

import pytest

from bot.terminal.interrupts import Interrupts, Wake
from bot.terminal.screen import Screen


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
