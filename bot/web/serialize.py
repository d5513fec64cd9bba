"""A seat's table as the page's JSON: the views of ``games.services.read.seat_table``, field by field.

Nothing is added here: every card in the JSON is a card of a view, and the views
hold only what the seat may see (``games.services.read.tables``). Cards are written
as players type them (``7h``, ``Th``); moments in UTC (ISO 8601), for the page to
say in the device's own zone.
"""

from __future__ import annotations

from datetime import datetime

from games.contract.public import PublicMove
from games.contract.table_page import LastResult, SeatTable
from games.contract.tables import CardsView, SeatView, TableView
from games.engine import Card
from games.text.advice import team_words

JSON = dict[str, object]


def seat_table_json(view: SeatTable) -> JSON:
    return {
        "version": view.version,
        "code": view.code,
        "status": view.status,
        "target": view.target,
        "position": view.position,
        "winner": view.winner,
        "seats": [_seat(seat) for seat in view.seats],
        "table": _table(view.table) if view.table is not None else None,
        "so_far": [_move(move) for move in view.so_far],
        "team": [{"name": line.name, "text": team_words(line.said) if line.said else line.text} for line in view.team],
        "last_result": _result(view.last_result) if view.last_result is not None else None,
    }


def _table(table: TableView) -> JSON:
    return {
        "version": table.version,  # what the page's commands carry (#CODE@VERSION), as a button's do
        "hand": table.hand_number,
        "role": table.viewer_role,
        "cards": _cards(table.cards) if table.cards is not None else None,
        "pile_top": _card(table.pile_top),
        "stock": table.stock_count,
        "to_move": table.to_move,
        "to_move_role": table.to_move_role,
        "phase": table.phase,
        "deadline": _moment(table.deadline),
        "paused": table.paused,
        "moves": list(table.moves),
        "knocks": {str(card): count for card, count in table.knocks.items()},
        "suggestion": table.suggestion,
    }


def _seat(seat: SeatView) -> JSON:
    return {
        "name": seat.name,
        "position": seat.position,
        "role": seat.role,
        "score": seat.score,
        "is_computer": seat.is_computer,
        "away_until": _moment(seat.away_until),
    }


def _cards(cards: CardsView) -> JSON:
    return {
        "owner": cards.owner,
        "melds": [[str(card) for card in meld] for meld in cards.melds],
        "deadwood": [str(card) for card in cards.deadwood],
        "count": cards.count,
    }


def _move(move: PublicMove) -> JSON:
    return {"name": move.name, "role": move.role, "action": move.action, "card": _card(move.card)}


def _result(result: LastResult) -> JSON:
    """The summary as the hand row keeps it (``play.summary_of``): public since the hand ended."""
    return {"number": result.number, "summary": result.summary, "roles": [list(pair) for pair in result.roles]}


def _card(card: Card | None) -> str:
    return str(card) if card is not None else ""


def _moment(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None
