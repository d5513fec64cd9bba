"""A match's options, each defined once: its name, default, the values it may take and the word that sets it.

``new 3d to 150 gin 20 undercut 5 anydiscard open`` sets them (the parser
reads ``OPTIONS``), the match keeps them in columns of the same names
(``games.models.Match``), a rematch copies them, and the replies, the lobby
and the pages say them from the same table. The rules' own options (R6.2,
R8.3, R8.4, R10.1) take their ranges from the engine, which checks them again
when a hand is dealt.

>>> OPTION["target"].low, OPTION["target"].high
(50, 500)
>>> MatchOptions(target=150).differs_from_default()
('target',)
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from games.engine.options import GIN_BONUS_CHOICES, TARGET_RANGE, UNDERCUT_BONUS_RANGE, Options

# The clock's choices, by the words players type: ``new 5m``, ``join any 1h``.
MOVE_TIMES = {"5m": 300, "15m": 900, "1h": 3600, "12h": 43200, "1d": 86400, "3d": 259200, "7d": 604800}
DEFAULT_MOVE_TIME = "1d"


@dataclass(frozen=True)
class MatchOptions:
    """Every option of a match, the rules' and the clock's and the lobby's; each default is the rule as written."""

    move_seconds: int = MOVE_TIMES[DEFAULT_MOVE_TIME]
    target: int = Options.target
    gin_bonus: int = Options.gin_bonus
    undercut_bonus: int = Options.undercut_bonus
    may_discard_taken: bool = Options.may_discard_taken  # R6.2 off: ``anydiscard``
    is_open: bool = False  # listed in the public lobby: ``open``

    def rules(self) -> Options:
        """The options the engine plays by."""
        return Options(
            gin_bonus=self.gin_bonus,
            undercut_bonus=self.undercut_bonus,
            target=self.target,
            may_discard_taken=self.may_discard_taken,
        )

    def as_fields(self) -> dict[str, int | bool]:
        """The options by name, as the match's columns and its "created" event hold them."""
        return {option.name: getattr(self, option.name) for option in fields(self)}

    def differs_from_default(self) -> tuple[str, ...]:
        """The names of the options set to something else than their default."""
        return tuple(name for name, value in self.as_fields().items() if value != getattr(DEFAULTS, name))

    def without_lobby(self) -> MatchOptions:
        """The options a rematch keeps: all but the listing in the lobby (its players are known)."""
        return replace(self, is_open=False)


DEFAULTS = MatchOptions()


@dataclass(frozen=True)
class Option:
    """How ``new`` sets one option: ``word`` then a number among ``values``, or ``word`` alone
    (a switch, ``values`` empty); the move time is named by one of ``MOVE_TIMES``' words."""

    name: str
    word: str
    values: tuple[int, ...] = ()

    @property
    def is_switch(self) -> bool:
        return not self.values and bool(self.word)

    @property
    def low(self) -> int:
        return min(self.values)

    @property
    def high(self) -> int:
        return max(self.values)

    @property
    def is_range(self) -> bool:
        """Whether its numbers are every number from ``low`` to ``high`` (else a few choices)."""
        return len(self.values) == self.high - self.low + 1


OPTIONS = (
    Option("move_seconds", "", tuple(MOVE_TIMES.values())),
    Option("target", "to", tuple(TARGET_RANGE)),  # R10.1
    Option("gin_bonus", "gin", GIN_BONUS_CHOICES),  # R8.3
    Option("undercut_bonus", "undercut", tuple(UNDERCUT_BONUS_RANGE)),  # R8.4
    Option("may_discard_taken", "anydiscard"),  # R6.2
    Option("is_open", "open"),
)
OPTION = {option.name: option for option in OPTIONS}
BY_WORD = {option.word: option for option in OPTIONS if option.word}
