"""The SMS channel: Twilio's webhook for incoming texts, ``POST /sms/inbound/``.

Twilio posts every text sent to our number as a form, signed with the
account's auth token; the answer is TwiML whose ``<Message>`` elements Twilio
texts back at once. So a reply goes in the answer (``handle(...,
reply_inline=True)``) and only what others cause (a turn, a result) goes
through the outbox.

The carriers' keywords come before the game: STOP and its synonyms opt the
number out (Twilio sends its own confirmation, so we answer nothing), START
opts it in again, HELP gets the help. A number that sent STOP is answered
nothing at all until START.
"""

from __future__ import annotations

import logging
import re

from django.conf import settings
from django.core.exceptions import SuspiciousOperation
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, HttpResponseForbidden
from django.http.multipartparser import MultiPartParserError
from django.utils import translation
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST
from twilio.request_validator import RequestValidator
from twilio.twiml.messaging_response import MessagingResponse

from bot.backends.sms import MAX_BODY
from bot.unavailable import UNAVAILABLE
from games.contract import Notice
from games.contract.account import HowToStop, SendItAgain, SmsWelcome
from games.models import Outbox
from games.services import handle
from games.services.plumbing.backends import split_text
from games.services.write import linking, players
from games.text.protocol import HELP_WORDS, PHONE_PATTERN, ProtocolError, parse
from games.text.render import render

log = logging.getLogger(__name__)

SMS = Outbox.Channel.SMS
MESSAGE_SID = re.compile(r"^[A-Z]{2}[0-9a-f]{32}$")
NOT_A_LETTER = re.compile(r"[\W_]+")


@csrf_exempt
@require_POST
def inbound(request: HttpRequest) -> HttpResponse:
    """Check that Twilio sent it, act on it, answer in TwiML; never a 500, which
    Twilio would only log while the player waits for an answer.

    Twilio never sends a text again, so while the database (or another service: ``bot.unavailable``) cannot be reached
    the answer asks the player to: it needs no database, so it is in English
    (his language is in the database)."""
    if not settings.SMS_ENABLED:
        return HttpResponse("SMS is off on this server.", status=503, content_type="text/plain")
    try:
        params = request.POST
    except (MultiPartParserError, SuspiciousOperation, ValueError):
        return HttpResponseBadRequest()
    signature = request.headers.get("X-Twilio-Signature", "")
    validator = RequestValidator(settings.TWILIO_AUTH_TOKEN)
    if not signature or not validator.validate(public_url(request), params, signature):
        return HttpResponseForbidden()
    phone, body, sid = params.get("From", ""), params.get("Body"), params.get("MessageSid", "")
    if not PHONE_PATTERN.match(phone) or body is None or not MESSAGE_SID.match(sid):
        return HttpResponseBadRequest()
    try:
        replies = receive(phone, body, sid)
    except UNAVAILABLE:
        log.exception("SMS %s not recorded: a service it needs is unavailable", sid)
        replies = [sms(SendItAgain())]
    except Exception:
        log.exception("SMS %s could not be handled", sid)
        replies = []
    return twiml(replies)


def public_url(request: HttpRequest) -> str:
    """The URL Twilio signed: the configured public one (behind a proxy, Django
    sees another host and scheme), with the query string Twilio called it with."""
    query = request.META.get("QUERY_STRING", "")
    return settings.SMS_PUBLIC_URL + (f"?{query}" if query else "")


def twiml(replies: list[str]) -> HttpResponse:
    response = MessagingResponse()
    for reply in replies:
        for body in split_text(reply, MAX_BODY):
            response.message(body)
    return HttpResponse(str(response), content_type="text/xml; charset=utf-8")


def receive(phone: str, body: str, message_sid: str) -> list[str]:
    """Act on one text from ``phone``; return the texts that answer it (maybe none).

    The first text registers the number and is answered with a welcome (and,
    if it was a command, its reply too). A text Twilio sends again (same
    MessageSid) does nothing the second time.
    """
    key = f"sms:{message_sid}"
    word = NOT_A_LETTER.sub("", body).lower()
    player, created = players.phone_player(phone)
    command = command_name(body)
    with translation.override(player.language):
        answer = linking.carriers_keyword(player, word, key, first_text=created, command=command is not None)
        if answer is not None:
            return [sms(notice) for notice in answer]
        # A command, in a change of its own: its reply is known when that change ends.
        if word in HELP_WORDS:
            reply = handle(player, "help", SMS, update_key=key, reply_inline=True)
            return [reply + "\n" + sms(HowToStop())] if reply else []
        reply = handle(player, body, SMS, update_key=key, reply_inline=True)
        # A phone being linked to a player it already has needs no welcome.
        welcomed = [sms(SmsWelcome())] if created and command != "link" else []
        return welcomed + ([reply] if reply else [])


def command_name(text: str) -> str | None:
    """The command ``text`` is, or None if it is none."""
    try:
        return parse(text).name
    except ProtocolError:
        return None


def sms(notice: Notice) -> str:
    return render(notice, SMS).text
