"""Ctrl-C and the refresher's wake-up, acted on only where that is safe.

Python raises KeyboardInterrupt wherever the main thread happens to be: in
the middle of sending a message, that message would stay claimed ("sending")
for the length of its lease and reach him minutes late. So while the session
is busy a Ctrl-C is only noted, and the session leaves once the step is done;
at the prompt (or at a second Ctrl-C) it interrupts at once.

The refresher thread finds out first when no match of his is left, while the
main thread waits for a line that may never come; it wakes the main thread
with a signal of its own (``SIGUSR1``), which ``read_line`` turns into ``Wake``.
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
        """From the refresher: interrupt the main thread's wait for a line, if it is waiting."""
        if WAKE_SIGNAL in self._previous and self.screen.reading and hasattr(signal, "pthread_kill"):
            signal.pthread_kill(threading.main_thread().ident, WAKE_SIGNAL)

    def _interrupt(self, number: int, frame: FrameType | None) -> None:
        if self.screen.reading or self.requested:
            raise KeyboardInterrupt
        self.requested = True

    def _wake(self, number: int, frame: FrameType | None) -> None:
        if self.screen.reading:
            raise Wake
