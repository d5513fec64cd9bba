"""Telegram's webhook: the same code path as long polling, behind a shared secret."""

from __future__ import annotations

import hmac
import json
import logging

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, HttpResponseForbidden, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from bot.unavailable import UNAVAILABLE

from .updates import NotAnUpdate, process_update

log = logging.getLogger(__name__)
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


@csrf_exempt
@require_POST
def telegram_webhook(request: HttpRequest) -> HttpResponse:
    """Act on one update and answer 200 once it is recorded, so that Telegram does not resend it.

    A button press is answered in the response itself (a Bot API method call
    Telegram makes on the bot's behalf), which saves a request. While the
    database (or another service: ``bot.unavailable``) cannot be reached the update is not recorded, and the answer is
    503: Telegram sends it again later, and its recorded ``update_id`` makes
    the resend safe. An update that fails for any other reason (a bug) is
    logged and dropped rather than answered 500: Telegram would resend it
    again and again and hold back the updates behind it.
    """
    secret = settings.TELEGRAM_WEBHOOK_SECRET
    if not secret or not hmac.compare_digest(request.headers.get(SECRET_HEADER, "").encode(), secret.encode()):
        return HttpResponseForbidden("wrong secret token")
    try:
        data = json.loads(request.body)
    except (ValueError, UnicodeDecodeError, RecursionError):  # nested past Python's stack: no update is
        return HttpResponseBadRequest("not JSON")
    try:
        answer = process_update(data)
    except NotAnUpdate as error:
        log.warning("Telegram update refused: %s", error)
        return HttpResponseBadRequest(str(error))
    except UNAVAILABLE:
        log.exception("Telegram update %s not recorded: a service it needs is unavailable", data.get("update_id"))
        return HttpResponse("unavailable, send it again", status=503, content_type="text/plain")
    except Exception:
        log.exception("Telegram update %s failed", data.get("update_id"))
        return HttpResponse()
    if answer is None:
        return HttpResponse()
    reply = {"method": "answerCallbackQuery", "callback_query_id": answer.callback_query_id}
    if answer.text:
        reply["text"] = answer.text
    return JsonResponse(reply)
