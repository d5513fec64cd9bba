"""Ctrl-C and the refresher's wake-up, acted on only where that is safe.

Python raises KeyboardInterrupt wherever the main thread happens to be: in
the middle of sending a message, that message would stay claimed ("sending")
for the length of its lease and reach him minutes late. So while the session
is busy a Ctrl-C is only noted, and the session leaves once the step is done;
at the prompt (or at a second Ctrl-C) it interrupts at once.

The refresher thread finds out first when no match of his is left, while the
main thread waits for a line that may never come; it wakes the main thread
with a signal of its own (``SIGUSR1``), which ``read_line`` turns into ``Wake``.

Either can come just before the main thread starts to wait, when it is busy
no more but not yet reading: what was noted then is acted on by
``raise_noted``, which ``Screen.read_line`` calls once it counts as reading and
before it waits. Without it that Ctrl-C, or that wake-up, was lost and the
session waited for a line for ever.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType, TracebackType

from .screen import Screen

WAKE_SIGNAL = getattr(signal, "SIGUSR1", None)


class Wake(Exception):
    """The refresher has news for the main thread: stop waiting for a line."""


class Interrupts:
    """Installs the handlers for the main thread while the session runs, and restores the old ones."""

    def __init__(self, screen: Screen) -> None:
        self.screen = screen
        self.requested = False  # Ctrl-C while busy: leave after this step
        self._woken = False  # the refresher's news, while the main thread was not reading
        self._previous: dict[int, object] = {}

    def __enter__(self) -> Interrupts:
        if threading.current_thread() is threading.main_thread():
            self._previous[signal.SIGINT] = signal.signal(signal.SIGINT, self._interrupt)
            if WAKE_SIGNAL is not None:
                self._previous[WAKE_SIGNAL] = signal.signal(WAKE_SIGNAL, self._wake)
        return self

    def __exit__(self, kind: type | None, error: BaseException | None, trace: TracebackType | None) -> None:
        previous, self._previous = self._previous, {}
        for number, handler in previous.items():
            if handler is not None:  # None: a handler set outside Python, which can't be put back
                signal.signal(number, handler)

    def wake_main(self) -> None:
        """From the refresher: interrupt the main thread's wait for a line, or the next one.

        The flag is set before ``reading`` is looked at, and the main thread sets
        ``reading`` before it looks at the flag: one of the two always sees the other."""
        self._woken = True
        if WAKE_SIGNAL in self._previous and self.screen.reading and hasattr(signal, "pthread_kill"):
            signal.pthread_kill(threading.main_thread().ident, WAKE_SIGNAL)

    def raise_noted(self) -> None:
        """In the main thread, as it starts to wait for a line: act on what came while it was busy."""
        if self.requested:
            raise KeyboardInterrupt
        if self._woken:
            self._woken = False
            raise Wake

    def _interrupt(self, number: int, frame: FrameType | None) -> None:
        if self.screen.reading or self.requested:
            raise KeyboardInterrupt
        self.requested = True

    def _wake(self, number: int, frame: FrameType | None) -> None:
        if self.screen.reading:
            self._woken = False
            raise Wake
