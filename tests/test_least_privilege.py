"""The app's database role can read and append to the event log and nothing more.

The log's trigger refuses UPDATE and DELETE, but its owner could still TRUNCATE
it or disable the trigger. docs/deploy.md gives the least-privilege set-up:
migrations as the owner, the app as a role that owns nothing. This test runs
that set-up's statements, as the document gives them, on the test database for
a role of its own, then connects as that role and tries each way around the
trigger. PostgreSQL only: SQLite has no roles.
"""

from __future__ import annotations

import os
import re
import uuid
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from django.db import connection

from games.models import Event, Match
from games.services import handle
from games.services.write.players import terminal_player

pytestmark = pytest.mark.django_db(transaction=True)

DEPLOY = Path(settings.BASE_DIR) / "docs" / "deploy.md"
GRANTS = re.compile(r"-- least-privilege grants begin\n(.*?)-- least-privilege grants end", re.DOTALL)


@pytest.fixture
def app_role():
    """A login role of this test's own (roles are the whole server's: its name is unique to the
    run), granted what docs/deploy.md grants ``gin3_app``; dropped afterwards."""
    if connection.vendor != "postgresql":
        if os.environ.get("GIN3_REQUIRE_SERVICES") == "1" and os.environ.get("DATABASE_URL", "").startswith("postgres"):
            pytest.fail("the least-privilege test must run on PostgreSQL")
        pytest.skip("roles and grants are PostgreSQL's")
    role = f"gin3_app_test_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    statements = GRANTS.search(DEPLOY.read_text())[1].replace("gin3_app", role)
    with connection.cursor() as cursor:
        cursor.execute(f'CREATE ROLE "{role}" LOGIN')
        try:
            cursor.execute(f'GRANT CONNECT ON DATABASE "{connection.settings_dict["NAME"]}" TO "{role}"')
            for statement in statements.split(";"):
                if statement.strip() and not statement.strip().startswith("--"):
                    cursor.execute(statement)
            yield role
        finally:
            cursor.execute(f'DROP OWNED BY "{role}"')
            cursor.execute(f'DROP ROLE "{role}"')


def connect_as(role: str) -> psycopg.Connection:
    db = connection.settings_dict
    return psycopg.connect(
        host=db["HOST"] or "127.0.0.1", port=db["PORT"] or 5432, dbname=db["NAME"], user=role, autocommit=True
    )


@pytest.fixture
def an_event() -> Event:
    ann = terminal_player("ann", "Ann")
    code = handle(ann, "new", "terminal").split("#")[1][:4]
    return Event.objects.filter(match=Match.objects.get(code=code)).first()


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE games_event SET kind = 'x'",
        "DELETE FROM games_event",
        "TRUNCATE games_event",
        "TRUNCATE games_event CASCADE",
        "ALTER TABLE games_event DISABLE TRIGGER games_event_append_only",
        "ALTER TABLE games_event DISABLE TRIGGER ALL",
        "DROP TRIGGER games_event_append_only ON games_event",
        "SET session_replication_role = replica",
    ],
)
def test_the_apps_role_cannot_rewrite_or_empty_the_event_log(app_role, an_event, statement):
    with connect_as(app_role) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute(statement)
    assert Event.objects.filter(pk=an_event.pk, kind=an_event.kind).exists()


def test_the_apps_role_reads_and_appends_to_the_log_and_plays(app_role, an_event):
    with connect_as(app_role) as conn:
        assert conn.execute("SELECT count(*) FROM games_event").fetchone()[0] >= 1
        conn.execute(
            "INSERT INTO games_event (match_id, seq, kind, data, created_at) VALUES (%s, 999, 'note', '{}', now())",
            [an_event.match_id],
        )
        conn.execute("UPDATE games_match SET version = version + 1 WHERE id = %s", [an_event.match_id])
        conn.execute("DELETE FROM django_session")
    assert Event.objects.filter(match_id=an_event.match_id, seq=999).exists()
