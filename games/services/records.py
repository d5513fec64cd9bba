"""The record of who played and who earned what, kept as it happened.

A seat can change hands during a match (an admin replaces a player with a
computer), so a hand remembers its own players (``Hand.box_player`` and the
others, set at the deal) and who scored it (``Hand.winner_player``, set here
when it ends): pages and totals read those, never the seat as it is now.
"""

from __future__ import annotations

from ..models import Hand, Player


def hand_finished(hand_row: Hand, winner: Player | None) -> None:
    """Credit the hand to the player who held the winning seat when it was won.
    Called in the transaction that ends the hand; the caller saves ``hand_row``."""
    hand_row.winner_player = winner
