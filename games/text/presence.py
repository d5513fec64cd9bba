"""A player gone and back, in words (``games.contract.presence``)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from games.contract import presence as p

from .sentences import sentence


@sentence.register
def _missed_turns(notice: p.MissedTurns) -> str:
    return _(
        "%(name)s missed %(count)s turns in a row: a computer player plays in their place. "
        "They can come back with any command in #%(code)s."
    ) % {"name": notice.name, "count": notice.count, "code": notice.code}


@sentence.register
def _unreachable(notice: p.Unreachable) -> str:
    return _(
        "%(name)s can't be reached any more: a computer player plays in their place in #%(code)s until they are back."
    ) % {
        "name": notice.name,
        "code": notice.code,
    }


@sentence.register
def _unreachable_in_lobby(notice: p.UnreachableInLobby) -> str:
    return _("%(name)s can't be reached any more: #%(code)s may wait for them in vain.") % {
        "name": notice.name,
        "code": notice.code,
    }


@sentence.register
def _returned(notice: p.PlayerReturned) -> str:
    return _("%(name)s is back in #%(code)s and plays again.") % {"name": notice.name, "code": notice.code}


@sentence.register
def _you_are_back_in(notice: p.YouAreBackIn) -> str:
    return _("You are back in #%(code)s: the computer no longer plays for you.") % {"code": notice.code}
