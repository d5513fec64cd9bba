"""Backups (docs/deploy.md, "Backups"): a pg_dump of a database with running and
finished matches, restored with pg_restore into a new database, holds every match
as it was: it reads, replays and plays on the same, and every deck commitment
still checks.

PostgreSQL only (skipped on SQLite; under GIN3_REQUIRE_SERVICES=1 pg_dump and
pg_restore must be there). The restored database has a name of its own,
``<DATABASE_URL's name>_restore_<pid>_<random>``, dropped at the end, so that runs
side by side never meet. Each side is read by a process of its own on its
database (tests/backup_check.py), as gin3 would run on the restored one.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import time
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
from django.conf import settings
from django.db import connection

from games.models import Event, Match
from games.services import handle
from tests.conftest import code_in, play_to_end, run_computers
from tests.workers import database_url

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]  # real servers, whole matches


@pytest.fixture
def postgresql():
    if connection.vendor != "postgresql":
        pytest.skip("backups are pg_dump and pg_restore: PostgreSQL only")
    missing = [tool for tool in ("pg_dump", "pg_restore") if shutil.which(tool) is None]
    if missing:
        if os.environ.get("GIN3_REQUIRE_SERVICES") == "1":
            pytest.fail(f"GIN3_REQUIRE_SERVICES=1 but {', '.join(missing)} is not installed")
        pytest.skip(f"{', '.join(missing)} is not installed")


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", "", ""))


def administer(url: str, statement: str) -> None:
    with psycopg.connect(with_database(url, "postgres"), autocommit=True) as conn:
        conn.execute(statement)


def check(url: str) -> dict:
    """What tests/backup_check.py finds on the database at ``url``."""
    env = {**os.environ, "DATABASE_URL": url, "GIN3_BACKGROUND": "off", "LOG_LEVEL": "WARNING"}
    command = [sys.executable, "manage.py", "shell", "-c", "from tests.backup_check import report; report()"]
    done = subprocess.run(command, cwd=settings.BASE_DIR, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def matches_of_every_kind(make_player) -> None:
    """A finished match, running ones in the middle of a hand, and one waiting for players."""
    alice = make_player("Alice")
    code = code_in(handle(alice, "new 5m to 50", "terminal"))
    handle(alice, "bot", "terminal")
    handle(alice, "bot", "terminal")
    play_to_end(Match.objects.get(code=code), alice)
    for name in ("Bob", "Carol"):
        player = make_player(name)
        code = code_in(handle(player, "new 1d", "terminal"))
        handle(player, "bot", "terminal")
        handle(player, "bot", "terminal")
        run_computers(Match.objects.get(code=code))
    dave, erin, frank = make_player("Dave"), make_player("Erin"), make_player("Frank")
    code = code_in(handle(dave, "new", "terminal"))
    handle(erin, f"join {code}", "terminal")
    handle(frank, f"join {code}", "terminal")
    handle(make_player("Gina"), "new", "terminal")


def test_a_restored_dump_holds_every_match_as_it_was(postgresql, make_player, tmp_path):
    matches_of_every_kind(make_player)
    statuses = sorted(Match.objects.values_list("status", flat=True))
    assert {"finished", "running", "lobby"} <= set(statuses)
    original = database_url()
    configured = urlsplit(os.environ.get("DATABASE_URL") or original).path.lstrip("/")
    own_name = f"{configured}_restore_{os.getpid()}_{secrets.token_hex(3)}"
    restored = with_database(original, own_name)
    dump = tmp_path / "gin3.dump"
    started = time.perf_counter()
    subprocess.run(["pg_dump", "--format=custom", f"--file={dump}", original], check=True, timeout=300)
    dumped = time.perf_counter()
    administer(original, f'CREATE DATABASE "{own_name}"')
    try:
        subprocess.run(
            ["pg_restore", "--no-owner", "--exit-on-error", f"--dbname={restored}", str(dump)],
            check=True,
            timeout=300,
        )
        restored_in = time.perf_counter() - dumped
        before, after = check(original), check(restored)
    finally:
        administer(original, f'DROP DATABASE IF EXISTS "{own_name}" WITH (FORCE)')
    assert after["matches"] == before["matches"]
    assert after["played_on"] == before["played_on"]
    hands = [hand for match in after["matches"] for hand in match["hands"]]
    assert hands and all(hand["commitment_checks"] for hand in hands)
    assert all(match["page"] == 200 for match in after["matches"])
    assert all(played["moved"] for played in after["played_on"])
    print(
        f"\nbackup: {len(statuses)} matches ({statuses.count('finished')} finished, "
        f"{statuses.count('running')} running, {statuses.count('lobby')} waiting), "
        f"{Event.objects.count()} events, {len(hands)} hands; dump {dump.stat().st_size / 1024:.0f} KiB "
        f"in {dumped - started:.2f} s, restored in {restored_in:.2f} s"
    )
