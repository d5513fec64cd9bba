"""Errors and logs: Sentry gets what failed but no card, message text or phone number;
every request has an access log line; LOG_FORMAT=json writes one object a line.

Sentry's events are caught by a transport of the test's own (no network), after
the SDK has done everything it does before sending: integrations, scrubbing,
``before_send``.
"""

from __future__ import annotations

import io
import json
import logging
from urllib.parse import urlencode

import pytest
import sentry_sdk
from django.test import Client
from sentry_sdk.envelope import Envelope
from sentry_sdk.transport import Transport

from gin3site.errors import scrubbed, sentry_options
from gin3site.logs import JsonFormatter
from tests.fakes.twilio_api import OUR_NUMBER, PUBLIC_URL, sign, sms_switched_on

PHONE = "+15550001234"
BODY = "hello partner, discard 7h and keep the Q♠"


class Captured(Transport):
    def __init__(self) -> None:
        super().__init__()
        self.envelopes: list[Envelope] = []

    def capture_envelope(self, envelope: Envelope) -> None:
        self.envelopes.append(envelope)

    def sent(self) -> str:
        """Everything Sentry would have sent, as one text."""
        return "\n".join(item.get_bytes().decode() for envelope in self.envelopes for item in envelope.items)


@pytest.fixture
def sentry():
    transport = Captured()
    sentry_sdk.init(**sentry_options("https://public@sentry.example.org/1"), transport=transport)
    # Only what this test logs: the breadcrumbs of earlier tests in this process (in any
    # order, under pytest-xdist) hold their own players' words.
    for scope in (sentry_sdk.get_global_scope(), sentry_sdk.get_isolation_scope(), sentry_sdk.get_current_scope()):
        scope.clear_breadcrumbs()
    try:
        yield transport
    finally:
        sentry_sdk.init()  # off again: no DSN


def test_a_failed_sms_webhook_reaches_sentry_without_the_text_the_number_or_a_card(sentry, settings, db, monkeypatch):
    def broken(phone: str, body: str, sid: str) -> list[str]:
        raise RuntimeError(f"could not carry out {body!r} from {phone}: the card 7h is not in the hand")

    monkeypatch.setattr("bot.sms_views.receive", broken)
    with sms_switched_on(settings, {}) as fake:
        params = fake.inbound_sms(PHONE, OUR_NUMBER, BODY)
        response = Client().post(
            "/sms/inbound/",
            urlencode(params),
            content_type="application/x-www-form-urlencoded",
            HTTP_X_TWILIO_SIGNATURE=sign(PUBLIC_URL, params, fake.auth_token),
        )
    assert response.status_code == 200
    sentry_sdk.flush()
    sent = sentry.sent()
    assert "RuntimeError" in sent and "could not carry out" in sent  # what failed, and where
    for secret in (PHONE, "hello partner", "7h", "Q♠", fake.auth_token, params["MessageSid"]):
        assert secret not in sent, secret
    assert "[card]" in sent and "[phone]" in sent


def test_a_logged_error_reaches_sentry_with_cards_and_numbers_scrubbed(sentry):
    logging.getLogger("games.services.plumbing.delivery").error(
        "message to %s failed: %s", "+447700900123", "your hand 7h 8h 9h 10d Q♠"
    )
    sentry_sdk.flush()
    sent = sentry.sent()
    assert "message to [phone] failed" in sent
    assert "+447700900123" not in sent and "7h 8h" not in sent and "Q♠" not in sent


def test_fields_named_like_a_players_words_are_filtered_at_any_depth(sentry):
    with sentry_sdk.new_scope() as scope:
        scope.set_extra("outbox", {"id": 12, "text": "Your move: you hold 7h", "address": "5001"})
        sentry_sdk.capture_message("delivery stuck")
    sentry_sdk.flush()
    sent = sentry.sent()
    assert "delivery stuck" in sent and "Your move" not in sent and "5001" not in sent


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("discard 7h", "discard [card]"),
        ("10d Qs As 2c", "[card] [card] [card] [card]"),
        ("7♥ and K♣", "[card] and [card]"),
        ("As the sitter, ask", "As the sitter, ask"),  # a word, not a card
        ("call +15550001234 now", "call [phone] now"),
        ("match 1234 at 2026-12-02 06:08", "match 1234 at 2026-12-02 06:08"),
    ],
)
def test_what_is_scrubbed_from_a_string(text, expected):
    assert scrubbed(text) == expected


def test_every_request_has_an_access_log_line(db, caplog):
    with caplog.at_level(logging.INFO, logger="gin3.access"):
        Client().get("/?page=2")
    (record,) = [r for r in caplog.records if r.name == "gin3.access"]
    assert (record.method, record.path, record.status) == ("GET", "/", 200)
    assert record.duration_ms >= 0
    assert record.getMessage().startswith("GET / 200 ")


def test_log_format_json_writes_one_object_a_line_with_the_extra_fields():
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("gin3.test.json")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning("GET %s %s", "/", 200, extra={"method": "GET", "status": 200})
        try:
            raise ValueError("broken")
        except ValueError:
            logger.exception("failed")
    finally:
        logger.removeHandler(handler)
    first, second = (json.loads(line) for line in stream.getvalue().splitlines())
    assert first["message"] == "GET / 200" and first["level"] == "WARNING" and first["logger"] == "gin3.test.json"
    assert first["method"] == "GET" and first["status"] == 200 and "time" in first
    assert second["message"] == "failed" and "ValueError: broken" in second["exception"]
