# ruff: noqa: E501  (SQL reads better on long lines)
"""How long the public pages take with 1,000,000 finished matches and 100,000 players.

    .venv/bin/python bench/pages.py --sqlite var/bench-pages.sqlite3 \\
        --postgres postgres://postgres@127.0.0.1:5432/gin3_web_bench [--matches 1000000] [--players 100000]

For each database given, in a child process of its own (settings read
DATABASE_URL once): migrate an empty database, seed it with bulk SQL
(``INSERT ... SELECT`` over generated numbers: players, finished matches with
their seats and a hand each, and the records the services keep, as
``games.services.write.records`` would have left them), play two real matches
through the services (one to its end, for a match page with every hand and
its replay, and one left running, for the live table), then time each page
through Django's test client: that is the server's whole time for a request
(URL routing, middleware, queries, template), without a network. Each figure
is the median and the 95th percentile of ``--repeat`` requests after two
warm-ups, printed side by side for the databases, with the number of queries
of one request. A seeded database is reused when it already holds the
matches asked for (``--reseed`` to start again).

The ratings of seeded players are a formula of their wins, not openskill's
arithmetic: the pages read them, they do not compute them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMPUTERS = ("Bot 1", "Bot 2", "Bot 3", "Easy 1", "Easy 2", "Easy 3")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sqlite", help="path of the SQLite file to seed and measure")
    parser.add_argument("--postgres", help="postgres:// URL of a database to seed and measure (dropped data!)")
    parser.add_argument("--matches", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--reseed", action="store_true")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    targets = []
    if args.sqlite:
        targets.append(("SQLite", f"sqlite:///{Path(args.sqlite).resolve()}"))
    if args.postgres:
        targets.append(("PostgreSQL", args.postgres))
    if not targets:
        parser.error("give --sqlite, --postgres or both")
    results = {}
    for name, url in targets:
        command = [sys.executable, __file__, "--child", url, "--matches", str(args.matches)]
        command += ["--players", str(args.players), "--repeat", str(args.repeat)] + (
            ["--reseed"] if args.reseed else []
        )
        env = {
            **os.environ,
            "DATABASE_URL": url,
            "GIN3_BACKGROUND": "off",
            "DJANGO_SETTINGS_MODULE": "gin3site.settings",
        }
        output = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True)
        sys.stderr.write(output.stderr)
        if output.returncode:
            raise SystemExit(f"{name}: the measurement failed")
        results[name] = json.loads(output.stdout.strip().splitlines()[-1])
    print_table(results, args)


def print_table(results: dict, args) -> None:
    names = list(results)
    load = os.getloadavg()
    print(
        f"{args.matches:,} finished matches, {args.players:,} players; load average {load[0]:.2f} on {os.cpu_count()} cores"
    )
    print(
        "server time per request (Django test client): wall median / p95 in ms, (median CPU ms of the web"
        " process: the wall time less waiting for a core and, on PostgreSQL, less the database server's work),"
        " queries per request"
    )
    header = f"{'page':<42}" + "".join(f"{name:>36}" for name in names)
    print(header)
    print("-" * len(header))
    for page in results[names[0]]["pages"]:
        row = f"{page:<42}"
        for name in names:
            figures = results[name]["pages"][page]
            row += f"{figures['median']:>9.1f} /{figures['p95']:>6.1f} ms ({figures['cpu']:>5.1f} cpu) {figures['queries']:>2}q"
        print(row)
    for name in names:
        print(f"{name}: seeded in {results[name]['seed_seconds']:.0f} s; {results[name]['rows']}")


# The child: one database ------------------------------------------------------------


def child(args) -> None:
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from games.models import Match

    started = time.perf_counter()
    call_command("migrate", verbosity=0)
    if args.reseed or Match.objects.filter(code__startswith="S").count() < args.matches:
        flush(connection)
        seed(connection, args.matches, args.players)
        play_real_matches()
    seed_seconds = time.perf_counter() - started
    pages = measure(args.repeat)
    rows = {
        table: count(connection, table)
        for table in ("games_player", "games_match", "games_seat", "games_playermatch", "games_headtohead")
    }
    print(json.dumps({"pages": pages, "seed_seconds": seed_seconds, "rows": rows}))


def count(connection, table: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COUNT(*) FROM {table}")
        return cursor.fetchone()[0]


def flush(connection) -> None:
    from django.core.management import call_command

    say("emptying the database")
    call_command("flush", interactive=False, verbosity=0)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            for table in ("games_player", "games_match", "games_seat", "games_hand"):
                cursor.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), 1, false)")
    else:
        with connection.cursor() as cursor:
            cursor.execute("DELETE FROM sqlite_sequence")


def say(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def seed(connection, matches: int, players: int) -> None:
    """Bulk SQL: every row made by the database from a series of numbers."""
    from games.engine import DECK
    from games.services.plumbing.state import commitment_of

    pg = connection.vendor == "postgresql"
    deck = " ".join(str(card) for card in DECK)
    salt = "0" * 32

    def numbers(upto: int) -> str:
        if pg:
            return f"(SELECT generate_series(1, {upto})::bigint AS n) AS nums"
        return f"(WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < {upto}) SELECT n FROM c) AS nums"

    def ago(seconds: str) -> str:
        if pg:
            return f"(now() - ({seconds}) * interval '1 second')"
        return f"strftime('%Y-%m-%d %H:%M:%f', 'now', '-' || ({seconds}) || ' seconds')"

    def day(timestamp: str) -> str:
        return f"({timestamp})::date" if pg else f"date({timestamp})"

    false, true = ("false", "true") if pg else ("0", "1")
    total_players = players + len(COMPUTERS)
    # The three seats of match n: three distinct people, or two and a computer in one match of ten.
    p0 = f"((n * 7919) % {players})"
    third = players // 3
    p1 = f"(({p0} + 1 + (n * 13) % {third}) % {players})"
    p2 = f"(CASE WHEN n % 10 = 0 THEN {players} + n % {len(COMPUTERS)} ELSE ({p1} + 1 + (n * 17) % {third}) % {players} END)"
    when = ago(f"({matches} - n) * 30")
    steps = [
        (
            "players",
            f"""INSERT INTO games_player (id, display_name, language, telegram_username, telegram_blocked, sms_opted_out,
                notify_by, last_channel, is_computer, strength, banned, ban_reason, created_at, tables_explained,
                advises)
                SELECT n, CASE WHEN n > {players} THEN
                    CASE (n - {players} - 1) {" ".join(f"WHEN {i} THEN '{name}'" for i, name in enumerate(COMPUTERS))} END
                  ELSE 'Player ' || n END, 'en', '', {false}, {false}, 'auto', '', n > {players},
                  CASE WHEN n > {players} THEN 'strong' ELSE '' END, {false}, '', {ago("n")}, {true}, {true}
                FROM {numbers(total_players)}""",
        ),
        (
            "matches",
            f"""INSERT INTO games_match (id, code, status, gin_bonus, undercut_bonus, target, may_discard_taken,
                move_seconds, event_count, version, group_language, created_at, started_at, last_move_at, finished_at,
                winner_id, is_open)
                SELECT n, 'S' || n, 'finished', 25, 10, 100, {false}, 86400, 0, 200, 'en', {when}, {when}, {when},
                  {when}, 1 + CASE n % 3 WHEN 0 THEN {p0} WHEN 1 THEN {p1} ELSE {p2} END, {false}
                FROM {numbers(matches)}""",
        ),
        (
            "seats",
            f"""INSERT INTO games_seat (match_id, player_id, position, score, timeouts_in_row, autopilot)
                SELECT n, 1 + CASE pos WHEN 0 THEN {p0} WHEN 1 THEN {p1} ELSE {p2} END, pos,
                  CASE WHEN pos = n % 3 THEN 100 + n % 40 ELSE (n * (pos + 3)) % 90 END, 0, {false}
                FROM {numbers(matches)} CROSS JOIN (SELECT 0 AS pos UNION ALL SELECT 1 UNION ALL SELECT 2) AS positions""",
        ),
        (
            "hands",
            f"""INSERT INTO games_hand (match_id, number, box, captain, sitter, deck, salt, commitment, suggestion,
                result, winner, points, summary, started_at, ended_at, box_player_id, captain_player_id,
                sitter_player_id, winner_player_id)
                SELECT s.match_id, 1, s.position, (s.position + 1) % 3, (s.position + 2) % 3, '{deck}', '{salt}',
                  '{commitment_of(deck, salt)}', '', 'gin', s.position, s.score, '{{}}', m.finished_at, m.finished_at,
                  s.player_id, c.player_id, t.player_id, s.player_id
                FROM games_seat s JOIN games_match m ON m.id = s.match_id
                  JOIN games_seat c ON c.match_id = s.match_id AND c.position = (s.position + 1) % 3
                  JOIN games_seat t ON t.match_id = s.match_id AND t.position = (s.position + 2) % 3
                WHERE m.code LIKE 'S%' AND s.player_id = m.winner_id""",
        ),
        (
            "results",
            """INSERT INTO games_playermatch (player_id, match_id, finished_at, won, points, rating_before, rating_after)
                SELECT s.player_id, s.match_id, m.finished_at, s.player_id = m.winner_id, s.score,
                  1000 + (s.match_id * 7) % 400, 1000 + (s.match_id * 7 + 13) % 400
                FROM games_seat s JOIN games_match m ON m.id = s.match_id WHERE m.code LIKE 'S%'""",
        ),
        (
            "totals",
            f"""INSERT INTO games_playerrecord (player_id, is_computer, search_name, matches, wins, points,
                hands_won_box, hands_won_captain, knocks, gins, undercuts, mu, sigma, rating, last_played)
                SELECT r.player_id, p.is_computer, lower(p.display_name), COUNT(*), SUM(CASE WHEN r.won THEN 1 ELSE 0 END),
                  SUM(r.points), SUM(CASE WHEN r.won THEN 1 ELSE 0 END), 0, 0, SUM(CASE WHEN r.won THEN 1 ELSE 0 END), 0,
                  25.0, 3.0, 700 + 20 * SUM(CASE WHEN r.won THEN 1 ELSE 0 END) + r.player_id % 97, {day("MAX(r.finished_at)")}
                FROM games_playermatch r JOIN games_player p ON p.id = r.player_id GROUP BY r.player_id, p.is_computer, p.display_name""",
        ),
        (
            "days",
            f"""INSERT INTO games_playerday (player_id, day, matches, wins, points, hands_won)
                SELECT player_id, {day("finished_at")}, COUNT(*), SUM(CASE WHEN won THEN 1 ELSE 0 END), SUM(points),
                  SUM(CASE WHEN won THEN 1 ELSE 0 END)
                FROM games_playermatch GROUP BY player_id, {day("finished_at")}""",
        ),
        (
            "head to head",
            """INSERT INTO games_headtohead (player_id, opponent_id, matches, wins, losses)
                SELECT a.player_id, b.player_id, COUNT(*), SUM(CASE WHEN a.won THEN 1 ELSE 0 END),
                  SUM(CASE WHEN b.won THEN 1 ELSE 0 END)
                FROM games_playermatch a JOIN games_playermatch b ON a.match_id = b.match_id AND a.player_id <> b.player_id
                GROUP BY a.player_id, b.player_id""",
        ),
    ]
    with connection.cursor() as cursor:
        for name, sql in steps:
            started = time.perf_counter()
            cursor.execute(sql)
            say(f"seeded {name} in {time.perf_counter() - started:.0f} s")
        if pg:
            for table in ("games_player", "games_match", "games_seat", "games_hand"):
                cursor.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT MAX(id) FROM {table}))")
            cursor.execute("VACUUM ANALYZE")  # as autovacuum would leave bulk-loaded tables
        else:
            cursor.execute("ANALYZE")


def play_real_matches() -> None:
    """One match played to its end and one left running, through the services."""
    from django.db import transaction

    from games.models import Match
    from games.services import handle
    from games.services.write import computer_moves
    from games.services.write.locked_table import load_table
    from games.services.write.players import terminal_player

    say("playing two real matches")
    player = terminal_player("bench", "Bench Player")
    for target, stop in (("to 100", None), ("to 500", 30)):
        reply = handle(player, f"new {target}", "terminal")
        code = reply.split("#", 1)[1].split()[0].strip("().,")
        handle(player, "bot", "terminal")
        handle(player, "bot", "terminal")
        match = Match.objects.get(code=code)
        moves = 0
        while Match.objects.get(pk=match.pk).status == Match.Status.RUNNING and (stop is None or moves < stop):
            moves += 1
            if computer_moves.play_computer_move(match.pk):
                continue
            with transaction.atomic():
                move = computer_moves.safe_move(load_table(match.pk).hand)
            handle(player, str(move), "terminal")
    Match.objects.filter(pk=match.pk).update(is_open=False)
    lobby = handle(terminal_player("waiting", "Waiting Player"), "new", "terminal").split("#", 1)[1].split()[0]
    Match.objects.filter(code=lobby.strip("().,")).update(is_open=True)


def measure(repeat: int) -> dict:
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from games.models import Match, Player, PlayerRecord

    finished = Match.objects.filter(seats__player__terminal_user="bench", status=Match.Status.FINISHED).first()
    running = Match.objects.filter(seats__player__terminal_user="bench", status=Match.Status.RUNNING).first()
    person = PlayerRecord.objects.filter(is_computer=False).order_by("-matches").first().player_id
    computer = Player.objects.get(display_name="Bot 1").pk
    seeded = Match.objects.filter(code="S500000").first() or Match.objects.filter(code__startswith="S").first()
    pages = {
        "scoreboard": reverse("games:scoreboard"),
        "scoreboard, last 30 days": reverse("games:scoreboard") + "?period=30d",
        "scoreboard, page 200": reverse("games:scoreboard") + "?page=200",
        "scoreboard, search 'player 123'": reverse("games:scoreboard") + "?q=player+123",
        "player page (most matches)": reverse("games:player", args=[person]),
        "player page, page 5": reverse("games:player", args=[person]) + "?page=5",
        "player page of Bot 1": reverse("games:player", args=[computer]),
        "match page, played to the end": reverse("games:match", args=[finished.code]),
        "match page, running": reverse("games:match", args=[running.code]),
        "match page, seeded": reverse("games:match", args=[seeded.code]),
        "live table JSON": reverse("games:live", args=[running.code]),
        "live table JSON, unchanged (304)": reverse("games:live", args=[running.code]) + f"?v={running.version}",
        "lobby": reverse("games:lobby"),
    }
    client = Client(HTTP_HOST="127.0.0.1")
    results = {}
    for name, url in pages.items():
        for _warm in range(2):
            assert client.get(url).status_code in (200, 304), url
        times, cpu = [], []
        for _time in range(repeat):
            started, started_cpu = time.perf_counter(), time.process_time()
            client.get(url)
            times.append((time.perf_counter() - started) * 1000)
            cpu.append((time.process_time() - started_cpu) * 1000)
        with CaptureQueriesContext(connection) as queries:
            client.get(url)
        times.sort()
        results[name] = {
            "median": statistics.median(times),
            "p95": times[max(0, round(len(times) * 0.95) - 1)],
            "queries": len(queries),
            "cpu": statistics.median(cpu),
        }
        say(f"{name}: {results[name]['median']:.1f} ms")
    return results


if __name__ == "__main__":
    main()
