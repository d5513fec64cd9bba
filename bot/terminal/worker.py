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

from games.services.write import clock_scan, computer_moves, review

# The seconds a review of one hand may take here (the review worker's is GIN3_REVIEW_SECONDS):
# it runs beside his commands, so it takes about what the hard level's moves in it took.
REVIEW_SECONDS = 5.0


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


def review_a_hand(match_ids: Collection[int]) -> bool:
    """Review one finished hand of these matches that has no review yet, as the review
    worker does for the site, so that the match page marks his moves there too; True if
    one was stored. Not under the session's lock: it reads finished hands only, and
    stores its result once (``review.review_hand``)."""
    hand_id = review.unreviewed(match_ids)
    return hand_id is not None and review.review_hand(hand_id, REVIEW_SECONDS)
