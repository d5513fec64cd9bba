"""What anyone may see of a match: the public pages, a group that follows it, the desk.

A running hand shows what lies face up: the pile (each card discarded, and
who took which back), the size of the stock, whose turn and the clock. No
hand's cards, no card of the stock, no deck and no salt until the hand is
revealed; then all of it, move by move, so that anyone can replay it and
check the deck against the commitment published at the deal (R4.4).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from games.engine import Card

from .options import MatchOptions
from .tables import Automatic, MoveView, SeatView


@dataclass(frozen=True)
class PublicMove:
    """A move as anyone may know it: the card of a take (it lay face up on the
    pile), of a discard and of a knock; the card of a draw only once the hand
    is revealed (``card`` None before)."""

    name: str
    role: str
    action: str  # "pass", "take", "draw", "discard" or "knock"
    card: Card | None = None
    automatic: Automatic = Automatic.TYPED


@dataclass(frozen=True)
class PublicTableView:
    """The hand in play as anyone may see it: no hand's cards and not the stock."""

    code: str
    hand_number: int
    seats: tuple[SeatView, ...]
    pile_top: Card | None
    stock_count: int
    to_move: str
    to_move_role: str
    phase: str
    deadline: datetime | None
    paused: bool
    commitment: str
    last_moves: tuple[MoveView, ...] = ()
    moves: tuple[PublicMove, ...] = ()  # the hand so far, as anyone saw it
    version: int = 0


@dataclass(frozen=True)
class ReviewMark:
    """A person's move of a finished hand where the hard level would have played
    ``better``, worth ``points`` more for him by its evaluation; ``card``: the pile's
    card when ``better`` takes it; ``why``: the reason for its choice (an
    ``engine.advice.Reason``, "" in a review stored without one) and ``why_card``
    the card the reason names, if any."""

    better: str
    points: float
    card: str = ""
    why: str = ""
    why_card: str = ""


@dataclass(frozen=True)
class ReplayStep:
    """One moment of a revealed hand, everything face up: after ``move`` (the
    deal when None), what each active player holds, the pile's top and the stock."""

    move: PublicMove | None
    box: tuple[Card, ...]
    captain: tuple[Card, ...]
    pile_top: Card | None
    stock_count: int


@dataclass(frozen=True)
class PublicHandView:
    """A hand on the public page: its result once it ends, and its deck, salt,
    moves and replay once revealed (``is_revealed``); before that, its commitment only."""

    number: int
    roles: tuple[tuple[str, str], ...]  # (role, name) for box, captain, sitter, as dealt
    result: str
    winner: str
    points: int
    summary: dict
    commitment: str
    deck: str = ""
    salt: str = ""
    moves: tuple[PublicMove, ...] = ()
    steps: tuple[ReplayStep, ...] = ()
    dealt: tuple[tuple[Card, str], ...] = ()  # each card of the deck and where the deal put it
    is_revealed: bool = False
    is_detailed: bool = False  # with its deck, moves and replay (one hand per page)
    marks: dict[int, ReviewMark] = field(default_factory=dict)  # by the move's index in ``moves``


@dataclass(frozen=True)
class PublicMatchView:
    """A match as the public page shows it."""

    code: str
    status: str
    status_label: str
    target: int
    seats: tuple[SeatView, ...]
    winner: str
    table: PublicTableView | None
    hands: tuple[PublicHandView, ...]
    created_at: datetime
    finished_at: datetime | None
    version: int = 0
    options: MatchOptions = field(default_factory=MatchOptions)
    seat_names: tuple[tuple[str, ...], ...] = ()  # per seat, everyone who held it, in order
    scores: tuple[tuple[int, ...], ...] = ()  # the three cumulative scores before hand 1 and after each hand
    player_ids: dict[str, int] = field(default_factory=dict)  # name -> player, for links
    resigned: str = ""  # who gave the match up (R10.3), if it ended so
