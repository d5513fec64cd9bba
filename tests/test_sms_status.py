"""Twilio's status callbacks: a text the carrier drops is marked failed, counted, shown
at the desk and told on Telegram; one it delivers is marked delivered.

Through the real TwilioBackend against the fake Twilio (tests/fakes/twilio_api.py):
the StatusCallback each text names is what the fake recorded, and each callback
is signed by the real twilio library's validator, as Twilio signs it.
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from django.contrib.auth import get_user_model
from django.test import Client as WebClient

from bot.backends import memory
from games.contract.base import Worded
from games.models import Outbox, Player
from games.services.plumbing import outbox
from games.services.plumbing.change import change
from games.services.plumbing.delivery import deliver
from games.services.write.players import telegram_player
from tests.fakes.twilio_api import FakeTwilio, sign, sms_switched_on
from tests.metrics_support import sample

STATUS_URL = "https://gin3.example.org/sms/status/"
PHONE = "+15550004321"


@pytest.fixture
def twilio(settings, db):
    settings.SMS_STATUS_URL = STATUS_URL
    with sms_switched_on(
        settings, {"sms": "bot.backends.sms.TwilioBackend", "telegram": "bot.backends.memory.MemoryBackend"}
    ) as fake:
        memory.sent.clear()
        yield fake


@pytest.fixture
def tess(db) -> Player:
    """A player on Telegram who has her phone too and asked for texts."""
    player = telegram_player(user_id=7101, chat_id=7101, name="Tess", username="tess", language="en")
    player.phone, player.notify_by = PHONE, Outbox.Channel.SMS
    player.save(update_fields=["phone", "notify_by"])
    return player


def texted(fake: FakeTwilio, player: Player, match=None) -> Outbox:
    """A turn notice texted to ``player`` through Twilio; the outbox row, now sent."""
    with change():
        outbox.send(player, Outbox.Kind.TURN, Worded("Your move."), match, Outbox.Channel.SMS)
    message = Outbox.objects.filter(recipient=player, channel=Outbox.Channel.SMS).latest("pk")
    deliver(message.pk)
    message.refresh_from_db()
    assert message.status == Outbox.Status.SENT
    return message


def report(fake: FakeTwilio, sid: str, status: str, error_code: str = "", signed_with: str = "", url=STATUS_URL):
    params = fake.status_callback(sid, status, error_code)
    signature = sign(url, params, signed_with or fake.auth_token)
    return WebClient().post(
        "/sms/status/",
        urlencode(params),
        content_type="application/x-www-form-urlencoded",
        HTTP_X_TWILIO_SIGNATURE=signature,
    )


def test_every_text_asks_twilio_to_report_its_status_to_our_callback(twilio, tess):
    message = texted(twilio, tess)
    (sms,) = twilio.messages_to(PHONE)
    assert sms.status_callback == STATUS_URL
    assert message.external_id == sms.sid


def test_a_delivered_report_marks_the_text_delivered(twilio, tess):
    message = texted(twilio, tess)
    assert report(twilio, message.external_id, "sent").status_code == 204
    assert report(twilio, message.external_id, "delivered").status_code == 204
    message.refresh_from_db()
    assert message.status == Outbox.Status.DELIVERED


def test_an_undelivered_text_is_marked_failed_counted_and_told_on_telegram(twilio, tess, match3):
    message = texted(twilio, tess, match3)
    before = sample("gin3_delivery_failures_total", channel="sms", reason="carrier")
    assert report(twilio, message.external_id, "undelivered", "30003").status_code == 204
    message.refresh_from_db()
    assert message.status == Outbox.Status.FAILED
    assert message.last_error == "Twilio 30003: undelivered"
    assert sample("gin3_delivery_failures_total", channel="sms", reason="carrier") == before + 1
    notice = Outbox.objects.get(recipient=tess, kind=Outbox.Kind.SMS_FAILED)
    assert notice.channel == Outbox.Channel.TELEGRAM and notice.address == "7101"
    assert notice.text == (
        f"A text to your phone about #{match3.code} did not arrive. Type status here to see the match."
    )
    deliver(notice.pk)
    assert [sent.text for sent in memory.sent] == [notice.text]


def test_a_repeated_failure_report_tells_the_player_once(twilio, tess):
    message = texted(twilio, tess)
    for _repeat in range(3):
        assert report(twilio, message.external_id, "failed", "30008").status_code == 204
    assert Outbox.objects.filter(recipient=tess, kind=Outbox.Kind.SMS_FAILED).count() == 1


def test_a_player_without_telegram_is_told_nothing_but_the_failure_is_recorded(twilio):
    player = Player.objects.create(display_name="Sam", phone=PHONE)
    message = texted(twilio, player)
    assert report(twilio, message.external_id, "undelivered", "30005").status_code == 204
    message.refresh_from_db()
    assert message.status == Outbox.Status.FAILED
    assert not Outbox.objects.filter(kind=Outbox.Kind.SMS_FAILED).exists()


def test_the_notice_is_in_the_players_language(twilio, tess):
    tess.language = "lt"
    tess.save(update_fields=["language"])
    message = texted(twilio, tess)
    report(twilio, message.external_id, "undelivered", "30003")
    assert Outbox.objects.get(kind=Outbox.Kind.SMS_FAILED).text == "Žinutė į tavo telefoną nepasiekė adresato."


@pytest.mark.parametrize(
    "how",
    ["unsigned", "another token", "another url"],
)
def test_a_callback_not_signed_by_twilio_for_our_address_is_refused_and_changes_nothing(twilio, tess, how):
    message = texted(twilio, tess)
    if how == "unsigned":
        response = WebClient().post(
            "/sms/status/",
            urlencode(twilio.status_callback(message.external_id, "failed")),
            content_type="application/x-www-form-urlencoded",
        )
    elif how == "another token":
        response = report(twilio, message.external_id, "failed", signed_with="f" * 32)
    else:
        response = report(twilio, message.external_id, "failed", url="http://testserver/sms/status/")
    assert response.status_code == 403
    message.refresh_from_db()
    assert message.status == Outbox.Status.SENT


def test_a_signed_but_malformed_callback_is_a_400(twilio, tess):
    params = {"MessageSid": "not-a-sid", "MessageStatus": "failed"}
    response = WebClient().post(
        "/sms/status/",
        urlencode(params),
        content_type="application/x-www-form-urlencoded",
        HTTP_X_TWILIO_SIGNATURE=sign(STATUS_URL, params, twilio.auth_token),
    )
    assert response.status_code == 400


def test_a_report_of_a_text_we_never_sent_changes_nothing(twilio, tess):
    message = texted(twilio, tess)
    Outbox.objects.filter(pk=message.pk).update(external_id="SM" + "0" * 32)
    assert report(twilio, message.external_id, "failed").status_code == 204
    assert Outbox.objects.get(pk=message.pk).status == Outbox.Status.SENT


def test_the_desk_shows_the_failed_text_and_why(twilio, tess, client):
    message = texted(twilio, tess)
    report(twilio, message.external_id, "undelivered", "30003")
    admin = get_user_model().objects.create_superuser("desk", "", "pw-for-the-desk")
    client.force_login(admin)
    page = client.get("/admin/games/outbox/?status__exact=failed").content.decode()
    assert "Twilio 30003: undelivered" in page


def test_a_status_report_counts_in_the_metrics(twilio, tess):
    message = texted(twilio, tess)
    before = sample("gin3_sms_status_callbacks_total", status="delivered")
    report(twilio, message.external_id, "delivered")
    assert sample("gin3_sms_status_callbacks_total", status="delivered") == before + 1
