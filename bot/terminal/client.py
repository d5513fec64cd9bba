"""A whole terminal session, from the command line's options to the exit status.

It starts by joining the match named (``--join``) or by starting one with
computer players, then follows every match of the player that is running or
waiting. It ends when he quits (``quit``, Ctrl-D, Ctrl-C), saying how to come
back to each match that goes on without him, or when no match of his is left
running or waiting, saying how to start again. Whatever happens it prints a
line, never a traceback: 0 is a session that ended as asked, 1 one that could
not start or could not go on (a wrong code or option, no database, a closed
output), 2 a name that is not one.
"""

from __future__ import annotations

import fcntl
import getpass
import hashlib
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from django.conf import settings
from django.db import DatabaseError, connection

from games.models import Match
from games.services.write import players
from games.text import terminal as words

from .interrupts import Interrupts, Wake
from .refresher import Refresher
from .relaunch import Relaunch
from .screen import OutputGone, Screen
from .session import OPEN, AgainOffer, Session

QUIT_WORDS = ("quit", "exit")
# Letters, digits and spaces as in docs/protocol.md's `name`, and the dots and dashes of login names.
NAME = re.compile(r"[\w .-]{1,20}")
DEFAULT_NAME = "Player"
DEFAULT_COMPUTERS = 2  # a new match against two computer players, unless --computers says otherwise
OK, FAILED, BAD_NAME = 0, 1, 2


def _nothing_joined(relaunch: Relaunch) -> str:
    return words.nothing_joined(relaunch.command("--join", "CODE"), relaunch.command())


def _nothing_started(relaunch: Relaunch) -> str:
    return words.nothing_started(relaunch.command("--options", '"5m to 50"'))


def _no_match_left(relaunch: Relaunch) -> str:
    return words.no_match_left(relaunch.command(), relaunch.command("--join", "CODE"))


def login_name() -> str:
    """The login, if it makes a name; otherwise a plain one."""
    try:
        login = getpass.getuser()
    except (OSError, KeyError):  # no login name in the environment and no passwd entry (a container)
        return DEFAULT_NAME
    return login if NAME.fullmatch(login) else DEFAULT_NAME


def locale_language() -> str:
    """The language his terminal's locale asks for, as gettext reads it (``LANGUAGE``,
    then ``LC_ALL``, ``LC_MESSAGES``, ``LANG``): "lt" for ``lt_LT.UTF-8``; "" for none
    or for C and POSIX, which name no language."""
    for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(variable, "").split(":")[0]
        code = value.split(".")[0].split("@")[0]
        if code and code not in ("C", "POSIX"):
            return code
    return ""


def run(
    screen: Screen,
    name: str,
    join: str,
    options: str,
    computers: int | None,
    language: str = "",
    relaunch: Relaunch | None = None,
    level: str = "",
) -> int:
    """Play until he leaves or nothing is left to play; the exit status. A new player
    speaks ``language`` or his locale's; ``language`` also switches a known one.
    ``relaunch``: what he gave on the command line, which the hints it prints keep.
    ``level``: the computer players' (``bot hard``); the default level when empty.
    ``computers``: how many to add to a new match (two unless given); with no option
    given at all he comes back to his open matches, if he has any, instead."""
    name = name.strip()
    if not NAME.fullmatch(name):
        screen.say(words.bad_name())
        return BAD_NAME
    with Interrupts(screen) as interrupts:
        try:
            player = players.terminal_player(f"terminal:{name}", name, language or locale_language())
        except DatabaseError as error:
            screen.say(words.no_database(str(error).splitlines()[0] if str(error) else type(error).__name__))
            return FAILED
        except OutputGone:
            return FAILED
        relaunch = relaunch or Relaunch()
        with only_session_of(player.terminal_user or name) as alone:
            if not alone:
                other = replace(relaunch, name="").command("--name", "NAME")
                screen.say(words.playing_elsewhere(name, other))
                return FAILED
            session = Session(player, screen, interrupts, relaunch)
            try:
                if language and language.lower() != player.language:
                    session.attempt(lambda: session.send(f"lang {language}"), None)
                return _play(session, join, options, computers, level)
            except OutputGone:
                return FAILED
            except KeyboardInterrupt:  # a second Ctrl-C while a step was still going on
                return _leave(session)


@contextmanager
def only_session_of(terminal_user: str) -> Iterator[bool]:
    """Whether this is the player's one terminal session on this machine, held while
    it lasts. Two sessions of one player would each print whichever of his messages
    it claimed first, and one would fall silent for no reason he could see. The lock
    is the operating system's (``flock``): it goes with the process, however that ends."""
    folder = Path(settings.VAR_DIR) / "terminal"
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"{_lock_name(terminal_user)}.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True


def _lock_name(terminal_user: str) -> str:
    """The player's in this database: two databases (two ``DATABASE_URL``) beside one
    ``var/`` have players of their own, and an in-memory one is its process's alone."""
    database = connection.settings_dict
    name = str(database["NAME"])
    where = [connection.vendor, str(database.get("HOST", "")), str(database.get("PORT", "")), name]
    if name == ":memory:" or "mode=memory" in name:
        where.append(str(os.getpid()))
    return hashlib.sha256("\n".join([*where, terminal_user]).encode()).hexdigest()[:32]


def _play(session: Session, join: str, options: str, computers: int | None, level: str = "") -> int:
    session.say(lambda: words.greeting(str(session.player)))
    asked_nothing = not (join or options or level) and computers is None
    back = asked_nothing and session.attempt(lambda: come_back(session), False)
    started = back or session.attempt(lambda: start(session, join, options, computers, level), False)
    codes = session.attempt(session.follow, [])
    if not codes:
        session.say(lambda: (_nothing_joined if join else _nothing_started)(session.relaunch))
        return FAILED
    if not back and (not started or len(codes) > 1):
        session.say(lambda: words.your_matches(codes))
    refresher = Refresher(session)
    refresher.start()
    try:
        return _loop(session)
    finally:
        refresher.stop()


def start(session: Session, join: str, options: str, computers: int | None, level: str = "") -> bool:
    """Join the match named, or start one with ``computers`` computer players (two unless
    given, of ``level``); True if he is in it now."""
    if join:
        code = join.strip().lstrip("#").upper()
        if session.seated_in(code):
            session.send(f"#{code} status")  # coming back to his match
        else:
            session.send(f"join {code}")
        match = session.seated_in(code)
        return match is not None and match.status in OPEN
    newest = Match.objects.filter(created_by=session.player).order_by("-pk").values_list("pk", flat=True).first()
    session.send(f"new {options}")
    match = Match.objects.filter(created_by=session.player, pk__gt=newest or 0).order_by("pk").first()
    if match is None:
        return False  # the reply said what was wrong with the options
    for _computer in range(DEFAULT_COMPUTERS if computers is None else computers):
        session.send(f"#{match.code} bot {level}".strip())  # named: he may be waiting in another match too
    return True


def come_back(session: Session) -> bool:
    """Show him the table of each of his open matches, if he has any, after a line that
    says so: a plain ``make play`` after quitting means the match he left, not a second
    one beside it."""
    codes = [match.code for match in session.open_matches()]
    if codes:
        session.say(lambda: words.came_back(codes))
    for code in codes:
        session.send(f"#{code} status")
    return bool(codes)


def _loop(session: Session) -> int:
    offered = None  # the match he may play again, once he has been told how
    while True:
        if session.interrupts.requested:
            return _leave(session)
        codes = session.attempt(session.follow, None)
        if codes == []:
            again = session.attempt(session.offered_again, None)
            if again is None:
                session.say(lambda: _no_match_left(session.relaunch))
                return OK
            if again != offered:
                offered = again
                session.say(lambda again=again: _what_now(again))
        try:
            line = session.screen.read_line(session.interrupts.raise_noted)
        except Wake:
            session.screen.abandon_line()
            continue
        except (EOFError, KeyboardInterrupt):
            return _leave(session)
        if line.strip().lower().lstrip("/") in QUIT_WORDS:
            return _leave(session)
        session.attempt(lambda line=line: session.send(line), None)


def _what_now(again: AgainOffer) -> str:
    return words.what_now(again.code, again.said)


def _leave(session: Session) -> int:
    try:
        session.screen.end_line()
        session.farewell()
    except (OutputGone, KeyboardInterrupt):
        return FAILED
    return OK
