"""The table's page and its JSON (``bot.web``): who may ask, what each seat is shown,
and every move carried out by ``games.services.answer`` exactly as typed.

Why: the page is a channel like the others. A move from it must meet the same rules,
refusals, idempotency and outbox as a typed one; a request that does not prove its
player changes nothing; and no seat is ever shown a card it may not see."""

from __future__ import annotations

import json
import time
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.engine import Role
from games.models import Event, Match, Outbox, Player
from games.services import handle
from games.services.write.players import telegram_player

from .conftest import best_action, mover, player_in_role, refresh, rig, snapshot
from .telegram_harness import fixed_deals
from .web_support import BOT_TOKEN, cards_in_json, hidden_from, init_data, sign_in_path

pytestmark = pytest.mark.django_db

CAPTAIN_KNOCKS = "7s 7h 7d 2c 3c 4c 9h 9d 9s 5d"  # takes the upcard Kd, knocks with Kd: a count of 5
BOX_HOLDS = "Ks Qs Js 8c 6h 5h Ah 2s Jd Qh"


@pytest.fixture(autouse=True)
def telegram_token(settings):
    settings.TELEGRAM_BOT_TOKEN = BOT_TOKEN


def browser(player: Player, csrf: bool = False) -> Client:
    """A browser signed in as ``player`` with the ``web`` command's link."""
    client = Client(enforce_csrf_checks=csrf)
    if csrf:
        client.get(reverse("web:sign-in", args=[sign_in_path(player).split("/")[2]]))
        token = client.cookies["csrftoken"].value
        client.post(sign_in_path(player), {"csrfmiddlewaretoken": token})
    else:
        client.post(sign_in_path(player))
    return client


def state(client: Client, code: str, **headers) -> dict:
    answer = client.get(reverse("web:state", args=[code]), headers=headers)
    assert answer.status_code == 200, answer.content
    return answer.json()


def play(client: Client, code: str, command: str, version: int | None = None, key: str = "", **headers) -> dict:
    body = {"command": command, "version": version, "key": key or f"k{time.monotonic_ns()}"}
    answer = client.post(
        reverse("web:play", args=[code]), json.dumps(body), content_type="application/json", headers=headers
    )
    assert answer.status_code == 200, answer.content
    return answer.json()


def held(cards: dict) -> list[str]:
    return sorted([card for meld in cards["melds"] for card in meld] + cards["deadwood"])


@pytest.fixture
def seats(match3):
    """A browser for each role of hand 1, by role."""
    return {role: browser(player_in_role(match3, role)) for role in ("captain", "box", "sitter")}


# What each seat is shown ------------------------------------------------------------------


def test_each_seat_is_shown_its_own_table(match3, seats):
    rig(match3, captain=CAPTAIN_KNOCKS, box=BOX_HOLDS, upcard="Kd")
    captain, box, sitter = (state(seats[role], match3.code) for role in ("captain", "box", "sitter"))
    cards = {role: seen["table"]["cards"] for role, seen in (("captain", captain), ("box", box), ("sitter", sitter))}
    assert held(cards["captain"]) == sorted(CAPTAIN_KNOCKS.split())
    assert held(cards["box"]) == sorted(BOX_HOLDS.split())
    assert cards["sitter"] == cards["captain"], "the sitter sees the captain's cards (R3.2)"
    assert captain["table"]["moves"] == ["take", "pass"] and sitter["table"]["moves"] == ["take", "pass"]
    assert box["table"]["moves"] == [] and box["table"]["pile_top"] == "Kd"
    assert [seat["role"] for seat in captain["seats"]] == [seat["role"] for seat in box["seats"]]


def test_a_state_that_did_not_change_is_answered_304(match3, seats):
    client = seats["box"]
    first = client.get(reverse("web:state", args=[match3.code]))
    again = client.get(reverse("web:state", args=[match3.code]), headers={"If-None-Match": first["ETag"]})
    assert again.status_code == 304 and again["ETag"] == first["ETag"]
    assert "private" in again["Cache-Control"]
    handle(player_in_role(match3, "sitter"), "team take it", "terminal")  # a word the box does not see
    changed = client.get(reverse("web:state", args=[match3.code]), headers={"If-None-Match": first["ETag"]})
    assert changed.status_code == 200 and changed["ETag"] != first["ETag"]


def test_a_player_without_a_seat_gets_no_table(match3, dave):
    answer = browser(dave).get(reverse("web:state", args=[match3.code]))
    assert answer.status_code == 404 and answer.json()["refused"] == "no-seat"


def test_team_talk_reaches_the_partner_and_never_the_box(match3, seats):
    said = play(seats["captain"], match3.code, "team the 7s stays")
    assert said["done"] and "Sent to" in said["said"]
    assert state(seats["sitter"], match3.code)["team"] == [
        {"name": player_in_role(match3, "captain").display_name, "text": "the 7s stays"}
    ]
    assert state(seats["box"], match3.code)["team"] == []


# Moves, as typed ------------------------------------------------------------------------------


def test_a_move_from_the_page_is_carried_out_as_typed_and_the_others_are_told(match3, seats):
    version = state(seats["captain"], match3.code)["table"]["version"]
    captain = player_in_role(match3, "captain")
    before = Outbox.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
    answer = play(seats["captain"], match3.code, "take", version)
    assert answer == {"done": True, "said": "", "repeated": False}
    move = Event.objects.filter(match=match3, kind="move").get()
    assert (move.data["move"], move.actor) == ("take", captain)
    told = Outbox.objects.filter(pk__gt=before)
    assert told.exists() and not told.filter(recipient=captain, kind="reply").exists(), "the page shows its answer"
    assert state(seats["captain"], match3.code)["table"]["phase"] == "discard"


def test_a_refused_move_says_why_and_changes_nothing(match3, seats):
    before = snapshot(match3)
    version = refresh(match3).version
    answer = play(seats["box"], match3.code, "take", version)
    assert answer["done"] is False and player_in_role(match3, "captain").display_name in answer["said"]
    answer = play(seats["captain"], match3.code, "discard 7h", version)
    assert answer["done"] is False and answer["said"].startswith("Not allowed:")
    assert snapshot(match3) == before


def test_a_move_chosen_on_a_table_that_changed_since_is_refused(match3, seats):
    old = refresh(match3).version
    handle(player_in_role(match3, "captain"), "pass", "terminal")
    before = snapshot(match3)
    answer = play(seats["box"], match3.code, "take", old)
    assert answer["done"] is False and "earlier moment" in answer["said"]
    assert snapshot(match3) == before


def test_a_move_sent_twice_with_one_key_is_done_once(match3, seats):
    version = refresh(match3).version
    first = play(seats["captain"], match3.code, "pass", version, key="same-key-123")
    again = play(seats["captain"], match3.code, "pass", version, key="same-key-123")
    assert first["done"] and again["repeated"]
    assert Event.objects.filter(match=match3, kind="move").count() == 1


def test_the_sitter_suggests_and_the_captain_accepts_from_their_pages(match3, seats):
    version = refresh(match3).version
    said = play(seats["sitter"], match3.code, "suggest take", version)
    assert said["done"] and "Suggested to" in said["said"]
    captain = state(seats["captain"], match3.code)
    assert captain["table"]["suggestion"] == "take"
    assert state(seats["box"], match3.code)["table"]["suggestion"] == "", "advice is the team's secret (R3.2)"
    assert play(seats["captain"], match3.code, "accept", captain["table"]["version"])["done"]
    assert Event.objects.get(match=match3, kind="move").data["automatic"] == "suggestion"


@pytest.mark.parametrize(
    "body",
    [
        {"command": "resign yes", "key": "abcdefgh"},  # not a command of the table
        {"command": "", "key": "abcdefgh"},
        {"command": "take"},  # no key: a retry could not be told from a new move
        {"command": "take", "key": "short"},
        {"command": "take", "key": "abcdefgh", "version": "12"},
        {"command": "take", "key": "abcdefgh", "version": True},
        ["take"],
    ],
)
def test_a_request_that_is_no_command_of_the_table_is_refused(match3, seats, body):
    before = snapshot(match3)
    answer = seats["captain"].post(
        reverse("web:play", args=[match3.code]), json.dumps(body), content_type="application/json"
    )
    assert answer.status_code == 400
    assert snapshot(match3) == before


def test_a_signed_in_browser_must_send_its_csrf_token(match3):
    client = browser(player_in_role(match3, "captain"), csrf=True)
    before = snapshot(match3)
    body = json.dumps({"command": "pass", "version": refresh(match3).version, "key": "abcdefgh1"})
    url = reverse("web:play", args=[match3.code])
    assert client.post(url, body, content_type="application/json").status_code == 403
    assert snapshot(match3) == before
    token = client.cookies["csrftoken"].value
    answer = client.post(url, body, content_type="application/json", headers={"X-CSRFToken": token})
    assert answer.status_code == 200 and answer.json()["done"]


def test_the_web_page_does_not_change_where_his_messages_go(match3, seats):
    captain = player_in_role(match3, "captain")
    play(seats["captain"], match3.code, "pass", refresh(match3).version)
    assert Player.objects.get(pk=captain.pk).last_channel == "terminal"


# Inside Telegram: initData ---------------------------------------------------------------------


@pytest.fixture
def tess_match(alice, bob) -> Match:
    """A running match in which Tess plays from Telegram."""
    tess = telegram_player(user_id=7001, chat_id=7001, name="Tess")
    code = handle(alice, "new", "terminal").split("#", 1)[1][:4]
    handle(bob, f"join {code}", "terminal")
    handle(tess, f"join {code}", "telegram")
    return Match.objects.get(code=code)


def tma(data: str) -> dict[str, str]:
    return {"Authorization": f"tma {data}"}


def test_telegrams_signed_init_data_says_who_asks(client, tess_match):
    tess = Player.objects.get(telegram_user_id=7001)
    seen = state(client, tess_match.code, **tma(init_data(tess)))
    assert seen["position"] == tess_match.seats.get(player=tess).position


@pytest.mark.parametrize("flaw", ["forged", "altered", "stale"])
def test_forged_altered_or_stale_init_data_is_refused_and_nothing_is_done(client, tess_match, flaw):
    tess = Player.objects.get(telegram_user_id=7001)
    data = {
        "forged": init_data(tess, token="654321:not-the-bot"),
        "altered": init_data(tess).replace("Tess", "Eve"),
        "stale": init_data(tess, auth_date=time.time() - 86401),
    }[flaw]
    reason = "stale" if flaw == "stale" else "forged"
    before = snapshot(tess_match)
    for method, url, body in (
        ("get", reverse("web:state", args=[tess_match.code]), None),
        ("post", reverse("web:play", args=[tess_match.code]), {"command": "pass", "key": "abcdefgh2"}),
        ("post", reverse("web:zone"), {"zone": "Europe/Skopje"}),
    ):
        extra = {"data": json.dumps(body), "content_type": "application/json"} if body else {}
        answer = getattr(client, method)(url, headers=tma(data), **extra)
        assert answer.status_code == 403
        assert answer.json()["refused"] == reason and "Nothing was done" in answer.json()["error"]
    assert snapshot(tess_match) == before
    assert Player.objects.get(pk=tess.pk).time_zone == "UTC"


def test_a_telegram_user_who_never_wrote_to_the_bot_is_told_to(client, tess_match):
    stranger = Player(telegram_user_id=9999, display_name="Zed")
    answer = client.get(reverse("web:state", args=[tess_match.code]), headers=tma(init_data(stranger)))
    assert answer.status_code == 403 and answer.json()["refused"] == "unknown"


def test_a_browser_neither_signed_in_nor_in_telegram_is_told_how_to_sign_in(client, match3):
    answer = client.get(reverse("web:state", args=[match3.code]))
    assert answer.status_code == 403 and "web" in answer.json()["error"]
    answer = client.get(reverse("web:state", args=[match3.code]), headers={"Authorization": "Bearer x"})
    assert answer.status_code == 403


def test_a_command_from_the_mini_app_needs_no_csrf_token(tess_match):
    """Its header is one a page of another site cannot make a browser send."""
    tess = Player.objects.get(telegram_user_id=7001)
    client = Client(enforce_csrf_checks=True)
    answer = play(client, tess_match.code, "team hello", **tma(init_data(tess)))
    assert answer["said"], "answered: sent to the partner, or why not (he may be the box)"


# The device's time zone ---------------------------------------------------------------------------


def test_the_devices_zone_becomes_his_when_he_has_none_of_his_own(match3, seats):
    captain = player_in_role(match3, "captain")
    answer = seats["captain"].post(reverse("web:zone"), {"zone": "europe/skopje"}, content_type="application/json")
    assert answer.json() == {"adopted": True, "zone": "Europe/Skopje"}
    assert Player.objects.get(pk=captain.pk).time_zone == "Europe/Skopje"
    again = seats["captain"].post(reverse("web:zone"), {"zone": "Asia/Tokyo"}, content_type="application/json")
    assert again.json() == {"adopted": False, "zone": "Europe/Skopje"}, "another device does not move it"
    handle(captain, "tz Asia/Tokyo", "terminal")
    assert Player.objects.get(pk=captain.pk).time_zone == "Asia/Tokyo", "tz stays"


def test_a_zone_he_chose_with_tz_is_kept_even_if_it_is_utc(match3, seats):
    box = player_in_role(match3, "box")
    handle(box, "tz UTC", "terminal")
    answer = seats["box"].post(reverse("web:zone"), {"zone": "Europe/Skopje"}, content_type="application/json")
    assert answer.json()["adopted"] is False
    assert Player.objects.get(pk=box.pk).time_zone == "UTC"


def test_a_zone_that_is_none_is_ignored(match3, seats):
    for zone in ("Mars/Olympus", "", "x" * 65, 3):
        answer = seats["box"].post(reverse("web:zone"), {"zone": zone}, content_type="application/json")
        assert answer.status_code in (200, 400) and not answer.json().get("adopted")
    assert Player.objects.get(pk=player_in_role(match3, "box").pk).time_zone == "UTC"


def test_his_deadlines_are_then_told_in_the_devices_zone(match3, seats):
    captain = player_in_role(match3, "captain")
    seats["captain"].post(reverse("web:zone"), {"zone": "Asia/Kolkata"}, content_type="application/json")
    reply = handle(Player.objects.get(pk=captain.pk), "status", "terminal")
    assert "IST" in reply


# No hidden card, for any seat, at any step of a whole match ---------------------------------------


@pytest.mark.any_database
@pytest.mark.slow
def test_no_seat_is_shown_a_hidden_card_at_any_step_of_a_whole_match(alice, bob, carol, monkeypatch):
    """The property over a whole match: after every move, each seat's JSON and page name
    no card of the hand in play outside what that seat may see, and the box never reads
    team talk or advice. The moves are played from the pages of the players to move.
    The deals are fixed so that the match is short (two hands, about fifty moves)."""
    fixed_deals(monkeypatch, seed=8)
    code = handle(alice, "new 5m to 50", "terminal").split("#", 1)[1][:4]
    handle(bob, f"join {code}", "terminal")
    handle(carol, f"join {code}", "terminal")
    match = Match.objects.get(code=code)
    clients = {player.pk: browser(player) for player in (alice, bob, carol)}
    page = clients[alice.pk].get(reverse("web:table", args=[code])).content.decode()
    assert cards_in_json({"page": page}) == set(), "the page itself holds no card"
    steps = 0
    while refresh(match).status == Match.Status.RUNNING:
        match = refresh(match)
        hidden = hidden_from(match)
        hand_number = match.current_hand.number
        for seat in match.seats.select_related("player"):
            seen = state(clients[seat.player_id], code)
            leaked = cards_in_json(seen) & hidden[seat.position]
            assert not leaked, f"step {steps}: {seat.player} ({seen['table']['role']}) shown {leaked}"
            if seen["table"]["role"] == "box":
                assert seen["team"] == [] and seen["table"]["suggestion"] == ""
            result = seen["last_result"]
            assert result is None or result["number"] < hand_number
        to_move = mover(match)
        if steps % 7 == 3:  # now and then the sitter's advice and team talk, which the box must not see
            sitter = player_in_role(match, Role.SITTER)
            handle(sitter, f"team go on {steps}", "terminal")
        play(clients[to_move.pk], code, str(best_action(match)), match.version)
        steps += 1
        assert steps < 2000
    assert steps > 20 and refresh(match).status == Match.Status.FINISHED


def test_init_data_lifetime_is_a_setting(client, tess_match, settings):
    tess = Player.objects.get(telegram_user_id=7001)
    settings.TELEGRAM_INIT_DATA_MAX_AGE = 60
    old = init_data(tess, auth_date=(timezone.now() - timedelta(seconds=61)).timestamp())
    assert client.get(reverse("web:state", args=[tess_match.code]), headers=tma(old)).status_code == 403


# The page itself --------------------------------------------------------------------------------------


def test_the_page_speaks_the_language_of_its_player_and_holds_no_card(match3, seats):
    captain = player_in_role(match3, "captain")
    captain.language = "he"
    captain.save(update_fields=["language"])
    page = seats["captain"].get(reverse("web:table", args=[match3.code]))
    assert page.status_code == 200 and page["Content-Language"] == "he"
    assert '<html lang="he" dir="rtl">' in page.content.decode()
    assert cards_in_json({"page": page.content.decode()}) == set()
    opened = Client().get(reverse("web:table", args=[match3.code]) + "?lang=lt")  # as Telegram opens it
    assert '<html lang="lt" dir="ltr">' in opened.content.decode()


def test_the_page_may_be_framed_by_telegrams_web_version_and_no_other_site(client, match3):
    page = client.get(reverse("web:table", args=[match3.code]))
    policy = dict(directive.strip().split(" ", 1) for directive in page["Content-Security-Policy"].split(";"))
    assert policy["frame-ancestors"] == "'self' https://web.telegram.org"
    assert policy["script-src"] == "'self' https://telegram.org"  # Telegram's Mini App script, on this page only
    assert "X-Frame-Options" not in page
    assert "telegram.org" not in client.get(reverse("games:match", args=[match3.code]))["Content-Security-Policy"]
    assert client.get(reverse("games:match", args=[match3.code]))["X-Frame-Options"] == "DENY"


def test_a_page_for_no_match_code_is_not_found(client):
    assert client.get("/t/not-a-code!/").status_code == 404
