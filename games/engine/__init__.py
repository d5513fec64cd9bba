"""The rules of three-handed gin (docs/rules.md), pure Python.

No Django, no I/O, no clock: values in, values out.

>>> from games.engine import parse_cards, deadwood
>>> deadwood(parse_cards("7s 7h 7d 5s 6s"))
11
"""

from .cards import DECK, Card, format_cards, parse_cards
from .errors import CardError, EngineError, IllegalAction
from .game import CutRound, Game, Roles, cut_for_roles
from .hand import (
    Action,
    Discard,
    Draw,
    Event,
    Hand,
    HandResult,
    Knock,
    Pass,
    Phase,
    Role,
    Take,
    deal,
    parse_action,
    replay,
    stacked_deck,
)
from .melds import Arrangement, Meld, best_arrangements, deadwood, is_meld, knock_discards
from .options import Options
from .scoring import Settlement, settle

__all__ = [
    "DECK",
    "Action",
    "Arrangement",
    "Card",
    "CardError",
    "CutRound",
    "Discard",
    "Draw",
    "EngineError",
    "Event",
    "Game",
    "Hand",
    "HandResult",
    "IllegalAction",
    "Knock",
    "Meld",
    "Options",
    "Pass",
    "Phase",
    "Role",
    "Roles",
    "Settlement",
    "Take",
    "best_arrangements",
    "cut_for_roles",
    "deadwood",
    "deal",
    "format_cards",
    "is_meld",
    "knock_discards",
    "parse_action",
    "parse_cards",
    "replay",
    "settle",
    "stacked_deck",
]
