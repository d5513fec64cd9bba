"""What a player is told about the delivery of his messages on another channel."""

from __future__ import annotations

from django.utils.translation import gettext as _


def sms_not_delivered(code: str) -> str:
    """A text to his phone did not arrive (the carrier said so): told on Telegram,
    with what it was about, so that a turn announced by SMS is not missed."""
    if code:
        return _("A text to your phone about #%(code)s did not arrive. Type status here to see the match.") % {
            "code": code
        }
    return _("A text to your phone did not arrive.")
