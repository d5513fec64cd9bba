"""Why a move is not allowed, in the player's words and language: one sentence per engine code.

The engine refuses a move with an ``IllegalAction`` that carries a stable
``code`` and its parameters (``games.engine.errors.REASONS``); here each code
becomes a sentence that says the rule in words, with no rule number, which
means nothing to a player.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from django.utils.translation import gettext as _

SENTENCES: dict[str, Callable[[Mapping[str, object]], str]] = {
    "hand_over": lambda _params: _("the hand is over."),
    "upcard_first": lambda _params: _("on the first turn you take the face-up card or pass."),
    "pass_only_upcard": lambda _params: _("you may pass only on the face-up card, on the first turn."),
    "must_draw": lambda _params: _("the box and you both refused the face-up card: draw from the stock."),
    "already_took": lambda _params: _("you have taken a card already: discard one."),
    "take_first": lambda _params: _("take a card first: draw from the stock, or take from the pile."),
    "not_held": lambda params: _("you do not hold %(card)s.") % {"card": params["card"]},
    "taken_card": lambda params: _("you may not discard %(card)s, the card you just took from the pile.")
    % {"card": params["card"]},
    "knock_limit": lambda params: _(
        "to knock, your count after the discard must be %(limit)s or less; it would be %(count)s."
    )
    % {"limit": params["limit"], "count": params["count"]},
}


# The same reasons told to the sitter about his captain's move (R3.2): "he", not "you".
CAPTAIN_SENTENCES: dict[str, Callable[[Mapping[str, object]], str]] = {
    "upcard_first": lambda _params: _("on the first turn he takes the face-up card or passes."),
    "pass_only_upcard": lambda _params: _("he may pass only on the face-up card, on the first turn."),
    "must_draw": lambda _params: _("both refused the face-up card: the captain draws from the stock."),
    "already_took": lambda _params: _("he has taken a card already: suggest a discard."),
    "take_first": lambda _params: _("he takes a card first: suggest draw, or take."),
    "not_held": lambda params: _("he does not hold %(card)s.") % {"card": params["card"]},
    "taken_card": lambda params: _("he may not discard %(card)s, the card he just took from the pile.")
    % {"card": params["card"]},
    "knock_limit": lambda params: _(
        "to knock, his count after the discard must be %(limit)s or less; it would be %(count)s."
    )
    % {"limit": params["limit"], "count": params["count"]},
}


def reason_text(code: str, params: Mapping[str, object], message: str = "", of_captain: bool = False) -> str:
    """Why the engine refused a move (its ``IllegalAction.code`` and ``params``), as a
    sentence in the active language, to the player or (``of_captain``) to his sitter about
    him; ``message`` for a code not worded here."""
    words = (CAPTAIN_SENTENCES if of_captain else SENTENCES).get(code)
    return words(params) if words else message
