"""The options a match may set (the table in docs/rules.md), checked once when made."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from .errors import EngineError

GIN_BONUS_CHOICES = (25, 20)
UNDERCUT_BONUS_RANGE = range(0, 26)
TARGET_RANGE = range(50, 501)


@dataclass(frozen=True)
class Options:
    """Match options; every default is the rule as written."""

    gin_bonus: int = 25
    undercut_bonus: int = 10
    target: int = 100
    may_discard_taken: bool = False  # R6.2: default is that he may not

    def __post_init__(self) -> None:
        if self.gin_bonus not in GIN_BONUS_CHOICES:
            raise EngineError("gin_bonus_choice", value=self.gin_bonus)
        if self.undercut_bonus not in UNDERCUT_BONUS_RANGE:
            low, high = UNDERCUT_BONUS_RANGE[0], UNDERCUT_BONUS_RANGE[-1]
            raise EngineError("undercut_bonus_range", value=self.undercut_bonus, low=low, high=high)
        if self.target not in TARGET_RANGE:
            raise EngineError("target_range", value=self.target, low=TARGET_RANGE[0], high=TARGET_RANGE[-1])

    def to_dict(self) -> dict:
        return asdict(self)
