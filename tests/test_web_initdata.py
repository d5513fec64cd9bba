"""Telegram's initData, checked as Telegram specifies (core.telegram.org/bots/webapps):
HMAC-SHA256 under a key derived from the bot's token, and ``auth_date`` recent.

Why: the Mini App's requests say who the player is only through initData; a page
that could make it up, change it or reuse an old one could play as anyone."""

from __future__ import annotations

import hashlib
import hmac
import json
from urllib.parse import quote, urlencode

import pytest

from bot.web.initdata import CLOCK_SKEW, Flaw, InvalidInitData, check, sign

TOKEN = "123456:ABC-real-token"
NOW = 1_800_000_000
USER = json.dumps({"id": 7001, "first_name": "Ann", "language_code": "mk"}, separators=(",", ":"))


def fields(auth_date: int = NOW, **more: str) -> dict[str, str]:
    return {"query_id": "AAHdF6IQAAAAAN0XohDhrOrc", "user": USER, "auth_date": str(auth_date), **more}


def refused(init_data: str, token: str = TOKEN, max_age: int = 3600) -> Flaw:
    with pytest.raises(InvalidInitData) as raised:
        check(init_data, token, max_age=max_age, now=NOW)
    return raised.value.flaw


def test_init_data_signed_by_telegram_names_its_user():
    data = check(sign(fields(), TOKEN), TOKEN, max_age=3600, now=NOW)
    assert (data.user_id, data.first_name, data.language_code, data.auth_date) == (7001, "Ann", "mk", NOW)


def test_the_check_is_telegrams_own_recipe_written_out():
    """The data-check-string is the fields but hash, sorted, as key=value lines; the key is
    HMAC-SHA256 of the token keyed with "WebAppData"; the hash the hex HMAC-SHA256 of the string."""
    given = fields()
    data_check_string = "\n".join(f"{key}={given[key]}" for key in sorted(given))
    secret = hmac.new(b"WebAppData", TOKEN.encode(), hashlib.sha256).digest()
    digest = hmac.new(secret, data_check_string.encode(), hashlib.sha256).hexdigest()
    assert check(urlencode({**given, "hash": digest}), TOKEN, max_age=3600, now=NOW).user_id == 7001


def test_a_field_telegram_adds_later_is_signed_and_checked_like_the_others():
    signed = sign(fields(signature="abc", chat_type="private"), TOKEN)
    assert check(signed, TOKEN, max_age=3600, now=NOW).user_id == 7001
    assert refused(signed.replace("chat_type=private", "chat_type=group")) is Flaw.FORGED


def test_init_data_signed_with_another_token_is_forged():
    assert refused(sign(fields(), "654321:another-bot")) is Flaw.FORGED


def test_init_data_with_its_user_changed_after_signing_is_refused():
    other = USER.replace("7001", "7002")
    altered = sign(fields(), TOKEN).replace(quote(USER, safe=""), quote(other, safe=""))
    assert "7002" in altered
    assert refused(altered) is Flaw.FORGED


def test_init_data_with_its_date_moved_forward_is_refused():
    altered = sign(fields(auth_date=NOW - 7200), TOKEN).replace(str(NOW - 7200), str(NOW))
    assert refused(altered) is Flaw.FORGED


def test_init_data_older_than_its_lifetime_is_stale():
    assert refused(sign(fields(auth_date=NOW - 3601), TOKEN)) is Flaw.STALE
    assert check(sign(fields(auth_date=NOW - 3600), TOKEN), TOKEN, max_age=3600, now=NOW).user_id == 7001


def test_init_data_from_the_future_is_refused():
    assert refused(sign(fields(auth_date=NOW + CLOCK_SKEW + 1), TOKEN)) is Flaw.STALE


@pytest.mark.parametrize(
    "init_data",
    [
        "",
        "not a query string",
        "hash=",
        urlencode({"user": USER, "auth_date": str(NOW)}),  # no hash at all
        urlencode({"user": USER, "auth_date": str(NOW), "hash": "é" * 64}),  # not even hex
    ],
)
def test_init_data_that_is_no_signed_data_is_refused(init_data):
    assert refused(init_data) in (Flaw.MISSING, Flaw.FORGED)


def test_signed_init_data_without_a_user_says_nobody():
    assert refused(sign({"auth_date": str(NOW), "query_id": "x"}, TOKEN)) is Flaw.MISSING
    assert refused(sign(fields(user="[1, 2]"), TOKEN)) is Flaw.MISSING


def test_a_field_given_twice_is_refused_though_one_of_them_was_signed():
    signed = sign(fields(), TOKEN)
    assert refused(signed + "&user=" + quote(USER.replace("7001", "7002"))) is Flaw.FORGED


def test_without_a_bot_token_nothing_is_accepted():
    assert refused(sign(fields(), ""), token="") is Flaw.MISSING
