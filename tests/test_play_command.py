"""The terminal channel, ``manage.py play``: how a session starts, which matches it
follows, how it ends, and what it does with whatever is typed.

Why: ``make play`` is the first thing a newcomer tries.
Every way in must end in a clear line, never a traceback, and the
session must follow the matches he is in, not a guess.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from datetime import timedelta

import pytest
from django.db import OperationalError
from django.utils import timezone

from bot.terminal.client import locale_language, only_session_of
from games.contract.tables import Automatic
from games.engine import DECK
from games.engine.hand import Phase
from games.models import Event, Match, Outbox, Player
from games.services import handle
from games.services.write import computer_moves, moderation
from games.services.write.players import terminal_player
from tests.conftest import best_action, code_in, engine_hand, mover, refresh, snapshot
from tests.terminal_harness import Script, assert_clean, idle, play

pytestmark = pytest.mark.django_db(transaction=True)


def terminal(name: str) -> Player:
    """The player ``manage.py play --name NAME`` plays as."""
    return terminal_player(f"terminal:{name}", name)


def lobby_match(creator: Player) -> Match:
    return Match.objects.get(code=code_in(handle(creator, "new 5m", "terminal")))


def advance(match: Match, until: Callable[[Match], bool], limit: int = 300) -> Match:
    """Play for whoever is to move (computers too) until ``until(match)``: knocks when
    allowed, as a drawn hand is dealt again with the same roles and the sitter never moves.
    There, a computer sitter has given its advice, as the terminal's worker would."""
    for _move in range(limit):
        match = refresh(match)
        if until(match):
            if not mover(match).is_computer:
                computer_moves.play_computer_move(match.pk)  # a computer sitter's advice, if he captains
            return refresh(match)
        handle(mover(match), str(best_action(match)), "terminal")
    raise AssertionError(f"not there after {limit} moves: {Event.objects.filter(match=match).count()} events")


def running_match(creator: Player, *others: Player) -> Match:
    """A running match of ``creator``, ``others`` and computer players for the seats left."""
    match = lobby_match(creator)
    for other in others:
        handle(other, f"join {match.code}", "terminal")
    for _seat in range(2 - len(others)):
        handle(creator, f"#{match.code} bot", "terminal")
    return refresh(match)


# Starting ---------------------------------------------------------------------


def test_a_new_player_speaks_his_locales_language_from_the_first_line():
    lithuanian = {"LANGUAGE": "", "LANG": "lt_LT.UTF-8"}
    session = play("--name", "jonas", "--computers", "2", typist=["quit"], environment=lithuanian)
    assert session.text.startswith("gin3 terminale, vardu jonas.")
    assert "Type help" not in session.text
    assert Player.objects.get(terminal_user="terminal:jonas").language == "lt"


def test_lang_chooses_the_language_of_a_new_player_over_his_locale():
    session = play("--name", "anita", "--lang", "mr", typist=["quit"], environment={"LANG": "lt_LT.UTF-8"})
    assert session.text.startswith("टर्मिनलमध्ये gin3, anita म्हणून.")
    assert Player.objects.get(terminal_user="terminal:anita").language == "mr"


def test_a_known_player_keeps_his_language_whatever_the_locale_until_lang_changes_it():
    terminal("ona")
    session = play("--name", "ona", "--computers", "0", typist=["quit"], environment={"LANG": "he_IL.UTF-8"})
    assert session.text.startswith("gin3 in the terminal, as ona.")
    session = play("--name", "ona", "--computers", "0", "--lang", "lt", typist=["quit"])
    assert "gin3 terminale, vardu ona." in session.text
    assert Player.objects.get(terminal_user="terminal:ona").language == "lt"


def test_an_unknown_lang_is_answered_as_the_lang_command_answers_it():
    session = play("--name", "kim", "--computers", "0", "--lang", "xx", typist=["quit"])
    assert_clean(session.text)
    assert handle(terminal("kim"), "lang xx", "terminal") in session.text
    assert Player.objects.get(terminal_user="terminal:kim").language == "en"


@pytest.mark.parametrize(
    ("environment", "language"),
    [
        ({"LANGUAGE": "mr:en", "LANG": "lt_LT.UTF-8"}, "mr"),
        ({"LC_ALL": "he_IL.UTF-8", "LANG": "lt_LT.UTF-8"}, "he_IL"),
        ({"LANG": "ms_MY.UTF-8"}, "ms_MY"),
        ({"LANG": "C.UTF-8"}, ""),
        ({"LANG": "sr_RS@latin"}, "sr_RS"),
        ({}, ""),
    ],
)
def test_the_locales_language_is_read_as_gettext_reads_it(monkeypatch, environment, language):
    for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(variable, raising=False)
    for variable, value in environment.items():
        monkeypatch.setenv(variable, value)
    assert locale_language() == language


def test_join_an_unknown_code_says_so_and_exits_with_a_hint():
    session = play("--name", "ann", "--join", "ZZZZ", typist=["status"])
    assert "There is no match #ZZZZ." in session.text
    assert "make play ARGS='--name ann --join CODE'" in session.text
    assert session.status == 1
    assert_clean(session.text)


def test_join_a_started_match_of_others_says_so_and_exits_with_a_hint():
    others = running_match(terminal("bea"))
    session = play("--name", "ann", "--join", others.code, typist=["status"])
    assert f"#{others.code} has already started." in session.text
    assert "Nothing to follow" in session.text
    assert session.status == 1
    assert_clean(session.text)


def test_options_new_refuses_say_why_and_start_nothing():
    session = play("--name", "ann", "--options", "2h", typist=["status"])
    assert "TIME is one of" in session.text
    assert "Nothing was started" in session.text
    assert session.status == 1
    assert not Match.objects.exists()
    assert_clean(session.text)


def test_a_failed_join_goes_on_with_the_matches_he_has():
    mine = lobby_match(terminal("ann"))
    session = play("--name", "ann", "--join", "ZZZZ", typist=["quit"])
    assert "There is no match #ZZZZ." in session.text
    assert f"Your matches: #{mine.code}" in session.text
    assert f"#{mine.code} waits for you" in session.text
    assert session.status == 0


def test_join_by_a_player_on_autopilot_gives_him_his_seat_and_the_table():
    ann, bea = terminal("ann"), terminal("bea")
    match = running_match(bea, ann)
    match.seats.filter(player=ann).update(autopilot=True, timeouts_in_row=3)
    session = play("--name", "ann", "--join", match.code, typist=["quit"])
    assert not match.seats.get(player=ann).autopilot
    assert f"#{match.code} hand 1" in session.text
    assert f"#{match.code} waits for you" in session.text
    assert session.status == 0
    assert_clean(session.text)


def test_join_with_a_code_written_as_a_player_would():
    match = lobby_match(terminal("bea"))
    session = play("--name", "ann", "--join", f"#{match.code.lower()}", typist=["quit"])
    assert f"You joined #{match.code}." in session.text
    assert match.seats.filter(player__display_name="ann").exists()
    assert "is not a match code" not in session.text


def test_computer_players_join_the_new_match_when_another_one_waits():
    waiting = lobby_match(terminal("ann"))
    session = play("--name", "ann", "--options", "5m to 50", typist=["quit"])
    new = Match.objects.exclude(pk=waiting.pk).get(created_by__display_name="ann")
    assert new.status in (Match.Status.RUNNING, Match.Status.FINISHED)
    assert refresh(waiting).seats.count() == 1
    assert "Which match?" not in session.text


def test_a_name_that_is_not_one_is_refused_before_anything_is_made():
    session = play("--name", "\x1b[2Jrm -rf", typist=["quit"])
    assert "A name is 1 to 20 letters" in session.text
    assert session.status == 2
    assert not Player.objects.exists()


# Following his matches --------------------------------------------------------------


def test_join_follows_the_match_named_not_his_newest():
    ann = terminal("ann")
    older = lobby_match(terminal("bea"))
    handle(ann, f"join {older.code}", "terminal")
    newest = running_match(ann)
    handle(ann, f"#{newest.code} resign yes", "terminal")
    session = play("--name", "ann", "--join", older.code, typist=["quit"])
    assert f"#{older.code} is waiting for players" in session.text
    assert f"#{newest.code} is over" not in session.text
    assert f"#{older.code} waits for you" in session.text
    assert session.status == 0


def test_leaving_one_match_keeps_following_the_others():
    ann = terminal("ann")
    first, second = lobby_match(ann), lobby_match(ann)
    script = Script([f"#{first.code} leave", "help", "quit"])
    session = play("--name", "ann", "--join", second.code, typist=script)
    assert f"You left #{first.code}." in session.text
    assert script.left == 0
    assert f"#{second.code} waits for you" in session.text
    assert f"#{first.code} waits for you" not in session.text


def test_with_several_matches_a_command_without_a_code_gets_which_match():
    ann = terminal("ann")
    first = lobby_match(ann)
    session = play("--name", "ann", "--computers", "0", typist=["leave", f"#{first.code} status", "quit"])
    assert "Which match? Put its code first" in session.text
    assert f"#{first.code} is waiting for players: ann." in session.text


def test_what_arrives_from_a_match_is_shown_with_its_code():
    ann = terminal("ann")
    match = running_match(ann)
    Outbox.objects.create(
        recipient=ann, match=match, channel="terminal", address=ann.terminal_user, kind="note", text="Tea time."
    )
    session = play("--name", "ann", "--join", match.code, typist=["quit"])
    assert f"#{match.code} Tea time." in session.text


def test_the_session_ends_by_itself_when_no_match_of_his_is_left():
    script = Script(["leave", "status", "quit"])
    session = play("--name", "ann", "--computers", "0", typist=script)
    assert "You left #" in session.text
    assert "No match of yours is running or waiting. Start one: make play ARGS='--name ann'" in session.text
    assert script.left == 2
    assert session.status == 0


def test_the_end_of_a_match_shows_its_page():
    script = Script(["resign", "resign yes"])
    session = play("--name", "ann", "--options", "5m", typist=script)
    match = Match.objects.get(created_by__display_name="ann")
    assert "You resigned" in session.text
    assert f"#{match.code} is over. To list its hands, type #{match.code} score; http" in session.text
    assert "while make run serves the site." in session.text
    assert f"Type again to play #{match.code} again with the same players" in session.text


def test_after_a_match_the_session_waits_for_again_and_plays_it_again():
    script = Script(["resign", "resign yes", "again", "quit"])
    session = play("--name", "ann", "--options", "5m", typist=script)
    old = Match.objects.get(created_by__display_name="ann", rematch_of=None)
    new = Match.objects.get(rematch_of=old)
    assert new.status == Match.Status.RUNNING and script.left == 0
    assert f"#{new.code} waits for you" in session.text
    assert session.status == 0


@pytest.mark.any_database
@pytest.mark.slow
def test_the_end_of_a_match_played_to_its_target_says_again_once():
    """Its final result offers to play it again; the terminal's own line after it did too."""
    ann = terminal("ann")
    match = running_match(ann)
    match.seats.update(score=99)  # to 100: the next hand with a winner ends it

    def play_well(prompt: str = "") -> str:
        current = refresh(match)
        if current.status != Match.Status.RUNNING:
            return "quit"
        return str(best_action(current)) if mover(current) == ann else "status"

    session = play("--name", "ann", "--join", match.code, typist=play_well)
    assert refresh(match).status == Match.Status.FINISHED
    end = session.text[session.text.rindex("wins the match") :]
    assert [line for line in end.splitlines() if "again" in line] == ["To play again with the same players: again"]
    assert "Type new for another match, or quit." in end


def test_after_his_seat_goes_to_a_computer_no_older_match_is_offered_again():
    ann, bea = terminal("ann"), terminal("bea")
    older = running_match(ann, bea)
    handle(bea, f"#{older.code} resign yes", "terminal")  # finished an hour ago: still offered
    match = running_match(ann, bea)
    replaced = []

    def wait_for_the_desk(prompt: str = "") -> str:
        if not replaced:
            position = match.seats.get(player=ann).position
            replaced.append(moderation.replace_with_computer(match, position, "desk"))
            idle(10)  # the refresher wakes the main thread out of this wait
        return "quit"

    session = play("--name", "ann", "--join", match.code, typist=wait_for_the_desk)
    after = session.text.partition(f"An admin gave your seat in #{match.code} to a computer player")[2]
    assert f"#{older.code}" not in after
    assert "Type again" not in after
    assert "No match of yours is running or waiting" in after
    assert session.status == 0


def test_when_the_offer_to_play_again_lapses_the_session_ends_by_itself(settings):
    settings.GIN3_REMATCH_HOURS = 0
    script = Script(["resign", "resign yes", "status"])
    session = play("--name", "ann", "--options", "5m", typist=script)
    assert "No match of yours is running or waiting" in session.text
    assert script.left == 1


# Leaving ----------------------------------------------------------------------------


@pytest.mark.parametrize("leave", ["quit", "EXIT", "/quit"])
def test_quit_says_how_to_come_back_to_every_match(leave):
    ann = terminal("ann")
    waiting = lobby_match(ann)
    session = play("--name", "ann", "--options", "5m", typist=[leave])
    running = Match.objects.get(created_by=ann, status=Match.Status.RUNNING)
    for match in (waiting, running):
        assert f"#{match.code} waits for you: make play ARGS='--name ann --join {match.code}'" in session.text
    assert session.text.rstrip().endswith("Bye.")
    assert session.status == 0


def test_a_second_terminal_of_the_same_player_is_refused_while_the_first_plays():
    """helper-35: a second session as the same player took his messages, one by one, and the
    first fell silent with no word why."""
    ann = terminal("ann")
    with only_session_of(ann.terminal_user) as alone:
        assert alone
        second = play("--name", "ann", "--options", "5m", typist=[])
    assert second.status == 1
    assert second.text.splitlines()[-1] == (
        "ann is playing in another terminal of this machine, which gets his messages: "
        "quit there first, or play under another name: make play ARGS='--name NAME'"
    )
    assert not Match.objects.filter(created_by=ann).exists()
    assert play("--name", "ann", "--options", "5m", typist=[]).status == 0  # the first one has quit


def test_end_of_input_says_the_same_as_quit():
    session = play("--name", "ann", "--options", "5m", typist=[])
    code = Match.objects.get(created_by__display_name="ann").code
    assert f"#{code} waits for you: make play ARGS='--name ann --join {code}'" in session.text


def hinted_args(text: str, code: str) -> list[str]:
    """The arguments of the command line the goodbye hint prints for match ``code``, as a shell splits them."""
    line = next(line for line in text.splitlines() if line.startswith(f"#{code} ") and "make play" in line)
    return shlex.split(re.search(r"make play ARGS='([^']*)'", line).group(1))


@pytest.mark.parametrize(
    ("started_with", "environment"),
    [
        (("--name", "Bob"), {}),
        (("--name", "Bob", "--lang", "lt"), {}),
        (("--name", "Ann Lee"), {}),
        (("--lang", "mk"), {"USER": "zed", "LOGNAME": "zed"}),  # his login's name: nothing to repeat
    ],
)
def test_the_goodbye_hint_logs_him_back_in_as_himself(started_with, environment, monkeypatch):
    """``make play ARGS='--name Bob'`` then quit printed ``--join CODE`` alone, which
    logged in as his login's player, who could not join the match: "has already started"."""
    for variable, value in environment.items():
        monkeypatch.setenv(variable, value)
    first = play(*started_with, "--options", "5m", typist=["quit"])
    match = Match.objects.get(status=Match.Status.RUNNING)
    args = hinted_args(first.text, match.code)
    assert args[-2:] == ["--join", match.code]
    people = Player.objects.filter(is_computer=False).count()
    again = play(*args, typist=["quit"])
    assert Player.objects.filter(is_computer=False).count() == people
    assert "has already started" not in again.text
    assert hinted_args(again.text, match.code) == args  # he was back in his seat, and is told so again
    assert again.status == 0


def test_the_goodbye_hint_keeps_the_language_he_switched_to_not_the_one_he_started_with():
    """Started with ``--lang he``, he typed ``lang lt``: a hint with ``--lang he``
    would have switched him back to Hebrew."""
    session = play("--name", "Bob", "--lang", "he", "--options", "5m", typist=["lang lt", "quit"])
    match = Match.objects.get(status=Match.Status.RUNNING)
    assert hinted_args(session.text, match.code) == ["--name", "Bob", "--lang", "lt", "--join", match.code]
    assert Player.objects.get(display_name="Bob").language == "lt"


def test_make_play_again_comes_back_to_the_match_he_left_instead_of_starting_another():
    """A newcomer quit, ran the same make play again, and found a second match beside
    the first, which waited on him."""
    play("--name", "Ann", "--options", "5m", typist=["quit"])
    match = Match.objects.get(status=Match.Status.RUNNING)
    again = play("--name", "Ann", typist=["quit"])
    assert Match.objects.count() == 1
    assert f"Back to #{match.code}. Type new for another match." in again.text
    assert f"#{match.code} hand " in again.text  # his table (the computers may have played on)
    assert again.text.index("Back to #") < again.text.index(f"#{match.code} hand "), "said before the table"
    other = play("--name", "Ann", "--options", "5m", typist=["quit"])  # an option asks for a new one
    assert Match.objects.count() == 2
    assert "Back to" not in other.text
    both = play("--name", "Ann", typist=["quit"])
    codes = list(Match.objects.order_by("pk").values_list("code", flat=True))
    assert f"Back to your matches: #{codes[0]} #{codes[1]}. Put the code first" in both.text


def test_the_hints_of_a_session_that_could_not_start_keep_his_name_too():
    session = play("--name", "Bob", "--lang", "lt", "--join", "ZZZZ", typist=["quit"])
    assert "make play ARGS='--name Bob --lang lt --join CODE'" in session.text
    assert "make play ARGS='--name Bob --lang lt'" in session.text


def test_no_input_to_read_at_all_leaves_as_end_of_input_does():
    def closed(prompt: str = "") -> str:
        raise RuntimeError("input(): lost sys.stdin")  # started with stdin closed: play <&-

    session = play("--name", "ann", "--computers", "0", typist=closed)
    assert "waits for you" in session.text
    assert session.status == 0


def test_ctrl_c_at_the_prompt_leaves_with_the_same_hint():
    def interrupt(prompt: str = "") -> str:
        raise KeyboardInterrupt

    session = play("--name", "ann", "--options", "5m", typist=interrupt)
    assert "waits for you" in session.text
    assert "Bye." in session.text
    assert session.status == 0


def test_ctrl_c_while_a_command_runs_leaves_after_it(monkeypatch):
    """The first Ctrl-C while busy is noted and acted on when the step is done, so
    that no message is left half sent (claimed, then never printed)."""
    import signal

    from bot.terminal import session as terminal_session

    real_handle = terminal_session.handle

    def handle_then_interrupt(player, text, channel):
        reply = real_handle(player, text, channel)
        if text == "help":
            signal.raise_signal(signal.SIGINT)
        return reply

    monkeypatch.setattr(terminal_session, "handle", handle_then_interrupt)
    script = Script(["help", "status"])
    session = play("--name", "ann", "--computers", "0", typist=script)
    assert "Bye." in session.text
    assert script.left == 1
    assert not Outbox.objects.exclude(status=Outbox.Status.SENT).exists()


# Bad input --------------------------------------------------------------------------


BAD_INPUT = {
    "": "Type a command, for example: help",
    "   ": "Type a command, for example: help",
    "x" * 10_000: "I don't know 'xxxxxxxxxxxx…'",
    "dr\x00aw now": "I don't know 'dr'",
    "\x1b[2J\x1b]0;owned\x07": "I don't know '[2J'",
    "\x7f\x08\x0c": "Type a command, for example: help",
    "frobnicate": "I don't know 'frobnicate'",
    "discard 7x": "'7x' is not a card",
    "שלום עולם": "I don't know 'שלום'",
    "\u202edrwa": "I don't know 'drwa'. Did you mean draw?",
    "#ZZZZ draw": "You are not in a match #ZZZZ.",
    "#!! draw": "is not a match code",
    "stop": "STOP and similar words are only for SMS",
}


def test_bad_input_of_every_kind_gets_the_services_reply_and_changes_nothing():
    ann = terminal("ann")
    match = running_match(ann)
    advance(match, lambda match: mover(match) == ann)
    before = snapshot(match)
    session = play("--name", "ann", "--join", match.code, typist=[*BAD_INPUT, "quit"])
    for reply in BAD_INPUT.values():
        assert reply in session.text
    assert snapshot(match) == before
    assert "\x1b" not in session.text and "\x00" not in session.text and "\x07" not in session.text
    assert_clean(session.text)


def test_a_wrong_card_and_a_move_out_of_turn_get_a_reason():
    ann = terminal("ann")
    match = running_match(ann)
    advance(match, lambda match: mover(match) == ann and engine_hand(match).phase is Phase.DISCARD)
    hand = engine_hand(match)
    not_his = next(card for card in DECK if card not in hand.cards_of(hand.to_move))
    before = snapshot(match)
    session = play("--name", "ann", "--join", match.code, typist=[f"d {not_his}", "draw", "suggest draw", "quit"])
    assert f"Not allowed: you do not hold {not_his}" in session.text
    assert "Not allowed: " in session.text.split(f"you do not hold {not_his}")[1]
    assert "only the sitter suggests" in session.text
    assert snapshot(match) == before


def test_a_message_from_another_player_cannot_drive_the_terminal():
    ann = terminal("ann")
    Outbox.objects.create(
        recipient=ann, channel="terminal", address=ann.terminal_user, kind="team", text="hi\x1b[2J\x1b]0;x\x07\r!"
    )
    lobby_match(ann)
    session = play("--name", "ann", "--computers", "0", typist=["quit"])
    assert "hi\N{REPLACEMENT CHARACTER}[2J" in session.text
    assert "\x1b" not in session.text and "\r" not in session.text


# The database and bugs ---------------------------------------------------------------


def test_a_locked_database_is_told_in_a_line_and_the_session_goes_on(monkeypatch):
    from bot.terminal import session as terminal_session

    real_handle = terminal_session.handle
    calls = []

    def locked_once(player, text, channel):
        calls.append(text)
        if text == "score":
            raise OperationalError("database is locked")
        return real_handle(player, text, channel)

    monkeypatch.setattr(terminal_session, "handle", locked_once)
    session = play("--name", "ann", "--options", "5m", typist=["score", "help", "quit"])
    assert "The database did not answer (database is locked). Try again in a moment" in session.text
    assert "help" in calls
    assert "Bye." in session.text
    assert_clean(session.text)


def test_a_bug_inside_is_told_in_a_line_and_written_down(monkeypatch, settings, tmp_path):
    from bot.terminal import session as terminal_session

    settings.VAR_DIR = tmp_path
    real_handle = terminal_session.handle

    def buggy(player, text, channel):
        if text == "score":
            raise RuntimeError("the lead's new code")
        return real_handle(player, text, channel)

    monkeypatch.setattr(terminal_session, "handle", buggy)
    session = play("--name", "ann", "--options", "5m", typist=["score", "quit"])
    assert f"Something went wrong inside gin3 (a bug, written down in {tmp_path / 'play-errors.log'})" in session.text
    assert "Traceback" not in session.text
    assert "RuntimeError: the lead's new code" in (tmp_path / "play-errors.log").read_text()
    assert "Bye." in session.text


def test_a_database_that_is_not_set_up_is_told_in_a_line(monkeypatch):
    from bot.terminal import client

    def no_table(*args, **kwargs):
        raise OperationalError("no such table: games_player")

    monkeypatch.setattr(client.players, "terminal_player", no_table)
    session = play("--name", "ann", typist=["quit"])
    assert "The database can't be used (no such table: games_player)" in session.text
    assert "python manage.py migrate" in session.text
    assert session.status == 1


# Clocks and computer players without a worker -----------------------------------------


def test_a_missed_deadline_in_a_followed_match_is_enforced_without_a_worker():
    ann, bea = terminal("ann"), terminal("bea")
    match = running_match(ann, bea)
    advance(match, lambda match: mover(match) == bea)
    Match.objects.filter(pk=match.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    play("--name", "ann", "--join", match.code, typist=["quit"])
    assert match.seats.get(player=bea).timeouts_in_row == 1
    timeouts = Event.objects.filter(match=match, kind=Event.Kind.MOVE, data__automatic__startswith=Automatic.TIMEOUT)
    assert timeouts.exists()  # his own, or a computer sitter's suggestion that waited for him (R3.2)


def test_a_reminder_due_in_a_followed_match_is_sent_without_a_worker():
    ann, bea = terminal("ann"), terminal("bea")
    match = running_match(ann, bea)
    advance(match, lambda match: mover(match) == bea)
    Match.objects.filter(pk=match.pk).update(remind_at=timezone.now() - timedelta(seconds=1))
    play("--name", "ann", "--join", match.code, typist=["quit"])
    assert Outbox.objects.filter(recipient=bea, kind="reminder").count() == 1


def test_play_help_lists_the_levels_with_no_empty_choice():
    from bot.management.commands.play import Command

    usage = Command().create_parser("manage.py", "play").format_help()
    assert "--level {easy,normal,hard}" in usage
