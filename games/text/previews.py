"""What a link to a public page shows where it is shared (Open Graph's title and
description): a match's players and score, a player's rating, what the
scoreboard and the lobby are. Plain text in the reader's language, which the
page writes into its ``<meta property="og:...">`` tags (escaped there).

Without them a shared ``/m/CODE/`` previewed in Telegram as a bare "#CODE · gin3".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import ngettext


@dataclass(frozen=True)
class Preview:
    title: str
    description: str


def about() -> str:
    return _("gin3: three-handed gin rummy, played by text over Telegram, by SMS or in a terminal.")


def match_preview(
    code: str,
    status: str,
    seats: Sequence[tuple[str, int]],
    target: int,
    winner: str = "",
    hand_in_play: int | None = None,
) -> Preview:
    """A match: its players and their scores; who won it, the hand in play, or how to join."""
    if status == "lobby":
        names = ", ".join(name for name, _score in seats)
        title = _("#%(code)s: %(names)s wait for players") % {"code": code, "names": names}
        said = _("A match to %(target)s points that waits for players: join it with join %(code)s.") % {
            "target": target,
            "code": code,
        }
        return Preview(title, f"{said} {about()}")
    scores = " · ".join(f"{name} {score}" for name, score in seats)
    title = f"#{code}: {scores}" if scores else f"#{code}"
    if winner:
        said = _("%(name)s won this match to %(target)s points.") % {"name": winner, "target": target}
    elif hand_in_play is not None:
        said = _("Being played to %(target)s points: hand %(number)s in play.") % {
            "target": target,
            "number": hand_in_play,
        }
    elif status == "aborted":
        said = _("This match was aborted.")
    else:
        said = _("This match ended without a winner.")
    return Preview(title, said + " " + _("Every hand replayed, with its deck, once it ends."))


def player_preview(name: str, rating: int | None, matches: int = 0, wins: int = 0) -> Preview:
    """A player: his rating and his finished matches."""
    if rating is None:
        return Preview(name, _("%(name)s has no finished match yet.") % {"name": name} + " " + about())
    title = _("%(name)s: rating %(rating)s") % {"name": name, "rating": rating}
    said = ngettext(
        "%(name)s's rating is %(rating)s, after %(matches)s finished match (%(wins)s won).",
        "%(name)s's rating is %(rating)s, after %(matches)s finished matches (%(wins)s won).",
        matches,
    ) % {"name": name, "rating": rating, "matches": matches, "wins": wins}
    return Preview(title, f"{said} {about()}")


def scoreboard_preview() -> Preview:
    return Preview(
        _("gin3 scoreboard"),
        _(
            "People ranked by rating at three-handed gin rummy, the computer players apart, "
            "and the matches being played now."
        ),
    )


def lobby_preview() -> Preview:
    return Preview(
        _("gin3: open matches"),
        _("Matches of three-handed gin rummy that wait for players: join one on Telegram or by text."),
    )
