"""games/tasks.py: a change's follow-up, the clock scan and the message sweep, through a real Celery worker.

Why: a task may run twice, late, or never (docs/architecture.md: deadlines live in
the database), and what saves us (the version check, the match lock, SKIP
LOCKED, the scan) only shows when a worker on a broker meets the database.
So these tests enqueue tasks to a worker running in a thread, on Kombu's
in-memory broker and, when REDIS_URL is set, on Redis (tests/workers.py).
Time is controlled, never slept on: a deadline is moved into the past in the
database, or ``timezone.now`` is moved forward.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from celery import current_app
from django.utils import timezone

from bot.backends import memory
from games import tasks
from games.engine import Phase
from games.models import Event, Match, Outbox, Seat
from games.services import handle
from games.services.plumbing import clocks
from games.services.plumbing.change import change
from games.services.write import computer_moves, deadlines, locked_table, play
from games.services.write.players import telegram_player
from tests.conftest import code_in, mover, play_move, player_in_role, refresh, run_computers, snapshot
from tests.workers import BROKERS, RESULT, running_worker, wait_until

NO_CLOCK = {"deadline": 0, "remind_at": 0, "lobby": 0, "rematch": 0}


@pytest.fixture(params=BROKERS)
def worker(request, transactional_db):
    """A Celery worker on each broker; torn down before the database is."""
    with running_worker(request.param) as app:
        yield app


@pytest.fixture
def match(alice) -> Match:
    """Alice and two computer players, a day a move, played on to Alice's first turn."""
    code = code_in(handle(alice, "new 1d", "terminal"))
    handle(alice, "bot", "terminal")
    handle(alice, "bot", "terminal")
    match = Match.objects.get(code=code)
    run_computers(match)
    return refresh(match)


@pytest.fixture
def clock(monkeypatch):
    """``timezone.now`` that the test moves forward."""
    return Clock(monkeypatch)


class Clock:
    def __init__(self, monkeypatch) -> None:
        self.offset = timedelta(0)
        real_now = timezone.now
        monkeypatch.setattr(timezone, "now", lambda: real_now() + self.offset)

    def advance(self, seconds: float) -> None:
        self.offset += timedelta(seconds=seconds)


def expire(match: Match) -> Match:
    """The turn's time is up, as if the player had been away."""
    Match.objects.filter(pk=match.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    return refresh(match)


def alice_seat(match: Match) -> Seat:
    return match.seats.get(player__is_computer=False)


def timeouts(match: Match) -> list[Event]:
    moves = Event.objects.filter(match=match, kind="move")
    return [event for event in moves if event.data.get("automatic", "").startswith("timeout")]


# Through the worker ---------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_clock_scan_acts_on_a_deadline_once_however_often_it_runs(worker, match):
    match = expire(match)
    results = [tasks.scan_clocks.delay() for _ in range(3)]
    assert sorted(result.get(**RESULT)["deadline"] for result in results) == [0, 0, 1]
    assert alice_seat(match).timeouts_in_row == 1
    # As the captain she may have had her computer sitter's advice waiting: a timeout plays it (R3.2).
    assert {event.data["automatic"] for event in timeouts(match)} <= {"timeout", "timeout-suggestion"}
    assert timeouts(match)


@pytest.mark.django_db(transaction=True)
def test_a_move_made_just_before_the_deadline_wins_over_the_scan(worker, match, alice):
    """While Alice's turn is played, the scan skips the match (PostgreSQL: SKIP LOCKED)
    or waits for it (SQLite: one writer); either way her turn stands and no timeout follows."""
    match = expire(match)
    with change():
        table = locked_table.load_table(match.pk)
        result = tasks.scan_clocks.delay()
        play.apply_move(table, table.mover, computer_moves.safe_move(table.hand), alice)
        if table.hand.phase is Phase.DISCARD:  # she drew: her turn ends with her discard
            play.apply_move(table, table.mover, computer_moves.safe_move(table.hand), alice)
    assert result.get(**RESULT) == NO_CLOCK
    assert timeouts(match) == []
    assert alice_seat(match).timeouts_in_row == 0


@pytest.mark.django_db(transaction=True)
def test_a_timeout_that_came_first_wins_over_the_late_button(worker, match, alice):
    match = expire(match)
    assert tasks.scan_clocks.delay().get(**RESULT)["deadline"] == 1
    before = snapshot(match)
    handle(alice, f"#{match.code}@{match.version} draw", "terminal")
    assert snapshot(match) == before
    assert alice_seat(match).timeouts_in_row == 1


@pytest.mark.django_db(transaction=True)
def test_a_computer_move_for_an_earlier_moment_does_nothing(worker, match):
    old = match.version
    play_move(match)
    run_computers(match)
    before = snapshot(match)
    assert tasks.play_computer_move.delay(match.pk, old).get(**RESULT) is False
    assert snapshot(match) == before


@pytest.mark.django_db(transaction=True)
def test_a_paused_match_does_not_time_out(worker, match):
    match = expire(match)
    Match.objects.filter(pk=match.pk).update(paused_at=timezone.now())
    before = snapshot(match)
    assert tasks.scan_clocks.delay().get(**RESULT) == NO_CLOCK
    assert snapshot(match) == before


@pytest.mark.django_db(transaction=True)
def test_the_reminder_is_sent_once_by_the_scan(worker, match):
    Match.objects.filter(pk=match.pk).update(remind_at=timezone.now() - timedelta(seconds=1))
    assert tasks.scan_clocks.delay().get(**RESULT) == {"deadline": 0, "remind_at": 1, "lobby": 0, "rematch": 0}
    assert refresh(match).remind_at is None
    assert tasks.scan_clocks.delay().get(**RESULT) == NO_CLOCK
    assert Outbox.objects.filter(match=match, kind="reminder").count() == 1


@pytest.mark.django_db(transaction=True)
def test_the_scan_plays_a_computer_move_whose_follow_up_was_lost(worker, match, clock):
    while not mover(match).is_computer:
        play_move(match)  # no follow-up is published: GIN3_BACKGROUND is off
    version = refresh(match).version
    assert tasks.scan_clocks.delay().get(**RESULT)["deadline"] == 0  # its follow-up may still be on the way
    clock.advance(clocks.COMPUTER_GRACE.total_seconds() + 1)
    assert tasks.scan_clocks.delay().get(**RESULT)["deadline"] == 1
    assert refresh(match).version > version


@pytest.mark.django_db(transaction=True)
def test_three_timeouts_in_a_row_hand_the_seat_to_a_computer(worker, match):
    for _missed in range(deadlines.TIMEOUTS_BEFORE_AUTOPILOT):
        run_computers(match)
        match = expire(match)
        assert tasks.scan_clocks.delay().get(**RESULT)["deadline"] == 1
    assert alice_seat(match).autopilot
    assert Outbox.objects.filter(match=match, kind="autopilot").exists()
    while refresh(match).turn_seat != alice_seat(match).position:
        assert computer_moves.play_computer_move(match.pk)
    assert tasks.play_computer_move.delay(match.pk, refresh(match).version).get(**RESULT) is True


@pytest.mark.django_db(transaction=True)
def test_a_committed_turn_is_followed_up_and_the_computers_play_through_the_worker(worker, settings, alice):
    settings.GIN3_BACKGROUND = "celery"
    code = code_in(handle(alice, "new 5m", "terminal"))
    handle(alice, "bot", "terminal")
    handle(alice, "bot", "terminal")
    match = Match.objects.get(code=code)
    wait_until(lambda: refresh(match).turn_seat == alice_seat(match).position)
    assert refresh(match).deadline > timezone.now() + timedelta(minutes=4)


# Publishing, without a worker -------------------------------------------------------


@pytest.fixture
def published(settings, monkeypatch) -> list[tuple[str, tuple]]:
    """Every task the services publish, recorded instead of sent."""
    settings.GIN3_BACKGROUND = "celery"
    sent: list[tuple[str, tuple]] = []
    monkeypatch.setattr(current_app, "send_task", lambda name, args=(), **options: sent.append((name, args)))
    return sent


def test_a_change_publishes_one_task_whatever_it_wrote(match3, published, django_capture_on_commit_callbacks):
    players = list(match3.seats.select_related("player"))
    for seat in players:
        seat.player.telegram_chat_id, seat.player.notify_by = 9000 + seat.position, "telegram"
        seat.player.save(update_fields=["telegram_chat_id", "notify_by"])
    with django_capture_on_commit_callbacks(execute=True):
        handle(mover(match3), "pass", "telegram")  # his reply, the box's turn notice
    ((name, (message_ids, computer_moves)),) = published
    assert name == "games.tasks.follow_up"
    assert len(message_ids) >= 2 and computer_moves == []


def test_a_change_with_nothing_for_the_background_publishes_nothing(
    match3, published, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        handle(mover(match3), "status", "terminal")  # the terminal prints its own messages
        handle(mover(match3), "pass", "terminal")  # a move among people: no computer, no clock task
    assert published == []


def test_a_computer_to_move_is_published_with_the_version_it_may_play(
    alice, published, django_capture_on_commit_callbacks
):
    code = code_in(handle(alice, "new", "terminal"))
    handle(alice, "bot", "terminal")
    with django_capture_on_commit_callbacks(execute=True):
        handle(alice, "bot", "terminal")
    match = Match.objects.get(code=code)
    # Alice to move as the captain: her computer sitter is to advise her, at that version too.
    if mover(match).is_computer or player_in_role(match, "captain") == alice:
        assert published == [("games.tasks.follow_up", ([], [(match.pk, match.version)]))]
    else:
        assert published == []


# A whole game, nobody watching -------------------------------------------------------------


@pytest.fixture
def eager(settings):
    """Tasks run where they are enqueued; the services publish nothing (the scan and the sweep find it all)."""
    settings.GIN3_BACKGROUND = "off"
    settings.GIN3_BACKENDS = {**settings.GIN3_BACKENDS, "telegram": "bot.backends.memory.MemoryBackend"}
    memory.sent.clear()
    app = tasks.sweep.app
    app.conf.task_always_eager, app.conf.task_eager_propagates = True, True
    yield
    app.conf.task_always_eager, app.conf.task_eager_propagates = False, False


def test_a_game_left_alone_finishes_by_itself(db, eager, clock):
    """One human who never moves and two computer players, five minutes a move, to 50: every
    few seconds the clock scan alone plays the computers' moves (their follow-ups are
    never published here), reminds the human, times him out, and after three missed
    turns hands his seat to a computer; the sweep delivers what was written."""
    tess = telegram_player(user_id=7001, chat_id=7001, name="Tess")
    code = code_in(handle(tess, "new 5m to 50", "telegram"))
    handle(tess, "bot", "telegram")
    handle(tess, "bot", "telegram")
    match = Match.objects.get(code=code)
    for _step in range(20000):
        if refresh(match).status != Match.Status.RUNNING:
            break
        clock.advance(10)
        tasks.scan_clocks.delay()
        tasks.sweep.delay()
    tasks.sweep.delay()  # the last messages
    match = refresh(match)
    assert match.status == Match.Status.FINISHED and match.winner is not None
    assert alice_seat(match).autopilot
    assert len([event for event in timeouts(match) if event.data["seat"] == alice_seat(match).position]) >= 3
    delivered = [message.kind for message in memory.sent]
    assert delivered.count("reminder") == deadlines.TIMEOUTS_BEFORE_AUTOPILOT
    assert "autopilot" in delivered and "result" in delivered
    unsent = Outbox.objects.filter(channel="telegram").exclude(status=Outbox.Status.SENT)
    assert set(unsent.values_list("status", flat=True)) <= {Outbox.Status.SUPERSEDED}
