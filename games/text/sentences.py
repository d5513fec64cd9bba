"""One sentence for each kind of notice: ``sentence(notice)``, in the active language.

The services hand on typed values (``games.contract``); each module of this
package that words a subject registers its sentences here, by type, and
``render`` (which imports them all) styles them for a channel. A notice whose
type has no sentence is a bug, not a message: it raises.
"""

from __future__ import annotations

from functools import singledispatch

from games.contract import Notice
from games.contract.base import Worded


@singledispatch
def sentence(notice: Notice) -> str:
    raise TypeError(f"no sentence for {type(notice).__name__}")


def codes_text(codes: tuple[str, ...], joiner: str = ", ") -> str:
    """Match codes as messages name them: ``#K7Q2, #ZPFA``."""
    return joiner.join(f"#{code}" for code in codes)


def names_text(names: tuple[str, ...]) -> str:
    return ", ".join(names)


@sentence.register
def _worded(notice: Worded) -> str:
    return notice.text
