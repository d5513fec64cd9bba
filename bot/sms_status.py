"""Twilio's status callbacks, ``POST /sms/status/``: what became of a text we sent.

Each text the Twilio backend sends names this address (``SMS_STATUS_URL``) as
its ``StatusCallback``; Twilio posts there as the message goes, signed with the
account's auth token like the inbound webhook (bot/sms_views.py), and the
signature covers the address as Twilio called it. The service
(``games.services.write.sms_status``) records the outcome. The answer is empty:
Twilio reads only its status, and retries nothing but a failure to connect.
"""

from __future__ import annotations

import logging
import re

from django.conf import settings
from django.core.exceptions import SuspiciousOperation
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, HttpResponseForbidden
from django.http.multipartparser import MultiPartParserError
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST
from twilio.request_validator import RequestValidator

from bot.unavailable import DATABASE_UNAVAILABLE
from games.services.write.sms_status import sms_status

log = logging.getLogger(__name__)

MESSAGE_SID = re.compile(r"^(?:SM|MM)[0-9a-f]{32}$")
STATUS = re.compile(r"^[a-z_-]{1,20}$")
ERROR_CODE = re.compile(r"^\d{0,6}$")


@csrf_exempt
@require_POST
def status_callback(request: HttpRequest) -> HttpResponse:
    if not settings.SMS_ENABLED:
        return HttpResponse("SMS is off on this server.", status=503, content_type="text/plain")
    try:
        params = request.POST
    except (MultiPartParserError, SuspiciousOperation, ValueError):
        return HttpResponseBadRequest()
    signature = request.headers.get("X-Twilio-Signature", "")
    if not signature or not RequestValidator(settings.TWILIO_AUTH_TOKEN).validate(
        signed_url(request), params, signature
    ):
        return HttpResponseForbidden()
    sid, status = params.get("MessageSid", ""), params.get("MessageStatus", "")
    error_code = params.get("ErrorCode", "")
    if not MESSAGE_SID.match(sid) or not STATUS.match(status) or not ERROR_CODE.match(error_code):
        return HttpResponseBadRequest()
    try:
        sms_status(sid, status, error_code)
    except DATABASE_UNAVAILABLE:
        log.exception("the status of SMS %s not recorded: the database is unavailable", sid)
        return HttpResponse("database unavailable", status=503, content_type="text/plain")
    return HttpResponse(status=204)


def signed_url(request: HttpRequest) -> str:
    query = request.META.get("QUERY_STRING", "")
    return settings.SMS_STATUS_URL + (f"?{query}" if query else "")
