"""Making the test database (or Redis) really unreachable, and reachable again, in the middle of a test.

Why not a mock: what must hold (an update that was not recorded is never
acknowledged) depends on where the real error surfaces: at connect, inside
the transaction, in Django's connection handling between requests. So
PostgreSQL is reached through a small TCP proxy that the test cuts (every
open connection reset, new ones refused); on SQLite the database file is
moved away and a directory put in its place, which SQLite cannot open.
Connections opened while cut fail as they would in production.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import threading
import time
from pathlib import Path

from django.db import connection, connections

from tests.workers import worker_ports

PROXY_PORTS = worker_ports(0, 30)


class TcpProxy:
    """Forwards 127.0.0.1:``port`` to ``upstream``; ``cut`` resets everything and refuses
    new connections until ``restore``."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.port = 0
        self._listener: socket.socket | None = None
        self._sockets: set[socket.socket] = set()
        self._lock = threading.Lock()

    def start(self) -> TcpProxy:
        for port in PROXY_PORTS:
            with contextlib.suppress(OSError):
                self._listen(port)
                return self
        raise RuntimeError(f"no free port in {PROXY_PORTS.start}-{PROXY_PORTS.stop - 1} for the database proxy")

    def _listen(self, port: int) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            listener.bind(("127.0.0.1", port))
        except OSError:
            listener.close()
            raise
        listener.listen(64)
        self.port, self._listener = port, listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _address = listener.accept()
            except OSError:
                return  # cut or stopped
            try:
                server = socket.create_connection(self.upstream)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._sockets |= {client, server}
            for source, target in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(source, target), daemon=True).start()

    def _pump(self, source: socket.socket, target: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                target.sendall(data)
        for sock in (source, target):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        """Reset every open connection and refuse new ones."""
        if self._listener is not None:
            with contextlib.suppress(OSError):
                self._listener.shutdown(socket.SHUT_RDWR)  # wakes the accept() that close() would not
            self._listener.close()
            self._listener = None
        with self._lock:
            sockets, self._sockets = self._sockets, set()
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                # A pump blocked in recv() holds the socket open past close(): the server's
                # end stayed connected, and PostgreSQL kept the session after the test.
                # Shutting the reading side wakes it first.
                sock.shutdown(socket.SHUT_RD)
            sock.close()

    def restore(self) -> None:
        self._listen(self.port)

    def stop(self) -> None:
        self.cut()


class DatabaseOutage:
    """The test database of this run, made unreachable by ``cut`` and reachable by ``restore``."""

    def __init__(self) -> None:
        self.vendor = connection.vendor
        self.settings = connection.settings_dict  # the dict every thread's connection is made from
        self.saved = {key: self.settings[key] for key in ("HOST", "PORT")}
        self.proxy: TcpProxy | None = None
        self.is_cut = False

    def __enter__(self) -> DatabaseOutage:
        if self.vendor == "postgresql":
            upstream = (self.settings["HOST"] or "127.0.0.1", int(self.settings["PORT"] or 5432))
            self.proxy = TcpProxy(upstream).start()
            self.settings.update(HOST="127.0.0.1", PORT=str(self.proxy.port))
            connections.close_all()
        elif self.vendor != "sqlite":
            raise NotImplementedError(self.vendor)
        return self

    def __exit__(self, *exc_info) -> None:
        if self.is_cut:
            self.restore()
        if self.proxy is not None:
            self.proxy.stop()
            self.settings.update(self.saved)
        connections.close_all()

    @property
    def path(self) -> Path:
        return Path(self.settings["NAME"])

    def cut(self) -> None:
        """From now on, connecting fails, and so does an open connection's next query (on PostgreSQL)."""
        connections.close_all()  # this thread's; the others close theirs after each update or request
        if self.proxy is not None:
            self.proxy.cut()
        else:
            os.replace(self.path, self.path.with_name(self.path.name + ".away"))
            self.path.mkdir()
        self.is_cut = True

    def restore(self) -> None:
        if self.proxy is not None:
            self.proxy.restore()
        else:
            self.path.rmdir()
            os.replace(self.path.with_name(self.path.name + ".away"), self.path)
        self.is_cut = False
        connections.close_all()


class RedisServer:
    """A ``redis-server`` of the test's own on a free port of 127.0.0.1, that the test
    kills (SIGKILL, as a crash or the OOM killer would) and starts again on the same
    port. Nothing is saved to disk: what the broker held is lost with it, the worst case."""

    def __init__(self, folder: Path) -> None:
        import shutil

        import pytest

        self.binary = shutil.which("redis-server")
        if self.binary is None:
            if os.environ.get("GIN3_REQUIRE_SERVICES") == "1":
                pytest.fail("GIN3_REQUIRE_SERVICES=1 but redis-server is not installed")
            pytest.skip("redis-server is not installed")
        self.folder = folder
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> RedisServer:
        import redis

        argv = [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        self.process = subprocess.Popen([*argv, "--dir", str(self.folder)], stdout=subprocess.DEVNULL)
        client = redis.Redis.from_url(self.url, socket_connect_timeout=1)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                return self
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
