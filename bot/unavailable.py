"""What a transport does when the database cannot be reached: it must not
acknowledge an update that was not recorded.

Why only these two errors: they say the database could not be reached or
lost the connection (refused, closed, too many connections, SQLite's file
locked or gone), so the same update may well succeed later. An error of the
data itself (``DataError``, ``IntegrityError``) would fail the same way every
time; retrying it would only hold back the updates behind it.
"""

from django.db import InterfaceError, OperationalError

DATABASE_UNAVAILABLE = (OperationalError, InterfaceError)
