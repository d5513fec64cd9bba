"""Refusals a player is told about; nothing was changed."""

from __future__ import annotations

from games.contract import Notice


class ServiceError(Exception):
    """A command that cannot be carried out now; ``refusal`` says why (``games.text`` words it).
    No refusal (None): the player was told already and is not told again."""

    def __init__(self, refusal: Notice | None) -> None:
        super().__init__(refusal)
        self.refusal = refusal


class StaleError(ServiceError):
    """A command made for an older state of match ``code`` (an old button, a late task)."""

    def __init__(self, refusal: Notice, code: str) -> None:
        super().__init__(refusal)
        self.code = code
