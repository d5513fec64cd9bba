"""``/metrics``: every process's counters and the state's gauges, in Prometheus' format.

Not public: it answers 404 unless ``GIN3_METRICS_TOKEN`` is set, and 403 unless
the request carries it as a bearer token (Prometheus' ``authorization``
setting), compared in constant time. What it shows is described in
games/metrics.py.
"""

from __future__ import annotations

import hmac

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseForbidden
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest, multiprocess

from games import metrics as gin3_metrics


@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    token = settings.GIN3_METRICS_TOKEN
    if not token:
        raise Http404
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), token.encode()):
        return HttpResponseForbidden("a bearer token is required", content_type="text/plain")
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=gin3_metrics.DIRECTORY)
    registry.register(gin3_metrics.StateCollector())
    return HttpResponse(
        generate_latest(registry), content_type=CONTENT_TYPE_LATEST, headers={"Cache-Control": "no-store"}
    )
