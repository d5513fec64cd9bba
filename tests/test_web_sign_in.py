"""The ``web`` command's personal link: on every channel, single use, short lived, stored
hashed, replaced by a newer one, revocable from the desk; and the browser it signs in.

Why: a terminal or SMS player has no Telegram to prove who he is to the table's page;
the link does, once, on the device he opens it on, and must be worth nothing to anyone
who reads it later (a database, the desk, a chat app fetching a preview)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.models import Outbox, SignInLink
from games.services import handle
from games.services.write import signin
from games.services.write.players import phone_player

pytestmark = pytest.mark.django_db
LINK = re.compile(r"https?://\S+/in/([A-Za-z0-9_-]+)/")


def link_of(reply: str) -> str:
    found = LINK.search(reply)
    assert found, reply
    return found.group(1)


def signed_in(client: Client) -> int | None:
    return client.session.get(signin.SESSION_KEY)


def test_web_answers_a_personal_link_that_signs_him_in_once(client, alice, match3):
    token = link_of(handle(alice, "web", "terminal"))
    page = client.get(reverse("web:sign-in", args=[token]))
    assert page.status_code == 200 and "Alice" in page.content.decode()
    assert signed_in(client) is None, "opening the link signs nobody in: confirming does"
    answer = client.post(reverse("web:sign-in", args=[token]))
    assert answer.status_code == 302
    assert answer["Location"] == reverse("web:table", args=[match3.code]), "his one running match"
    assert signin.player_of(client.session) == alice


def test_the_link_used_twice_is_refused_the_second_time(client, alice):
    token = link_of(handle(alice, "web", "terminal"))
    assert client.post(reverse("web:sign-in", args=[token])).status_code == 302
    other = Client()
    again = other.post(reverse("web:sign-in", args=[token]))
    assert again.status_code == 403
    assert "does not work" in again.content.decode()
    assert signed_in(other) is None
    assert other.get(reverse("web:sign-in", args=[token])).status_code == 403


def test_the_link_expires_unused(client, alice):
    token = link_of(handle(alice, "web", "terminal"))
    with time_machine.travel(timezone.now() + signin.LINK_LIFETIME + timedelta(seconds=1)):
        assert client.post(reverse("web:sign-in", args=[token])).status_code == 403
    assert signed_in(client) is None


def test_a_newer_link_replaces_the_one_he_did_not_use(client, alice):
    first = link_of(handle(alice, "web", "terminal"))
    second = link_of(handle(alice, "web", "terminal"))
    assert client.post(reverse("web:sign-in", args=[first])).status_code == 403
    assert client.post(reverse("web:sign-in", args=[second])).status_code == 302


def test_only_a_keyed_hash_of_the_link_is_stored(alice):
    token = link_of(handle(alice, "web", "terminal"))
    row = SignInLink.objects.get(player=alice)
    assert row.token_hash == signin.token_hash(token) and token not in row.token_hash
    assert len(row.token_hash) == 64


def test_a_made_up_link_signs_nobody_in(client, alice):
    handle(alice, "web", "terminal")
    assert client.post(reverse("web:sign-in", args=["x" * 32])).status_code == 403
    assert signed_in(client) is None


def test_web_answers_on_every_channel(alice, telegram_user):
    assert link_of(handle(alice, "web", "terminal"))
    handle(telegram_user, "/web", "telegram")
    message = Outbox.objects.filter(recipient=telegram_user).last()
    assert (message.channel, message.kind) == ("telegram", Outbox.Kind.SIGN_IN_LINK)
    assert link_of(message.text)
    texter, _created = phone_player("+15550007777")
    reply = handle(texter, "WEB", "sms", reply_inline=True)  # by SMS the reply is in the webhook's answer
    assert link_of(reply)
    assert reply.isascii(), "one GSM-7 text, not UCS-2"


def test_the_desk_never_shows_the_message_that_carries_a_link(admin_client, telegram_user):
    handle(telegram_user, "web", "telegram")
    message = Outbox.objects.get(recipient=telegram_user, kind=Outbox.Kind.SIGN_IN_LINK)
    page = admin_client.get(reverse("admin:games_outbox_change", args=[message.pk])).content.decode()
    assert "/in/" not in page
    assert "(a sign-in link: never shown)" in page


def test_revoking_a_link_from_the_desk_signs_its_browser_out(client, admin_client, alice):
    token = link_of(handle(alice, "web", "terminal"))
    client.post(reverse("web:sign-in", args=[token]))
    assert signin.player_of(client.session) == alice
    link = SignInLink.objects.get(player=alice)
    listed = admin_client.get(reverse("admin:games_signinlink_changelist")).content.decode()
    assert "Alice" in listed and "signed a browser in" in listed
    admin_client.post(reverse("admin:games_signinlink_changelist"), {"action": "revoke", "_selected_action": [link.pk]})
    assert SignInLink.objects.get(pk=link.pk).revoked_at is not None
    assert signin.player_of(client.session) is None
    assert client.get(reverse("web:tables")).content.decode().count("You are not signed in") == 1


def test_the_desk_cannot_filter_on_a_links_hash(admin_client, alice):
    handle(alice, "web", "terminal")
    answer = admin_client.get(reverse("admin:games_signinlink_changelist") + "?token_hash__startswith=a")
    assert answer.status_code == 400


def test_signing_out_forgets_the_player(client, alice):
    client.post(reverse("web:sign-in", args=[link_of(handle(alice, "web", "terminal"))]))
    client.post(reverse("web:sign-out"))
    assert signin.player_of(client.session) is None


def test_signing_in_changes_the_session_key_and_sets_his_language(client, alice):
    alice.language = "mk"
    alice.save(update_fields=["language"])
    client.get(reverse("games:scoreboard"))
    before = client.session.session_key
    answer = client.post(reverse("web:sign-in", args=[link_of(handle(alice, "web", "terminal"))]))
    assert client.session.session_key != before
    assert answer.cookies["django_language"].value == "mk"


def test_the_list_of_his_tables_links_each_match(client, alice, bob, match3):
    handle(alice, "new", "terminal")
    client.post(reverse("web:sign-in", args=[link_of(handle(alice, "web", "terminal"))]))
    page = client.get(reverse("web:tables")).content.decode()
    assert reverse("web:table", args=[match3.code]) in page
    assert page.count('href="/t/') == 2


def test_the_match_page_links_a_seated_signed_in_player_to_his_table(client, alice, dave, match3):
    table = reverse("web:table", args=[match3.code])
    assert table not in client.get(reverse("games:match", args=[match3.code])).content.decode()
    client.post(reverse("web:sign-in", args=[link_of(handle(dave, "web", "terminal"))]))
    assert table not in client.get(reverse("games:match", args=[match3.code])).content.decode(), "not his match"
    client.post(reverse("web:sign-in", args=[link_of(handle(alice, "web", "terminal"))]))
    assert table in client.get(reverse("games:match", args=[match3.code])).content.decode()
