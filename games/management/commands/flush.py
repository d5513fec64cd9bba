"""``flush``, which empties every table, the event log included, but the ones the schema fills.

Django's flush empties the content types and permissions too, then has every
app make them again (``post_migrate``). The test runner flushes after every
test that commits, and making them again was three quarters of a flush:
2.3% of the CPU of the whole SQLite suite. They are the same rows every time,
so they are kept, and with them the ids the process has cached.

On SQLite a table is emptied with DELETE FROM, which the event log's
triggers refuse (migration ``event_log_append_only``); so for the flush alone
they are lifted, and put back as they were whatever happens. On PostgreSQL
it truncates, which fires no row trigger.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.core.management.base import CommandError
from django.core.management.color import no_style
from django.core.management.commands import flush
from django.db import connections

EVENT_TABLE = "games_event"
KEPT = frozenset({"django_content_type", "auth_permission"})  # what post_migrate makes


class Command(flush.Command):
    help = "Removes all data from the database but the content types and permissions the schema makes."

    def handle(self, **options: Any) -> None:
        connection = connections[options["database"]]
        tables = sorted(set(connection.introspection.django_table_names(only_existing=True)) - KEPT)
        statements = connection.ops.sql_flush(
            no_style(),
            tables,
            reset_sequences=options.get("reset_sequences", True),
            allow_cascade=options.get("allow_cascade", False),
        )
        if options["interactive"] and not self._confirmed(connection.settings_dict["NAME"]):
            self.stdout.write("Flush cancelled.")
            return
        try:
            with _event_log_opened(connection):
                connection.ops.execute_sql_flush(statements)
        except Exception as error:
            raise CommandError(f"Database {connection.settings_dict['NAME']} couldn't be flushed: {error}") from error

    def _confirmed(self, name: str) -> bool:
        answer = input(
            f'You have requested a flush of the database.\nThis will IRREVERSIBLY DESTROY all data in the "{name}" '
            "database\n(but its content types and permissions).\nAre you sure you want to do this?\n\n"
            "    Type 'yes' to continue, or 'no' to cancel: "
        )
        return answer == "yes"


@contextmanager
def _event_log_opened(connection: Any) -> Iterator[None]:
    """On SQLite, the event log's triggers lifted while the block runs."""
    if connection.vendor != "sqlite":
        yield
        return
    with connection.cursor() as cursor:
        query = "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = %s"
        cursor.execute(query, [EVENT_TABLE])
        triggers = cursor.fetchall()
        for name, _sql in triggers:
            cursor.execute(f'DROP TRIGGER "{name}"')
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            for _name, sql in triggers:
                cursor.execute(sql)
