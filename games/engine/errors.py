"""The engine's errors: each has a stable ``code`` and its parameters, so a
player can be told why in his own language, and names the rule it enforces.

``REASONS`` is the one list of codes. The text layer maps each code to a
translated sentence filled from the error's parameters (``error.params``, or
each one as an attribute: ``error.card``); ``message`` is the English sentence
for logs and tests, and ``str(error)`` is that sentence with the rule.

>>> from games.engine import Card
>>> error = IllegalAction("not_held", card=Card.parse("7h"))
>>> error.code, error.rule, error.card, error.params
('not_held', 'R6.1', 7h, {'card': 7h})
>>> str(error)
'you do not hold 7h (R6.1)'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Reason:
    """Why the engine refuses something: a code, the rule, the parameters that
    come with it and an English sentence (a ``str.format`` template over them)."""

    code: str
    rule: str | None
    params: tuple[str, ...]
    english: str


REASONS: tuple[Reason, ...] = (
    # IllegalAction: a move the rules do not allow now.
    Reason("hand_over", "R8", (), "the hand is over"),
    Reason("not_a_move", "R6.1", ("action",), "{action!r} is not a move"),
    Reason("upcard_first", "R5.1", (), "on the first turn, take the upcard or pass"),
    Reason("pass_only_upcard", "R5", (), "passing is only for the upcard on the first turn"),
    Reason("must_draw", "R5.4", (), "both refused the upcard: the captain draws from the stock"),
    Reason("already_took", "R6.1", (), "you have taken a card already: discard one"),
    Reason("take_first", "R6.1", (), "take a card first (draw or take)"),
    Reason("not_held", "R6.1", ("card",), "you do not hold {card}"),
    Reason("taken_card", "R6.2", ("card",), "you may not discard {card}, the card you just took from the pile"),
    Reason(
        "knock_limit", "R7.2", ("count", "limit"), "to knock your count must be {limit} or less; it would be {count}"
    ),
    Reason("bad_deck", "R1.1", (), "a deal needs the 52 cards of one deck"),
    Reason("shared_card", "R1.1", (), "the two hands share a card"),
    # CardError: text that is not a card, or a card used twice.
    Reason("not_a_card", None, ("text",), "{text!r} is not a card (try 7h, 10d, Qs)"),
    Reason("no_card_index", None, ("index",), "no card has index {index!r}"),
    Reason("no_card_rank_suit", None, ("rank", "suit"), "no card has rank {rank} and suit {suit}"),
    Reason("card_twice", "R1.1", ("card",), "{card} is there twice"),
    # EngineError: match options out of their range.
    Reason("gin_bonus_choice", "R8.3", ("value",), "the gin bonus is 25 or 20, not {value}"),
    Reason(
        "undercut_bonus_range", "R8.4", ("value", "low", "high"), "the undercut bonus is {low} to {high}, not {value}"
    ),
    Reason("target_range", "R10.1", ("value", "low", "high"), "the target score is {low} to {high}, not {value}"),
)
REASON_OF: dict[str, Reason] = {reason.code: reason for reason in REASONS}
CODES: tuple[str, ...] = tuple(REASON_OF)


class EngineError(Exception):
    """Base of everything the engine refuses."""

    # The parameters a code may carry, for type checkers; each error sets its own.
    action: Any
    card: Any
    count: int
    limit: int
    text: str
    index: Any
    rank: int
    suit: Any
    value: int
    low: int
    high: int

    def __init__(self, code: str, **params: Any) -> None:
        reason = REASON_OF[code]
        if set(params) != set(reason.params):
            raise TypeError(f"{code} takes the parameters {reason.params}, not {tuple(params)}")
        self.code = code
        self.rule = reason.rule
        self.params = params
        self.message = reason.english.format(**params)
        for name, value in params.items():
            setattr(self, name, value)
        super().__init__(f"{self.message} ({self.rule})" if self.rule else self.message)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self.code, self.params))


def _rebuild(kind: type[EngineError], code: str, params: dict[str, Any]) -> EngineError:
    return kind(code, **params)


class CardError(EngineError, ValueError):
    """Text that is not a card, or a card used twice."""


class IllegalAction(EngineError):
    """An action the rules do not allow now; the state it was tried on is unchanged."""
