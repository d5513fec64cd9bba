"""A computer partner's advice, its reasons, the levels and hints, in words
(``games.contract.advice``)."""

from __future__ import annotations

from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.contract import advice as a
from games.contract.moves import TeamMessage
from games.engine.advice import Reason

from .sentences import sentence

# The level words players read (the commands stay English: bot hard).
LEVEL_WORDS = {
    "easy": gettext_lazy("easy"),
    "normal": gettext_lazy("normal"),
    "hard": gettext_lazy("hard"),
}

REASON_WORDS = {
    Reason.GIN: gettext_lazy("it goes gin"),
    Reason.KNOCK_NOW: gettext_lazy("the count is low enough to knock, and waiting would cost more"),
    Reason.PLAY_FOR_GIN: gettext_lazy("playing on for gin is worth more than knocking now"),
    Reason.UNDERCUT_RISK: gettext_lazy("knocking now risks an undercut: the opponent may be as low"),
    Reason.TAKE_COMPLETES_MELD: gettext_lazy("the top card of the pile makes a meld"),
    Reason.TAKE_BUILDS_MELD: gettext_lazy("the top card of the pile builds towards a meld"),
    Reason.TAKE_LOW_CARD: gettext_lazy("the top card of the pile is lower than the card it replaces"),
    Reason.TOP_CARD_NO_HELP: gettext_lazy("the top card of the pile helps less than an unknown one"),
    Reason.SHEDS_DEADWOOD: gettext_lazy("no unmatched card is worth more"),
    Reason.KEEPS_CHANCES: gettext_lazy(
        "no unmatched card is worth more, and the cards kept have more chances of a meld"
    ),
    Reason.KEEPS_MELD: gettext_lazy("every higher card is in a meld"),
    Reason.BUILDS_MELD: gettext_lazy(
        "the cards kept include a pair or a near run that cards not yet seen can complete"
    ),
    Reason.SAFE_DISCARD: gettext_lazy("the opponent did not want that rank or its neighbours"),
    Reason.AVOIDS_FEEDING: gettext_lazy("the lower discard would help what the opponent collects"),
    Reason.BREAKS_MELD: gettext_lazy("the card suggested is in one of my melds"),
    Reason.FEEDS_OPPONENT: gettext_lazy("the card suggested would help what the opponent collects"),
    Reason.ONLY_MOVE: gettext_lazy("it is the only move allowed"),
}


def level_word(level: str) -> str:
    return str(LEVEL_WORDS.get(level, level))


def levels_line() -> str:
    """How to choose a computer player's level, where a match waits for players."""
    return _("Computer players: bot easy, bot normal or bot hard.")


def reason_words(reason: str, card: str = "") -> str:
    """Why, in a few words, naming ``card`` where the reason is about a card the move
    does not name; a reason this release does not know reads as no reason."""
    if reason == Reason.AVOIDS_FEEDING and card:
        return _("discarding %(card)s would leave a lower count but help what the opponent collects") % {"card": card}
    if reason == Reason.FEEDS_OPPONENT and card:
        return _("%(card)s would help what the opponent collects") % {"card": card}
    try:
        return str(REASON_WORDS[Reason(reason)])
    except (KeyError, ValueError):
        return _("it is worth the most by my reckoning")


def team_words(notice: a.ComputerTalk) -> str:
    """What a computer partner says in team talk, without who says it."""
    if isinstance(notice, a.AdviceReason):
        why = reason_words(notice.reason, notice.card)
        return _("I suggested %(move)s because %(why)s.") % {"move": notice.move, "why": why}
    if isinstance(notice, a.NoAdviceYet):
        return _("I have suggested nothing yet this hand.")
    if isinstance(notice, a.PlayReason):
        why = reason_words(notice.reason, notice.card)
        return _("I played %(move)s because %(why)s.") % {"move": notice.move, "why": why}
    if isinstance(notice, a.PlayedYourSuggestion):
        if notice.margin < 0.05:
            return _("I played your suggestion, %(move)s: as good as my own choice by my reckoning.") % {
                "move": notice.move
            }
        return _(
            "I played your suggestion, %(move)s: by my reckoning %(own)s was worth %(points)s points more, "
            "too little to refuse it."
        ) % {"move": notice.move, "own": notice.own, "points": number_format(notice.margin, decimal_pos=1)}
    if isinstance(notice, a.NothingPlayedYet):
        return _("I have played nothing yet this hand.")
    return _("Not %(suggested)s but %(played)s, %(points)s points better by my reckoning: %(why)s.") % {
        "suggested": notice.suggested,
        "played": notice.played,
        "points": number_format(notice.margin, decimal_pos=1),
        "why": reason_words(notice.reason, notice.card),
    }


@sentence.register(a.AdviceReason)
@sentence.register(a.NoAdviceYet)
@sentence.register(a.PlayReason)
@sentence.register(a.PlayedYourSuggestion)
@sentence.register(a.NothingPlayedYet)
@sentence.register(a.AdviceDeclined)
def _computer_team_talk(notice: a.ComputerTalk) -> str:
    return sentence(TeamMessage(notice.code, notice.name, team_words(notice)))


@sentence.register
def _suggestion_waiting(notice: a.SuggestionWaiting) -> str:
    return _("#%(code)s Sitter suggests: %(move)s (accept plays it)") % {"code": notice.code, "move": notice.move}


@sentence.register
def _hint(notice: a.Hint) -> str:
    return _("#%(code)s hint: %(move)s, because %(why)s.") % {
        "code": notice.code,
        "move": notice.move,
        "why": reason_words(notice.reason, notice.card),
    }


@sentence.register
def _hint_not_fair(refusal: a.HintNotFair) -> str:
    return _("No hints in #%(code)s: another person plays in it. Hints are for matches against computers only.") % {
        "code": refusal.code
    }


@sentence.register
def _nothing_to_hint(refusal: a.NothingToHint) -> str:
    return _("Nothing to hint in #%(code)s: it is not your move.") % {"code": refusal.code}
