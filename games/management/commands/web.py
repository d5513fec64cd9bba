"""``python manage.py web``: the site, as ``manage.py serve`` runs it and as a server runs it.

waitress serves the WSGI application in ``GIN3_WEB_WORKERS`` processes of
``GIN3_WEB_THREADS`` threads each, on one listening socket that this command
makes and the processes inherit (a process restarted after a crash loses no
connection waiting to be accepted); it starts them again when they die, as
``serve`` does its parts.

Why waitress: its main thread reads every request whole,
asynchronously, and a thread serves a request only once it has arrived, and
hands its answer back to be written out the same way. A client that sends its
request slowly (a phone on a bad line, or someone holding connections open on
purpose) costs a socket and a buffer, never a thread. gunicorn's threads read
their request themselves: 8 slow clients took the 8 threads of ``make run``
and the site was down for everyone. Why processes: a process runs one thread
of Python at a time, and a webhook update is mostly Python. In production a
buffering proxy goes in front all the same (docs/deploy.md).
"""

from __future__ import annotations

import argparse
import socket
import sys

from django.conf import settings
from django.core.management.base import BaseCommand

from .serve import Child, Supervisor

BACKLOG = 1024
CONNECTIONS = 1000  # open connections a process keeps, slow ones included; more wait to be accepted
MAX_BODY = 1024 * 1024  # bytes: an update or a text is a few kilobytes
IDLE_SECONDS = 60  # a connection that sends nothing for this long is closed


class Command(BaseCommand):
    help = "Serve the site with waitress: GIN3_WEB_WORKERS processes of GIN3_WEB_THREADS threads."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
        parser.add_argument("--port", type=int, default=8000, help="port to listen on (8000)")
        # The listening socket a process inherits from this command: not for people to type.
        parser.add_argument("--fd", type=int, help=argparse.SUPPRESS)

    def handle(self, *args, host: str, port: int, fd: int | None, **options) -> None:
        if fd is not None:
            serve_on(socket.socket(fileno=fd))
            return
        listener = listen(host, port)
        command = [sys.executable, str(settings.BASE_DIR / "manage.py"), "web", "--fd", str(listener.fileno())]
        processes = [
            Child(f"web-{number}", command, pass_fds=(listener.fileno(),))
            for number in range(1, settings.GIN3_WEB_WORKERS + 1)
        ]
        Supervisor(processes, self.stdout).run()


def listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host, port))
    listener.listen(BACKLOG)
    listener.set_inheritable(True)
    return listener


def serve_on(listener: socket.socket) -> None:
    """One process: waitress on the inherited socket. Behind a proxy (``BEHIND_PROXY``) it
    trusts the proxy's X-Forwarded-Proto; otherwise it drops every X-Forwarded header."""
    import waitress

    from gin3site.wsgi import application

    behind_proxy = settings.SECURE_PROXY_SSL_HEADER is not None
    proxy = {"trusted_proxy": "*", "trusted_proxy_headers": {"x-forwarded-proto"}} if behind_proxy else {}
    waitress.serve(
        application,
        sockets=[listener],
        threads=settings.GIN3_WEB_THREADS,
        connection_limit=CONNECTIONS,
        channel_timeout=IDLE_SECONDS,
        max_request_body_size=MAX_BODY,
        asyncore_use_poll=True,  # select() stops at 1024 descriptors
        ident="gin3",
        _quiet=True,
        **proxy,
    )
