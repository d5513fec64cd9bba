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

# Computer moves per match in one call: a match a computer plays alone (the
# player on autopilot) goes on in steps, and what it says is shown in between.
MOVES_PER_CALL = 20


def do_due_work(match_ids: Collection[int]) -> int:
    """Play the computer players' moves, send the reminders and enforce the deadlines
    that are due in these matches; return how many things were done."""
    if not match_ids:
        return 0
    done = 0
    for match_id in computer_moves.computers_to_move(match_ids):
        moves = 0
        while moves < MOVES_PER_CALL and computer_moves.play_computer_move(match_id):
            moves += 1
        done += moves
    return done + sum(clock_scan.scan_clocks(among=match_ids).values())
