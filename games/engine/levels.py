"""The computer players by name: the levels players choose from (``easy``, ``normal``,
``hard``), the names stored before there were levels, and the test strategies.

A module of its own, above both ``bots`` (the one-move players) and ``search``
(the hard level, which builds on ``bots``), so that neither imports the other back.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from .bots import RandomBot, SimpleBot, Strategy, StrongBot
from .search import DEFAULT_BUDGET, HardBot


def _hard(rng: random.Random, budget: float | None = None) -> Strategy:
    """The hard level (``search.HardBot``) with its budget."""
    return HardBot(rng, budget=DEFAULT_BUDGET if budget is None else budget)


# The levels players choose from, weakest first. ``simple`` and ``strong`` are
# the names the first two had before there were levels; stored players still
# carry them (Player.strength), so they stay.
LEVELS = ("easy", "normal", "hard")
ALIASES = {"simple": "easy", "strong": "normal"}

# Weakest first: reports name the stronger of two strategies first by this order.
STRATEGIES: dict[str, Callable[[random.Random], Strategy]] = {
    "random": RandomBot,
    "simple": SimpleBot,
    "easy": SimpleBot,
    "strong": StrongBot,
    "normal": StrongBot,
    "hard": _hard,
}


def level_of(name: str) -> str:
    """The level a strategy name stands for: ``strong`` is ``normal``."""
    return ALIASES.get(name, name)


def make_strategy(name: str, rng: random.Random, budget: float | None = None) -> Strategy:
    """The strategy called ``name``, drawing any chance it needs from ``rng``.

    ``budget`` is the seconds a searching level (``hard``) may spend on a
    move; None is its default (``search.DEFAULT_BUDGET``). The other levels
    answer at once and ignore it.
    """
    try:
        factory = STRATEGIES[name]
    except KeyError:
        raise ValueError(f"no strategy {name!r}; choose from {', '.join(STRATEGIES)}") from None
    if factory is _hard:
        return _hard(rng, budget)
    return factory(rng)
