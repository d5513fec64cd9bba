"""The one way in: every channel, task and admin action calls these functions.

- ``handle(player, text, channel)``: carry out a command of the text protocol
  (``answer``: the same, saying also whether it was refused, and why; ``press``:
  what a button will do, said before it is done).
- ``matches``: create, join, add a computer player, leave, resign.
- ``computer_moves``, ``deadlines``, ``clock_scan``: what plays by itself: computer moves,
  reminders and deadlines, and the scan that finds what is due.
- ``moderation``: the admin's actions.
- ``read``: what each reader may see, decided there and nowhere else: a seat (``tables``),
  a player's list (``match_lines``), anyone (``public``), the moderators (``desk``).
"""

from .commands import Answer, answer, handle, press
from .errors import ServiceError, StaleError

__all__ = ["Answer", "ServiceError", "StaleError", "answer", "handle", "press"]
