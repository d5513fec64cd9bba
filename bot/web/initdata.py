"""Telegram's initData: who opened a Mini App, signed by Telegram (core.telegram.org/bots/webapps).

Telegram hands the page's script a query string (``user=...&auth_date=...&hash=...``)
that only Telegram can sign: ``hash`` is the HMAC-SHA256 of every other field,
sorted by name as ``name=value`` lines, under a key that is itself the HMAC-SHA256
of the bot's token keyed with ``WebAppData``. Only the server knows the token, so a
forged or altered string fails the check; ``auth_date`` says when Telegram signed
it, so that a string copied from an old session is refused too.

>>> token = "123:ABC"
>>> fields = {"auth_date": "1700000000", "user": '{"id": 7, "first_name": "Ann"}'}
>>> check(sign(fields, token), token, max_age=60, now=1700000030).user_id
7
>>> check(sign(fields, token), token, max_age=60, now=1700000090)
Traceback (most recent call last):
...
bot.web.initdata.InvalidInitData: stale
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from enum import StrEnum
from urllib.parse import parse_qsl, urlencode

CLOCK_SKEW = 300  # seconds a client's clock may be ahead of ours: a later auth_date is refused


class Flaw(StrEnum):
    """Why initData was refused: the words for each are the page's (``views.REFUSALS``)."""

    MISSING = "missing"  # not given, not a query string, or without a user
    FORGED = "forged"  # its hash is not Telegram's for these fields: made up, or altered after signing
    STALE = "stale"  # signed longer ago than the page may use it


class InvalidInitData(ValueError):
    def __init__(self, flaw: Flaw) -> None:
        super().__init__(flaw.value)
        self.flaw = flaw


@dataclass(frozen=True)
class InitData:
    """What a checked initData says: the Telegram user who opened the page, and when."""

    user_id: int
    first_name: str
    language_code: str
    auth_date: int


def secret_key(bot_token: str) -> bytes:
    return hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()


def data_check_string(fields: dict[str, str]) -> str:
    return "\n".join(f"{name}={value}" for name, value in sorted(fields.items()))


def signature(fields: dict[str, str], bot_token: str) -> str:
    """The hash Telegram puts on ``fields`` (all but ``hash`` itself)."""
    return hmac.new(secret_key(bot_token), data_check_string(fields).encode(), hashlib.sha256).hexdigest()


def sign(fields: dict[str, str], bot_token: str) -> str:
    """``fields`` as Telegram would hand them to the page, signed: for tests and the fake client."""
    return urlencode({**fields, "hash": signature(fields, bot_token)})


def check(init_data: str, bot_token: str, max_age: int, now: float) -> InitData:
    """The user and time of ``init_data`` if Telegram signed it with ``bot_token`` no
    more than ``max_age`` seconds before ``now``; else ``InvalidInitData``."""
    if not init_data or not bot_token:
        raise InvalidInitData(Flaw.MISSING)
    try:
        pairs = parse_qsl(init_data, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise InvalidInitData(Flaw.MISSING) from None
    fields = dict(pairs)
    if len(fields) != len(pairs):  # a field given twice: which one was signed?
        raise InvalidInitData(Flaw.FORGED)
    given = fields.pop("hash", "")
    if not hmac.compare_digest(signature(fields, bot_token).encode(), given.encode()):
        raise InvalidInitData(Flaw.FORGED)
    try:
        auth_date = int(fields["auth_date"])
        user = json.loads(fields["user"])
        user_id = int(user["id"])
    except (KeyError, ValueError, TypeError):
        raise InvalidInitData(Flaw.MISSING) from None
    if not now - max_age <= auth_date <= now + CLOCK_SKEW:
        raise InvalidInitData(Flaw.STALE)
    return InitData(user_id, str(user.get("first_name", "")), str(user.get("language_code", "")), auth_date)
