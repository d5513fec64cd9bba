"""What the Celery worker does for a match, done by the terminal for the matches it follows.

A terminal session may run with no worker at all (``make play`` without
``make run``): then nobody else moves the computer players or enforces the
turn clocks of its matches. It may also run beside a worker: the service
functions lock the match and check its version, so whichever comes second
finds nothing to do. This is the one place that calls them, so that a change
in how the services find due work is one change here.
"""

from __future__ import annotations

from collections.abc import Collection

from games.services.write import clock_scan, computer_moves


def do_due_work(match_ids: Collection[int]) -> int:
    """One step of what is due in these matches: a computer player's move in each that
    waits for one, and the reminders and deadlines due; how many things were done. One
    move, not all those in a row, so that the session can show each as it comes and
    take a command of the player's in between (``Session.catch_up``)."""
    if not match_ids:
        return 0
    moved = sum(
        bool(computer_moves.play_computer_move(match_id)) for match_id in computer_moves.computers_to_move(match_ids)
    )
    return moved + sum(clock_scan.scan_clocks(among=match_ids).values())
