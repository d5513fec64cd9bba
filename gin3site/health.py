"""Health checks of a web process, for a load balancer, compose and an operator.

- ``/healthz``: the process answers and its database does (liveness; 503 if not).
- ``/healthz/ready``: it can serve: the database answers, every migration is
  applied (a new release before ``migrate`` is not ready) and, with Redis, the
  broker answers (503 and which part failed if not).

A middleware that comes first, rather than a view: a check calls the process by
an address the site is not named by (``http://127.0.0.1:8000`` inside a
container), which ``ALLOWED_HOSTS`` would refuse and an HTTPS redirect would
send away; and it touches no session or cookie. The workers' and beat's health
is their heartbeats (``manage.py heartbeats``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection
from django.db.migrations.executor import MigrationExecutor
from django.http import HttpRequest, HttpResponse

log = logging.getLogger(__name__)

LIVE, READY = "/healthz", "/healthz/ready"
NO_STORE = {"Cache-Control": "no-store"}


class HealthMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.migrated = False  # once every migration is applied, it stays so for this process

    def __call__(self, request: HttpRequest) -> HttpResponse:
        path = request.path_info.rstrip("/")
        if path == LIVE:
            return answer({"database": database()})
        if path == READY:
            checks = {"database": database()}
            if checks["database"] == "ok":
                checks["migrations"] = self.migrations()
            if settings.REDIS_URL:
                checks["broker"] = broker()
            return answer(checks)
        return self.get_response(request)

    def migrations(self) -> str:
        if not self.migrated:
            executor = MigrationExecutor(connection)
            self.migrated = not executor.migration_plan(executor.loader.graph.leaf_nodes())
        return "ok" if self.migrated else "not applied"


def answer(checks: dict[str, str]) -> HttpResponse:
    healthy = all(value == "ok" for value in checks.values())
    return HttpResponse(
        json.dumps(checks), status=200 if healthy else 503, content_type="application/json", headers=NO_STORE
    )


def database() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return "ok"
    except Exception as error:
        log.warning("health: the database %s does not answer: %s", DEFAULT_DB_ALIAS, error)
        return "unavailable"


def broker() -> str:
    import redis

    try:
        with redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=2, socket_timeout=2) as client:
            client.ping()
        return "ok"
    except redis.RedisError as error:
        log.warning("health: the broker does not answer: %s", error)
        return "unavailable"
