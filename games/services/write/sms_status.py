"""What a carrier says became of a text we sent: Twilio's status callbacks (bot/sms_status.py).

Twilio reports a message as it goes (queued, sent, delivered; or undelivered
and failed, when the carrier drops it). Only the outcomes matter here: a
message Twilio took (``sent`` in the outbox) becomes ``delivered``, or
``failed`` with the carrier's error, which the desk shows; a failure is
counted in the metrics and told to the player on Telegram when he has it.
Twilio may repeat a callback or send them out of order: a message changes
once, from ``sent`` only, so a repeat does nothing.
"""

from __future__ import annotations

from games import metrics
from games.contract.account import TextNotDelivered
from games.models import Outbox
from games.services.plumbing import outbox
from games.services.plumbing.change import change

DELIVERED = "delivered"
FAILURES = frozenset({"undelivered", "failed"})
REPORTED = frozenset({"queued", "accepted", "sending", "sent", "read", DELIVERED, *FAILURES})


def sms_status(sid: str, status: str, error_code: str = "") -> bool:
    """Record what Twilio reports of the text ``sid``; True if it changed a message."""
    metrics.SMS_STATUS.labels(status=status if status in REPORTED else "other").inc()
    sent = Outbox.objects.filter(channel=Outbox.Channel.SMS, external_id=sid, status=Outbox.Status.SENT)
    if status == DELIVERED:
        return sent.update(status=Outbox.Status.DELIVERED) > 0
    if status not in FAILURES:
        return False
    with change():
        message = sent.select_for_update(of=("self",)).select_related("recipient", "match").first()
        if message is None:
            return False
        message.status = Outbox.Status.FAILED
        message.last_error = f"Twilio {error_code or status}: {status}"  # as the backend words Twilio's errors
        message.save(update_fields=["status", "last_error"])
        player = message.recipient
        if player is not None and player.telegram_chat_id and not player.telegram_blocked:
            code = message.match.code if message.match else ""
            notice = TextNotDelivered(code)
            outbox.send(player, Outbox.Kind.SMS_FAILED, notice, message.match, Outbox.Channel.TELEGRAM)
    metrics.DELIVERY_FAILURES.labels(channel=Outbox.Channel.SMS, reason="carrier").inc()
    return True
