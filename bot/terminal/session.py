"""One player at the terminal: his commands, his matches, and catching up with them.

The session follows every match the player is in that is running or waiting
for players, not only the one it started with: he may have several (as in
correspondence chess), and what arrives from each is printed as it comes.
The main thread (his commands) and the refresher thread (what arrives while
he waits) take turns through ``lock``, each on its own database connection.
"""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlsplit

from django.conf import settings
from django.db import DatabaseError
from django.utils import timezone, translation

from games.models import Event, Match, Outbox, Player
from games.services import handle
from games.services.plumbing.delivery import deliver_address
from games.services.write import rematch
from games.text import terminal as words
from games.text.links import site_link

from .backend import TerminalBackend
from .interrupts import Interrupts, Wake
from .relaunch import Relaunch
from .screen import OutputGone, Screen, typed
from .worker import do_due_work, review_a_hand

OPEN = (Match.Status.LOBBY, Match.Status.RUNNING)
BUG_LOG = "play-errors.log"
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")  # a site on this machine: up only while make run serves it
T = TypeVar("T")


@dataclass(frozen=True)
class AgainOffer:
    """A match of this session that ended and may be played again."""

    code: str
    said: bool  # its final result offered it already (a match played to its target)


class Session:
    def __init__(self, player: Player, screen: Screen, interrupts: Interrupts, relaunch: Relaunch) -> None:
        self.player = player
        self.screen = screen
        self.interrupts = interrupts
        self.started_with = relaunch
        self.backend = TerminalBackend(screen)
        self.lock = threading.RLock()
        self.followed: set[str] = set()  # codes of his open matches, as last announced
        self.ended: list[str] = []  # codes of the matches followed here that finished, in the order they did

    @property
    def relaunch(self) -> Relaunch:
        """How the hints this session prints start him again, as himself and in his language now."""
        return self.started_with.speaking(self.player.language)

    def say(self, line: Callable[[], str]) -> None:
        """One line of the terminal's own, in his language (``lang`` may change it)."""
        with translation.override(self.player.language):
            self.screen.say(line())

    # What he does -----------------------------------------------------------

    def send(self, text: str) -> None:
        """Carry out what he typed, then catch up until he has typed his next line: the
        refresher goes on from there while he waits."""
        with self.lock:
            handle(self.player, typed(text), Outbox.Channel.TERMINAL)
            self.catch_up(until_he_types=True)

    def catch_up(self, until_he_types: bool = False) -> None:
        """Do what is due in his running matches, show what was sent to him, until nothing
        is left: a step at a time, each under the lock. Two computer players may play out a
        whole hand while their sitter waits, and a command he types meanwhile (``score``,
        ``hint``) is taken after the move in progress, against the table he has been shown,
        not after the hand. ``until_he_types``: the catch-up that follows his command ends
        as soon as he has typed his next line, which is read at once; the refresher goes
        on with the rest."""
        while True:
            with self.lock:
                # What his command or the last step sent him is shown before the next
                # step is done: a computer's move would otherwise replace, unread, the
                # table that answered his command ("You played the sitter's suggestion").
                deliver_address(Outbox.Channel.TERMINAL, self.player.terminal_user, self.backend)
                running = {match.pk for match in self.open_matches() if match.status == Match.Status.RUNNING}
                done = do_due_work(running)
            if self.screen.gone:
                raise OutputGone
            if not done or (until_he_types and self.screen.typed_ahead()):
                return

    def review_finished_hands(self) -> bool:
        """Review a finished hand of a match followed here, if one waits (``review_a_hand``):
        the match page marks his moves for hands played at the terminal too. True if one was."""
        codes = self.followed | set(self.ended)
        ids = Match.objects.filter(code__in=codes, seats__player=self.player).values_list("pk", flat=True)
        return review_a_hand(list(ids))

    # His matches --------------------------------------------------------------

    def open_matches(self) -> list[Match]:
        """His matches that are running or waiting for players, oldest first."""
        return list(Match.objects.filter(seats__player=self.player, status__in=OPEN).order_by("created_at", "pk"))

    def seated_in(self, code: str) -> Match | None:
        return Match.objects.filter(code=code, seats__player=self.player).first()

    def follow(self) -> list[str]:
        """The codes of his open matches now. A match followed until now that is over
        is announced once, with its page on the site."""
        now = [match.code for match in self.open_matches()]
        for code in sorted(self.followed - set(now)):
            if Match.objects.filter(code=code, status=Match.Status.FINISHED).exists():
                self.ended.append(code)
                url = site_link(f"/m/{code}/")
                local = urlsplit(url).hostname in LOCAL_HOSTS
                self.say(lambda code=code, url=url, local=local: words.match_over(code, url, local))
        self.followed = set(now)
        return now

    def offered_again(self) -> AgainOffer | None:
        """The last match that ended in this session, if he played it to its end and may
        still play it again: the session waits for his ``again`` instead of ending with
        it. Not a match of an earlier session, nor one whose seat went to a computer."""
        if not self.ended:
            return None
        last = Match.objects.filter(code=self.ended[-1], seats__player=self.player).first()
        if last is None or not rematch.still_offered(last):
            return None
        end = Event.objects.filter(match=last, kind="match_over").values_list("data", flat=True).last() or {}
        return AgainOffer(last.code, said=end.get("reason") == "target")

    def farewell(self) -> None:
        """How to come back to each match that goes on without him, as himself."""
        for code in self.attempt(lambda: [match.code for match in self.open_matches()], []):
            self.say(lambda code=code: words.waits_for_you(code, self.relaunch.command("--join", code)))
        self.say(words.bye)

    # When something goes wrong -----------------------------------------------

    def attempt(self, step: Callable[[], T], otherwise: T, quiet: bool = False) -> T:
        """Run ``step``; a database that does not answer, or a bug inside gin3, is told in
        one line and ``otherwise`` returned, never a traceback. Every step is one or more
        service transactions, so what failed left the matches as they were."""
        try:
            return step()
        except (OutputGone, Wake):
            raise
        except DatabaseError as error:
            if not quiet:
                reason = str(error).splitlines()[0] if str(error) else type(error).__name__
                self.say(lambda: words.database_did_not_answer(reason))
        except Exception:
            self.report_bug()
        return otherwise

    def report_bug(self) -> None:
        """Write the exception being handled down, and tell him in one line."""
        path = record_bug()
        self.say(lambda: words.bug_written(str(path)))


def record_bug() -> str:
    """Append the exception being handled to the bug log under var/; return where it went."""
    path = Path(settings.VAR_DIR) / BUG_LOG
    try:
        with path.open("a", encoding="utf-8") as log:
            log.write(f"{timezone.now().isoformat()}\n{traceback.format_exc()}\n")
    except OSError:
        return "-"
    return str(path)
