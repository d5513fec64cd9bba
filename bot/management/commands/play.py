"""Play gin3 in the terminal against two computer players (the terminal channel).

The terminal is a channel like Telegram or SMS: what you type goes through
``games.services.handle`` and what you are told comes from the outbox. This
process also plays the computer players' moves itself, so it needs no worker.
"""

from __future__ import annotations

import getpass

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from bot.backends.terminal import TerminalBackend
from games.models import Match, Outbox, Player
from games.services import automation, handle, players
from games.services.delivery import deliver_address

QUIT_WORDS = ("quit", "exit")


class Command(BaseCommand):
    help = "Play a game in the terminal, typing the commands of PROTOCOL.md."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--name", default="", help="your player name (default: your login)")
        parser.add_argument("--join", default="", metavar="CODE", help="join a match instead of starting one")
        parser.add_argument("--options", default="", help="options for new, e.g. '5m to 50'")
        parser.add_argument("--computers", type=int, default=2, choices=(0, 1, 2), help="computer players to add")

    def handle(self, *args: object, **options: object) -> None:
        settings.GIN3_BACKGROUND = "off"  # this process plays the computers itself
        name = str(options["name"]) or getpass.getuser()
        player = players.terminal_player(f"terminal:{name}", name)
        self.stdout.write(f"gin3 in the terminal, as {player.display_name}. Type help, or quit to stop.\n")
        if options["join"]:
            self.command(player, f"join {options['join']}")
            self.command(player, f"#{str(options['join']).upper()} status")
        else:
            self.command(player, f"new {options['options']}".strip())
            for _ in range(int(options["computers"])):
                self.command(player, "bot")
        match = Match.objects.filter(seats__player=player).order_by("-pk").first()
        while True:
            self.play_computers(match)
            self.show(player)
            match.refresh_from_db()
            if match.status in (Match.Status.FINISHED, Match.Status.ABORTED):
                self.stdout.write(f"#{match.code} is over. See it at {settings.GIN3_SITE_URL}/m/{match.code}/\n")
                return
            try:
                line = input("> ")
            except (EOFError, KeyboardInterrupt):
                self.stdout.write(f"\nBye. #{match.code} waits for you: make play ARGS='--join {match.code}'\n")
                return
            if line.strip().lower() in QUIT_WORDS:
                return
            if line.strip():
                self.command(player, line)

    def command(self, player: Player, text: str) -> None:
        handle(player, text, Outbox.Channel.TERMINAL)
        self.show(player)

    def play_computers(self, match: Match) -> None:
        """Computer players move until a human is to move."""
        while automation.play_computer_move(match.pk):
            pass

    def show(self, player: Player) -> None:
        """Deliver this terminal's messages from the outbox, as any channel's are delivered."""
        deliver_address(Outbox.Channel.TERMINAL, player.terminal_user, TerminalBackend(self.stdout))
