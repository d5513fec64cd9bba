"""Rebuild every player's totals, days, head-to-head counts and rating from the log."""

from django.core.management.base import BaseCommand

from games.services.write import records


class Command(BaseCommand):
    help = (
        "Recompute the per-player records and ratings from the event log and the hands. "
        "The same log always gives the same ratings."
    )

    def handle(self, *args, **options) -> None:
        counted = records.rebuild()
        self.stdout.write(f"Recomputed the records of {counted} finished matches.")
