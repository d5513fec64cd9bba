"""The event log refuses UPDATE and DELETE in the database itself, not only in
``Event.save``: a queryset's ``update()`` or ``delete()``, raw SQL and any other
client are refused too (issue 10, item 7). Inserting stays allowed.

PostgreSQL: one row trigger for both. Emptying the table with TRUNCATE (what
``manage.py flush`` and the test runner do) fires no row trigger.
SQLite: a trigger for each; ``flush`` lifts them for its own DELETE FROM and
puts them back (``games/management/commands/flush.py``). SQLite drops a
table's triggers when a migration rebuilds the table, so a later migration
that alters ``games_event`` must create them again; the tests in
``tests/test_event_log.py`` fail if it does not.
"""

from django.db import migrations

POSTGRESQL = [
    """
    CREATE FUNCTION games_event_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'the event log is append-only: % of games_event refused', TG_OP
            USING ERRCODE = 'integrity_constraint_violation';
    END;
    $$
    """,
    """
    CREATE TRIGGER games_event_append_only BEFORE UPDATE OR DELETE ON games_event
        FOR EACH ROW EXECUTE FUNCTION games_event_append_only()
    """,
]
POSTGRESQL_REVERSE = [
    "DROP TRIGGER IF EXISTS games_event_append_only ON games_event",
    "DROP FUNCTION IF EXISTS games_event_append_only()",
]
SQLITE = [
    f"""
    CREATE TRIGGER games_event_no_{operation.lower()} BEFORE {operation} ON games_event
    BEGIN
        SELECT RAISE(ABORT, 'the event log is append-only: {operation} of games_event refused');
    END
    """
    for operation in ("UPDATE", "DELETE")
]
SQLITE_REVERSE = ["DROP TRIGGER IF EXISTS games_event_no_update", "DROP TRIGGER IF EXISTS games_event_no_delete"]

FORWARD = {"postgresql": POSTGRESQL, "sqlite": SQLITE}
REVERSE = {"postgresql": POSTGRESQL_REVERSE, "sqlite": SQLITE_REVERSE}


def run(statements: dict[str, list[str]]):
    def operation(apps, schema_editor) -> None:
        vendor = schema_editor.connection.vendor
        if vendor not in statements:
            raise NotImplementedError(f"gin3 runs on SQLite or PostgreSQL, not {vendor}")
        for statement in statements[vendor]:
            schema_editor.execute(statement, params=None)  # no placeholders: "%" is plpgsql's

    return operation


class Migration(migrations.Migration):
    dependencies = [("games", "0008_event_actor_protected")]

    operations = [migrations.RunPython(run(FORWARD), run(REVERSE))]
