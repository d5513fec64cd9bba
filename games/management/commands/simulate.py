"""Simulate games between computer players and print what a game designer needs.

Only parsing and printing live here; the games are played by
``games.engine.simulate``, which needs neither Django nor the database.
"""

from __future__ import annotations

import secrets

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.engine import EngineError, Options
from games.engine.levels import STRATEGIES
from games.engine.options import GIN_BONUS_CHOICES
from games.engine.simulate import Rate, Stats, simulate

KINDS = (("knock", "knocks"), ("gin", "gins"), ("undercut", "undercuts"), ("draw", "drawn hands"))


def percent(rate: Rate) -> str:
    low, high = rate.interval
    return f"{rate.value:8.1%}  [{low:.1%}, {high:.1%}]"


class Command(BaseCommand):
    help = "Play many games between computer players and report wins, hand outcomes and speed."
    requires_system_checks: list[str] = []  # no database, no models: it runs anywhere

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--matches", type=int, default=200, help="games to play (default 200)")
        parser.add_argument(
            "--players",
            default="simple,strong,strong",
            help=f"three strategies, comma-separated, from {', '.join(STRATEGIES)} (default simple,strong,strong)",
        )
        parser.add_argument("--seed", type=int, default=None, help="seed of the games (default: a new one)")
        parser.add_argument("--target", type=int, default=Options.target, help="score that wins a game (R10.1)")
        parser.add_argument("--gin-bonus", type=int, default=Options.gin_bonus, choices=GIN_BONUS_CHOICES, help="R8.3")

    def handle(self, *args: object, **options: object) -> None:
        players = [name.strip() for name in str(options["players"]).split(",")]
        if len(players) != 3:
            raise CommandError("--players needs exactly three strategies (R3.1), e.g. simple,strong,strong")
        unknown = [name for name in players if name not in STRATEGIES]
        if unknown:
            raise CommandError(f"unknown strategy {unknown[0]!r}; choose from {', '.join(STRATEGIES)}")
        matches = int(options["matches"])
        if matches < 1:
            raise CommandError("--matches must be at least 1")
        try:
            rules = Options(target=int(options["target"]), gin_bonus=int(options["gin_bonus"]))
        except EngineError as error:
            raise CommandError(str(error)) from None
        seed = options["seed"] if options["seed"] is not None else secrets.randbelow(1_000_000)
        stats = simulate(matches, players, int(seed), rules)
        self.report(stats, int(seed), rules)

    def report(self, stats: Stats, seed: int, rules: Options) -> None:
        write = self.stdout.write
        write(
            f"{stats.games} games: {', '.join(stats.players)}; seed {seed}, target {rules.target}, "
            f"gin bonus {rules.gin_bonus}."
        )
        write("Players change seats every game. Win rates are per game, with 95% intervals (Wilson).")

        write("\nWins per player")
        for player, name in enumerate(stats.players):
            rate = stats.player_rate(player)
            write(f"  player {player + 1}  {name:<8} {rate.hits:>6} of {rate.trials:<6} {percent(rate)}")

        write("\nWins per strength, for one seat of it")
        for name in stats.strengths:
            rate = stats.strength_rate(name)
            seats = stats.players.count(name)
            label = f"{seats} seat" + ("s" if seats > 1 else "")
            write(f"  {name:<8} {label:<8} {rate.hits:>6} of {rate.trials:<6} {percent(rate)}")

        write("\nHands")
        write(f"  hands per game      {stats.hands_per_game:8.1f}   ({stats.hands} hands)")
        for kind, label in KINDS:
            write(f"  {label:<19} {stats.share(kind):8.1%}   ({stats.kinds[kind]} hands)")
        write(f"  points per hand     {stats.points_per_hand:8.1f}   (hands someone won)")
        box = Rate(stats.box_wins, stats.decided_hands)
        write(f"  won by the box     {percent(box)}")
        write(f"  longest hand        {stats.longest_hand:8d}   turns")

        # The stronger of two strategies (the later in STRATEGIES) is named first.
        order = sorted(stats.strengths, key=list(STRATEGIES).index, reverse=True)
        pairs = [(a, b) for i, a in enumerate(order) for b in order[i + 1 :]]
        if pairs:
            write("\nHands between two strengths")
            for stronger, weaker in pairs:
                rate = stats.duel(stronger, weaker)
                write(f"  {stronger} beat {weaker:<9} {percent(rate)}   of {rate.trials} hands")

        write("\nSpeed")
        write(f"  {stats.games_per_second:.1f} games/s, {stats.hands_per_second:.0f} hands/s ({stats.seconds:.1f} s)")
