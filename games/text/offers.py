"""What a message offers to do next: a button on Telegram, a line to type elsewhere.

A button only carries a command that can be typed (docs/protocol.md). Help offers a
player in no match to find one or open one (in a match, the table's buttons are
the ones he needs); the final result of a match offers to play it again;
a notice may offer one command of its own (``Offer``), such as the lobby's
computer player for a match that waits too long or a rematch to agree to.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _

# What help's buttons carry: commands, typed as they are in every language.
FIND_A_MATCH = "join any"
OPEN_A_MATCH = "new open"


@dataclass(frozen=True)
class Offer:
    """A notice that offers one command: its text says what to type, and on
    Telegram a button labelled ``label`` carries ``command``."""

    text: str
    label: str
    command: str

    def __str__(self) -> str:
        return self.text


def offer_buttons(content: object) -> list[list[dict[str, str]]]:
    """The buttons under a message that is not a table (Telegram)."""
    kind = type(content).__name__
    if kind == "Offer":
        return [[{"text": content.label, "data": content.command}]]
    if kind == "HelpView" and not content.lines:
        return [[{"text": _("Find a match"), "data": FIND_A_MATCH}, {"text": _("New match"), "data": OPEN_A_MATCH}]]
    if _is_final_result(content):
        return [[{"text": _("Play again"), "data": f"#{content.code} again"}]]
    return []


def offer_line(content: object) -> str:
    """What a text channel adds where Telegram has a button: under a match's final
    result, how to play it again (the other offers say it in their text)."""
    if _is_final_result(content):
        return _("To play again with the same players: again")
    return ""


def _is_final_result(content: object) -> bool:
    return type(content).__name__ == "ResultView" and bool(content.game_winner)
