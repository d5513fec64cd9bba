"""What every value a reader gets is: a notice, or a refusal.

The services hand these on; ``games.text`` words each type in every
language and channel (``games.text.render``). A value holds what its words
need (names, codes, cards the reader may see, moments) and no sentence.
"""

from __future__ import annotations

from dataclasses import dataclass


class Notice:
    """A message: the answer to a command, or news of a match or of the reader himself."""


class Refusal(Notice):
    """Why a command was not carried out; nothing was changed."""


@dataclass(frozen=True)
class Worded(Notice):
    """Words ``games.text`` has written already, in the reader's language: the command
    parser's answer to what it cannot read (``games.text.protocol.ProtocolError``)."""

    text: str
