"""The record of who played and who earned what, kept as it happened.

A seat can change hands during a match (an admin replaces a player with a
computer), so a hand remembers its own players (``Hand.box_player`` and the
others, set at the deal) and who scored it (``Hand.winner_player``, set here
when it ends): pages and totals read those, never the seat as it is now.

A player who no longer holds his seat when the match ends (a moderator gave
it to a computer player) keeps the points of the hands he won, but the match
counts neither as his win nor as his loss: it is not among his matches, his
head-to-head counts or his rating (``PlayerMatch.left``).

Per-player totals, days, head-to-head counts and ratings are added here in
the transaction that finishes a match, with a handful of queries whatever
the size of the tables, so that no page ever adds them up. A match that is
aborted counts for nothing, as before. ``rebuild`` recomputes everything from
the event log and the hands with the same arithmetic (``outcome_of``), which
is what ``manage.py recomputerecords`` runs.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from django.db import connection, transaction
from django.db.models import Model

from games.models import Event, Hand, HeadToHead, Match, Player, PlayerDay, PlayerMatch, PlayerRecord
from games.services.plumbing.change import pending_events
from games.services.write.ratings import Skill, finishing_ranks, rate

WON_BY = {"knock": "knocks", "gin": "gins", "undercut": "undercuts"}
HAND_FIELDS = ("winner", "box", "result", "points", "box_player", "captain_player", "sitter_player", "winner_player")
TOTALS = ("points", "hands_won_box", "hands_won_captain", "knocks", "gins", "undercuts")


def hand_finished(hand_row: Hand, winner: Player | None) -> None:
    """Credit the hand to the player who held the winning seat when it was won.
    Called in the transaction that ends the hand; the caller saves ``hand_row``."""
    hand_row.winner_player = winner


def match_finished(match: Match, winner: Player | None, reason: str) -> None:
    """Add a finished match to its players' totals, days, head-to-head counts
    and ratings. Called in the transaction that ends it, under its lock."""
    if match.status != Match.Status.FINISHED:  # aborted: it counts for nothing
        return
    outcome = outcome_of(
        match,
        Hand.objects.filter(match=match, ended_at__isnull=False).values(*HAND_FIELDS),
        match.seats.values("position", "player", "score"),
        _resigned_by(match) if reason == "resigned" else None,
    )
    players = Player.objects.filter(pk__in=outcome.players).values_list("pk", "is_computer", "display_name")
    _add_totals(outcome, {pk: (is_computer, name) for pk, is_computer, name in players})
    locked = PlayerRecord.objects.select_for_update().filter(pk__in=outcome.seated).order_by("pk")
    skills = {record.pk: Skill(record.mu, record.sigma) for record in locked}
    rated = _rated(outcome, skills)
    PlayerRecord.objects.bulk_update(
        [
            PlayerRecord(player_id=pk, mu=skill.mu, sigma=skill.sigma, rating=skill.shown)
            for pk, skill in sorted(rated.items())
        ],
        ["mu", "sigma", "rating"],
    )
    PlayerMatch.objects.bulk_create(_player_matches(outcome, skills, rated))


def _resigned_by(match: Match) -> int | None:
    """Who gave the match up: in the change that ends it, its "resigned" event is not
    written yet (``services.change`` writes the events when it ends)."""
    pending = [
        event.actor_id for event in pending_events() if event.match_id == match.pk and event.kind == Event.Kind.RESIGNED
    ]
    if pending:
        return pending[-1]
    return Event.objects.filter(match=match, kind=Event.Kind.RESIGNED).values_list("actor", flat=True).last()


# The arithmetic, shared by the incremental path and the rebuild ----------------


@dataclass
class Outcome:
    """What one finished match adds to its players' records."""

    match_id: int
    day: date
    finished_at: datetime
    winner: int | None  # R10.3: perhaps nobody
    seated: list[int]  # in seat order
    ranks: list[int]  # the finishing order of the seats (ratings)
    players: list[int]  # everyone who played a hand or holds a seat, by id (``seated`` or one who left)
    totals: dict[int, Counter] = field(default_factory=dict)


def outcome_of(
    match: Match, hands: Iterable[Mapping[str, Any]], seats: Iterable[Mapping[str, Any]], resigned: int | None
) -> Outcome:
    """A finished match's outcome from its hands (as ``HAND_FIELDS``) and seats."""
    if match.finished_at is None:
        raise ValueError(f"match {match.code} has not finished")
    in_order = sorted(seats, key=lambda seat: seat["position"])
    seated = [seat["player"] for seat in in_order]
    last = seated.index(resigned) if resigned in seated else None
    winner = seated.index(match.winner_id) if match.winner_id in seated else None  # R10.3: perhaps nobody
    ranks = finishing_ranks([seat["score"] for seat in in_order], winner, last)
    totals: dict[int, Counter] = defaultdict(Counter)
    for player in seated:
        totals[player]["matches"] += 0
    for hand in hands:
        for role in ("box_player", "captain_player", "sitter_player"):
            if hand[role] is not None:
                totals[hand[role]]["matches"] += 0
        scorer = hand["winner_player"]
        if scorer is None or hand["winner"] is None:
            continue
        counts = totals[scorer]
        counts["points"] += hand["points"]
        counts["hands_won_box" if hand["winner"] == hand["box"] else "hands_won_captain"] += 1
        counts[WON_BY[hand["result"]]] += 1
    for player, counts in totals.items():
        counts["matches"] = int(player in seated)  # one who left his seat neither won nor lost it
        counts["wins"] = int(player == match.winner_id)
    return Outcome(
        match_id=match.pk,
        day=match.finished_at.date(),
        finished_at=match.finished_at,
        winner=match.winner_id,
        seated=seated,
        ranks=ranks,
        players=sorted(totals),
        totals=dict(totals),
    )


def _rated(outcome: Outcome, skills: dict[int, Skill]) -> dict[int, Skill]:
    before = [skills.get(player, Skill(25.0, 25.0 / 3)) for player in outcome.seated]
    return dict(zip(outcome.seated, rate(before, outcome.ranks), strict=True))


def _player_matches(outcome: Outcome, skills: dict[int, Skill], rated: dict[int, Skill]) -> list[PlayerMatch]:
    """One row per player of the match; those who left their seat are not rated."""
    default = Skill(25.0, 25.0 / 3)
    return [
        PlayerMatch(
            player_id=player,
            match_id=outcome.match_id,
            finished_at=outcome.finished_at,
            won=player == outcome.winner,
            points=outcome.totals[player]["points"],
            rating_before=skills.get(player, default).shown if player in rated else None,
            rating_after=rated[player].shown if player in rated else None,
            left=player not in outcome.seated,
        )
        for player in outcome.players
    ]


def _add_totals(outcome: Outcome, players: dict[int, tuple[bool, str]]) -> None:
    """Three upserts: each player's totals, his day, and his head-to-head rows."""
    _upsert_add(
        PlayerRecord,
        ["player_id"],
        [
            {
                "player_id": player,
                "is_computer": players[player][0],
                "search_name": players[player][1].casefold()[:64],
                "last_played": outcome.day,
                "matches": outcome.totals[player]["matches"],
                "wins": outcome.totals[player]["wins"],
                **{name: outcome.totals[player][name] for name in TOTALS},
            }
            for player in outcome.players
        ],
        replace=["is_computer", "search_name", "last_played"],
    )
    _upsert_add(
        PlayerDay,
        ["player_id", "day"],
        [
            {
                "player_id": player,
                "day": outcome.day,
                "matches": outcome.totals[player]["matches"],
                "wins": outcome.totals[player]["wins"],
                "points": outcome.totals[player]["points"],
                "hands_won": outcome.totals[player]["hands_won_box"] + outcome.totals[player]["hands_won_captain"],
            }
            for player in outcome.players
        ],
    )
    _upsert_add(HeadToHead, ["player_id", "opponent_id"], list(_pairs(outcome)))


def _pairs(outcome: Outcome) -> Iterator[dict]:
    """Who met whom: the players who held their seats to the end, as seated."""
    for player in outcome.seated:
        for opponent in outcome.seated:
            if opponent != player:
                yield {
                    "player_id": player,
                    "opponent_id": opponent,
                    "matches": 1,
                    "wins": int(player == outcome.winner),
                    "losses": int(opponent == outcome.winner),
                }


def _upsert_add(model: type[Model], keys: list[str], rows: list[dict], replace: Iterable[str] = ()) -> None:
    """Insert rows, or add their counts to the rows already there, in one
    statement (``INSERT ... ON CONFLICT DO UPDATE``: PostgreSQL and SQLite alike).
    Rows go in key order, so that two matches never lock shared rows in
    opposite orders. Columns left out of ``rows`` take the model's defaults."""
    if not rows:
        return
    fields = {f.attname: f for f in model._meta.concrete_fields}
    columns = list(rows[0]) + [name for name, f in fields.items() if name not in rows[0] and f.has_default()]
    quote = connection.ops.quote_name
    table = quote(model._meta.db_table)
    added = [name for name in rows[0] if name not in keys and name not in replace]
    updates = [f"{quote(name)} = {table}.{quote(name)} + excluded.{quote(name)}" for name in added]
    updates += [f"{quote(name)} = excluded.{quote(name)}" for name in replace]
    placeholders = "(" + ", ".join(["%s"] * len(columns)) + ")"
    values = []
    for row in sorted(rows, key=lambda row: tuple(row[key] for key in keys)):
        for name in columns:
            value = row[name] if name in row else fields[name].get_default()
            values.append(fields[name].get_db_prep_save(value, connection))
    sql = (
        f"INSERT INTO {table} ({', '.join(quote(c) for c in columns)}) VALUES "
        + ", ".join([placeholders] * len(rows))
        + f" ON CONFLICT ({', '.join(quote(k) for k in keys)}) DO UPDATE SET {', '.join(updates)}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, values)


# Rebuilding from the log ----------------------------------------------------------


def rebuild(batch: int = 500) -> int:
    """Recompute every record from the event log and the hands: the finished
    matches in the order their "match_over" events were logged, each added
    exactly as ``match_finished`` adds it, so the same log always gives the
    same totals and ratings. Returns the number of matches counted."""
    with transaction.atomic():
        for model in (PlayerMatch, HeadToHead, PlayerDay, PlayerRecord):
            model.objects.all().delete()
        ends = list(
            Event.objects.filter(kind=Event.Kind.MATCH_OVER, match__status=Match.Status.FINISHED)
            .order_by("pk")
            .values_list("match_id", "data")
        )
        for start in range(0, len(ends), batch):
            chunk = ends[start : start + batch]
            matches = Match.objects.select_related("winner").in_bulk([match_id for match_id, _data in chunk])
            for match_id, data in chunk:
                match = matches[match_id]
                match_finished(match, match.winner, data.get("reason", ""))
        return len(ends)
