"""Show what arrives while he waits at the prompt: a thread that catches up every half second.

Without it a player waiting for the others would see nothing until he pressed
Enter. It does what the main thread does after each command
(``Session.catch_up``): computer moves and turn clocks of his matches, then
his messages from the outbox. It has its own database connection, as every
thread does, and closes it when it ends; the session's lock keeps it from
working at the same time as a command.
"""

from __future__ import annotations

import contextlib
import threading

from django.db import DatabaseError, connection

from .screen import OutputGone
from .session import Session

REFRESH_SECONDS = 0.5


class Refresher(threading.Thread):
    def __init__(self, session: Session) -> None:
        super().__init__(name="gin3-play-refresher", daemon=True)
        self.session = session
        self._stopping = threading.Event()

    def run(self) -> None:
        try:
            while not self._stopping.wait(REFRESH_SECONDS) and self._tick():
                pass
        finally:
            connection.close()

    def stop(self, timeout: float = 30) -> None:
        """End the thread, after the catch-up it may be in the middle of."""
        self._stopping.set()
        if self.is_alive():
            self.join(timeout)

    def _tick(self) -> bool:
        """One catch-up; False when the thread should end. When nothing is left to
        follow, or nobody can read us any more, the main thread is woken to end too."""
        try:
            self.session.catch_up()
            if self.session.open_matches():
                return True
        except DatabaseError:
            # Locked for a moment by another process: the next tick tries again (a command says why).
            connection.close_if_unusable_or_obsolete()
            return True
        except OutputGone:
            pass
        except Exception:
            with contextlib.suppress(OutputGone):
                self.session.report_bug()
            return False  # the main thread goes on catching up after each command
        self.session.interrupts.wake_main()
        return False
