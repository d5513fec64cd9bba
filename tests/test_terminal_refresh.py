"""The terminal's refresher thread: what arrives while the player waits at the prompt.

Why: without it, nothing would appear until he pressed Enter, and computer
players in a match he joined would wait for a worker that ``make play`` does
not start. The thread has its own database connection, which it must
close, and on SQLite it must wait for a lock, not fail or deadlock.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from types import SimpleNamespace

import pytest
from django.db import connection

from bot.terminal.refresher import Refresher
from games.models import Event, Hand, Match
from games.services import handle
from games.services.write import moderation
from tests.conftest import best_action, mover, refresh
from tests.terminal_harness import Session, idle, play
from tests.test_play_command import advance, lobby_match, running_match, terminal
from tests.workers import wait_until

pytestmark = pytest.mark.django_db(transaction=True)


def computer_moves(match: Match) -> int:
    return Event.objects.filter(match=match, kind="move", data__automatic="computer").count()


def test_the_news_of_a_match_seen_over_is_shown_before_the_main_thread_is_woken():
    """A resignation committed between the catch-up and the look at his matches woke
    the main thread to say goodbye with "bea resigned" still unshown."""
    said = []

    class Watched:
        interrupts = SimpleNamespace(wake_main=lambda: said.append("wake"))

        def open_matches(self) -> list:
            said.append("open matches")
            return []

        def catch_up(self) -> None:
            said.append("catch up")

        def review_finished_hands(self) -> bool:
            said.append("review")
            return False

    refresher = Refresher(Watched())  # type: ignore[arg-type]
    assert refresher._tick()
    assert said == ["open matches", "catch up", "review", "wake"]


def test_the_catch_up_lets_go_of_the_session_between_two_computer_moves(monkeypatch):
    """Two computer players may play out a whole hand while their sitter waits at the
    prompt: a command he types meanwhile gets in after the move in progress, not after
    the hand, because the refresher takes the lock one step at a time."""
    from bot.terminal import session as session_module

    took = []

    class Lock:
        def __enter__(self) -> None:
            took.append("lock")

        def __exit__(self, *exc: object) -> None:
            took.append("unlock")

    steps = iter([1, 1, 1, 0])  # three computer moves, then nothing due

    def one_step(running: object) -> int:
        took.append("move")
        return next(steps)

    monkeypatch.setattr(session_module, "do_due_work", one_step)
    monkeypatch.setattr(session_module, "deliver_address", lambda *args: None)
    player = SimpleNamespace(terminal_user="terminal:ann")
    watching = session_module.Session(player, SimpleNamespace(gone=False), None, None)  # type: ignore[arg-type]
    watching.lock = Lock()  # type: ignore[assignment]
    monkeypatch.setattr(watching, "open_matches", lambda: [])
    watching.catch_up()
    assert took == ["lock", "move", "unlock"] * 4


def test_after_his_command_the_catch_up_stops_for_the_line_he_typed_meanwhile(monkeypatch):
    """The main thread reads nothing while it catches up after his command: a line he
    typed at the terminal meanwhile is read after the move in progress, and the
    refresher plays the moves left."""
    from bot.terminal import session as session_module

    moves = []
    monkeypatch.setattr(session_module, "do_due_work", lambda running: moves.append("move") or int(len(moves) < 5))
    monkeypatch.setattr(session_module, "deliver_address", lambda *args: None)
    monkeypatch.setattr(session_module, "handle", lambda *args: "")
    screen = SimpleNamespace(gone=False, typed_ahead=lambda: len(moves) == 2)
    player = SimpleNamespace(terminal_user="terminal:ann")
    typing = session_module.Session(player, screen, None, None)  # type: ignore[arg-type]
    monkeypatch.setattr(typing, "open_matches", lambda: [])
    typing.send("score")
    assert moves == ["move", "move"], "stopped once his line was there, not when nothing was due"


def test_what_his_command_sent_him_is_shown_before_the_next_computer_move(monkeypatch):
    """A computer's move done first wrote a newer table, which replaced, unread, the one
    that answered his ``accept`` ("You played the sitter's suggestion: pass")."""
    from bot.terminal import session as session_module

    took = []
    monkeypatch.setattr(session_module, "handle", lambda *args: took.append("his command"))
    monkeypatch.setattr(session_module, "deliver_address", lambda *args: took.append("shown"))
    monkeypatch.setattr(session_module, "do_due_work", lambda running: took.append("move") or int(len(took) < 5))
    screen = SimpleNamespace(gone=False, typed_ahead=lambda: False)
    player = SimpleNamespace(terminal_user="terminal:ann")
    typing = session_module.Session(player, screen, None, None)  # type: ignore[arg-type]
    monkeypatch.setattr(typing, "open_matches", lambda: [])
    typing.send("accept")
    assert took == ["his command", "shown", "move", "shown", "move"]


def test_a_player_who_joins_is_shown_while_he_waits_without_enter():
    ann, bea = terminal("ann"), terminal("bea")
    match = lobby_match(ann)
    session = Session()
    seen = []

    def wait_for_bea(prompt: str = "") -> str:
        if not seen:
            handle(bea, f"join {match.code}", "terminal")
            seen.append(wait_until(lambda: f"bea joined #{match.code}." in session.text, timeout=30))
        return "quit"

    play("--name", "ann", "--join", match.code, typist=wait_for_bea, session=session)
    assert seen == [True]


def test_computer_players_move_while_he_waits_in_a_match_he_joined():
    """No worker runs: the terminal that follows the match moves its computer players.

    Everybody's moves, ann's too, are made beside the terminal while it waits at its
    first prompt: its main thread, which catches up after each command it carries out,
    carries out none, so a computer move can only come from the refresher. (Typed into
    the terminal, ann's moves had the main thread move the computer that followed her,
    and in a deal where the computer only ever followed her the test saw no move.)"""
    ann, bea = terminal("ann"), terminal("bea")
    match = lobby_match(bea)
    handle(bea, "bot", "terminal")
    moved_while_waiting = []

    def wait_for_the_computer(prompt: str = "") -> str:
        before = computer_moves(match)
        deadline = time.monotonic() + 120  # it moves within a second here; a busy machine may take long
        while time.monotonic() < deadline:
            current = refresh(match)
            if current.status != Match.Status.RUNNING or computer_moves(match) > before:
                break
            person = mover(current)
            if person in (ann, bea):
                handle(person, f"#{match.code} {best_action(current)}", "terminal")
            else:
                time.sleep(0.05)  # a computer's turn, and nobody but ann's terminal to move it
        moved_while_waiting.append(computer_moves(match) > before)
        return "quit"

    session = play("--name", "ann", "--join", match.code, typist=wait_for_the_computer)
    assert moved_while_waiting == [True], session.text[-3000:]  # what the terminal said, should it fail again


def test_a_hand_finished_at_the_terminal_is_reviewed_while_he_waits():
    """No review worker runs beside ``make play``: the refresher reviews the finished
    hands of his matches, so the match page marks his moves as it does for the site's."""
    ann = terminal("ann")
    match = advance(running_match(ann), lambda m: m.hands.filter(ended_at__isnull=False).exists())
    finished = match.hands.get(ended_at__isnull=False)
    assert finished.review is None
    waited = []

    def wait_for_the_review(prompt: str = "") -> str:
        waited.append(wait_until(lambda: Hand.objects.get(pk=finished.pk).review is not None))
        return "quit"

    play("--name", "ann", "--join", match.code, typist=wait_for_the_review)
    assert waited == [True]
    assert Hand.objects.get(pk=finished.pk).review["complete"]


def test_the_session_ends_by_itself_when_his_last_match_ends_while_he_waits(settings):
    settings.GIN3_REMATCH_HOURS = 0  # no offer to play it again to wait for
    ann, bea = terminal("ann"), terminal("bea")
    match = running_match(ann, bea)
    session = Session()
    typed = []

    def wait_while_bea_resigns(prompt: str = "") -> str:
        handle(bea, f"#{match.code} resign yes", "terminal")
        idle(10)  # the refresher wakes the main thread out of this wait
        typed.append("quit")
        return "quit"

    play("--name", "ann", "--join", match.code, typist=wait_while_bea_resigns, session=session)
    assert typed == []
    assert f"bea resigned #{match.code}" in session.text
    assert "No match of yours is running or waiting" in session.text
    assert "Bye." not in session.text
    assert session.status == 0


def test_when_his_last_match_ends_while_he_waits_he_is_told_how_to_play_it_again():
    ann, bea = terminal("ann"), terminal("bea")
    match = running_match(ann, bea)
    session = Session()
    prompts = []

    def wait_while_bea_resigns(prompt: str = "") -> str:
        prompts.append(prompt)
        if len(prompts) == 1:
            handle(bea, f"#{match.code} resign yes", "terminal")
            idle(10)  # the refresher wakes the main thread out of this wait
        return "quit"

    play("--name", "ann", "--join", match.code, typist=wait_while_bea_resigns, session=session)
    assert len(prompts) == 2
    assert f"Type again to play #{match.code} again" in session.text
    assert session.status == 0


def test_the_thread_ends_with_the_session_and_closes_its_connection(monkeypatch):
    from bot.terminal import refresher

    closed_by = []

    class RecordingConnection:
        def __getattr__(self, name):
            return getattr(connection, name)

        def close(self):
            closed_by.append(threading.current_thread().name)
            connection.close()

    monkeypatch.setattr(refresher, "connection", RecordingConnection())
    monkeypatch.setattr(refresher, "REFRESH_SECONDS", 0.05)

    def wait_a_little(prompt: str = "") -> str:
        time.sleep(0.3)
        return "quit"

    play("--name", "ann", "--options", "5m", typist=wait_a_little)
    assert closed_by == ["gin3-play-refresher"]
    assert not [thread for thread in threading.enumerate() if thread.name == "gin3-play-refresher"]


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's file lock")
def test_a_database_locked_for_a_moment_by_another_process_only_delays_a_command():
    locked, release = threading.Event(), threading.Event()

    def other_process() -> None:
        other = sqlite3.connect(connection.settings_dict["NAME"], isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        locked.set()
        release.wait(5)
        other.execute("COMMIT")
        other.close()

    holder = threading.Thread(target=other_process)
    lines = iter(["lock", "help", "quit"])

    def typist(prompt: str = "") -> str:
        line = next(lines)
        if line == "lock":
            holder.start()
            locked.wait(5)
            threading.Timer(1.0, release.set).start()
            return "score"
        return line

    session = play("--name", "ann", "--options", "5m", typist=typist)
    holder.join()
    assert "#" in session.text.split("> score")[1].split("> help")[0]  # the score, after the wait
    assert "The database did not answer" not in session.text


def test_due_work_stops_when_a_human_is_to_move():
    """No spinning: once the computers have moved, nothing is due until someone else acts."""
    from bot.terminal import worker

    ann = terminal("ann")
    match = lobby_match(ann)
    handle(ann, "bot", "terminal")
    handle(ann, "bot", "terminal")
    for _round in range(100):
        if not worker.do_due_work({match.pk}):
            break
    match = refresh(match)
    assert match.status != Match.Status.RUNNING or mover(match) == ann
    assert worker.do_due_work({match.pk}) == 0
    assert worker.do_due_work(set()) == 0


def test_after_his_last_match_ends_the_next_ones_news_still_shows_without_enter():
    """The refresher goes on after his last match ends: a new match's joins and moves,
    an admin's pause or abort, show without his pressing Enter."""
    ann, bea = terminal("ann"), terminal("bea")
    match = running_match(ann, bea)
    session = Session()
    prompts: list[str] = []
    seen: dict[str, object] = {}

    def typist(prompt: str = "") -> str:
        """Each step once: the refresher may wake the main thread out of any of them (what
        it shows arrived), and the prompt then asks again."""
        prompts.append(prompt)
        if len(prompts) == 1:
            handle(bea, f"#{match.code} resign yes", "terminal")
            idle(10)  # the refresher wakes the main thread out of this wait: "Type again ..."
            return "quit"
        if len(prompts) == 2:
            return "new 5m"
        new = Match.objects.exclude(pk=match.pk).get(created_by=ann)
        if "joined" not in seen:
            if not new.seats.filter(player=bea).exists():
                handle(bea, f"join {new.code}", "terminal")
            seen["joined"] = wait_until(lambda: f"bea joined #{new.code}." in session.text, timeout=30)
        if "aborted" not in seen:
            if refresh(new).status != Match.Status.ABORTED:
                moderation.abort(new, "desk", "a test")
            seen["aborted"] = wait_until(lambda: f"An admin aborted #{new.code}." in session.text, timeout=30)
        return "quit"

    play("--name", "ann", "--join", match.code, typist=typist, session=session)
    assert f"Type again to play #{match.code} again" in session.text
    assert seen == {"joined": True, "aborted": True}
