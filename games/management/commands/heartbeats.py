"""``manage.py heartbeats``: whether the workers, beat and the bot are alive; exits 1 when not.

Each background process refreshes a row every few seconds (games/heartbeat.py).
With no argument the whole set is checked, as an operator or a monitor would:
beat is alive, every queue has a live worker, and no worker that did not stop
cleanly has gone quiet. ``--process NAME`` checks only those (a container's own
health check: ``--process delivery@$HOSTNAME``).
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from games import heartbeat


class Command(BaseCommand):
    help = "Show the background processes' heartbeats; exit 1 if one is stale or missing."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--process", action="append", default=[], help="check only this process (repeatable)")
        parser.add_argument(
            "--stale-after",
            type=float,
            default=heartbeat.STALE_AFTER.total_seconds(),
            help="seconds without a heartbeat after which a process is stale",
        )

    def handle(self, *args: object, process: list[str], stale_after: float, **options: object) -> None:
        limit = timedelta(seconds=stale_after)
        signs = heartbeat.signs()
        if process:
            signs = [sign for sign in signs if sign.process in process]
        problems = []
        for sign in signs:
            stale = sign.age > limit
            queues = f"  queues: {', '.join(sign.queues)}" if sign.queues else ""
            state = "STALE" if stale else "ok"
            self.stdout.write(f"{sign.process:<32} {state:<6} last seen {sign.age.total_seconds():.0f} s ago{queues}")
            if stale:
                problems.append(f"{sign.process} is stale")
        seen = {sign.process for sign in signs}
        if process:
            problems += [f"{name} has no heartbeat" for name in process if name not in seen]
        else:
            if heartbeat.BEAT not in seen:
                problems.append("beat has no heartbeat")
            for queue in settings.GIN3_QUEUES:
                if not any(queue in sign.queues and sign.age <= limit for sign in signs):
                    problems.append(f"no live worker consumes the {queue} queue")
        if problems:
            raise CommandError("; ".join(problems), returncode=1)
        self.stdout.write("all alive")
