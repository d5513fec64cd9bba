"""Telegram's webhook (``/telegram/webhook/``): the same updates as long polling,
posted to the site, behind the shared secret Telegram sends with each call."""

from __future__ import annotations

import json
import logging
import re

import pytest
from django.test import Client

from games.models import Match, Outbox, Player, ProcessedUpdate
from tests.fakes.telegram_api import FakeTelegram, FakeUser
from tests.telegram_harness import BOT, SECRET, VisibilityCheck, choose, deliver_all, fixed_deals, table_of

URL = "/telegram/webhook/"


def post(update: object, secret: str | None = SECRET, body: bytes | None = None):
    headers = {} if secret is None else {"X-Telegram-Bot-Api-Secret-Token": secret}
    data = body if body is not None else json.dumps(update)
    return Client().post(URL, data=data, content_type="application/json", headers=headers)


def say(user: FakeUser, text: str) -> None:
    assert post(user.message_update(text)).status_code == 200
    deliver_all()


def press(tg: FakeTelegram, user: FakeUser, data: str) -> dict:
    """Press a button on the user's table; return the webhook's answer to the press."""
    response = post(user.callback_update(table_of(tg, user), data))
    assert response.status_code == 200
    deliver_all()
    return response.json()


@pytest.mark.django_db
@pytest.mark.parametrize("secret", [None, "", "wrong", SECRET + "x"])
def test_a_forged_update_is_refused(tg, secret):
    response = post(tg.user(1001, "Mallory").message_update("new"), secret=secret)
    assert response.status_code == 403
    assert not ProcessedUpdate.objects.exists() and not Match.objects.exists()


@pytest.mark.django_db
def test_no_update_is_taken_while_no_secret_is_set(tg, settings):
    settings.TELEGRAM_WEBHOOK_SECRET = ""
    assert post(tg.user(1001, "Mallory").message_update("new"), secret="").status_code == 403


@pytest.mark.django_db
@pytest.mark.parametrize(
    "body", [b"{not json", b"\xff\xfe", b"[1, 2]", b'{"update_id": "7"}', b'{"update_id": 7, "message": 5}']
)
def test_what_is_not_an_update_gets_400(tg, body):
    assert post(None, body=body).status_code == 400


@pytest.mark.django_db
def test_only_post_is_allowed(tg):
    assert Client().get(URL, headers={"X-Telegram-Bot-Api-Secret-Token": SECRET}).status_code == 405


@pytest.mark.django_db
def test_an_update_of_another_kind_is_ignored(tg):
    alice = tg.user(1001, "Alice")
    update = tg.make_update(edited_message=alice.message_update("new")["message"])
    assert post(update).status_code == 200
    assert not Outbox.objects.exists()


@pytest.mark.django_db
def test_a_replayed_update_has_no_second_effect(tg):
    alice, bob, carol = tg.user(1001, "Alice"), tg.user(1002, "Bob"), tg.user(1003, "Carol")
    update = alice.message_update("new to 50")
    assert post(update).status_code == 200
    assert post(update).status_code == 200  # Telegram resends what it thinks was lost
    assert Match.objects.count() == 1 and Outbox.objects.count() == 1
    code = Match.objects.get().code
    say(bob, f"join {code}")
    say(carol, f"join {code}")
    match = Match.objects.get()
    to_move = match.seats.get(position=match.turn_seat).player.telegram_user_id
    mover = next(user for user in (alice, bob, carol) if user.id == to_move)
    data = choose(match, table_of(tg, mover).callback_data)
    pressed = mover.callback_update(table_of(tg, mover), data)
    assert post(pressed).json()["method"] == "answerCallbackQuery"
    match.refresh_from_db()
    state = (match.version, match.events.count(), Outbox.objects.count())
    assert post(pressed).status_code == 200
    match.refresh_from_db()
    assert (match.version, match.events.count(), Outbox.objects.count()) == state


@pytest.mark.slow
@pytest.mark.django_db
def test_a_match_played_through_the_webhook(tg, monkeypatch):
    """Create and join (by the invite link), then play by buttons and text to the
    end; every press is answered in the webhook's response."""
    fixed_deals(monkeypatch, seed=18)  # a short match: one hand
    alice, bob, carol = tg.user(1001, "Alice", "alice"), tg.user(1002, "Bob"), tg.user(1003, "Carol")
    say(alice, "/new 5m to 50")
    invite = tg.last_message_to(alice.id).plain_text
    code = re.search(r"#([A-Z0-9]{4,8})", invite)[1]
    assert f"https://t.me/{BOT}?start=join_{code}" in invite
    say(bob, f"/start join_{code}")
    say(carol, f"/start@{BOT} join_{code}")
    users = {user.id: user for user in (alice, bob, carol)}
    match = Match.objects.get(code=code)
    check = VisibilityCheck(tg)
    turn = 0
    while match.status == Match.Status.RUNNING:
        user = users[match.seats.get(position=match.turn_seat).player.telegram_user_id]
        data = choose(match, table_of(tg, user).callback_data)
        if turn % 2:
            say(user, data.split(" ", 1)[1])
        else:
            answer = press(tg, user, data)
            assert answer["method"] == "answerCallbackQuery" and answer["text"]
        check()
        match.refresh_from_db()
        turn += 1
        assert turn < 200
    assert all(any("wins the match" in m.plain_text for m in tg.messages_to(user_id)) for user_id in users)
    assert tg.violations == []


# Odd input ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_json_nested_past_pythons_stack_gets_400_not_a_500(tg):
    body = b'{"update_id": 7, "message": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    assert post(None, body=body).status_code == 400


@pytest.mark.django_db
def test_a_first_name_with_nul_and_control_characters_is_registered_cleaned(tg):
    user = tg.user(1001, "Ann\x00\x1b[31m\u202e Lee\n", username="ann\x00")
    assert post(user.message_update("help")).status_code == 200
    player = Player.objects.get(telegram_user_id=1001)
    assert (player.display_name, player.telegram_username) == ("Ann[31m Lee", "ann")
    assert ProcessedUpdate.objects.filter(key__startswith="tg:").count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize("user_id", [10**20, -(2**63) - 1, 2**63])
def test_a_user_id_out_of_range_is_refused_with_a_log_line(tg, caplog, user_id):
    update = tg.user(user_id, "Huge").message_update("new")
    with caplog.at_level(logging.WARNING, logger="bot.telegram.views"):
        response = post(update)
    assert response.status_code == 400
    assert f"user id {user_id} is out of range" in caplog.text
    assert not Player.objects.exists() and not ProcessedUpdate.objects.exists()


@pytest.mark.django_db
def test_an_update_id_out_of_range_is_refused(tg):
    update = {**tg.user(1001, "Ann").message_update("new"), "update_id": 10**30}
    assert post(update).status_code == 400
    assert not ProcessedUpdate.objects.exists()
