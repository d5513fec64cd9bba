"""Two moves for one match at the same moment: the match row lock lets one through.

Why: a Telegram button pressed twice, a webhook retried and a timeout firing
together all reach ``handle`` concurrently in different processes; the version
check only works if the second waits for the first to commit. PostgreSQL
does that through ``select_for_update``; SQLite through its one writer and
``BEGIN IMMEDIATE`` (settings), so the test runs on both.
"""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connections

from games.models import Event, Match
from games.services import handle
from games.services.plumbing import state
from tests.conftest import code_in, events_of, mover, refresh

THREADS = 2
load_hand = state.load_hand


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_moves_for_the_same_turn_one_succeeds_and_one_event_is_appended(alice, bob, carol, monkeypatch):
    code = code_in(handle(alice, "new", "terminal"))
    handle(bob, f"join {code}", "terminal")
    handle(carol, f"join {code}", "terminal")
    match = Match.objects.get(code=code)
    captain, version = mover(match), match.version
    barrier = threading.Barrier(THREADS)
    replies, errors = [], []

    def slow_load_hand(*args):
        """Hold the state a while once loaded, so that the other thread surely tries meanwhile."""
        hand = load_hand(*args)
        time.sleep(0.3)
        return hand

    monkeypatch.setattr(state, "load_hand", slow_load_hand)

    def press_the_button() -> None:
        try:
            barrier.wait()
            replies.append(handle(captain, "take", "terminal"))
        except Exception as error:  # the test reports it below
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=press_the_button) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert errors == []
    assert len(replies) == THREADS
    assert sum("Not allowed: you have taken a card already" in reply for reply in replies) == 1
    assert [event.data["move"] for event in events_of(match, "move")] == ["take"]
    assert refresh(match).version == version + 1
    assert Event.objects.filter(match=match).values("seq").distinct().count() == len(events_of(match))
