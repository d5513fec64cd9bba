"""The table and the end of a hand, as one reader may see them (R3.2, R4.4).

``games.services.read.tables`` fills these with what their reader may know and
nothing more; ``games.text.tables`` words them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum

from games.engine import Card

from .base import Notice


@dataclass(frozen=True)
class SeatView:
    name: str
    position: int
    role: str  # "box", "captain", "sitter" or "" before the first deal
    score: int
    is_computer: bool = False
    autopilot: bool = False  # a person's seat that a computer plays while he is away
    away_until: datetime | None = None  # his time off: his clocks wait until then


@dataclass(frozen=True)
class CardsView:
    """A hand as its owner (or the sitter) sees it: melds grouped, deadwood counted."""

    owner: str
    melds: tuple[tuple[Card, ...], ...]
    deadwood: tuple[Card, ...]
    count: int


class Automatic(StrEnum):
    """How a move was made, when its player did not simply type or press it."""

    TYPED = ""
    SUGGESTION = "suggestion"  # the captain accepted the sitter's suggestion
    TIMEOUT = "timeout"  # his time ran out: played for him
    TIMEOUT_SUGGESTION = "timeout-suggestion"  # his time ran out: the sitter's waiting suggestion
    COMPUTER = "computer"  # a computer player's own move
    AUTOPILOT = "autopilot"  # a computer playing for an absent person

    @property
    def is_own(self) -> bool:
        """Whether the player made it himself (a typed move, or the suggestion he accepted)."""
        return self in (Automatic.TYPED, Automatic.SUGGESTION)

    @property
    def timed_out(self) -> bool:
        return self in (Automatic.TIMEOUT, Automatic.TIMEOUT_SUGGESTION)

    @property
    def advised(self) -> bool:
        return self in (Automatic.SUGGESTION, Automatic.TIMEOUT_SUGGESTION)

    def public(self) -> Automatic:
        """As the box and the public may know it: whether the team followed its
        sitter's advice is the team's secret (R3.2)."""
        return {Automatic.SUGGESTION: Automatic.TYPED, Automatic.TIMEOUT_SUGGESTION: Automatic.TIMEOUT}.get(self, self)


@dataclass(frozen=True)
class MoveView:
    """A move as every player may hear of it: a draw never names its card, a
    take names the face-up card it took (``taken``), which everyone saw. The
    one exception is the sitter's: he sees his captain's cards (R3.2), so his
    tables name the card of each of the captain's draws (``drawn``)."""

    name: str
    move: str
    automatic: Automatic = Automatic.TYPED
    taken: str = ""
    seq: int = 0  # its place in the match's event log
    drawn: str = ""  # the card a draw of his captain took, on a sitter's table only

    def __str__(self) -> str:
        return f"{self.name}: {self.move}"

    def without_advice(self) -> MoveView:
        """The move as the box and the public see it (R3.2)."""
        return replace(self, automatic=self.automatic.public(), drawn="")


@dataclass(frozen=True)
class TableView:
    """The table as one seat may see it."""

    code: str
    version: int
    viewer: str
    viewer_role: str
    seats: tuple[SeatView, ...]
    hand_number: int
    target: int
    cards: CardsView | None
    pile_top: Card | None
    stock_count: int
    to_move: str
    to_move_role: str
    phase: str
    deadline: datetime | None
    paused: bool
    moves: tuple[str, ...] = ()  # the commands the viewer may play now
    knocks: dict[Card, int] = field(default_factory=dict)
    suggestion: str = ""
    last_moves: tuple[MoveView, ...] = ()
    note: Notice | None = None  # why the reader is shown the table, e.g. his button was old
    commitment: str = ""
    drawn: Card | None = None  # the card the reader's side just drew from the stock, before its discard
    taken: Card | None = None  # the card the reader just took from the pile, before his discard


@dataclass(frozen=True)
class LayoffView:
    """Cards the defender laid off on one of the knocker's melds (R7.5)."""

    cards: tuple[Card, ...]
    meld: tuple[Card, ...]  # the knocker's meld they joined, as he laid it down


@dataclass(frozen=True)
class ResultView:
    """The end of a hand: public to all, so it carries both hands."""

    code: str
    hand_number: int
    kind: str
    knocker: str
    winner: str
    points: int
    knocker_cards: CardsView | None
    defender_cards: CardsView | None
    layoffs: tuple[LayoffView, ...]  # by the knocker's meld they joined
    seats: tuple[SeatView, ...]
    next_roles: dict[str, str]
    game_winner: str
    deck: str
    salt: str
    commitment: str
    # The moves of the turn that ended the hand, as the box may know them; for the sitter, if the
    # box ended it, his captain's turn before it too, which came after the sitter's last table.
    last_turn: tuple[MoveView, ...] = ()
