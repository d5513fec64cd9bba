"""Slow clients do not take the site offline.

Why: a server whose threads each read their request to the end before serving
it (gunicorn's threads) is taken offline by as many slow connections as it has
threads (8 for ``make run``'s 2 workers x 4 threads made 3 of 3 ordinary page
loads time out at 10 s). waitress reads requests asynchronously
(``manage.py web``). Here
64 slow clients hold connections to the server ``make run`` starts (half of
them still sending their headers, half their body), and a page and a webhook
update must still be answered, within a bound (``ANSWER_WITHIN``) that an
answered request meets by far and a starved one never does. On 127.0.0.1 only,
bounded in count and time.
"""

from __future__ import annotations

import http.client
import json
import socket
import sys
import time
from contextlib import ExitStack, suppress

import pytest

from games.management.commands.serve import web_command
from tests.test_connections import SECRET, free_port, start_server, stop_server

pytestmark = pytest.mark.django_db(transaction=True)

SLOW_CLIENTS = 64
# Seconds. Answered in milliseconds when slow clients hold no thread; the first request a
# process serves loads the site's views, which took over 5 s on a machine busy with three
# test processes. A starved request waits until the slow clients are dropped, a minute later
# (web.IDLE_SECONDS).
ANSWER_WITHIN = 20.0


def slow_client(port: int, number: int) -> socket.socket:
    """A connection that has sent part of a request and sends no more for now."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    if number % 2:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")  # its headers, unfinished
    else:
        head = b"POST /telegram/webhook/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        sock.sendall(head + b'Content-Length: 1000\r\n\r\n{"update_id": ')  # its body, unfinished
    return sock


def answered(port: int, method: str, path: str, body: bytes = b"", headers: dict | None = None) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=ANSWER_WITHIN)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        return conn.getresponse().status
    finally:
        conn.close()


def test_a_page_and_a_webhook_are_answered_while_64_slow_clients_hold_connections(tmp_path):
    port = free_port()
    argv = web_command(sys.executable, "127.0.0.1", port)
    server = start_server(argv, port, {"GIN3_WEB_WORKERS": "2", "GIN3_WEB_THREADS": "4"}, tmp_path / "web.log")
    update = {
        "update_id": 1,
        "message": {
            "message_id": 1,
            "date": 1700000000,
            "text": "help",
            "chat": {"id": 9001, "type": "private", "first_name": "Sid"},
            "from": {"id": 9001, "is_bot": False, "first_name": "Sid"},
        },
    }
    webhook = {"Content-Type": "application/json", "X-Telegram-Bot-Api-Secret-Token": SECRET}
    try:
        assert answered(port, "GET", "/") == 200  # warm: the first request loads the site
        with ExitStack() as held:
            for number in range(SLOW_CLIENTS):
                held.callback(close, slow_client(port, number))
            time.sleep(0.5)
            assert answered(port, "GET", "/") == 200
            assert answered(port, "POST", "/telegram/webhook/", json.dumps(update).encode(), webhook) == 200
    finally:
        stop_server(server)


def close(sock: socket.socket) -> None:
    with suppress(OSError):
        sock.close()
