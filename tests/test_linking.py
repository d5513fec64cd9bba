"""Linking a phone keeps the log whole.

A bare SMS player (known by his number only) who links the number to his
Telegram player is not deleted, which would take the actor from every event he
made: his row stays, without the number, marked as merged into the player the
number went to, and every event still names him.
"""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from games.models import Event, Outbox, Player
from games.services import handle
from games.services.write.players import phone_player, telegram_player

NUMBER = "+15550001234"


@pytest.fixture(autouse=True)
def sms_on(settings):
    settings.SMS_ENABLED = True


def link(sender: Player, owner: Player) -> str:
    """``phone NUMBER`` from the owner, then ``link CODE`` from the phone."""
    handle(owner, f"phone {NUMBER}", "telegram")
    texted = Outbox.objects.filter(address=NUMBER, kind="link-code").latest("pk").text
    code = re.search(r"code (\d{6})", texted).group(1)
    return handle(sender, f"link {code}", "sms", reply_inline=True)


def test_linking_keeps_the_actor_of_every_event_of_the_bare_sms_player(db):
    sender, _created = phone_player(NUMBER)
    handle(sender, "new", "sms")
    handle(sender, "leave", "sms")
    acted = list(Event.objects.filter(actor=sender).values_list("pk", flat=True))
    assert len(acted) == 3  # created, joined, left
    owner = telegram_player(user_id=9001, chat_id=9001, name="Tess")

    assert "now plays as Tess" in link(sender, owner)

    assert list(Event.objects.filter(actor=sender).values_list("pk", flat=True)) == acted
    merged = Player.objects.get(pk=sender.pk)
    assert merged.merged_into == owner
    assert merged.phone is None
    assert Player.objects.get(phone=NUMBER) == owner


def test_a_player_who_is_not_bare_keeps_his_own_row_unmerged(db):
    sender, _created = phone_player(NUMBER)
    sender.terminal_user = "sam"
    sender.save()
    owner = telegram_player(user_id=9001, chat_id=9001, name="Tess")
    link(sender, owner)
    sender.refresh_from_db()
    assert sender.merged_into is None and sender.phone is None
    assert Player.objects.get(phone=NUMBER) == owner


def test_the_admin_never_shows_a_code_texted_to_a_phone(client, django_user_model, db):
    owner = telegram_player(user_id=9001, chat_id=9001, name="Tess")
    handle(owner, f"phone {NUMBER}", "telegram")
    message = Outbox.objects.get(address=NUMBER, kind="link-code")
    code = re.search(r"code (\d{6})", message.text).group(1)
    client.force_login(django_user_model.objects.create_superuser("root"))
    for url in (reverse("admin:games_outbox_change", args=[message.pk]), reverse("admin:games_outbox_changelist")):
        response = client.get(url)
        assert response.status_code == 200
        assert code not in response.content.decode()
