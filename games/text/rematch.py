"""Playing a finished match again, in words (``games.contract.rematch``)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from games.contract import rematch as r

from .sentences import names_text, sentence
from .style import deadline_text


@sentence.register
def _asked(notice: r.RematchAsked) -> str:
    return _("You agreed to play #%(code)s again; the others are asked.") % {"code": notice.code}


@sentence.register
def _starts(notice: r.RematchStarts) -> str:
    return _("All three agreed: #%(new)s, a rematch of #%(old)s, starts now.") % {"new": notice.new, "old": notice.old}


@sentence.register
def _offer(notice: r.RematchOffer) -> str:
    return _(
        "%(name)s wants to play #%(code)s again, with the same players and options. To agree: again. "
        "The offer lapses %(when)s."
    ) % {"name": notice.name, "code": notice.code, "when": deadline_text(notice.until)}


@sentence.register
def _agreed(notice: r.RematchAgreed) -> str:
    return _("%(name)s agreed to play #%(code)s again; waiting for %(names)s.") % {
        "name": notice.name,
        "code": notice.code,
        "names": names_text(notice.waiting_for),
    }


@sentence.register
def _no_rematch(notice: r.NoRematch) -> str:
    return _("%(names)s did not answer in time: #%(code)s will not be played again.") % {
        "names": names_text(notice.silent),
        "code": notice.code,
    }


@sentence.register
def _already_agreed(refusal: r.AlreadyAgreed) -> str:
    return _("You already agreed to play again: waiting for %(names)s.") % {"names": names_text(refusal.waiting_for)}


@sentence.register
def _not_played_to_end(refusal: r.NotPlayedToEnd) -> str:
    return _("#%(code)s was not played to its end: start another with new.") % {"code": refusal.code}


@sentence.register
def _not_over_yet(refusal: r.NotOverYet) -> str:
    return _("#%(code)s is not over yet.") % {"code": refusal.code}


@sentence.register
def _being_played_again(refusal: r.BeingPlayedAgain) -> str:
    return _("#%(code)s is being played again: #%(new)s.") % {"code": refusal.code, "new": refusal.new}


@sentence.register
def _lapsed(refusal: r.OfferLapsed) -> str:
    return _("The offer to play #%(code)s again has lapsed: start another with new.") % {"code": refusal.code}
