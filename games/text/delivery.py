"""What a player is told about the delivery of his messages on another channel (``games.contract.account``)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from games.contract.account import TextNotDelivered

from .sentences import sentence


@sentence.register
def _text_not_delivered(notice: TextNotDelivered) -> str:
    """Told on Telegram, with what it was about, so that a turn announced by SMS is not missed."""
    if notice.code:
        return _("A text to your phone about #%(code)s did not arrive. Type status here to see the match.") % {
            "code": notice.code
        }
    return _("A text to your phone did not arrive.")
