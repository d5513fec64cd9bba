"""``flush``, which empties every table, the event log included.

On SQLite it empties a table with DELETE FROM, which the event log's triggers
refuse (migration ``event_log_append_only``); so for the flush alone they are
lifted, and put back as they were whatever happens. On PostgreSQL it
truncates, which fires no row trigger. The test runner flushes after every
test that commits, and this is how it still can.
"""

from __future__ import annotations

from django.core.management.commands import flush
from django.db import connections

EVENT_TABLE = "games_event"


class Command(flush.Command):
    def handle(self, **options: object) -> None:
        connection = connections[options["database"]]
        if connection.vendor != "sqlite":
            return super().handle(**options)
        with connection.cursor() as cursor:
            query = "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = %s"
            cursor.execute(query, [EVENT_TABLE])
            triggers = cursor.fetchall()
            for name, _sql in triggers:
                cursor.execute(f'DROP TRIGGER "{name}"')
        try:
            return super().handle(**options)
        finally:
            with connection.cursor() as cursor:
                for _name, sql in triggers:
                    cursor.execute(sql)
