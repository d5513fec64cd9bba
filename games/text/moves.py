"""Playing, in words: why a move is refused, the sitter's advice, team talk, the reminder
(``games.contract.moves``)."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.contract import moves as m
from games.engine import Role

from .protocol import say_which_card
from .reasons import reason_text
from .sentences import sentence
from .style import deadline_text


@sentence.register
def _suggested(notice: m.Suggested) -> str:
    return _("Suggested to %(name)s: %(move)s") % {"name": notice.name, "move": notice.move}


@sentence.register
def _accepted(notice: m.Accepted) -> str:
    return _("You played the sitter's suggestion: %(move)s") % {"move": notice.move}


@sentence.register
def _team_sent(notice: m.TeamSent) -> str:
    return _("Sent to %(name)s.") % {"name": notice.name}


@sentence.register
def _team_message(notice: m.TeamMessage) -> str:
    return _("#%(code)s %(name)s (team): %(text)s") % {"code": notice.code, "name": notice.name, "text": notice.text}


@sentence.register
def _reminder(notice: m.Reminder) -> str:
    return _("Reminder: it is your move in #%(code)s. Time runs out %(when)s.") % {
        "code": notice.code,
        "when": deadline_text(notice.deadline),
    }


@sentence.register
def _old_button(notice: m.OldButton) -> str:
    return _("That button is old: here is the table now.")


@sentence.register
def _stale(refusal: m.StaleMoment) -> str:
    return _("That was for an earlier moment of #%(code)s. Here is the table now.") % {"code": refusal.code}


@sentence.register
def _paused(refusal: m.MatchPaused) -> str:
    return _("#%(code)s is paused by an admin: nobody moves until it is resumed.") % {"code": refusal.code}


@sentence.register
def _not_your_turn(refusal: m.NotYourTurn) -> str:
    return _("It is %(name)s's turn.") % {"name": refusal.name}


@sentence.register
def _illegal(refusal: m.IllegalMove) -> str:
    return _("Not allowed: %(why)s") % {"why": reason_text(refusal.reason, refusal.params, refusal.message)}


@sentence.register
def _sitter_suggests(refusal: m.SitterSuggests) -> str:
    return _("You are the sitter: advise with suggest %(move)s") % {"move": refusal.move}


@sentence.register
def _only_sitter_suggests(refusal: m.OnlySitterSuggests) -> str:
    if refusal.role is Role.BOX:
        return _("You are the box: you play alone this hand, and only the sitter suggests.")
    return _("You are the captain: you play the team's moves, and only the sitter suggests.")


@sentence.register
def _wait_for_captain(refusal: m.WaitForCaptain) -> str:
    return _("Wait for the captain's turn to suggest.")


@sentence.register
def _captain_played_first(notice: m.CaptainPlayedFirst) -> str:
    return _("%(name)s played before your suggestion came. It will wait for your advice at its next decisions.") % {
        "name": notice.name
    }


@sentence.register
def _not_on_the_pile(refusal: m.NotOnThePile) -> str:
    return _("%(named)s is not on top of the pile: take picks up %(top)s.") % {
        "named": refusal.named,
        "top": refusal.top,
    }


@sentence.register
def _say_which_card(refusal: m.SayWhichCard) -> str:
    return say_which_card(refusal.command, str(refusal.example))


@sentence.register
def _say_what_to_suggest(refusal: m.SayWhatToSuggest) -> str:
    return _("Say what to suggest, like: suggest %(move)s") % {"move": refusal.example}


@sentence.register
def _captain_cannot(refusal: m.CaptainCannot) -> str:
    why = reason_text(refusal.reason, refusal.params, of_captain=True)
    if why:
        return _("The captain can't play %(move)s: %(why)s") % {"move": refusal.move, "why": why}
    return _("The captain can't play %(move)s now.") % {"move": refusal.move}


@sentence.register
def _only_captain_accepts(refusal: m.OnlyCaptainAccepts) -> str:
    return _("Only the captain accepts a suggestion.")


@sentence.register
def _no_suggestion(refusal: m.NoSuggestion) -> str:
    return _("There is no suggestion waiting.")


@sentence.register
def _no_partner(refusal: m.NoPartner) -> str:
    return _("Only the captain and the sitter have a partner.")


@sentence.register
def _too_many_team_messages(refusal: m.TooManyTeamMessages) -> str:
    return ngettext(
        "You have sent %(count)s team message since the last move: wait for the next one.",
        "You have sent %(count)s team messages since the last move: wait for the next one.",
        refusal.count,
    ) % {"count": refusal.count}


@sentence.register
def _too_fast(refusal: m.TooFast) -> str:
    return ngettext(
        "Too many commands: that one was not carried out. Send it again in %(seconds)s second.",
        "Too many commands: that one was not carried out. Send it again in %(seconds)s seconds.",
        refusal.seconds,
    ) % {"seconds": refusal.seconds}
