"""What the bot says in a Telegram group to someone who plays no match the group follows."""

from __future__ import annotations

from django.utils.translation import gettext as _


def brief_reply(username: str) -> str:
    """The answer to a command typed in a group by someone who plays no match it follows:
    where to play, in one line (the group is told at most once in a while, and the
    match's messages come first)."""
    if username:
        return _("To play gin3: https://t.me/%(username)s") % {"username": username}
    return _("To play gin3, write to me in a private chat.")
