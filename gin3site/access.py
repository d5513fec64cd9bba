"""The access log: a line for each request, and the webhooks' latency in the metrics.

Written through Django's logging (logger ``gin3.access``), so that it takes the
site's format (``LOG_FORMAT=json`` gives one JSON object a line with the
fields as keys) whatever server runs the site. The path is logged without its
query string, and nothing of the body: a webhook's body is a player's message.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from games import metrics

log = logging.getLogger("gin3.access")

WEBHOOKS = {"telegram-webhook": "telegram", "sms-inbound": "sms_inbound", "sms-status": "sms_status"}


class AccessLogMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        seconds = time.perf_counter() - started
        match = request.resolver_match
        webhook = WEBHOOKS.get(match.url_name) if match else None
        if webhook:
            metrics.WEBHOOK.labels(webhook=webhook).observe(seconds)
        log.info(
            "%s %s %s %.0f ms",
            request.method,
            request.path,
            response.status_code,
            seconds * 1000,
            extra={
                "method": request.method,
                "path": request.path,
                "status": response.status_code,
                "duration_ms": round(seconds * 1000, 1),
                "remote_addr": request.META.get("REMOTE_ADDR", ""),
            },
        )
        return response
