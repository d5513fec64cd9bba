"""The options a match may set (RULES.md's table), checked once when made."""

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
            raise EngineError(f"the gin bonus is 25 or 20, not {self.gin_bonus} (R8.3)")
        if self.undercut_bonus not in UNDERCUT_BONUS_RANGE:
            raise EngineError(f"the undercut bonus is 0 to 25, not {self.undercut_bonus} (R8.4)")
        if self.target not in TARGET_RANGE:
            raise EngineError(f"the target score is 50 to 500, not {self.target} (R10.1)")

    def to_dict(self) -> dict:
        return asdict(self)
