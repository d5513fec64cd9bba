"""Play gin3 in the terminal (``make play``): the terminal channel, in ``bot.terminal``.

What you type goes through ``games.services.handle`` and what you are told
comes from the outbox, as on every channel. This process also moves the
computer players and keeps the turn clocks of your matches, so it needs no
worker (and is safe beside one).
"""

from __future__ import annotations

import contextlib
import os
import sys

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from bot.terminal.client import login_name, run
from bot.terminal.relaunch import Relaunch
from bot.terminal.screen import Screen, tolerate_bad_bytes
from games.text.protocol import LEVELS


class Command(BaseCommand):
    help = "Play a game in the terminal, typing the commands of docs/protocol.md."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--name", default="", help="your player name (default: your login)")
        parser.add_argument("--join", default="", metavar="CODE", help="join a match, or come back to yours")
        parser.add_argument("--options", default="", help="options for new, e.g. '5m to 50'")
        parser.add_argument(
            "--computers", type=int, default=None, choices=(0, 1, 2), help="computer players to add (default: 2)"
        )
        parser.add_argument("--level", choices=LEVELS, help="how well they play: easy, normal (default) or hard")
        codes = ", ".join(code for code, _name in settings.LANGUAGES)
        parser.add_argument("--lang", default="", metavar="CODE", help=f"one of {codes} (default: your locale's)")

    def handle(self, *args: object, **options: object) -> None:
        settings.GIN3_BACKGROUND = "off"  # nothing goes to a worker: this process does it (bot.terminal.worker)
        self.stdout.ending = ""  # the screen ends its own lines
        for stream in (sys.stdin, self.stdout):
            tolerate_bad_bytes(stream)
        screen = Screen(self.stdout)
        status = run(
            screen,
            name=str(options["name"]) or login_name(),
            join=str(options["join"]),
            options=str(options["options"]),
            computers=None if options["computers"] is None else int(str(options["computers"])),
            language=str(options["lang"]),
            level=str(options["level"] or ""),
            relaunch=Relaunch(name=str(options["name"]).strip(), language=_known(str(options["lang"]))),
        )
        if screen.gone and options.get("stdout") is None:
            _silence_stdout()
        if status:
            raise SystemExit(status)


def _known(language: str) -> str:
    """``--lang`` if it names a language of gin3 (the hints repeat it), else nothing."""
    code = language.strip().lower()
    return code if code in dict(settings.LANGUAGES) else ""


def _silence_stdout() -> None:
    """Our output was closed (``make play | head``): point stdout at /dev/null, so that
    Python's last flush at exit does not complain about the broken pipe."""
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
