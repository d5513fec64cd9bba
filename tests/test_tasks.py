"""games/tasks.py: turn clocks, reminders, computer moves and the sweep, through a real Celery worker.

Why: a task may run twice, late, or never (ARCHITECTURE.md: deadlines live
in the database), and what saves us (the version check, the match lock, the
sweep) only shows when a worker on a broker meets the database. So these
tests enqueue tasks to a worker running in a thread, on Kombu's in-memory
broker and, when REDIS_URL is set, on Redis (tests/workers.py). Time is
controlled, never slept on: a deadline is moved into the past in the
database, or ``timezone.now`` is moved forward.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from celery.worker import state as worker_state
from django.db import transaction
from django.utils import timezone

from bot.backends import memory
from games import tasks
from games.models import Event, Match, Outbox, Seat
from games.services import automation, handle, play
from games.services.players import telegram_player
from tests.conftest import code_in, mover, play_move, refresh, run_computers, snapshot
from tests.workers import BROKERS, RESULT, running_worker, wait_until

CLOCK_5M = 300
CLOCK_1D = 86400


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


def countdowns(monkeypatch) -> dict[str, float]:
    """Record the countdown of every clock task enqueued instead of enqueueing it."""
    enqueued: dict[str, float] = {}
    for task in (tasks.send_reminder, tasks.enforce_deadline):
        monkeypatch.setattr(
            task, "apply_async", lambda args, countdown, name=task.name: enqueued.__setitem__(name, countdown)
        )
    return enqueued


# Through the worker ---------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_deadline_task_acts_once_however_often_it_is_delivered(worker, match):
    match = expire(match)
    results = [tasks.enforce_deadline.delay(match.pk, match.version) for _ in range(3)]
    assert sorted(result.get(**RESULT) for result in results) == [False, False, True]
    assert alice_seat(match).timeouts_in_row == 1
    assert {event.data["automatic"] for event in timeouts(match)} == {"timeout"}


@pytest.mark.django_db(transaction=True)
def test_a_move_made_just_before_the_deadline_wins_over_the_timeout_task(worker, match, alice):
    match = expire(match)
    with transaction.atomic():
        table = play.load_table(match.pk)  # Alice's move holds the match...
        result = tasks.enforce_deadline.delay(match.pk, match.version)
        wait_until(lambda: worker_state.active_requests)  # ...while the timeout task runs and waits for it
        play.apply_move(table, table.mover, automation.safe_move(table.hand), alice)
    assert result.get(**RESULT) is False
    assert timeouts(match) == []
    assert alice_seat(match).timeouts_in_row == 0


@pytest.mark.django_db(transaction=True)
def test_a_timeout_that_came_first_wins_over_the_late_button(worker, match, alice):
    match = expire(match)
    assert tasks.enforce_deadline.delay(match.pk, match.version).get(**RESULT) is True
    before = snapshot(match)
    handle(alice, f"#{match.code}@{match.version} draw", "terminal")
    assert snapshot(match) == before
    assert alice_seat(match).timeouts_in_row == 1


@pytest.mark.django_db(transaction=True)
def test_a_task_for_an_earlier_moment_does_nothing(worker, match):
    old = match.version
    play_move(match)
    run_computers(match)
    match = expire(match)
    before = snapshot(match)
    for task in (tasks.enforce_deadline, tasks.send_reminder, tasks.play_computer_move):
        assert task.delay(match.pk, old).get(**RESULT) is False
    assert snapshot(match) == before


@pytest.mark.django_db(transaction=True)
def test_a_paused_match_does_not_time_out(worker, match):
    match = expire(match)
    Match.objects.filter(pk=match.pk).update(paused_at=timezone.now())
    before = snapshot(match)
    assert tasks.enforce_deadline.delay(match.pk, match.version).get(**RESULT) is False
    assert tasks.sweep.delay().get(**RESULT)["deadlines"] == 0
    assert snapshot(match) == before


@pytest.mark.django_db(transaction=True)
def test_the_sweep_catches_a_deadline_whose_task_was_lost(worker, match):
    match = expire(match)  # no task was ever enqueued for it
    assert tasks.sweep.delay().get(**RESULT)["deadlines"] == 1
    wait_until(lambda: alice_seat(match).timeouts_in_row == 1)
    assert timeouts(match)


@pytest.mark.django_db(transaction=True)
def test_the_reminder_is_sent_once_by_its_task_or_by_the_sweep(worker, match):
    Match.objects.filter(pk=match.pk).update(deadline=timezone.now() + timedelta(seconds=CLOCK_1D * 0.1))
    assert tasks.sweep.delay().get(**RESULT)["reminders"] == 1
    wait_until(lambda: refresh(match).reminded)
    assert tasks.send_reminder.delay(match.pk, match.version).get(**RESULT) is False
    assert tasks.sweep.delay().get(**RESULT)["reminders"] == 0
    assert Outbox.objects.filter(match=match, kind="reminder").count() == 1


@pytest.mark.django_db(transaction=True)
def test_the_sweep_plays_a_computer_move_whose_task_was_lost(worker, match, clock):
    while not mover(match).is_computer:
        play_move(match)
    version = refresh(match).version
    assert tasks.sweep.delay().get(**RESULT)["computer_moves"] == 0  # its task may still be on the way
    clock.advance(automation.COMPUTER_MOVE_GRACE.total_seconds() + 1)
    assert tasks.sweep.delay().get(**RESULT)["computer_moves"] == 1
    wait_until(lambda: refresh(match).version > version)


@pytest.mark.django_db(transaction=True)
def test_three_timeouts_in_a_row_hand_the_seat_to_a_computer(worker, match):
    for _missed in range(automation.TIMEOUTS_BEFORE_AUTOPILOT):
        run_computers(match)
        match = expire(match)
        assert tasks.enforce_deadline.delay(match.pk, match.version).get(**RESULT) is True
    assert alice_seat(match).autopilot
    assert Outbox.objects.filter(match=match, kind="autopilot").exists()
    while refresh(match).turn_seat != alice_seat(match).position:
        assert automation.play_computer_move(match.pk)
    assert tasks.play_computer_move.delay(match.pk, refresh(match).version).get(**RESULT) is True


@pytest.mark.django_db(transaction=True)
def test_a_committed_turn_schedules_its_clock_and_the_computers_play_through_the_worker(worker, settings, alice):
    settings.GIN3_BACKGROUND = "celery"
    code = code_in(handle(alice, "new 5m", "terminal"))
    handle(alice, "bot", "terminal")
    handle(alice, "bot", "terminal")
    match = Match.objects.get(code=code)
    wait_until(lambda: refresh(match).turn_seat == alice_seat(match).position)
    assert refresh(match).deadline > timezone.now()


# Scheduling, without a worker --------------------------------------------------------


def test_a_turn_schedules_its_reminder_at_80_percent_and_its_deadline(match, monkeypatch):
    Match.objects.filter(pk=match.pk).update(
        move_seconds=CLOCK_5M, deadline=timezone.now() + timedelta(seconds=CLOCK_5M)
    )
    enqueued = countdowns(monkeypatch)
    tasks.schedule_turn_clock(match.pk, match.version)
    assert enqueued[tasks.send_reminder.name] == pytest.approx(CLOCK_5M * 0.8, abs=2)
    assert enqueued[tasks.enforce_deadline.name] == pytest.approx(CLOCK_5M, abs=2)


def test_a_long_clock_is_reached_in_hops_the_broker_can_hold(match, monkeypatch):
    enqueued = countdowns(monkeypatch)
    tasks.schedule_turn_clock(match.pk, match.version)
    assert max(enqueued.values()) == tasks.MAX_COUNTDOWN.total_seconds()
    assert tasks.enforce_deadline.apply((match.pk, match.version)).get() is False  # woke up early: waits again
    assert enqueued[tasks.enforce_deadline.name] == tasks.MAX_COUNTDOWN.total_seconds()


def test_a_player_already_reminded_this_turn_is_not_reminded_again(match, monkeypatch):
    Match.objects.filter(pk=match.pk).update(reminded=True)
    enqueued = countdowns(monkeypatch)
    tasks.schedule_turn_clock(match.pk, match.version)
    assert list(enqueued) == [tasks.enforce_deadline.name]


# A whole game, nobody watching -------------------------------------------------------------


@pytest.fixture
def eager(settings):
    """Tasks run where they are enqueued; the services enqueue nothing (the sweep finds it all)."""
    settings.GIN3_BACKGROUND = "off"
    settings.GIN3_BACKENDS = {**settings.GIN3_BACKENDS, "telegram": "bot.backends.memory.MemoryBackend"}
    memory.sent.clear()
    app = tasks.sweep.app
    app.conf.task_always_eager, app.conf.task_eager_propagates = True, True
    yield
    app.conf.task_always_eager, app.conf.task_eager_propagates = False, False


def test_a_game_left_alone_finishes_by_itself(db, eager, clock):
    """One human who never moves and two computer players, five minutes a move: every
    half minute the sweep alone plays the computers' moves, reminds the human, times
    him out, and after three missed turns hands his seat to a computer."""
    tess = telegram_player(user_id=7001, chat_id=7001, name="Tess")
    code = code_in(handle(tess, "new 5m", "telegram"))
    handle(tess, "bot", "telegram")
    handle(tess, "bot", "telegram")
    match = Match.objects.get(code=code)
    for _step in range(20000):
        if refresh(match).status != Match.Status.RUNNING:
            break
        clock.advance(30)
        tasks.sweep.delay()
    tasks.sweep.delay()  # the last messages
    match = refresh(match)
    assert match.status == Match.Status.FINISHED and match.winner is not None
    assert alice_seat(match).autopilot
    assert len([event for event in timeouts(match) if event.data["seat"] == alice_seat(match).position]) >= 3
    delivered = [message.kind for message in memory.sent]
    assert delivered.count("reminder") == automation.TIMEOUTS_BEFORE_AUTOPILOT
    assert "autopilot" in delivered and "result" in delivered
    assert not Outbox.objects.filter(channel="telegram").exclude(status=Outbox.Status.SENT).exists()
