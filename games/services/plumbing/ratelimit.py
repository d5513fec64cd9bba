"""Sliding-window rate limits shared by every process that sends.

Telegram counts messages per chat and in all, whichever worker sent them, so
with ``REDIS_URL`` the windows live in Redis (one sorted set of send times per
key, checked and updated by one Lua script, timed by the Redis server's clock);
without it, a single machine's one sender keeps them in memory.

A limiter never sleeps: ``acquire`` either counts the send or says how long to
wait, and the caller reschedules the message instead of holding a worker.

A send is counted when it is about to leave, but the platform counts it when it
arrives, which on a busy machine can be a good part of a second later; the
next send, timed from the count, could then arrive too soon after it. So a
sender that knows when its request is done calls ``finished``, and the send
counts from then on: it has surely arrived by the time its answer is back.

A limit is a helper, never a condition of a move: while Redis cannot be reached
(stopped, restarting, too slow to answer within ``REDIS_TIMEOUT``) the windows
are kept in the process instead, each process counting on its own, and Redis
is asked again ``REDIS_RETRY_AFTER`` seconds later. A command is then still
carried out and recorded; only the limit is looser for a while.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Protocol

from django.conf import settings

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Rule:
    """At most ``limit`` sends counted under ``key`` in any ``window`` seconds."""

    key: str
    limit: int
    window: float


class Limiter(Protocol):
    def acquire(self, rules: Sequence[Rule], send: str = "") -> float:
        """Count one send (named ``send``, for ``finished``) under every rule and
        return 0, or count nothing and return the seconds until all rules would allow it."""

    def finished(self, rules: Sequence[Rule], send: str) -> None:
        """Move the send counted as ``send`` under these rules to now, when its request is done."""


class LocalLimiter:
    """The windows of one process, for a machine without Redis."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sends: dict[str, deque[tuple[float, str]]] = {}  # (time, send), oldest first

    def acquire(self, rules: Sequence[Rule], send: str = "") -> float:
        with self._lock:
            now = time.monotonic()
            wait = 0.0
            for rule in rules:
                sends = self._sends.setdefault(rule.key, deque())
                while sends and sends[0][0] <= now - rule.window:
                    sends.popleft()
                if len(sends) >= rule.limit:
                    wait = max(wait, sends[len(sends) - rule.limit][0] + rule.window - now)
            if wait > 0:
                return wait
            for rule in rules:
                self._sends[rule.key].append((now, send))
            return 0.0

    def finished(self, rules: Sequence[Rule], send: str) -> None:
        with self._lock:
            now = time.monotonic()  # no earlier than any time kept: appended, the order holds
            for rule in rules:
                sends = self._sends.get(rule.key, deque())
                counted = [entry for entry in sends if entry[1] == send]
                for entry in counted:
                    sends.remove(entry)
                    sends.append((now, send))


# KEYS: one sorted set per rule. ARGV: a unique member, then limit and window
# (milliseconds) for each key. Returns 0 (counted) or the milliseconds to wait.
_ACQUIRE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local wait = 0
for i, key in ipairs(KEYS) do
  local limit = tonumber(ARGV[2 * i])
  local window = tonumber(ARGV[2 * i + 1])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  local count = redis.call('ZCARD', key)
  if count >= limit then
    local oldest = redis.call('ZRANGE', key, count - limit, count - limit, 'WITHSCORES')
    wait = math.max(wait, tonumber(oldest[2]) + window - now)
  end
end
if wait > 0 then
  return wait
end
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, now, ARGV[1])
  redis.call('PEXPIRE', key, ARGV[2 * i + 1])
end
return 0
"""

# KEYS: the sorted sets a send was counted in. ARGV: its member, then each key's window
# (milliseconds). Moves the member, where it still is, to the server's time now.
_FINISHED = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i, key in ipairs(KEYS) do
  if redis.call('ZADD', key, 'XX', 'CH', now, ARGV[1]) == 1 then
    redis.call('PEXPIRE', key, ARGV[i + 1])
  end
end
return 0
"""


REDIS_TIMEOUT = 1.0  # seconds to connect to Redis, and for it to answer
REDIS_RETRY_AFTER = 5.0  # seconds the process keeps its own windows after Redis failed


class RedisLimiter:
    """The windows of all processes, in Redis; this process's own while Redis is away."""

    def __init__(self, url: str, prefix: str = "gin3:rate:") -> None:
        import redis

        self._redis = redis.Redis.from_url(url, socket_connect_timeout=REDIS_TIMEOUT, socket_timeout=REDIS_TIMEOUT)
        self._acquire = self._redis.register_script(_ACQUIRE)
        self._finished = self._redis.register_script(_FINISHED)
        self._prefix = prefix
        self._errors = (redis.RedisError,)
        self._fallback = LocalLimiter()
        self._away_until = 0.0

    def acquire(self, rules: Sequence[Rule], send: str = "") -> float:
        if time.monotonic() < self._away_until:
            return self._fallback.acquire(rules, send)
        keys = [self._prefix + rule.key for rule in rules]
        args: list[str | int] = [send or uuid.uuid4().hex]
        for rule in rules:
            args += [rule.limit, _milliseconds(rule.window)]
        try:
            return int(self._acquire(keys=keys, args=args)) / 1000
        except self._errors as error:
            self._away(error)
            return self._fallback.acquire(rules, send)

    def finished(self, rules: Sequence[Rule], send: str) -> None:
        if time.monotonic() < self._away_until:
            self._fallback.finished(rules, send)
            return
        keys = [self._prefix + rule.key for rule in rules]
        try:
            self._finished(keys=keys, args=[send, *(_milliseconds(rule.window) for rule in rules)])
        except self._errors as error:
            self._away(error)

    def _away(self, error: Exception) -> None:
        log.warning("Redis is unavailable (%s): limits kept in this process for %g s", error, REDIS_RETRY_AFTER)
        self._away_until = time.monotonic() + REDIS_RETRY_AFTER


def _milliseconds(window: float) -> int:
    return max(1, round(window * 1000))


@cache
def _limiter_for(redis_url: str) -> Limiter:
    return RedisLimiter(redis_url) if redis_url else LocalLimiter()


def shared_limiter() -> Limiter:
    """This process's limiter: Redis-backed when ``REDIS_URL`` is set."""
    return _limiter_for(settings.REDIS_URL)
