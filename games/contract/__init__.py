"""The contract between the services and the words: typed, frozen values, and no sentence.

Every value a player, a page or the desk receives is defined here: the
table as one seat sees it (``tables``), a player's lists (``lists``), what
anyone may see (``public``), and the notices and refusals of each subject
(``matches``, ``moves``, ``account``, ``own_time``, ``presence``,
``rematch``, ``moderation``, ``groups``), with the match options they
mention (``options``). ``games.services`` decides what goes into them;
``games.text`` words each type in every language and channel. This package
imports nothing but the engine.
"""

from __future__ import annotations

from .base import Notice, Refusal
from .public import PublicTableView
from .tables import ResultView, TableView

Content = Notice | TableView | ResultView | PublicTableView  # what a message carries

__all__ = ["Content", "Notice", "PublicTableView", "Refusal", "ResultView", "TableView"]
