"""Loading and saving a match's state inside a service transaction.

The current hand is rebuilt by replaying its moves from the event log on the
dealt deck: the log is the only record, so replay is exercised on every move.
"""

from __future__ import annotations

import hashlib
import secrets

from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from games.engine import DECK, Card, Game, Hand, Roles, deal, parse_action, parse_cards, replay

from ..models import Event, Match, Player, ProcessedUpdate, Seat
from ..models import Hand as HandRow

MOVE = "move"
_shuffler = secrets.SystemRandom()


def first_time(update_key: str) -> bool:
    """Record an inbound update's key (a Telegram update_id, an SMS sid) in the
    caller's transaction; False if it was acted on already, and then the caller
    does nothing: a retried webhook has no second effect."""
    if not update_key:
        return True
    try:
        with transaction.atomic():
            ProcessedUpdate.objects.create(key=update_key)
    except IntegrityError:
        return False
    return True


def lock(match_id: int) -> Match:
    """The match row, locked until the transaction ends: one change at a time."""
    return Match.objects.select_for_update().get(pk=match_id)


def seats_of(match: Match) -> list[Seat]:
    return list(match.seats.select_related("player").order_by("position"))


def current_hand_row(match: Match) -> HandRow | None:
    return match.hands.order_by("-number").first()


def moves_of(hand_row: HandRow) -> list[str]:
    return [data["move"] for data in hand_row.events.filter(kind=MOVE).order_by("seq").values_list("data", flat=True)]


def load_hand(match: Match, hand_row: HandRow) -> Hand:
    """The engine's hand, replayed from the deck and the logged moves."""
    return replay(parse_cards(hand_row.deck), [parse_action(move) for move in moves_of(hand_row)], match.options)


def append_event(
    match: Match, kind: str, hand: HandRow | None = None, actor: Player | None = None, **data: object
) -> Event:
    """Add to the log; the caller holds the match lock, so ``seq`` cannot collide."""
    last = Event.objects.filter(match=match).aggregate(last=Max("seq"))["last"] or 0
    return Event.objects.create(match=match, seq=last + 1, hand=hand, kind=kind, actor=actor, data=data)


def commitment_of(deck: str, salt: str) -> str:
    """SHA-256 of ``salt:deck``: published at the deal, checkable once both are revealed."""
    return hashlib.sha256(f"{salt}:{deck}".encode()).hexdigest()


def shuffled_deck() -> list[Card]:
    """A deck shuffled from the operating system's secure source (R4.4)."""
    return _shuffler.sample(DECK, len(DECK))


def deal_hand(match: Match, number: int, roles: Roles) -> tuple[HandRow, Hand]:
    deck = shuffled_deck()
    deck_text = " ".join(str(card) for card in deck)
    salt = secrets.token_hex(16)
    players = dict(match.seats.values_list("position", "player_id"))  # who plays it, kept as dealt
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
    append_event(
        match,
        "deal",
        hand_row,
        number=number,
        box=roles.box,
        captain=roles.captain,
        sitter=roles.sitter,
        commitment=hand_row.commitment,
    )
    return hand_row, deal(deck, match.options)


def roles_of(hand_row: HandRow) -> Roles:
    return Roles(box=hand_row.box, captain=hand_row.captain, sitter=hand_row.sitter)


def game_of(match: Match, seats: list[Seat], hand_row: HandRow) -> Game:
    scores = tuple(seat.score for seat in seats)
    return Game(
        roles=roles_of(hand_row),
        options=match.options,
        scores=(scores[0], scores[1], scores[2]),
        hands_played=hand_row.number - 1,
    )
