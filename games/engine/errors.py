"""The engine's errors: each names the rule it enforces so a player can be told why."""

from __future__ import annotations


class EngineError(Exception):
    """Base of everything the engine refuses."""


class CardError(EngineError, ValueError):
    """Text that is not a card, or a card used twice."""


class IllegalAction(EngineError):
    """An action the rules do not allow now; the state it was tried on is unchanged."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{message} ({rule})")
        self.rule = rule
        self.message = message
