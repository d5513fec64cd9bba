"""The table as a Telegram Mini App: an "Open table" button on every table a player is
sent, through the real bot and TelegramBackend against the fake Bot API.

Why: Telegram hands a page the signed initData only when the page is opened from a
``web_app`` button (or a Mini App link); the button is how a Telegram player reaches
his table, and Telegram refuses the message whole if the button is not one it takes."""

from __future__ import annotations

import pytest
from django.utils import translation
from django.utils.translation import gettext
from telegram import WebAppInfo

from bot.backends.telegram import MOVE_BUTTON, keyboard
from games.models import Match
from games.services import handle
from games.services.write.players import telegram_player
from tests.fakes.telegram_api import FakeTelegram, _ApiError, _check_web_apps
from tests.telegram_harness import deliver_all

pytestmark = pytest.mark.any_database

SITE = "https://gin3.example"


@pytest.fixture
def mini_app(settings):
    settings.GIN3_SITE_URL = SITE
    settings.TELEGRAM_MINI_APP = True


def tables_to(tg: FakeTelegram, user_id: int):
    """His tables: what carries a move or the Mini App (not the zone choice, nor the offer of a computer player)."""
    return [
        message
        for message in tg.messages_to(user_id)
        if message.web_apps or any(MOVE_BUTTON.match(data) for data in message.callback_data)
    ]


@pytest.mark.django_db(transaction=True)
def test_every_table_a_player_gets_has_an_open_table_button(tg, people, mini_app):
    ann, bob, cy = tg.user(1001, "Ann"), tg.user(1002, "Bob"), tg.user(1003, "Cy")
    people.say(ann, "/new")
    code = Match.objects.get().code
    people.say(bob, f"/join {code}")
    people.say(cy, f"/join {code}")
    bob_player = telegram_player(1002, 1002, "Bob")
    bob_player.language = "he"
    bob_player.save(update_fields=["language"])
    people.say(bob, "status")
    for user in (ann, bob, cy):
        tables = tables_to(tg, user.id)
        assert tables, f"{user.first_name} got his table"
        for message in tables:
            [(_label, url)] = message.web_apps
            assert url.startswith(f"{SITE}/t/{code}/?lang=")
        assert all(f"#{code}" in message.plain_text for message in tg.messages_to(user.id) if message.web_apps)
    label, url = tables_to(tg, bob.id)[-1].web_apps[0]
    with translation.override("he"):
        assert (label, url) == (gettext("Open table"), f"{SITE}/t/{code}/?lang=he"), "in his language"
    assert label != "Open table"


@pytest.mark.django_db(transaction=True)
def test_without_an_https_address_tables_have_no_open_table_button(tg, people, settings):
    settings.GIN3_SITE_URL = "http://127.0.0.1:8000"
    settings.TELEGRAM_MINI_APP = False
    ann = tg.user(1001, "Ann")
    people.say(ann, "/new")
    handle(telegram_player(1001, 1001, "Ann"), "bot", "telegram")
    handle(telegram_player(1001, 1001, "Ann"), "bot", "telegram")
    deliver_all()
    tables = [message for message in tg.messages_to(1001) if "Pile " in message.plain_text]
    assert tables and not any(message.web_apps for message in tg.messages_to(1001))


def test_a_web_app_button_becomes_telegrams_web_app_button():
    markup = keyboard([[{"text": "take", "data": "#K7Q2@3 take"}], [{"text": "Open table", "web_app": SITE}]])
    take, open_table = markup.inline_keyboard[0][0], markup.inline_keyboard[1][0]
    assert take.callback_data == "#K7Q2@3 take" and take.web_app is None
    assert open_table.web_app == WebAppInfo(SITE) and open_table.callback_data is None


@pytest.mark.parametrize(
    ("url", "chat_type", "said"),
    [("http://gin3.example/t/K7Q2/", "private", "Only HTTPS"), (f"{SITE}/t/K7Q2/", "group", "BUTTON_TYPE_INVALID")],
)
def test_the_fake_refuses_a_web_app_button_as_telegram_does(url, chat_type, said):
    markup = {"inline_keyboard": [[{"text": "Open table", "web_app": {"url": url}}]]}
    with pytest.raises(_ApiError, match=said):
        _check_web_apps(markup, {"type": chat_type})
