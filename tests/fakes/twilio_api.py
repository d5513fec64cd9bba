"""A fake Twilio Messaging REST API for tests, driven by the real ``twilio.rest.Client`` over HTTP.

Why: there is no internet in tests, and patching ``client.messages.create`` would skip the
parts that break in production: form encoding, basic auth, and how Twilio's error JSON turns
into ``TwilioRestException`` with a ``code`` (21610 opted out, 21211 invalid number, ...).

The twilio library has no base-URL setting: every resource has an absolute
``https://<product>.twilio.com`` URL and ``Client`` only adds edge/region to that host. So the
redirect happens in the HTTP client: ``RedirectingHttpClient`` is a real ``TwilioHttpClient``
(requests) that rewrites any ``*.twilio.com`` URL to the fake before sending it. Typical use::

    with FakeTwilio() as sms:
        twilio = client(sms)  # a real twilio.rest.Client talking to the fake
        twilio.messages.create(to="+15550001111", from_="+15550009999", body="Your turn")
        assert sms.messages_to("+15550001111")[0].body == "Your turn"

        # App code that builds its own Client(...) without an http_client:
        with sms.redirect_default_clients():
            app.send_sms(...)

``sign()`` produces the ``X-Twilio-Signature`` for inbound webhooks the app must validate,
and ``inbound_sms()`` the form fields Twilio posts for an incoming message.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import math
import re
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import format_datetime
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from twilio.base import client_base
from twilio.http.http_client import TwilioHttpClient
from twilio.http.response import Response
from twilio.request_validator import RequestValidator
from twilio.rest import Client

from .telegram_api import HTTPRequest, HTTPResponse, LocalHTTPServer

JSON = dict[str, Any]

DEFAULT_ACCOUNT_SID = "AC" + "0123456789abcdef" * 2
DEFAULT_AUTH_TOKEN = "f00dfeed" * 4

_E164 = re.compile(r"\+[1-9]\d{6,14}")
_MESSAGES_PATH = re.compile(r"/2010-04-01/Accounts/([^/]+)/Messages\.json")

# GSM 03.38: messages using only these characters are sent in 7-bit segments, anything
# else (card suits, emoji, ...) makes the whole message UCS-2, which costs many more segments.
_GSM7_BASIC = frozenset(
    "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿"
    "abcdefghijklmnopqrstuvwxyzäöñüà"
)
_GSM7_EXTENDED = frozenset("^{}\\[~]|€\f")


@dataclass(frozen=True)
class SentSMS:
    """One accepted ``Messages.json`` create; ``resource`` is the JSON the fake returned."""

    sid: str
    to: str
    from_: str | None
    messaging_service_sid: str | None
    body: str
    status_callback: str | None
    num_segments: int
    timestamp: float
    resource: JSON = field(repr=False)


class _TwilioError(Exception):
    """Twilio's error JSON; raising it from request handling answers the request."""

    def __init__(self, status: int, code: int, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message

    def response(self) -> HTTPResponse:
        payload = {
            "code": self.code,
            "message": self.message,
            "more_info": f"https://www.twilio.com/docs/errors/{self.code}",
            "status": self.status,
        }
        headers = {"Retry-After": "1"} if self.status == HTTPStatus.TOO_MANY_REQUESTS else None
        return HTTPResponse.json(self.status, payload, headers)


class FakeTwilio(LocalHTTPServer):
    """``POST /2010-04-01/Accounts/{AccountSid}/Messages.json`` with basic auth; see the module docstring.

    Stricter than Twilio in one way: ``To`` must already be E.164 (``+15550001111``), since
    the app is expected to normalise numbers before sending.
    """

    def __init__(self, account_sid: str = DEFAULT_ACCOUNT_SID, auth_token: str = DEFAULT_AUTH_TOKEN) -> None:
        super().__init__()
        self.account_sid = account_sid
        self.auth_token = auth_token
        self._sent: list[SentSMS] = []
        self._opted_out: set[str] = set()
        self._invalid: set[str] = set()
        self._failures: deque[_TwilioError] = deque()

    @property
    def base_url(self) -> str:
        """Where ``https://api.twilio.com`` is redirected to."""
        return self.url

    def http_client(self) -> RedirectingHttpClient:
        return RedirectingHttpClient(self.url)

    @contextlib.contextmanager
    def redirect_default_clients(self) -> Iterator[None]:
        """Inside the block, ``Client(...)`` built without ``http_client=`` talks to this fake.

        Why: app code usually constructs its own Client; this lets tests run it unchanged.
        Clients created before the block keep their real HTTP client.
        """
        original = client_base.TwilioHttpClient
        client_base.TwilioHttpClient = functools.partial(RedirectingHttpClient, self.url)
        try:
            yield
        finally:
            client_base.TwilioHttpClient = original

    # -- test controls ------------------------------------------------------------------------

    def opt_out(self, number: str) -> None:
        """The recipient texted STOP: sends to it fail with 21610, as Twilio does."""
        with self._cond:
            self._opted_out.add(number)

    def opt_in(self, number: str) -> None:
        """The recipient texted START again."""
        with self._cond:
            self._opted_out.discard(number)

    def invalid(self, number: str) -> None:
        """Treat ``number`` as not a valid phone number (21211) even if it looks like E.164."""
        with self._cond:
            self._invalid.add(number)

    def fail_next(self, times: int = 1, status: int = 500) -> None:
        """Answer the next ``times`` sends with a server-side error (500, 503, 429, ...)."""
        error = _TwilioError(status, 20000 + status, HTTPStatus(status).phrase)
        with self._cond:
            self._failures.extend([error] * times)

    # -- inspection ---------------------------------------------------------------------------

    @property
    def sent(self) -> list[SentSMS]:
        with self._cond:
            return list(self._sent)

    def messages_to(self, number: str) -> list[SentSMS]:
        with self._cond:
            return [m for m in self._sent if m.to == number]

    def wait_for(self, predicate: Callable[[SentSMS], bool], timeout: float = 30.0, since: int = 0) -> SentSMS:
        """Block until a message in ``sent[since:]`` matches; AssertionError on timeout."""

        def find() -> SentSMS | None:
            return next((m for m in self._sent[since:] if predicate(m)), None)

        def describe() -> str:
            return f"no matching SMS; last sent: {[(m.to, m.body) for m in self._sent[since:][-10:]]}"

        return self._wait(find, timeout, describe)

    # -- HTTP ---------------------------------------------------------------------------------

    def handle(self, request: HTTPRequest) -> HTTPResponse:
        try:
            self._authenticate(request)
            match = _MESSAGES_PATH.fullmatch(request.path)
            if match is None or match.group(1) != self.account_sid:
                raise _TwilioError(404, 20404, f"The requested resource {request.path} was not found")
            if request.method != "POST":
                raise _TwilioError(405, 20004, "Method not allowed")
            with self._cond:
                if self._failures:
                    raise self._failures.popleft()
            params = dict(parse_qsl(request.body.decode(), keep_blank_values=True))
            return HTTPResponse.json(201, self._create_message(params))
        except _TwilioError as error:
            return error.response()

    def _authenticate(self, request: HTTPRequest) -> None:
        scheme, _, encoded = request.headers.get("authorization", "").partition(" ")
        try:
            credentials = base64.b64decode(encoded, validate=True).decode()
        except ValueError:
            credentials = ""
        if scheme.lower() != "basic" or credentials != f"{self.account_sid}:{self.auth_token}":
            raise _TwilioError(401, 20003, "Authenticate")

    def _create_message(self, params: dict[str, str]) -> JSON:
        to = params.get("To", "")
        from_ = params.get("From") or None
        service = params.get("MessagingServiceSid") or None
        body = params.get("Body", "")
        if not to:
            raise _TwilioError(400, 21604, "A 'To' phone number is required.")
        if not from_ and not service:
            raise _TwilioError(400, 21603, "A 'From' phone number is required.")
        if service and not re.fullmatch(r"MG[0-9a-f]{32}", service):
            raise _TwilioError(400, 21701, f"The Messaging Service Sid {service} is invalid.")
        if not body and "MediaUrl" not in params and "ContentSid" not in params:
            raise _TwilioError(400, 21602, "Message body is required.")
        if len(body) > 1600:
            raise _TwilioError(400, 21617, "The concatenated message body exceeds the 1600 character limit.")
        with self._cond:
            if to in self._invalid or not _E164.fullmatch(to):
                raise _TwilioError(400, 21211, f"The 'To' number {to} is not a valid phone number.")
            if to in self._opted_out:
                raise _TwilioError(400, 21610, "Attempt to send to unsubscribed recipient")
            sid = "SM" + uuid.uuid4().hex
            uri = f"/2010-04-01/Accounts/{self.account_sid}/Messages/{sid}.json"
            now = format_datetime(datetime.now(UTC))
            segments = num_segments(body)
            resource: JSON = {
                "account_sid": self.account_sid,
                "api_version": "2010-04-01",
                "body": body,
                "date_created": now,
                "date_sent": None,
                "date_updated": now,
                "direction": "outbound-api",
                "error_code": None,
                "error_message": None,
                "from": from_,
                "messaging_service_sid": service,
                "num_media": "0",
                "num_segments": str(segments),
                "price": None,
                "price_unit": "USD",
                "sid": sid,
                "status": "accepted" if service else "queued",
                "subresource_uris": {"media": uri.removesuffix(".json") + "/Media.json"},
                "to": to,
                "uri": uri,
            }
            self._sent.append(
                SentSMS(
                    sid,
                    to,
                    from_,
                    service,
                    body,
                    params.get("StatusCallback"),
                    segments,
                    time.monotonic(),
                    resource,
                )
            )
            self._cond.notify_all()
        return resource

    def inbound_sms(self, from_: str, to: str, body: str) -> dict[str, str]:
        """The form fields Twilio POSTs to the app's SMS webhook for an incoming message."""
        sid = "SM" + uuid.uuid4().hex
        return {
            "ToCountry": "US",
            "SmsMessageSid": sid,
            "NumMedia": "0",
            "SmsSid": sid,
            "SmsStatus": "received",
            "Body": body,
            "To": to,
            "NumSegments": str(num_segments(body)),
            "MessageSid": sid,
            "AccountSid": self.account_sid,
            "From": from_,
            "ApiVersion": "2010-04-01",
        }

    def status_callback(self, sid: str, status: str, error_code: str = "") -> dict[str, str]:
        """The form fields Twilio POSTs to a sent message's ``StatusCallback`` as it goes
        (``sent``, ``delivered``; ``undelivered`` or ``failed`` with an ``ErrorCode``)."""
        with self._cond:
            sent = next(m for m in self._sent if m.sid == sid)
        params = {
            "SmsSid": sid,
            "SmsStatus": status,
            "MessageStatus": status,
            "To": sent.to,
            "MessageSid": sid,
            "AccountSid": self.account_sid,
            "From": sent.from_ or "",
            "ApiVersion": "2010-04-01",
        }
        if error_code:
            params["ErrorCode"] = error_code
        return params


class RedirectingHttpClient(TwilioHttpClient):
    """A real TwilioHttpClient that sends ``*.twilio.com`` requests to ``target`` instead."""

    def __init__(self, target: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.target = urlsplit(target)

    def request(
        self,
        method: str,
        url: str,
        params: dict[str, object] | None = None,
        data: dict[str, object] | None = None,
        headers: dict[str, str] | None = None,
        auth: tuple[str, str] | None = None,
        timeout: float | None = None,
        allow_redirects: bool = False,
    ) -> Response:
        parts = urlsplit(url)
        host = parts.hostname or ""
        if host == "twilio.com" or host.endswith(".twilio.com"):
            url = urlunsplit(parts._replace(scheme=self.target.scheme, netloc=self.target.netloc))
        return super().request(method, url, params, data, headers, auth, timeout, allow_redirects)


def client(fake: FakeTwilio) -> Client:
    """A real ``twilio.rest.Client`` with the fake's credentials, talking to the fake."""
    return Client(fake.account_sid, fake.auth_token, http_client=fake.http_client())


def sign(url: str, params: dict[str, str], auth_token: str = DEFAULT_AUTH_TOKEN) -> str:
    """The ``X-Twilio-Signature`` Twilio would send when POSTing ``params`` to ``url``.

    ``url`` must be the full URL the app sees (for Django's test client e.g.
    ``http://testserver/sms/inbound``), since that is what the signature covers.
    """
    return RequestValidator(auth_token).compute_signature(url, params)


def num_segments(body: str) -> int:
    """How many SMS segments Twilio bills for ``body`` (GSM-7 vs UCS-2, concatenation headers)."""
    if all(c in _GSM7_BASIC or c in _GSM7_EXTENDED for c in body):
        septets = sum(2 if c in _GSM7_EXTENDED else 1 for c in body)
        return 1 if septets <= 160 else math.ceil(septets / 153)
    units = len(body.encode("utf-16-le")) // 2
    return 1 if units <= 70 else math.ceil(units / 67)


# The address Twilio posts inbound texts to, and the number gin3 texts from, in the tests.
PUBLIC_URL = "https://gin3.example.org/sms/inbound/"
OUR_NUMBER = "+15550009999"


@contextlib.contextmanager
def sms_switched_on(settings, backends: dict[str, str]) -> Iterator[FakeTwilio]:
    """A running fake Twilio that the real client talks to, and pytest-django's
    ``settings`` set for SMS: its credentials, our number and public URL, and the
    delivery ``backends`` by channel (the real TwilioBackend, or memory)."""
    with FakeTwilio() as fake, fake.redirect_default_clients():
        settings.TWILIO_ACCOUNT_SID = fake.account_sid
        settings.TWILIO_AUTH_TOKEN = fake.auth_token
        settings.TWILIO_FROM_NUMBER = OUR_NUMBER
        settings.TWILIO_MESSAGING_SERVICE_SID = ""
        settings.SMS_ENABLED = True
        settings.SMS_PUBLIC_URL = PUBLIC_URL
        settings.GIN3_BACKENDS = {**settings.GIN3_BACKENDS, **backends}
        yield fake
