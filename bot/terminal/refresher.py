"""Show what arrives while he waits at the prompt: a thread that catches up every half second.

Without it a player waiting for the others would see nothing until he pressed
Enter. It does what the main thread does after each command
(``Session.catch_up``): computer moves and turn clocks of his matches, then
his messages from the outbox; and, with nothing else to do, the review of a
finished hand that the review worker would make for the site. It has its own database connection, as every
thread does, and closes it when it ends; the session's lock keeps it from
working at the same time as a command.

It runs as long as the session does. When his last match ends it wakes the
main thread, which offers to play it again or ends the session; a session
that goes on after that (waiting for his ``again`` or ``new``) must still show
the next match's moves, an admin's pause or abort, as they come.
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
        self._following = True  # he had a match running or waiting at the last tick (the session starts so)

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
        """One catch-up; False when the thread should end. When his last match has
        just ended the main thread is woken to say what now; when nobody can read
        us any more, to end.

        His matches are looked at before the catch-up: what ends a match is written
        with its messages in one transaction, so a match seen over has its last news
        shown by the catch-up that follows. Looked at after, a match that ended in
        between would wake the main thread to say goodbye before that news was shown."""
        try:
            following = bool(self.session.open_matches())
            self.session.catch_up()
            self.session.review_finished_hands()
        except DatabaseError:
            # Locked for a moment by another process: the next tick tries again (a command says why).
            connection.close_if_unusable_or_obsolete()
            return True
        except OutputGone:
            self.session.interrupts.wake_main()
            return False
        except Exception:
            with contextlib.suppress(OutputGone):
                self.session.report_bug()
            return False  # the main thread goes on catching up after each command
        if self._following and not following:
            self.session.interrupts.wake_main()
        self._following = following
        return True
