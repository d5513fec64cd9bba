"""Sending the outbox by SMS through Twilio's Messaging API (the ``twilio`` library).

One outbox message is one Twilio message, however long: Twilio splits it into
segments and the phone joins them again. We only count the segments, for the
log; the renderer (``games.text.render``) is what keeps them few.

A number that sent STOP is never texted: the backend checks before every send
(the message may have been written before the STOP), and Twilio's own refusal
(21610) is mapped the same way.

Each text asks Twilio to report what became of it (``SMS_STATUS_URL``,
bot/sms_status.py): a text the carrier drops is then marked failed.
"""

from __future__ import annotations

import logging

from django.conf import settings
from twilio.base.exceptions import TwilioRestException
from twilio.rest import Client

from games.models import Outbox, Player
from games.services.plumbing.backends import Backend, Rejected, RetryLater, Unreachable, split_text
from games.text.sms import segments

log = logging.getLogger(__name__)

TIMEOUT = 20  # seconds per request, well within delivery's lease
MAX_BODY = 1600  # characters: Twilio's limit on one message's body
RETRY_AFTER_429 = 10  # seconds; Twilio's 429 says "too many requests at once", not how long
OPTED_OUT = 21610
NO_SUCH_NUMBER = frozenset({21211, 21612, 21614})  # invalid, unroutable, not a mobile number
TOO_MANY_REQUESTS = 20429


class TwilioBackend(Backend):
    """Sends one outbox message as an SMS; returns Twilio's message SID."""

    def send(self, message: Outbox) -> str:
        if Player.objects.filter(phone=message.address, sms_opted_out=True).exists():
            raise Unreachable("the number sent STOP")
        sender = (
            {"messaging_service_sid": settings.TWILIO_MESSAGING_SERVICE_SID}
            if settings.TWILIO_MESSAGING_SERVICE_SID
            else {"from_": settings.TWILIO_FROM_NUMBER}
        )
        client = make_client()
        try:
            for body in split_text(message.text, MAX_BODY):  # Twilio refuses a longer body
                sent = client.messages.create(
                    to=message.address, body=body, status_callback=settings.SMS_STATUS_URL, **sender
                )
        except TwilioRestException as error:
            raise mapped(error) from error
        cost = segments(message.text)
        log.info("SMS %s (%s): %s %s segment(s)", sent.sid, message.kind, cost.count, cost.encoding)
        return sent.sid


def make_client() -> Client:
    """A client for each send: the credentials are read when they are used (a
    rotated token needs no restart), and an SMS is rare enough not to need a pool."""
    client = Client(settings.TWILIO_ACCOUNT_SID, settings.TWILIO_AUTH_TOKEN)
    client.http_client.timeout = TIMEOUT
    return client


def mapped(error: TwilioRestException) -> Exception:
    """Twilio's error as delivery understands it (``games.services.plumbing.backends``)."""
    reason = f"Twilio {error.code or error.status}: {error.msg}"
    if error.code == OPTED_OUT:
        return Unreachable(reason)
    if error.code in NO_SUCH_NUMBER:
        return Unreachable(reason)
    if error.status == 429 or error.code == TOO_MANY_REQUESTS:
        return RetryLater(RETRY_AFTER_429, reason)
    if error.status >= 500 or error.status == 401:
        return error  # Twilio's trouble or a credential being fixed: retried with backoff
    return Rejected(reason)
