"""The embedded Celery broker for a run on one machine: Kombu's filesystem transport, made safe.

Why the filesystem transport: it ships with Kombu (no dependency), needs no
server, and works across the processes of one machine (web, worker, beat, bot
all post to the same folder), which the in-memory transport cannot.
Delayed (``eta``) tasks and beat work with it as with any transport: the
worker holds them until they are due and puts them back in the folder on a
warm shutdown.

Why a subclass: Kombu's ``_put`` creates the message file and then writes
it, so a consumer polling at that moment can take the empty file; the worker
then dies with "Unrecoverable error: JSONDecodeError" and the message is lost
(celery/kombu#1551; reproduced here by a producer and a consumer racing on
one folder). Here a message is written under a name no consumer looks at and
then renamed into the queue, which is atomic on one file system.

What it cannot give: a message a worker has taken is gone from the folder, so
a worker killed with ``kill -9`` loses the tasks it held (late acknowledgement
does not help here as it does with Redis). The periodic sweep
(``games.tasks.sweep``) finds that work again from the database.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from time import monotonic

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


class Channel(filesystem.Channel):
    def _put(self, queue: str, payload: dict, **kwargs) -> None:
        """Write the message beside the queue, then rename it in: never seen half-written."""
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        folder = self.data_folder_out
        partial = os.path.join(folder, f".{uuid.uuid4()}.partial")  # no ".<queue>.msg" in it
        try:
            with open(partial, "wb") as file:
                file.write(str_to_bytes(dumps(payload)))
            os.replace(partial, os.path.join(folder, name))
        except OSError as error:
            with contextlib.suppress(OSError):
                os.unlink(partial)
            raise ChannelError(f"Cannot add a message to {folder!r}: {error}") from error


class Transport(filesystem.Transport):
    Channel = Channel
