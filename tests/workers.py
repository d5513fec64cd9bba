"""Real Celery workers for the tests of games/tasks.py and games/services/plumbing/delivery.py.

Why real workers: what must hold (a task acting once, the version check
against a concurrent move, nothing lost when a worker dies) lives in how the
broker, the worker and the database meet, which an eager run skips. A worker
runs in a thread of the test process (``celery.contrib.testing``) with its
own database connection, so its tests need ``django_db(transaction=True)``;
on SQLite the test database is a file (gin3site/settings.py) because the
shared in-memory one fails on a lock instead of waiting.

Brokers: Kombu's in-memory one always; Redis too when ``REDIS_URL`` is set, on
our own database number (``REDIS_DB``), flushed after each test. Under
``GIN3_REQUIRE_SERVICES=1`` a Redis test fails if Redis can't be reached.

Parallel runs (pytest-xdist, ``make test``): each worker process has a Redis
database of its own, ``GIN3_TEST_REDIS_DB`` (12 unless set) plus the worker's
index, so ``-n 2`` uses 12 and 13; and a block of ports of its own
(``worker_ports``, from ``GIN3_TEST_PORTS``) for the servers its tests start.
Test databases are the worker's own already (pytest-django names them
``..._gw<n>``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit, urlunsplit

import pytest
from celery import Celery
from celery.contrib.testing.tasks import ping
from celery.contrib.testing.worker import start_worker
from celery.worker import state as worker_state
from django.conf import settings
from django.db import connection
from kombu.asynchronous import set_event_loop

import games.tasks  # noqa: F401 (an app knows the shared tasks imported before it is finalized)
import gin3site.celery


def worker_index() -> int:
    """This pytest-xdist worker's number (``gw1`` is 1); 0 in a run without workers."""
    return int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)


def worker_ports(offset: int, count: int) -> range:
    """``count`` ports of this worker's own block of 100 from ``GIN3_TEST_PORTS`` (18100
    unless set; ``offset`` into it): two workers probing for a free port never pick the
    same one at the same moment. Two runs side by side (``.ci/run``) set blocks apart."""
    first = int(os.environ.get("GIN3_TEST_PORTS") or 18100) + 100 * worker_index() + offset
    return range(first, first + count)


def with_redis_db(url: str, db: int) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{db}", "", ""))


REDIS_DB = int(os.environ.get("GIN3_TEST_REDIS_DB") or 12) + worker_index()
BROKERS = ("memory", "redis")
RESULT = {"timeout": 15, "interval": 0.01}  # how to wait for a task's result: AsyncResult.get(**RESULT)


def redis_url() -> str:
    """``REDIS_URL`` with our own database number; fail or skip when there is no Redis."""
    required = os.environ.get("GIN3_REQUIRE_SERVICES") == "1"
    url = os.environ.get("REDIS_URL", "")
    if not url:
        if required:
            pytest.fail("GIN3_REQUIRE_SERVICES=1 but REDIS_URL is not set")
        pytest.skip("REDIS_URL is not set")
    import redis

    ours = with_redis_db(url, REDIS_DB)
    try:
        redis.Redis.from_url(ours, socket_connect_timeout=2).ping()
    except redis.RedisError as error:
        if required:
            pytest.fail(f"GIN3_REQUIRE_SERVICES=1 but Redis at {ours} is unreachable: {error}")
        pytest.skip(f"Redis at {ours} is unreachable: {error}")
    return ours


def flush_redis(url: str) -> None:
    import redis

    redis.Redis.from_url(url).flushdb()


def broker_url(kind: str) -> str:
    return "memory://" if kind == "memory" else redis_url()


def make_app(url: str) -> Celery:
    """An app configured like gin3site's, on ``url``, keeping results so tests can wait for them."""
    app = Celery("gin3-tests", set_as_current=False)
    ours = {
        name[len("CELERY_") :].lower(): getattr(settings, name) for name in dir(settings) if name.startswith("CELERY_")
    }
    ours.pop("broker_transport", None)  # the embedded broker's; the URL says which one here
    app.conf.update(
        ours,
        broker_url=url,
        broker_transport_options={"polling_interval": 0.02} if url.startswith("memory") else {},
        result_backend="cache+memory://",
        task_ignore_result=False,
        task_always_eager=False,
        worker_hijack_root_logger=False,
    )
    app.steps["consumer"].update(gin3site.celery.app.steps["consumer"])  # the heartbeat, as gin3site's
    app.finalize()
    return app


def purge(app: Celery) -> None:
    with app.connection_for_write() as conn:
        for queue in settings.GIN3_QUEUES:
            conn.default_channel.queue_purge(queue)


@contextmanager
def running_worker(kind: str) -> Iterator[Celery]:
    """A worker in a thread on broker ``kind``; while it runs, tasks enqueued anywhere
    in this process (by services on commit, by the sweep) go to it."""
    url = broker_url(kind)
    if kind == "redis":
        flush_redis(url)
    app = make_app(url)
    purge(app)
    # Celery reuses the event loop a stopped worker leaves behind, with that worker's
    # dead timer, and then never runs a delayed task: each worker gets its own.
    set_event_loop(None)
    try:
        with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
            try:
                yield app
            finally:
                # Stop now rather than after two more two-second polls of an idle
                # broker (Celery's synloop polls once more on its way out): ask the
                # worker to stop, then wake both polls with a message each.
                worker_state.should_terminate = 0
                ping.delay()
                ping.delay()
    finally:
        gin3site.celery.app.set_current()
        gin3site.celery.app.set_default()
        if kind == "redis":
            flush_redis(url)


def wait_until(condition: Callable[[], object], timeout: float = 60) -> object:
    """Wait for the worker to have done something; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"still not true after {timeout} s: {condition.__doc__ or condition}")
        time.sleep(0.02)


def database_url() -> str:
    """The test database as a ``DATABASE_URL``, for a worker started as a separate process."""
    settings = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{settings['NAME']}"
    user = settings["USER"] or ""
    password = f":{settings['PASSWORD']}" if settings["PASSWORD"] else ""
    host = settings["HOST"] or "127.0.0.1"
    port = f":{settings['PORT']}" if settings["PORT"] else ""
    return f"postgres://{user}{password}@{host}{port}/{settings['NAME']}"
