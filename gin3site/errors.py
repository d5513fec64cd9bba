"""Error tracking with Sentry, when ``SENTRY_DSN`` is set: with nothing of a game in it.

``sentry-sdk`` with its Django and Celery integrations reports every uncaught
exception and every ERROR logged (a webhook that failed is logged and
answered, so without this it is seen by nobody). What it would send is
scrubbed first, since a stack trace of gin3 is full of players' words:

- every string of the request's body (a webhook's body is a player's message,
  his name, his number) is cut out of everything else in the event, wherever
  it was repeated (an exception's message, a log line), and the body itself,
  the cookies, the query string and the headers that may carry a secret are
  not sent;
- no local variables of stack frames (a hand's cards, a message's text);
- in every string left, a card (``7h``, ``Q♠``) and a phone number becomes
  ``[card]`` and ``[phone]``;
- any field named like what a player wrote or holds (``text``, ``body``,
  ``phone``, ``deck``...) is ``[Filtered]``, at any depth;
- no user or IP address (Sentry's personal data stays off).
"""

from __future__ import annotations

import re
from typing import Any

CARD = re.compile(r"(?<![\w])(?!A[sh] [a-z])(?:10|[2-9TJQKA])[hdcs♥♦♣♠](?![\w])")  # not "As the sitter"
PHONE = re.compile(r"\+\d{6,15}")
SAFE_HEADERS = frozenset({"content-type", "content-length", "user-agent", "host"})
WORDS_OF_A_GAME = frozenset(
    {"text", "body", "phone", "from", "to", "address", "chat_id", "deck", "salt", "hand", "cards"}
)
SHORTEST_CUT = 4  # what a request carried is cut out of the event from this length on


def scrubbed(value: Any, cut: tuple[str, ...] = ()) -> Any:
    """``value`` with ``cut`` and every card and phone number taken out of its strings,
    and the fields named in ``WORDS_OF_A_GAME`` filtered, at any depth."""
    if isinstance(value, str):
        for secret in cut:
            value = value.replace(secret, "[redacted]")
        return PHONE.sub("[phone]", CARD.sub("[card]", value))
    if isinstance(value, dict):
        return {
            key: "[Filtered]" if str(key).lower() in WORDS_OF_A_GAME and item else scrubbed(item, cut)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [scrubbed(item, cut) for item in value]
    return value


def strings_in(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if len(value) >= SHORTEST_CUT else []
    if isinstance(value, dict):
        return [text for item in value.values() for text in strings_in(item)]
    if isinstance(value, list | tuple):
        return [text for item in value for text in strings_in(item)]
    return []


def before_send(event: dict[str, Any], hint: dict[str, Any]) -> dict[str, Any]:
    cut: list[str] = []
    request = event.get("request")
    if isinstance(request, dict):
        cut = strings_in(request.pop("data", None)) + strings_in(request.pop("query_string", None))
        for part in ("cookies", "env"):
            request.pop(part, None)
        headers = request.get("headers") or {}
        request["headers"] = {name: value for name, value in headers.items() if name.lower() in SAFE_HEADERS}
    event.pop("user", None)
    return scrubbed(event, tuple(sorted(set(cut), key=len, reverse=True)))


def before_breadcrumb(crumb: dict[str, Any], hint: dict[str, Any]) -> dict[str, Any]:
    return scrubbed(crumb)


def sentry_options(dsn: str, environment: str = "", release: str = "") -> dict[str, Any]:
    """The arguments of ``sentry_sdk.init`` (a test adds a transport of its own)."""
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.django import DjangoIntegration

    return {
        "dsn": dsn,
        "environment": environment or None,
        "release": release or None,
        "integrations": [DjangoIntegration(), CeleryIntegration()],
        "include_local_variables": False,
        # Read, to be cut out of the rest of the event, and never sent (before_send).
        "max_request_body_size": "medium",
        "before_send": before_send,
        "before_breadcrumb": before_breadcrumb,
    }


def start_sentry(dsn: str, environment: str = "", release: str = "") -> None:
    import sentry_sdk

    sentry_sdk.init(**sentry_options(dsn, environment, release))
