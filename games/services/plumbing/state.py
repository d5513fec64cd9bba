"""Loading and saving a match's state inside a change (``services.change``).

The current hand is rebuilt by replaying its moves from the event log on the
dealt deck: the log is the only record, so replay is exercised on every move.
A move reads what it needs in two queries (the match locked with its seats,
players and current hand; then the hand's moves), and what it writes goes
out when the change ends (events, messages and the match in one statement
each).
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from django.db import connection
from django.db.models import QuerySet
from django.utils import timezone

from games.engine import DECK, Card, Game, Hand, Roles, deal, parse_action, parse_cards, replay
from games.models import Event, Match, Player, ProcessedUpdate, Seat
from games.models import Hand as HandRow
from games.services.plumbing import seat_lock
from games.services.plumbing.change import current

JSON = Any  # a value of an event's data: whatever its JSON column holds

_shuffler = secrets.SystemRandom()


def first_time(update_key: str) -> bool:
    """Record an inbound update's key (a Telegram update_id, an SMS sid) in the
    caller's transaction; False if it was acted on already, and then the caller
    does nothing: a retried webhook has no second effect. One statement, no
    savepoint: a key that is there already is not an error."""
    if not update_key:
        return True
    quote = connection.ops.quote_name
    table, key, created_at = quote(ProcessedUpdate._meta.db_table), quote("key"), quote("created_at")
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} ({key}, {created_at}) VALUES (%s, %s) ON CONFLICT ({key}) DO NOTHING RETURNING id",
            [update_key, now],
        )
        return cursor.fetchone() is not None


def lock(match_id: int) -> Match:
    """The match row, locked until the change ends: one change at a time."""
    work = current()
    return work.tracked(match_id) or work.track(Match.objects.select_for_update().get(pk=match_id))


def lock_table(match_id: int) -> tuple[Match, list[Seat]]:
    """A match locked, with its seats, their players and its current hand, in one
    query (none if this change has locked it with its seats already)."""
    work = current()
    if match_id not in work.seats:
        lock_seats(Seat.objects.filter(match_id=match_id).values("match_id"))
    seats = work.seats.get(match_id)
    if not seats:
        raise Match.DoesNotExist(match_id)
    return seats[0].match, seats


def lock_seats(matches: QuerySet) -> dict[int, list[Seat]]:
    """Lock the matches whose ids ``matches`` selects (a ``match_id`` values queryset),
    and read their seats, players and current hands, in one query, matches in the
    order of their ids so that changes that lock several never wait in a circle.
    Returns the seats of each match, by match id; later reads in this change reuse them."""
    work = current()
    found: dict[int, list[Seat]] = {}
    for seat in seat_lock.seats(matches):
        seat.match = work.tracked(seat.match_id) or work.track(seat.match)
        found.setdefault(seat.match_id, []).append(seat)
    work.seats.update(found)
    return found


def seats_of(match: Match) -> list[Seat]:
    return list(match.seats.select_related("player").order_by("position"))


def current_hand_row(match: Match) -> HandRow | None:
    return match.current_hand


def hand_in_play(match: Match) -> HandRow:
    """The hand a running match is playing: it has one from its first deal to its end."""
    if match.current_hand is None:
        raise LookupError(f"match {match.code} has no hand in play")
    return match.current_hand


def moves_of(hand_row: HandRow) -> list[dict]:
    """The hand's logged moves, oldest first, as the log has them (``move``, ``seat``, ...),
    each with its number in the match's log (``seq``)."""
    logged = hand_row.events.filter(kind=Event.Kind.MOVE).order_by("seq").values_list("seq", "data")
    return [{**data, "seq": seq} for seq, data in logged]


def load_hand(match: Match, hand_row: HandRow, moves: list[dict] | None = None) -> Hand:
    """The engine's hand, replayed from the deck and the logged moves."""
    moves = moves_of(hand_row) if moves is None else moves
    return replay(parse_cards(hand_row.deck), [parse_action(data["move"]) for data in moves], match.rules)


def append_event(
    match: Match, kind: str, hand: HandRow | None = None, actor: Player | None = None, **data: object
) -> Event:
    """Add to the log, written when the change ends; the match is locked in this
    change, so the next ``seq`` is its own counter and cannot collide."""
    work = current()
    assert work.track(match) is match, "events are appended to the match locked in this change"
    match.event_count += 1
    event = Event(match=match, seq=match.event_count, hand=hand, kind=kind, actor=actor, data=data)
    work.events.append(event)
    return event


def commitment_of(deck: str, salt: str) -> str:
    """SHA-256 of ``salt:deck``: published at the deal, checkable once both are revealed."""
    return hashlib.sha256(f"{salt}:{deck}".encode()).hexdigest()


def shuffled_deck() -> list[Card]:
    """A deck shuffled from the operating system's secure source (R4.4)."""
    return _shuffler.sample(DECK, len(DECK))


def deal_hand(match: Match, seats: list[Seat], number: int, roles: Roles) -> tuple[HandRow, Hand]:
    """Shuffle and deal the next hand; it becomes the match's current hand. Who holds
    each role is kept on the hand as dealt: an admin may later put another player in a
    seat, and the hands played stay the players' who played them."""
    deck = shuffled_deck()
    deck_text = " ".join(str(card) for card in deck)
    salt = secrets.token_hex(16)
    players = {seat.position: seat.player_id for seat in seats}
    hand_row = HandRow.objects.create(
        match=match,
        number=number,
        box=roles.box,
        captain=roles.captain,
        sitter=roles.sitter,
        box_player_id=players[roles.box],
        captain_player_id=players[roles.captain],
        sitter_player_id=players[roles.sitter],
        deck=deck_text,
        salt=salt,
        commitment=commitment_of(deck_text, salt),
        started_at=timezone.now(),
    )
    match.current_hand = hand_row
    append_event(
        match,
        Event.Kind.DEAL,
        hand_row,
        number=number,
        box=roles.box,
        captain=roles.captain,
        sitter=roles.sitter,
        commitment=hand_row.commitment,
    )
    return hand_row, deal(deck, match.rules)


def game_of(match: Match, seats: list[Seat], hand_row: HandRow) -> Game:
    scores = tuple(seat.score for seat in seats)
    return Game(
        roles=hand_row.roles,
        options=match.rules,
        scores=(scores[0], scores[1], scores[2]),
        hands_played=hand_row.number - 1,
    )
