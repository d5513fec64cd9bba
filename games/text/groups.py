"""Telegram groups that follow a match, in words (``games.contract.groups``)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from games.contract import groups as g

from .links import bot_username
from .sentences import sentence


@sentence.register
def _follows(notice: g.GroupFollows) -> str:
    return _("This group follows #%(code)s: tables and results, never a hand.") % {"code": notice.code}


@sentence.register
def _nothing_to_show(notice: g.NothingToShow) -> str:
    return _("%(name)s has no open match #%(code)s to show here.") % {"name": notice.name, "code": notice.code}


@sentence.register
def _cards_are_private(notice: g.CardsArePrivate) -> str:
    username = bot_username()
    if username:
        return _("Cards are private: play with me in a private chat, https://t.me/%(username)s") % {
            "username": username
        }
    return _("Cards are private: play with me in a private chat.")


@sentence.register
def _only_in_a_group(refusal: g.OnlyInAGroup) -> str:
    return _("Type group CODE in a Telegram group the bot is in: the group then follows that match.")


@sentence.register
def _play_elsewhere(notice: g.PlayElsewhere) -> str:
    """Told at most once in a while, and after the match's own messages to the group."""
    username = bot_username()
    if username:
        return _("To play gin3: https://t.me/%(username)s") % {"username": username}
    return _("To play gin3, write to me in a private chat.")
