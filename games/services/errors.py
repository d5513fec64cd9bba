"""Refusals a player is told about; nothing was changed."""


class ServiceError(Exception):
    """A command that cannot be carried out now; ``str(error)`` is the reply."""


class StaleError(ServiceError):
    """A command made for an older state of the match (an old button, a late task)."""

    def __init__(self, message: str, code: str = "") -> None:
        super().__init__(message)
        self.code = code
