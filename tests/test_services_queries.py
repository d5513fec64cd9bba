"""What a move costs: SQL statements and replays of the hand per command through ``handle``.

Why: every move of every channel goes through ``handle``; it is bounded at
9 SQL queries (savepoints included) and one replay of the hand, so that a
move takes a few milliseconds and the database is not the bottleneck. One of
the 9 reads the player's row again, locked, so that a ban reaches a session
that is already open. Counts,
not times: the same on any machine. The tests run in real transactions
(``transaction=True``): ``handle``'s own transaction is then the outermost
one, as in production, and no test savepoint inflates the count. The
transaction's BEGIN and COMMIT are counted too, on both databases.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.services import handle
from games.services.plumbing import state
from tests.conftest import hand_row, legal_actions, mover, player_in_role, rig

pytestmark = pytest.mark.django_db(transaction=True)
MOVE_QUERIES = 9
HAND_END_QUERIES = 16
REFUSAL_QUERIES = 10  # the refused change rolled back, then the reply in one of its own


@pytest.fixture
def replays(monkeypatch) -> list[int]:
    """How many times the hand is replayed from its log."""
    counted: list[int] = []
    real = state.replay

    def counting(*args, **kwargs):
        counted.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(state, "replay", counting)
    return counted


def test_a_move_through_handle_runs_at_most_9_queries_and_one_replay(match3, replays, django_assert_max_num_queries):
    handle(mover(match3), "pass", "terminal")
    handle(mover(match3), "pass", "terminal")
    captain = mover(match3)
    replays.clear()
    with django_assert_max_num_queries(MOVE_QUERIES):
        reply = handle(captain, "draw", "terminal", update_key="tg:1")
    assert "Your move" in reply
    assert len(replays) == 1


def test_every_move_of_a_hand_stays_within_the_bound(match3, replays):
    for update in range(14):
        player = mover(match3)
        moves = [str(action) for action in legal_actions(match3)]
        command = next(move for move in moves if move in ("pass", "draw") or move.startswith("discard "))
        replays.clear()
        with CaptureQueriesContext(connection) as queries:
            handle(player, command, "terminal", update_key=f"tg:{update}")
        assert len(queries) <= MOVE_QUERIES, [query["sql"] for query in queries]
        assert len(replays) == 1


def test_a_knock_that_ends_the_hand_and_deals_the_next_stays_bounded(match3, replays):
    rig(match3, captain="As 2s 3s 4s 5s 6s 7s 8s 9s Kd", box="Ah 3h 5h 7h 9h Jh Kh 2d 4d 6d", upcard="Ts")
    captain = player_in_role(match3, "captain")
    handle(captain, "take", "terminal")
    replays.clear()
    with CaptureQueriesContext(connection) as queries:
        handle(captain, "knock Kd", "terminal", update_key="tg:2")
    assert hand_row(match3).number == 2
    assert len(queries) <= HAND_END_QUERIES, [query["sql"] for query in queries]
    assert len(replays) == 1


def test_a_refused_move_changes_nothing_and_costs_little(match3):
    box = player_in_role(match3, "box")
    with CaptureQueriesContext(connection) as queries:
        reply = handle(box, "draw", "terminal", update_key="tg:3")
    assert "turn" in reply
    assert len(queries) <= REFUSAL_QUERIES
