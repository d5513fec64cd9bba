"""A fake Telegram Bot API server for tests, driven by the real python-telegram-bot over HTTP.

Why: the test machines have no internet, and mocking PTB inside Python would hide the bugs
that matter: how parameters are encoded, how HTTP errors become ``telegram.error``
exceptions, whether HTML/MarkdownV2 text actually parses, whether a button's
``callback_data`` fits in 64 bytes. This server speaks enough of the Bot API on 127.0.0.1 for
the unmodified ``telegram.Bot`` / ``Application`` to talk to it.

Typical use::

    with FakeTelegram() as tg:
        bot = tg.bot()  # telegram.Bot(tg.token, base_url=tg.base_url)
        # or: Application.builder().token(tg.token).base_url(tg.base_url).build()
        alice = tg.user(1001, "Alice", username="alice")
        alice.send("/start join_ABC")  # queued for getUpdates
        msg = tg.wait_for(lambda m: m.chat_id == alice.id and "Welcome" in m.text)
        alice.press(msg, msg.button("Play"))  # a callback_query update

PTB appends the token to ``base_url``, so requests arrive at ``/bot<token>/<method>``.
Webhook tests can build an update with ``alice.message_update(...)`` (or ``tg.make_update``)
and POST it to the app's view themselves; nothing is queued then.

Things the fake deliberately simplifies: chats the bot writes to need not have been created
with ``user()``/``group()`` first, only ``sendMessage`` counts towards the rate limits, and
files, inline mode and payments are not served.
"""

from __future__ import annotations

import contextlib
import html
import json
import math
import re
import socket
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self, TypeVar
from urllib.parse import parse_qsl, urlsplit

import telegram

JSON = dict[str, Any]
T = TypeVar("T")

DEFAULT_TOKEN = "123456789:AAFakeTokenForGin3Tests"

# ---------------------------------------------------------------------------------------------
# Shared HTTP plumbing (also used by the Twilio fake)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HTTPRequest:
    """What a fake needs to know about one request; headers are keyed in lower case."""

    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: bytes


@dataclass(frozen=True)
class HTTPResponse:
    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)

    @classmethod
    def json(cls, status: int, payload: Any, headers: dict[str, str] | None = None) -> HTTPResponse:
        return cls(status, json.dumps(payload).encode(), {"Content-Type": "application/json", **(headers or {})})


class _QuietServer(ThreadingHTTPServer):
    """Stays silent about connections that `stop()` cuts, so test output shows real problems only."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)


class LocalHTTPServer:
    """Serves `handle()` on an OS-chosen 127.0.0.1 port from a background thread.

    Why a real server rather than a transport mock: the client libraries must run their own
    HTTP stacks (httpx for PTB, requests for twilio) unmodified. All mutable state of a fake is
    guarded by ``self._cond`` so the test thread and request threads see one consistent
    picture, and so ``wait_for`` can sleep until a request changes something.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.RLock())
        self._server: _QuietServer | None = None
        self._thread: threading.Thread | None = None
        self._connections: set[socket.socket] = set()
        self._closing = False
        self._server_errors: list[str] = []
        self.url = ""

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def start(self) -> Self:
        if self._server is not None:
            raise RuntimeError(f"{type(self).__name__} is already running at {self.url}")
        self._closing = False
        self._server = _QuietServer(("127.0.0.1", 0), self._handler_class())
        host, port = self._server.server_address[:2]
        self.url = f"http://{host}:{port}"
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.01},
            name=f"{type(self).__name__}@{port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Wake long polls, close keep-alive connections and the listening socket."""
        server, thread = self._server, self._thread
        if server is None or thread is None:
            return
        with self._cond:
            self._closing = True
            self._cond.notify_all()
            connections = list(self._connections)
        server.shutdown()
        # Idle keep-alive connections would otherwise keep being served after stop().
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        server.server_close()
        thread.join(timeout=5)
        self._server = self._thread = None

    @property
    def server_errors(self) -> list[str]:
        """Tracebacks of exceptions inside the fake itself (answered with HTTP 500)."""
        with self._cond:
            return list(self._server_errors)

    def handle(self, request: HTTPRequest) -> HTTPResponse:
        raise NotImplementedError

    def _safe_handle(self, request: HTTPRequest) -> HTTPResponse:
        try:
            return self.handle(request)
        except Exception:
            error = traceback.format_exc()
            with self._cond:
                self._server_errors.append(error)
            return HTTPResponse(500, error.encode(), {"Content-Type": "text/plain"})

    def _wait(self, find: Callable[[], T | None], timeout: float, describe: Callable[[], str]) -> T:
        """Return ``find()`` once it is not None, re-checking whenever the fake's state changes."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while (found := find()) is None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(f"timed out after {timeout}s; {describe()}")
                self._cond.wait(remaining)
            return found

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as both client libraries expect
            # Headers and body go out in separate writes; with Nagle's algorithm the body then
            # waits for the client's delayed ACK, adding ~40 ms to every request.
            disable_nagle_algorithm = True

            def setup(self) -> None:
                super().setup()
                with fake._cond:
                    fake._connections.add(self.connection)

            def finish(self) -> None:
                with fake._cond:
                    fake._connections.discard(self.connection)
                with contextlib.suppress(OSError):
                    super().finish()

            def do_GET(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                url = urlsplit(self.path)
                headers = {name.lower(): value for name, value in self.headers.items()}
                response = fake._safe_handle(HTTPRequest(self.command, url.path, url.query, headers, body))
                self.send_response(response.status)
                for name, value in response.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(response.body)))
                self.end_headers()
                self.wfile.write(response.body)

            do_POST = do_GET

            def log_message(self, format: str, *args: Any) -> None:
                """Silence per-request logging; `calls`/`sent` are the useful record."""

        return Handler


# ---------------------------------------------------------------------------------------------
# Records exposed to tests
# ---------------------------------------------------------------------------------------------


class FakeUsageError(AssertionError):
    """A test asked a fake for something impossible, e.g. pressing a button that is not shown."""


@dataclass(frozen=True)
class SentMessage:
    """A bot message: one send or edit in ``FakeTelegram.sent``, or a message's current state.

    ``text`` is exactly what the app sent (markup included); ``plain_text`` and ``entities``
    are what Telegram would render, i.e. what clients see and what ``message`` contains.
    """

    method: str
    chat_id: int
    message_id: int
    text: str
    parse_mode: str | None
    reply_markup: JSON | None
    timestamp: float
    message: JSON = field(repr=False)

    @property
    def plain_text(self) -> str:
        return self.message["text"]

    @property
    def entities(self) -> list[JSON]:
        return self.message.get("entities", [])

    @property
    def inline_keyboard(self) -> list[list[JSON]]:
        return (self.message.get("reply_markup") or {}).get("inline_keyboard", [])

    @property
    def web_apps(self) -> list[tuple[str, str]]:
        """The (text, address) of every Mini App button, row by row."""
        return [(b["text"], b["web_app"]["url"]) for row in self.inline_keyboard for b in row if "web_app" in b]

    @property
    def callback_data(self) -> list[str]:
        """The callback_data of every inline button, row by row."""
        return [b["callback_data"] for row in self.inline_keyboard for b in row if "callback_data" in b]

    def button(self, label: str) -> str:
        """The callback_data of the inline button whose text is ``label``."""
        for row in self.inline_keyboard:
            for b in row:
                if b["text"] == label and "callback_data" in b:
                    return b["callback_data"]
        labels = [b["text"] for row in self.inline_keyboard for b in row]
        raise FakeUsageError(f"no button {label!r} on message {self.message_id}; buttons: {labels}")


@dataclass(frozen=True)
class CallbackAnswer:
    callback_query_id: str
    text: str | None
    show_alert: bool
    url: str | None
    cache_time: int
    timestamp: float


@dataclass(frozen=True)
class RateLimitViolation:
    rule: str
    chat_id: int
    timestamp: float


@dataclass(frozen=True)
class FakeGroup:
    """A group chat users can write in: ``user.send(text, chat=group)``."""

    id: int
    title: str

    @property
    def chat(self) -> JSON:
        return {
            "id": self.id,
            "type": "supergroup" if str(self.id).startswith("-100") else "group",
            "title": self.title,
        }


@dataclass(frozen=True)
class FakeUser:
    """A simulated Telegram user; its methods build or inject the updates their actions cause."""

    fake: FakeTelegram = field(repr=False)
    id: int
    first_name: str
    username: str | None = None
    language_code: str = "en"

    @property
    def json(self) -> JSON:
        user: JSON = {"id": self.id, "is_bot": False, "first_name": self.first_name}
        if self.username:
            user["username"] = self.username
        user["language_code"] = self.language_code
        return user

    @property
    def chat(self) -> JSON:
        chat: JSON = {"id": self.id, "type": "private", "first_name": self.first_name}
        if self.username:
            chat["username"] = self.username
        return chat

    def message_update(self, text: str, chat: FakeGroup | None = None) -> JSON:
        """A message Update from this user (private chat unless ``chat``), not queued."""
        return self.fake._message_update(self, text, chat)

    def send(self, text: str, chat: FakeGroup | None = None) -> JSON:
        """Queue a message from this user for getUpdates and return the Update."""
        update = self.message_update(text, chat)
        self.fake.queue_update(update)
        return update

    def callback_update(self, message: SentMessage | int, data: str) -> JSON:
        """A callback_query Update for pressing a button, not queued.

        ``message`` is a bot message (or a message_id in this user's private chat); ``data``
        must be one of its *current* buttons, otherwise FakeUsageError is raised.
        """
        return self.fake._callback_update(self, message, data)

    def press(self, message: SentMessage | int, data: str) -> JSON:
        """Queue a button press for getUpdates and return the Update."""
        update = self.callback_update(message, data)
        self.fake.queue_update(update)
        return update


class _ApiError(Exception):
    """A Bot API error response; raising it from a method handler answers the request."""

    def __init__(self, status: int, description: str, parameters: JSON | None = None) -> None:
        super().__init__(description)
        self.status = status
        self.description = description
        self.parameters = parameters

    def response(self) -> HTTPResponse:
        payload: JSON = {"ok": False, "error_code": self.status, "description": self.description}
        if self.parameters:
            payload["parameters"] = self.parameters
        return HTTPResponse.json(self.status, payload)


# ---------------------------------------------------------------------------------------------
# The fake
# ---------------------------------------------------------------------------------------------

# PTB sends application/x-www-form-urlencoded bodies in which every non-string value is JSON
# encoded (telegram.request.RequestParameter.json_value); the real API decodes each field by
# its declared type, so the fake does the same.
_JSON_PARAMS = frozenset(
    {
        "reply_markup",
        "commands",
        "scope",
        "allowed_updates",
        "entities",
        "link_preview_options",
        "reply_parameters",
    }
)
_INT_PARAMS = frozenset({"chat_id", "message_id", "offset", "limit", "timeout", "max_connections", "cache_time"})
_BOOL_PARAMS = frozenset({"show_alert", "drop_pending_updates", "disable_notification", "protect_content"})

_CHAT_ACTIONS = frozenset(
    {
        "typing",
        "upload_photo",
        "record_video",
        "upload_video",
        "record_voice",
        "upload_voice",
        "upload_document",
        "choose_sticker",
        "find_location",
        "record_video_note",
        "upload_video_note",
    }
)
_NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup are "
    "exactly the same as a current content and reply markup of the message"
)
_QUERY_TOO_OLD = "Bad Request: query is too old and response timeout expired or query ID is invalid"
_BLOCKED = "Forbidden: bot was blocked by the user"


class FakeTelegram(LocalHTTPServer):
    """The Bot API at ``{url}/bot{token}/{method}``; see the module docstring.

    ``max_poll_wait`` caps how long getUpdates blocks whatever ``timeout`` the client asks
    for, so polling loops notice shutdown quickly. With ``enforce_rate_limits`` a send that
    breaks Telegram's limits gets 429 like the real API; ``violations`` records them always.
    """

    def __init__(
        self,
        token: str = DEFAULT_TOKEN,
        *,
        username: str = "gin3_test_bot",
        first_name: str = "Gin3 Test Bot",
        max_poll_wait: float = 2.0,
        enforce_rate_limits: bool = False,
    ) -> None:
        super().__init__()
        self.token = token
        self.max_poll_wait = max_poll_wait
        self.enforce_rate_limits = enforce_rate_limits
        self.bot_user: JSON = {
            "id": int(token.split(":", 1)[0]),
            "is_bot": True,
            "first_name": first_name,
            "username": username,
        }
        self._updates: list[JSON] = []
        self._next_update_id = 700_000_001
        self._allowed_updates: list[str] = []
        self._sent: list[SentMessage] = []
        self._messages: dict[tuple[int, int], SentMessage] = {}
        self._deleted: set[tuple[int, int]] = set()
        self._next_message_id: dict[int, int] = {}
        self._chats: dict[int, JSON] = {}
        self._queries: dict[str, bool] = {}  # callback_query_id -> answered
        self._next_query_id = 4_000_000_000_000_000_001
        self._callback_answers: list[CallbackAnswer] = []
        self._commands: dict[tuple[str, str], list[JSON]] = {}
        self._descriptions: dict[tuple[str, str], str] = {}  # (kind, language_code) -> text
        self._webhook: JSON | None = None
        self._failures: dict[str, deque[_ApiError]] = {}
        self._delays: dict[str, deque[float]] = {}
        self._blocked: set[int] = set()
        self._chat_send_times: dict[int, deque[float]] = {}
        self._all_send_times: deque[float] = deque()
        self._violations: list[RateLimitViolation] = []
        self._calls: list[tuple[str, JSON]] = []
        self._chat_actions: list[tuple[int, str]] = []
        self._methods: dict[str, Callable[[JSON], Any]] = {
            "getme": self._get_me,
            "getupdates": self._get_updates,
            "sendmessage": self._send_message,
            "editmessagetext": self._edit_message_text,
            "editmessagereplymarkup": self._edit_message_reply_markup,
            "deletemessage": self._delete_message,
            "answercallbackquery": self._answer_callback_query,
            "setmycommands": self._set_my_commands,
            "setmydescription": self._set_my_description,
            "getmydescription": self._get_my_description,
            "setmyshortdescription": self._set_my_short_description,
            "getmyshortdescription": self._get_my_short_description,
            "getmycommands": self._get_my_commands,
            "deletemycommands": self._delete_my_commands,
            "setwebhook": self._set_webhook,
            "deletewebhook": self._delete_webhook,
            "getwebhookinfo": self._get_webhook_info,
            "sendchataction": self._send_chat_action,
        }

    # -- client construction ------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """What PTB calls ``base_url``: it appends the token itself."""
        return f"{self.url}/bot"

    def bot(self) -> telegram.Bot:
        """A real ``telegram.Bot`` pointed at this fake (use it as ``async with``)."""
        return telegram.Bot(self.token, base_url=self.base_url)

    # -- simulated people ---------------------------------------------------------------------

    def user(self, user_id: int, first_name: str, username: str | None = None, language_code: str = "en") -> FakeUser:
        """A simulated user; registering it gives its private chat a real name in messages."""
        user = FakeUser(self, user_id, first_name, username, language_code)
        with self._cond:
            self._chats[user_id] = user.chat
        return user

    def group(self, chat_id: int, title: str) -> FakeGroup:
        """A group chat (negative id; ``-100...`` makes it a supergroup) users can write in."""
        if chat_id >= 0:
            raise ValueError("Telegram group chat ids are negative")
        group = FakeGroup(chat_id, title)
        with self._cond:
            self._chats[chat_id] = group.chat
        return group

    # -- updates ------------------------------------------------------------------------------

    def make_update(self, **fields: Any) -> JSON:
        """``{"update_id": <next id>, **fields}``, e.g. ``make_update(message={...})``; not queued."""
        with self._cond:
            update_id = self._next_update_id
            self._next_update_id += 1
        return {"update_id": update_id, **fields}

    def queue_update(self, update: JSON) -> None:
        """Make ``update`` available to getUpdates, waking a long poll at once."""
        with self._cond:
            self._updates.append(update)
            self._cond.notify_all()

    @property
    def pending_updates(self) -> list[JSON]:
        """Queued updates not yet confirmed by a getUpdates offset."""
        with self._cond:
            return list(self._updates)

    # -- inspection ---------------------------------------------------------------------------

    @property
    def sent(self) -> list[SentMessage]:
        """Every successful sendMessage/edit*, in order."""
        with self._cond:
            return list(self._sent)

    def messages_to(self, chat_id: int) -> list[SentMessage]:
        """Current state (after edits, without deleted ones) of the bot's messages in a chat."""
        with self._cond:
            return [m for key, m in sorted(self._messages.items()) if key[0] == chat_id and key not in self._deleted]

    def last_message_to(self, chat_id: int) -> SentMessage | None:
        """The newest bot message in the chat, as it looks now; None if there is none."""
        messages = self.messages_to(chat_id)
        return messages[-1] if messages else None

    def wait_for(self, predicate: Callable[[SentMessage], bool], timeout: float = 30.0, since: int = 0) -> SentMessage:
        """Block until a send/edit in ``sent[since:]`` matches; AssertionError on timeout.

        Pass ``since=len(tg.sent)`` to ignore messages sent before the action under test.
        """

        def find() -> SentMessage | None:
            return next((m for m in self._sent[since:] if predicate(m)), None)

        def describe() -> str:
            recent = [(m.method, m.chat_id, m.text) for m in self._sent[since:][-10:]]
            return f"no matching message; last sent: {recent}"

        return self._wait(find, timeout, describe)

    @property
    def callback_answers(self) -> list[CallbackAnswer]:
        with self._cond:
            return list(self._callback_answers)

    @property
    def commands(self) -> list[JSON]:
        """The command list for the default scope and no language."""
        return self.commands_for()

    def commands_for(self, scope: JSON | None = None, language_code: str = "") -> list[JSON]:
        """The command list for a BotCommandScope JSON (e.g. ``{"type": "all_private_chats"}``)."""
        with self._cond:
            return list(self._commands.get((_scope_key(scope), language_code), []))

    def description_for(self, language_code: str = "", short: bool = False) -> str:
        """The bot's description (``short``: its short description) for a language, "" if unset."""
        with self._cond:
            return self._descriptions.get(("short_description" if short else "description", language_code), "")

    @property
    def webhook(self) -> JSON | None:
        """The current webhook settings (url, secret_token, allowed_updates, ...) or None."""
        with self._cond:
            return dict(self._webhook) if self._webhook else None

    @property
    def violations(self) -> list[RateLimitViolation]:
        """Sends that broke Telegram's limits: 1/s per private chat, 20/min per group, 30/s overall."""
        with self._cond:
            return list(self._violations)

    @property
    def calls(self) -> list[tuple[str, JSON]]:
        """Every API call as (method, decoded parameters), including failed ones."""
        with self._cond:
            return list(self._calls)

    @property
    def chat_actions(self) -> list[tuple[int, str]]:
        with self._cond:
            return list(self._chat_actions)

    # -- failure injection --------------------------------------------------------------------

    def fail_next(
        self,
        method: str,
        times: int = 1,
        status: int = 429,
        retry_after: int = 1,
        description: str | None = None,
    ) -> None:
        """Answer the next ``times`` calls of ``method`` with an error (429 flood control by default)."""
        if status == HTTPStatus.TOO_MANY_REQUESTS:
            error = _ApiError(status, f"Too Many Requests: retry after {retry_after}", {"retry_after": retry_after})
        else:
            error = _ApiError(status, description or HTTPStatus(status).phrase)
        with self._cond:
            self._failures.setdefault(method.lower(), deque()).extend([error] * times)

    def delay_next(self, method: str, seconds: float) -> None:
        """Hold the next call of ``method`` for ``seconds`` before it counts or is carried
        out, as a request that is slow to arrive (a busy machine, a slow network)."""
        with self._cond:
            self._delays.setdefault(method.lower(), deque()).append(seconds)

    def block_chat(self, chat_id: int) -> None:
        """Make the user behind ``chat_id`` block the bot: every send there answers 403."""
        with self._cond:
            self._blocked.add(chat_id)

    def unblock_chat(self, chat_id: int) -> None:
        with self._cond:
            self._blocked.discard(chat_id)

    # -- HTTP entry point ---------------------------------------------------------------------

    def handle(self, request: HTTPRequest) -> HTTPResponse:
        match = re.fullmatch(r"/bot([^/]+)/([A-Za-z0-9_]+)", request.path)
        if match is None:
            return _ApiError(404, "Not Found").response()
        token, method = match.groups()
        if token != self.token:
            return _ApiError(401, "Unauthorized").response()
        try:
            params = _decode_params(request)
        except ValueError as exc:
            return _ApiError(400, f"Bad Request: can't parse request: {exc}").response()
        with self._cond:
            delays = self._delays.get(method.lower())
            delay = delays.popleft() if delays else 0.0
        time.sleep(delay)
        with self._cond:
            self._calls.append((method, params))
            failures = self._failures.get(method.lower())
            failure = failures.popleft() if failures else None
        handler = self._methods.get(method.lower())
        if handler is None:
            return _ApiError(404, "Not Found").response()
        try:
            if failure is not None:
                raise failure
            result = handler(params)
        except _ApiError as error:
            return error.response()
        return HTTPResponse.json(200, {"ok": True, "result": result})

    # -- Bot API methods ----------------------------------------------------------------------

    def _get_me(self, params: JSON) -> JSON:
        return {
            **self.bot_user,
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }

    def _get_updates(self, params: JSON) -> list[JSON]:
        offset = int(params.get("offset", 0))
        limit = min(max(int(params.get("limit", 100)), 1), 100)
        wait = min(max(float(params.get("timeout", 0)), 0.0), self.max_poll_wait)
        deadline = time.monotonic() + wait
        with self._cond:
            if self._webhook:
                raise _ApiError(
                    409,
                    "Conflict: can't use getUpdates method while webhook is active; "
                    "use deleteWebhook to delete the webhook first",
                )
            if "allowed_updates" in params:
                self._allowed_updates = list(params["allowed_updates"])
            if offset > 0:
                self._updates = [u for u in self._updates if u["update_id"] >= offset]
            elif offset < 0:
                self._updates = self._updates[offset:]
            while True:
                batch = [u for u in self._updates if self._allowed(u)][:limit]
                remaining = deadline - time.monotonic()
                if batch or self._closing or remaining <= 0:
                    return batch
                self._cond.wait(remaining)

    def _allowed(self, update: JSON) -> bool:
        kinds = set(update) - {"update_id"}
        return not self._allowed_updates or bool(kinds & set(self._allowed_updates))

    def _send_message(self, params: JSON) -> JSON:
        chat_id = _chat_id(params)
        text, parse_mode = _text(params)
        with self._cond:
            self._check_blocked(chat_id)
            plain, entities = _render(text, parse_mode)
            inline = _inline_markup(params.get("reply_markup"))
            _check_web_apps(inline, self._chat(chat_id))
            self._check_rate_limits(chat_id)
            message_id = self._next_message_id.get(chat_id, 1)
            self._next_message_id[chat_id] = message_id + 1
            message: JSON = {
                "message_id": message_id,
                "from": dict(self.bot_user),
                "chat": self._chat(chat_id),
                "date": int(time.time()),
                "text": plain,
            }
            _set_optional(message, "entities", entities)
            _set_optional(message, "reply_markup", inline)
            self._record("sendMessage", chat_id, message_id, text, parse_mode, params.get("reply_markup"), message)
            return message

    def _edit_message_text(self, params: JSON) -> JSON:
        chat_id, message_id = _chat_id(params), _message_id(params)
        text, parse_mode = _text(params)
        with self._cond:
            old = self._editable(chat_id, message_id)
            plain, entities = _render(text, parse_mode)
            inline = _inline_markup(params.get("reply_markup"))
            _check_web_apps(inline, self._chat(chat_id))
            return self._apply_edit(
                old, "editMessageText", text, parse_mode, params.get("reply_markup"), plain, entities, inline
            )

    def _edit_message_reply_markup(self, params: JSON) -> JSON:
        chat_id, message_id = _chat_id(params), _message_id(params)
        with self._cond:
            old = self._editable(chat_id, message_id)
            inline = _inline_markup(params.get("reply_markup"))
            return self._apply_edit(
                old,
                "editMessageReplyMarkup",
                old.text,
                old.parse_mode,
                params.get("reply_markup"),
                old.plain_text,
                old.entities,
                inline,
            )

    def _delete_message(self, params: JSON) -> bool:
        key = (_chat_id(params), _message_id(params))
        with self._cond:
            if key not in self._messages or key in self._deleted:
                raise _ApiError(400, "Bad Request: message to delete not found")
            self._deleted.add(key)
            self._cond.notify_all()
        return True

    def _answer_callback_query(self, params: JSON) -> bool:
        query_id = str(params.get("callback_query_id", ""))
        text = params.get("text")
        if text is not None and len(text) > 200:
            raise _ApiError(400, "Bad Request: MESSAGE_TOO_LONG")
        with self._cond:
            if self._queries.get(query_id, True):
                raise _ApiError(400, _QUERY_TOO_OLD)
            self._queries[query_id] = True
            self._callback_answers.append(
                CallbackAnswer(
                    callback_query_id=query_id,
                    text=text,
                    show_alert=bool(params.get("show_alert", False)),
                    url=params.get("url"),
                    cache_time=int(params.get("cache_time", 0)),
                    timestamp=time.monotonic(),
                )
            )
            self._cond.notify_all()
        return True

    def _set_my_commands(self, params: JSON) -> bool:
        commands = params.get("commands")
        if not isinstance(commands, list):
            raise _ApiError(400, "Bad Request: can't parse commands JSON object")
        for command in commands:
            if not re.fullmatch(r"[a-z0-9_]{1,32}", str(command.get("command", ""))):
                raise _ApiError(400, "Bad Request: BOT_COMMAND_INVALID")
            if not 1 <= len(str(command.get("description", ""))) <= 256:
                raise _ApiError(400, "Bad Request: command description is empty or too long")
        language_code = params.get("language_code", "")
        if not re.fullmatch(r"(?:[a-z]{2})?", str(language_code)):
            # The Bot API takes "a two-letter ISO 639-1 language code", or none for everyone else.
            raise _ApiError(400, "Bad Request: invalid language code")
        key = (_scope_key(params.get("scope")), language_code)
        with self._cond:
            self._commands[key] = [{"command": c["command"], "description": c["description"]} for c in commands]
        return True

    def _set_my_description(self, params: JSON) -> bool:
        return self._describe("description", params, 512)

    def _set_my_short_description(self, params: JSON) -> bool:
        return self._describe("short_description", params, 120)

    def _describe(self, kind: str, params: JSON, limit: int) -> bool:
        text = str(params.get(kind, ""))
        if len(text) > limit:
            raise _ApiError(400, f"Bad Request: {kind} is too long")
        language_code = params.get("language_code", "")
        if not re.fullmatch(r"(?:[a-z]{2})?", str(language_code)):
            raise _ApiError(400, "Bad Request: invalid language code")
        with self._cond:
            self._descriptions[(kind, language_code)] = text
        return True

    def _get_my_description(self, params: JSON) -> JSON:
        return {"description": self.description_for(params.get("language_code", ""))}

    def _get_my_short_description(self, params: JSON) -> JSON:
        return {"short_description": self.description_for(params.get("language_code", ""), short=True)}

    def _get_my_commands(self, params: JSON) -> list[JSON]:
        return self.commands_for(params.get("scope"), params.get("language_code", ""))

    def _delete_my_commands(self, params: JSON) -> bool:
        with self._cond:
            self._commands.pop((_scope_key(params.get("scope")), params.get("language_code", "")), None)
        return True

    def _set_webhook(self, params: JSON) -> bool:
        url = params.get("url", "")
        if not url:
            return self._delete_webhook(params)
        if not url.startswith("https://"):
            raise _ApiError(400, "Bad Request: bad webhook: An HTTPS URL must be provided for webhook")
        secret = params.get("secret_token")
        if secret is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", secret):
            raise _ApiError(400, "Bad Request: secret token contains unallowed characters")
        with self._cond:
            if params.get("drop_pending_updates"):
                self._updates.clear()
            self._webhook = {
                "url": url,
                "secret_token": secret,
                "allowed_updates": params.get("allowed_updates"),
                "max_connections": int(params.get("max_connections", 40)),
                "drop_pending_updates": bool(params.get("drop_pending_updates", False)),
            }
        return True

    def _delete_webhook(self, params: JSON) -> bool:
        with self._cond:
            if params.get("drop_pending_updates"):
                self._updates.clear()
            self._webhook = None
        return True

    def _get_webhook_info(self, params: JSON) -> JSON:
        with self._cond:
            info: JSON = {
                "url": "",
                "has_custom_certificate": False,
                "pending_update_count": len(self._updates),
            }
            if self._webhook:
                info["url"] = self._webhook["url"]
                info["max_connections"] = self._webhook["max_connections"]
                _set_optional(info, "allowed_updates", self._webhook["allowed_updates"])
            return info

    def _send_chat_action(self, params: JSON) -> bool:
        chat_id = _chat_id(params)
        action = params.get("action")
        if action not in _CHAT_ACTIONS:
            raise _ApiError(400, "Bad Request: wrong parameter action in request")
        with self._cond:
            self._check_blocked(chat_id)
            self._chat_actions.append((chat_id, action))
        return True

    # -- helpers (called with self._cond held unless they take it) ----------------------------

    def _chat(self, chat_id: int) -> JSON:
        if chat_id in self._chats:
            return dict(self._chats[chat_id])
        if chat_id < 0:
            return {"id": chat_id, "type": "group", "title": f"Group {chat_id}"}
        return {"id": chat_id, "type": "private", "first_name": f"User {chat_id}"}

    def _check_blocked(self, chat_id: int) -> None:
        if chat_id in self._blocked:
            raise _ApiError(403, _BLOCKED)

    def _check_rate_limits(self, chat_id: int) -> None:
        """Apply Telegram's published limits to a send that is about to succeed."""
        now = time.monotonic()
        if chat_id < 0:
            window, cap, rule = 60.0, 20, f"more than 20 messages per minute to group {chat_id}"
        else:
            window, cap, rule = 1.0, 1, f"more than 1 message per second to chat {chat_id}"
        chat_times = self._chat_send_times.setdefault(chat_id, deque())
        _forget_before(chat_times, now - window)
        _forget_before(self._all_send_times, now - 1.0)
        waits = []
        if len(chat_times) >= cap:
            self._violations.append(RateLimitViolation(rule, chat_id, now))
            waits.append(chat_times[0] + window - now)
        if len(self._all_send_times) >= 30:
            self._violations.append(RateLimitViolation("more than 30 messages per second overall", chat_id, now))
            waits.append(self._all_send_times[0] + 1.0 - now)
        if waits and self.enforce_rate_limits:
            retry_after = max(1, math.ceil(max(waits)))
            raise _ApiError(429, f"Too Many Requests: retry after {retry_after}", {"retry_after": retry_after})
        chat_times.append(now)
        self._all_send_times.append(now)

    def _editable(self, chat_id: int, message_id: int) -> SentMessage:
        self._check_blocked(chat_id)
        key = (chat_id, message_id)
        if key not in self._messages or key in self._deleted:
            raise _ApiError(400, "Bad Request: message to edit not found")
        return self._messages[key]

    def _apply_edit(
        self,
        old: SentMessage,
        method: str,
        text: str,
        parse_mode: str | None,
        reply_markup: JSON | None,
        plain: str,
        entities: list[JSON],
        inline: JSON | None,
    ) -> JSON:
        """Edit a message; an inline keyboard not repeated in the edit is removed, as in Telegram."""
        if (plain, entities, inline) == (old.plain_text, old.entities, old.message.get("reply_markup")):
            raise _ApiError(400, _NOT_MODIFIED)
        message = {k: v for k, v in old.message.items() if k not in ("entities", "reply_markup")}
        message.update(text=plain, edit_date=int(time.time()))
        _set_optional(message, "entities", entities)
        _set_optional(message, "reply_markup", inline)
        self._record(method, old.chat_id, old.message_id, text, parse_mode, reply_markup, message)
        return message

    def _record(
        self,
        method: str,
        chat_id: int,
        message_id: int,
        text: str,
        parse_mode: str | None,
        reply_markup: JSON | None,
        message: JSON,
    ) -> None:
        record = SentMessage(method, chat_id, message_id, text, parse_mode, reply_markup, time.monotonic(), message)
        self._sent.append(record)
        self._messages[(chat_id, message_id)] = record
        self._cond.notify_all()

    def _message_update(self, user: FakeUser, text: str, chat: FakeGroup | None) -> JSON:
        chat_json = chat.chat if chat else user.chat
        with self._cond:
            message_id = self._next_message_id.get(chat_json["id"], 1)
            self._next_message_id[chat_json["id"]] = message_id + 1
        message: JSON = {
            "message_id": message_id,
            "from": user.json,
            "chat": chat_json,
            "date": int(time.time()),
            "text": text,
        }
        # PTB's CommandHandler only recognises a command through this entity.
        command = re.match(r"/\S+", text)
        if command:
            message["entities"] = [{"type": "bot_command", "offset": 0, "length": _utf16_len(command.group())}]
        return self.make_update(message=message)

    def _callback_update(self, user: FakeUser, message: SentMessage | int, data: str) -> JSON:
        if isinstance(message, SentMessage):
            chat_id, message_id = message.chat_id, message.message_id
        else:
            chat_id, message_id = user.id, message
        with self._cond:
            current = self._messages.get((chat_id, message_id))
            if current is None or (chat_id, message_id) in self._deleted:
                raise FakeUsageError(f"the bot has no message {message_id} in chat {chat_id}")
            if current.message["chat"]["type"] == "private" and chat_id != user.id:
                raise FakeUsageError(f"user {user.id} cannot see message {message_id} in private chat {chat_id}")
            if data not in current.callback_data:
                raise FakeUsageError(
                    f"{data!r} is not a button on message {message_id} in chat {chat_id}; "
                    f"current callback_data: {current.callback_data}"
                )
            query_id = str(self._next_query_id)
            self._next_query_id += 1
            self._queries[query_id] = False
        query = {
            "id": query_id,
            "from": user.json,
            "message": current.message,
            "chat_instance": str(-(5 * 10**18 + abs(chat_id))),
            "data": data,
        }
        return self.make_update(callback_query=query)


# ---------------------------------------------------------------------------------------------
# Parameter decoding and validation
# ---------------------------------------------------------------------------------------------


def _decode_params(request: HTTPRequest) -> JSON:
    params: JSON = dict(parse_qsl(request.query, keep_blank_values=True))
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if request.body:
        if content_type == "application/json":
            body = json.loads(request.body)
            if not isinstance(body, dict):
                raise ValueError("JSON body must be an object")
            params.update(body)
        elif content_type in ("application/x-www-form-urlencoded", ""):
            params.update(parse_qsl(request.body.decode(), keep_blank_values=True))
        else:
            raise ValueError(f"unsupported content type {content_type!r}")
    return {name: _coerce(name, value) for name, value in params.items()}


def _coerce(name: str, value: Any) -> Any:
    if not isinstance(value, str):
        return value
    if name in _JSON_PARAMS:
        return json.loads(value)
    if name in _INT_PARAMS:
        try:
            return int(value)
        except ValueError:
            return value
    if name in _BOOL_PARAMS:
        return value.lower() in ("true", "1")
    return value


def _chat_id(params: JSON) -> int:
    if "chat_id" not in params or params["chat_id"] == "":
        raise _ApiError(400, "Bad Request: chat_id is empty")
    if not isinstance(params["chat_id"], int):
        raise _ApiError(400, "Bad Request: chat not found")
    return params["chat_id"]


def _message_id(params: JSON) -> int:
    if not isinstance(params.get("message_id"), int):
        raise _ApiError(400, "Bad Request: message to edit not found")
    return params["message_id"]


def _text(params: JSON) -> tuple[str, str | None]:
    text = params.get("text")
    if not isinstance(text, str) or not text.strip():
        raise _ApiError(400, "Bad Request: message text is empty")
    return text, params.get("parse_mode") or None


def _inline_markup(markup: Any) -> JSON | None:
    """Validate a reply_markup; return the part Telegram echoes in Message (inline keyboards only)."""
    if markup is None:
        return None
    if not isinstance(markup, dict):
        raise _ApiError(400, "Bad Request: can't parse reply keyboard markup JSON object")
    keyboard = markup.get("inline_keyboard")
    if keyboard is None:
        return None
    if not isinstance(keyboard, list) or not all(isinstance(row, list) for row in keyboard):
        raise _ApiError(400, 'Bad Request: field "inline_keyboard" must be an Array of Arrays')
    actions = (
        "callback_data",
        "url",
        "switch_inline_query",
        "switch_inline_query_current_chat",
        "web_app",
        "login_url",
        "callback_game",
        "pay",
        "copy_text",
        "switch_inline_query_chosen_chat",
    )
    for row in keyboard:
        for button in row:
            if not isinstance(button, dict) or not button.get("text"):
                raise _ApiError(400, "Bad Request: can't parse inline keyboard button: Text is not specified")
            if not any(action in button for action in actions):
                raise _ApiError(400, "Bad Request: Text buttons are unallowed in the inline keyboard")
            if "callback_data" in button and not 1 <= len(str(button["callback_data"]).encode()) <= 64:
                raise _ApiError(400, "Bad Request: BUTTON_DATA_INVALID")
    return {"inline_keyboard": keyboard}


def _check_web_apps(markup: JSON | None, chat: JSON) -> None:
    """A Mini App button (``web_app``) opens only an HTTPS address, and only in a private chat."""
    for row in (markup or {}).get("inline_keyboard", []):
        for button in row:
            if "web_app" not in button:
                continue
            url = str((button["web_app"] or {}).get("url", ""))
            if not url.startswith("https://"):
                said = f"inline keyboard button Web App URL '{url}' is invalid: Only HTTPS links are allowed"
                raise _ApiError(400, f"Bad Request: {said}")
            if chat.get("type") != "private":
                raise _ApiError(400, "Bad Request: BUTTON_TYPE_INVALID")


def _scope_key(scope: JSON | None) -> str:
    return json.dumps(scope or {"type": "default"}, sort_keys=True)


def _set_optional(target: JSON, key: str, value: Any) -> None:
    if value:
        target[key] = value


def _forget_before(times: deque[float], cutoff: float) -> None:
    while times and times[0] <= cutoff:
        times.popleft()


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


# ---------------------------------------------------------------------------------------------
# Parse modes: what Telegram does with HTML / MarkdownV2 / Markdown text (modelled on TDLib)
# ---------------------------------------------------------------------------------------------


class _EntityError(Exception):
    pass


class _Rendered:
    """Accumulates the plain text and entities of a formatted message, offsets in UTF-16 units."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.offset = 0
        self.entities: list[JSON] = []

    def add(self, text: str) -> None:
        self.parts.append(text)
        self.offset += _utf16_len(text)

    def entity(self, kind: str, start: int, **extra: Any) -> None:
        if self.offset > start:
            self.entities.append({"type": kind, "offset": start, "length": self.offset - start, **extra})

    def result(self) -> tuple[str, list[JSON]]:
        return "".join(self.parts), sorted(self.entities, key=lambda e: (e["offset"], -e["length"]))


def _render(text: str, parse_mode: str | None) -> tuple[str, list[JSON]]:
    """Plain text and entities for ``text``; 400 like Telegram when it does not parse."""
    if parse_mode is None:
        plain, entities = text, []
    else:
        parsers = {"html": _parse_html, "markdownv2": _parse_markdown_v2, "markdown": _parse_markdown}
        parser = parsers.get(parse_mode.lower())
        if parser is None:
            raise _ApiError(400, "Bad Request: unsupported parse_mode")
        try:
            plain, entities = parser(text)
        except _EntityError as exc:
            raise _ApiError(400, f"Bad Request: can't parse entities: {exc}") from None
    if not plain.strip():
        raise _ApiError(400, "Bad Request: message text is empty")
    if _utf16_len(plain) > 4096:
        raise _ApiError(400, "Bad Request: message is too long")
    return plain, entities


def _byte_offset(text: str, index: int) -> int:
    return len(text[:index].encode())


_HTML_TAGS = frozenset(
    {
        "a",
        "b",
        "strong",
        "i",
        "em",
        "s",
        "strike",
        "del",
        "u",
        "ins",
        "tg-spoiler",
        "tg-emoji",
        "span",
        "pre",
        "code",
        "blockquote",
    }
)
_HTML_KINDS = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "tg-spoiler": "spoiler",
}
_HTML_ENTITY = re.compile(r"&(#[0-9]+|#[xX][0-9a-fA-F]+|lt|gt|amp|quot);")
_HTML_ATTRIBUTE = re.compile(r"([^\s=>]+)(?:\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s>'\"]*))?")


def _parse_html(text: str) -> tuple[str, list[JSON]]:
    out = _Rendered()
    stack: list[tuple[str, dict[str, str], int]] = []  # (tag, attributes, start offset)
    i = 0
    while i < len(text):
        char = text[i]
        if char == "&":
            match = _HTML_ENTITY.match(text, i)
            out.add(html.unescape(match.group()) if match else "&")
            i = match.end() if match else i + 1
        elif char != "<":
            out.add(char)
            i += 1
        elif text.startswith("</", i):
            if not stack:
                raise _EntityError(f"Unexpected end tag at byte offset {_byte_offset(text, i)}")
            close = text.find(">", i)
            if close == -1:
                raise _EntityError(f"Unclosed end tag at byte offset {_byte_offset(text, i)}")
            name = text[i + 2 : close].strip().lower()
            tag, attributes, start = stack.pop()
            if name and name != tag:
                raise _EntityError(
                    f'Unmatched end tag at byte offset {_byte_offset(text, i)}, expected "</{tag}>", found "</{name}>"'
                )
            _html_entity(out, tag, attributes, start, stack)
            i = close + 1
        else:
            begin = i
            name_end = i + 1
            while name_end < len(text) and not text[name_end].isspace() and text[name_end] != ">":
                name_end += 1
            if name_end >= len(text):
                raise _EntityError(f"Unclosed start tag at byte offset {_byte_offset(text, begin)}")
            tag = text[begin + 1 : name_end].lower()
            if tag not in _HTML_TAGS:
                raise _EntityError(f'Unsupported start tag "{tag}" at byte offset {_byte_offset(text, begin)}')
            attributes, i = _html_attributes(text, name_end, tag, _byte_offset(text, begin))
            stack.append((tag, attributes, out.offset))
    if stack:
        raise _EntityError(f'Can\'t find end tag corresponding to start tag "{stack[-1][0]}"')
    return out.result()


def _html_attributes(text: str, i: int, tag: str, byte_offset: int) -> tuple[dict[str, str], int]:
    attributes: dict[str, str] = {}
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            raise _EntityError(f'Unclosed start tag "{tag}" at byte offset {byte_offset}')
        if text[i] == ">":
            return attributes, i + 1
        match = _HTML_ATTRIBUTE.match(text, i)
        if match is None:
            raise _EntityError(f'Empty attribute name in the tag "{tag}" at byte offset {byte_offset}')
        value = match.group(2) or ""
        if value[:1] in ("'", '"'):
            value = value[1:-1]
        attributes[match.group(1).lower()] = html.unescape(value)
        i = match.end()


def _html_entity(
    out: _Rendered,
    tag: str,
    attributes: dict[str, str],
    start: int,
    stack: list[tuple[str, dict[str, str], int]],
) -> None:
    if tag in _HTML_KINDS:
        out.entity(_HTML_KINDS[tag], start)
    elif tag == "span":
        if attributes.get("class") != "tg-spoiler":
            raise _EntityError('Tag "span" must have class "tg-spoiler"')
        out.entity("spoiler", start)
    elif tag == "a":
        href = attributes.get("href", "")
        user = re.fullmatch(r"tg://user\?id=(\d+)", href)
        if user:
            out.entity("text_mention", start, user={"id": int(user.group(1)), "is_bot": False, "first_name": ""})
        elif href:
            out.entity("text_link", start, url=href)
    elif tag == "code":
        css_class = attributes.get("class", "")
        if stack and stack[-1][0] == "pre" and css_class.startswith("language-"):
            # <pre><code class="language-x">...</code></pre> is one pre entity with a language.
            stack[-1][1]["language"] = css_class.removeprefix("language-")
        else:
            out.entity("code", start)
    elif tag == "pre":
        language = attributes.get("language")
        out.entity("pre", start, **({"language": language} if language else {}))
    elif tag == "blockquote":
        out.entity("expandable_blockquote" if "expandable" in attributes else "blockquote", start)
    elif tag == "tg-emoji":
        out.entity("custom_emoji", start, custom_emoji_id=attributes.get("emoji-id", ""))


_MDV2_RESERVED = frozenset("_*[]()~`>#+-=|{}.!")
_MDV2_NAMES = {
    "bold": "Bold",
    "italic": "Italic",
    "underline": "Underline",
    "strikethrough": "Strikethrough",
    "spoiler": "Spoiler",
    "text_link": "TextUrl",
    "code": "Code",
    "pre": "Pre",
    "custom_emoji": "CustomEmoji",
}
_MDV2_OPENERS = {
    "*": "bold",
    "~": "strikethrough",
    "[": "text_link",
    "|": "spoiler",
    "!": "custom_emoji",
    "`": "code",
    "```": "pre",
}
_MDV2_CLOSERS = {
    "bold": "*",
    "strikethrough": "~",
    "underline": "__",
    "spoiler": "||",
    "text_link": "]",
    "custom_emoji": "]",
    "code": "`",
    "pre": "```",
}


def _mdv2_closes(kind: str, text: str, i: int) -> bool:
    if kind == "italic":
        return text[i] == "_" and not text.startswith("__", i)
    return text.startswith(_MDV2_CLOSERS[kind], i)


def _parse_markdown_v2(text: str) -> tuple[str, list[JSON]]:
    out = _Rendered()
    stack: list[tuple[str, int, int, str]] = []  # (kind, start offset, marker index, pre language)
    quote_start: int | None = None  # a blockquote is a run of lines starting with ">"
    quote_end = 0
    i = 0
    while i < len(text):
        char = text[i]
        at_line_start = i == 0 or text[i - 1] == "\n"
        if at_line_start and quote_start is not None and char != ">":
            out.entities.append({"type": "blockquote", "offset": quote_start, "length": quote_end - quote_start})
            quote_start = None
        if char == "\\" and i + 1 < len(text) and 0 < ord(text[i + 1]) <= 126:
            out.add(text[i + 1])
            i += 2
            continue
        top = stack[-1][0] if stack else None
        if top in ("code", "pre") and not _mdv2_closes(top, text, i):
            out.add(char)
            i += 1
            continue
        if char not in _MDV2_RESERVED:
            if char == "\n" and quote_start is not None:
                quote_end = out.offset
            out.add(char)
            i += 1
            continue
        if char == ">" and at_line_start and top is None:
            quote_start = out.offset if quote_start is None else quote_start
            i += 1
            continue
        if top is not None and _mdv2_closes(top, text, i):
            kind, start, _, language = stack.pop()
            i += len(_MDV2_CLOSERS.get(kind, "_"))
            if kind in ("text_link", "custom_emoji"):
                i = _mdv2_link(out, kind, start, text, i)
            else:
                out.entity(kind, start, **({"language": language} if language else {}))
            continue
        opened_at = i
        if char == "_":
            kind = "underline" if text.startswith("__", i) else "italic"
        elif char in "*~[`" or text.startswith(("||", "!["), i):
            kind = _MDV2_OPENERS["```" if text.startswith("```", i) else char]
        else:
            raise _EntityError(f"Character '{char}' is reserved and must be escaped with the preceding '\\'")
        i += {"underline": 2, "spoiler": 2, "custom_emoji": 2, "pre": 3}.get(kind, 1)
        language = ""
        if kind == "pre":
            # "```lang" names a language only if code follows; one leading newline is dropped.
            end = i
            while end < len(text) and not text[end].isspace() and text[end] != "`":
                end += 1
            if end < len(text) and text[end] != "`":
                language, i = text[i:end], end
            i += text.startswith("\n", i)
        stack.append((kind, out.offset, opened_at, language))
    if quote_start is not None:
        out.entities.append({"type": "blockquote", "offset": quote_start, "length": out.offset - quote_start})
    if stack:
        kind, _, opened_at, _ = stack[-1]
        raise _EntityError(
            f"Can't find end of {_MDV2_NAMES[kind]} entity at byte offset {_byte_offset(text, opened_at)}"
        )
    return out.result()


def _mdv2_link(out: _Rendered, kind: str, start: int, text: str, i: int) -> int:
    """Parse the ``(url)`` after ``[text]``/``![emoji]`` at ``i``; return the index after it."""
    if not text.startswith("(", i):
        return i
    url: list[str] = []
    j = i + 1
    while j < len(text) and text[j] != ")":
        escaped = text[j] == "\\" and j + 1 < len(text)
        url.append(text[j + 1] if escaped else text[j])
        j += 2 if escaped else 1
    if j >= len(text):
        raise _EntityError(f"Can't find end of a URL at byte offset {_byte_offset(text, i + 1)}")
    target = "".join(url)
    if kind == "custom_emoji":
        out.entity("custom_emoji", start, custom_emoji_id=target.removeprefix("tg://emoji?id="))
    else:
        out.entity("text_link", start, url=target)
    return j + 1


def _parse_markdown(text: str) -> tuple[str, list[JSON]]:
    """Legacy Markdown: no nesting, no escaping inside entities, unmatched markers are errors."""
    out = _Rendered()
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\" and text[i + 1 : i + 2] in ("_", "*", "`", "["):
            out.add(text[i + 1])
            i += 2
            continue
        if char not in "_*`[":
            out.add(char)
            i += 1
            continue
        marker = "```" if text.startswith("```", i) else {"[": "]"}.get(char, char)
        opening = 3 if marker == "```" else 1
        end = text.find(marker, i + opening)
        if end == -1:
            raise _EntityError(f"Can't find end of the entity starting at byte offset {_byte_offset(text, i)}")
        start = out.offset
        out.add(text[i + opening : end])
        i = end + len(marker)
        if char == "[":
            url_end = text.find(")", i) if text.startswith("(", i) else -1
            if url_end == -1:
                raise _EntityError(f"Can't find end of the entity starting at byte offset {_byte_offset(text, i)}")
            out.entity("text_link", start, url=text[i + 1 : url_end])
            i = url_end + 1
        else:
            out.entity({"_": "italic", "*": "bold", "`": "pre" if marker == "```" else "code"}[char], start)
    return out.result()
