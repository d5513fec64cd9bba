"""What a transport does when a service it needs cannot be reached: it must not
acknowledge an update that was not recorded.

Why only these errors: they say the database could not be reached or lost the
connection (refused, closed, too many connections, SQLite's file locked or
gone), so the same update may well succeed later. An error of the data itself
(``DataError``, ``IntegrityError``) would fail the same way every time;
retrying it would only hold back the updates behind it.

Redis (the broker and the shared rate limits) is never needed to record a
command: the limits fall back to the process and a publish that fails is left
to the sweep and the scan (``games.services.plumbing.ratelimit``, ``games.services.plumbing.scheduling``). Should a
Redis error reach a transport all the same, it is treated as the database's
would be: the update is refused the way its platform retries it, and its
recorded key makes the retry safe.
"""

from django.db import InterfaceError, OperationalError
from kombu.exceptions import OperationalError as BrokerUnavailable
from redis import ConnectionError as RedisConnectionError
from redis import TimeoutError as RedisTimeoutError

DATABASE_UNAVAILABLE = (OperationalError, InterfaceError)
UNAVAILABLE = (*DATABASE_UNAVAILABLE, RedisConnectionError, RedisTimeoutError, BrokerUnavailable)
