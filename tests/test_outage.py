"""A database that refuses connections in the middle of a running game loses no
player's command: an update that was not recorded is never
acknowledged, and once the database is back the update sent again is applied
exactly once.

The database is made really unreachable (tests/outage.py): on PostgreSQL a TCP
proxy between Django and the server is cut, on SQLite the file is taken away.
Each test runs on the database of the run, so CI covers both.
"""

from __future__ import annotations

import json
import time
from urllib.parse import urlencode
from xml.etree import ElementTree

import pytest
from django.test import Client

from bot.telegram import polling
from games.models import Event, Match, ProcessedUpdate
from games.services import handle
from games.services.write.players import phone_player, telegram_player
from tests.conftest import code_in, mover, refresh, run_computers, safe_action
from tests.fakes.twilio_api import OUR_NUMBER, PUBLIC_URL, FakeTwilio, sign, sms_switched_on
from tests.outage import DatabaseOutage
from tests.telegram_harness import SECRET, PollingBot

pytestmark = pytest.mark.django_db(transaction=True)

WEBHOOK = "/telegram/webhook/"
SAM = "+15550001234"
AGAIN = "gin3 could not take that, please send it again in a minute."


@pytest.fixture
def outage():
    with DatabaseOutage() as outage:
        yield outage


def match_against_computers(player, channel: str) -> Match:
    """A running match of ``player`` and two computers, at ``player``'s turn."""
    for _attempt in range(20):
        code = code_in(handle(player, "new 5m to 50", channel))
        handle(player, "bot", channel)
        handle(player, "bot", channel)
        match = Match.objects.get(code=code)
        run_computers(match)
        match = refresh(match)
        if match.status == Match.Status.RUNNING and mover(match) == player:
            return match
    raise AssertionError("the computers kept winning")


def moves_by(player, match: Match) -> int:
    return Event.objects.filter(match=match, kind=Event.Kind.MOVE, actor=player).count()


def post_update(update: dict, secret: str = SECRET, body: bytes | None = None):
    return Client().post(
        WEBHOOK,
        data=body if body is not None else json.dumps(update),
        content_type="application/json",
        headers={"X-Telegram-Bot-Api-Secret-Token": secret},
    )


def test_a_webhook_update_the_database_could_not_take_gets_503_and_its_resend_is_applied_once(tg, outage):
    user = tg.user(5001, "Tess", username="tess")
    tess = telegram_player(user_id=user.id, chat_id=user.id, name="Tess", username="tess", language="en")
    match = match_against_computers(tess, "telegram")
    before, version = moves_by(tess, match), refresh(match).version
    update = user.message_update(str(safe_action(match)))

    outage.cut()
    assert post_update(update).status_code == 503
    assert post_update(update).status_code == 503  # Telegram's resend while it is still down
    # What needs no database is refused as before.
    assert post_update(update, secret="forged").status_code == 403
    assert post_update(None, body=b"{not json").status_code == 400
    outage.restore()

    assert not ProcessedUpdate.objects.filter(key=f"tg:{update['update_id']}").exists()
    assert moves_by(tess, match) == before and refresh(match).version == version
    assert post_update(update).status_code == 200
    assert post_update(update).status_code == 200  # a resend after it was recorded does nothing
    assert moves_by(tess, match) == before + 1
    assert ProcessedUpdate.objects.filter(key=f"tg:{update['update_id']}").count() == 1


@pytest.fixture
def twilio(settings):
    settings.GIN3_BACKGROUND = "off"
    with sms_switched_on(settings, {"sms": "bot.backends.memory.MemoryBackend"}) as fake:
        yield fake


def text(twilio: FakeTwilio, body: str) -> tuple[dict, list[str]]:
    """SAM texts ``body``, signed as Twilio signs it; the form and the TwiML answer's texts."""
    params = twilio.inbound_sms(SAM, OUR_NUMBER, body)
    response = Client().post(
        "/sms/inbound/",
        urlencode(params),
        content_type="application/x-www-form-urlencoded",
        HTTP_X_TWILIO_SIGNATURE=sign(PUBLIC_URL, params, twilio.auth_token),
    )
    assert response.status_code == 200, response.content
    root = ElementTree.fromstring(response.content)
    return params, [message.text or "" for message in root.findall("Message")]


def test_a_text_the_database_could_not_take_is_answered_send_it_again_and_the_resend_is_applied_once(twilio, outage):
    sam, _created = phone_player(SAM)
    match = match_against_computers(sam, "sms")
    before = moves_by(sam, match)
    move = str(safe_action(match))

    outage.cut()
    params, replies = text(twilio, move)
    assert replies == [AGAIN]
    outage.restore()

    assert not ProcessedUpdate.objects.filter(key=f"sms:{params['MessageSid']}").exists()
    assert moves_by(sam, match) == before
    _params, replies = text(twilio, move)  # he sends it again, as asked
    assert moves_by(sam, match) == before + 1
    assert AGAIN not in replies


def test_polling_retries_an_update_until_the_database_takes_it_in_order_and_without_a_busy_loop(
    tg, outage, monkeypatch
):
    monkeypatch.setattr(polling, "RETRY_FIRST", 0.05)
    monkeypatch.setattr(polling, "RETRY_MAX", 0.4)
    user = tg.user(5001, "Tess", username="tess")
    tess = telegram_player(user_id=user.id, chat_id=user.id, name="Tess", username="tess", language="en")
    match = match_against_computers(tess, "telegram")
    before = moves_by(tess, match)
    move = str(safe_action(match))
    bot = PollingBot(monkeypatch).start()
    try:
        outage.cut()
        first = user.send(move)
        second = user.send("status")
        bot.wait_handled(3)
        time.sleep(1.5)
        tries = bot.handled
        # 0.05, 0.1, 0.2, 0.4, 0.4, ... s apart: about 6 tries in 1.5 s, not thousands.
        assert 3 <= tries <= 12
        assert [u["update_id"] for u in tg.pending_updates] == [first["update_id"], second["update_id"]]
        outage.restore()
        bot.wait_handled(tries + 2)
        deadline = time.monotonic() + 10
        while tg.pending_updates and time.monotonic() < deadline:  # confirmed by the next getUpdates
            time.sleep(0.05)
        assert tg.pending_updates == []
    finally:
        bot.stop()
    assert moves_by(tess, match) == before + 1
    assert ProcessedUpdate.objects.filter(key=f"tg:{first['update_id']}").count() == 1
    assert ProcessedUpdate.objects.filter(key=f"tg:{second['update_id']}").count() == 1
    recorded = list(ProcessedUpdate.objects.filter(key__startswith="tg:").order_by("pk").values_list("key", flat=True))
    assert recorded[-2:] == [f"tg:{first['update_id']}", f"tg:{second['update_id']}"]


def test_ctrl_c_stops_polling_at_once_during_a_long_back_off(tg, outage, monkeypatch):
    monkeypatch.setattr(polling, "RETRY_FIRST", 30)
    user = tg.user(5001, "Tess", username="tess")
    telegram_player(user_id=user.id, chat_id=user.id, name="Tess", username="tess", language="en")
    bot = PollingBot(monkeypatch).start()
    outage.cut()
    user.send("status")
    bot.wait_handled(1)
    started = time.monotonic()
    bot.stop()
    assert time.monotonic() - started < 3
    assert len(tg.pending_updates) == 1
