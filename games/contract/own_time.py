"""A player's own time: time off (``away``, ``back``), quiet hours and his zone."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from .base import Notice, Refusal


@dataclass(frozen=True)
class TimeOffLeft(Notice):
    """``away`` alone: whether he is away (until ``until``) and what he has left this year."""

    until: datetime | None
    left_seconds: float
    allowance_seconds: float


@dataclass(frozen=True)
class YouAreAway(Notice):
    """``away N``: his clocks wait until ``until``; ``left_seconds`` of time off remain this year."""

    until: datetime
    left_seconds: float


@dataclass(frozen=True)
class WelcomeBack(Notice):
    """``back``; ``codes``: the matches where it is his move."""

    codes: tuple[str, ...]


@dataclass(frozen=True)
class PlayerAway(Notice):
    """News for those who play with him, naming their matches together."""

    name: str
    until: datetime
    codes: tuple[str, ...]


@dataclass(frozen=True)
class PlayerBack(Notice):
    name: str
    codes: tuple[str, ...]


@dataclass(frozen=True)
class QuietHours(Notice):
    """``quiet``: his quiet hours, from ``start`` to ``end`` o'clock in ``zone`` (none: both None)."""

    start: int | None
    end: int | None
    zone: str
    zone_is_default: bool = False


@dataclass(frozen=True)
class QuietHoursOff(Notice):
    pass


@dataclass(frozen=True)
class TimeZoneIs(Notice):
    """``tz``: the zone deadlines are shown in (its time now is said in it)."""

    zone: str


@dataclass(frozen=True)
class TimeOffTooShort(Refusal):
    pass


@dataclass(frozen=True)
class TooManyTimeOffStarts(Refusal):
    count: int


@dataclass(frozen=True)
class NoTimeOffLeft(Refusal):
    pass


@dataclass(frozen=True)
class TooMuchTimeOff(Refusal):
    """More than is left: ``left_seconds`` remain, asked for like ``away EXAMPLE``."""

    left_seconds: float
    example: str


@dataclass(frozen=True)
class NotAway(Refusal):
    pass
