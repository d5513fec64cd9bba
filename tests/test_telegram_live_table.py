"""One live table per match in a Telegram chat, and buttons where a person looks (issue 18).

Why: a player's chat read like an SMS client: a new table for every move, each
old one still carrying buttons that looked live, a buzz for every message, and
things to type where a tap would do. These tests pin each piece: what the outbox
writes (silent or not, a table that edits the live one, the buttons), and what the
Telegram backend does with it against the fake Bot API (the old table loses its
buttons before a new one is sent, and a retried delivery shows nothing twice).
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest

from games.models import Match, Outbox, Player
from games.services import handle
from games.services.plumbing import outbox
from games.services.write.players import telegram_player
from games.text.offers import ZONES_OF_LANGUAGE
from tests.telegram_harness import deliver_all

SHOWN_CARD = re.compile(r"(?:10|[2-9AJQK])[♠♥♦♣]")

TELEGRAM = "telegram"


def on_telegram(number: int, name: str, language: str = "en") -> Player:
    return telegram_player(user_id=number, chat_id=number, name=name, language=language)


def start(players: list[Player]) -> Match:
    handle(players[0], "new", TELEGRAM)
    code = Match.objects.order_by("-pk").first().code
    for player in players[1:]:
        handle(player, f"join {code}", TELEGRAM)
    return Match.objects.get(code=code)


def rows_to(player: Player, **filters) -> list[Outbox]:
    return list(Outbox.objects.filter(recipient=player, **filters).order_by("pk"))


@pytest.mark.django_db
def test_the_zone_choice_comes_once_before_the_first_table_with_his_languages_zone_first():
    ona, ben, cas = on_telegram(7001, "Ona", "lt"), on_telegram(7002, "Ben"), on_telegram(7003, "Cas")
    cas.time_zone, cas.time_zone_set = "Europe/Skopje", True
    cas.save(update_fields=["time_zone", "time_zone_set"])
    start([ona, ben, cas])
    legend = rows_to(ona, kind=Outbox.Kind.LEGEND)
    assert len(legend) == 1 and legend[0].silent
    first_table = rows_to(ona, replaces__startswith="table:")[0]
    assert legend[0].pk < first_table.pk, "the table stays the newest message, to be edited in place"
    offered = [button["data"] for row in legend[0].buttons for button in row]
    assert offered[0] == f"tz {ZONES_OF_LANGUAGE['lt'][0]}"
    assert "Vilnius" in legend[0].buttons[0][0]["text"] and "UTC+" in legend[0].buttons[0][0]["text"]
    assert rows_to(cas, kind=Outbox.Kind.LEGEND)[0].buttons == [], "he named his zone already"
    handle(ona, offered[0], TELEGRAM)
    ona.refresh_from_db()
    assert (ona.time_zone, ona.time_zone_set) == ("Europe/Vilnius", True)
    start([ona, on_telegram(7004, "Dee"), on_telegram(7005, "Eli")])
    assert len(rows_to(ona, kind=Outbox.Kind.LEGEND)) == 1, "offered once"


@pytest.mark.django_db
def test_resign_is_confirmed_by_a_button_whose_answer_takes_its_place_and_offers_to_play_again():
    players = [on_telegram(7011, "Ann"), on_telegram(7012, "Bo"), on_telegram(7013, "Cy")]
    match = start(players)
    handle(players[2], "resign", TELEGRAM)
    question = rows_to(players[2])[-1]
    assert question.text.endswith("Are you sure?") and "resign yes" not in question.text
    [[confirm]] = question.buttons
    assert confirm == {"text": f"Yes, resign #{match.code}", "data": f"#{match.code} resign yes"}
    handle(players[2], confirm["data"], TELEGRAM)
    for player in players:
        assert rows_to(player)[-1].buttons == [[{"text": "Play again", "data": f"#{match.code} again"}]]
    answer = rows_to(players[2])[-1]
    assert answer.replaces == question.replaces != "", "the answer is edited in over the question and its button"


@pytest.mark.django_db
def test_the_reply_to_new_offers_a_computer_player_and_a_link_to_share_the_invitation(settings):
    settings.TELEGRAM_BOT_USERNAME = "gin3_bot"
    handle(on_telegram(7021, "Ann"), "new", TELEGRAM)
    reply = Outbox.objects.order_by("-pk").first()
    code = Match.objects.order_by("-pk").first().code
    [[computer, share]] = reply.buttons
    assert computer == {"text": "Add a computer player", "data": f"#{code} bot"}
    link = urlparse(share["url"])
    assert (link.netloc, link.path) == ("t.me", "/share/url")
    assert parse_qs(link.query)["url"] == [f"https://t.me/gin3_bot?start=join_{code}"]


@pytest.mark.django_db
def test_card_buttons_read_like_the_table_in_its_order_and_fit_in_callback_data():
    players = [on_telegram(7031, "Ann"), on_telegram(7032, "Bo"), on_telegram(7033, "Cy")]
    match = start(players)
    mover = match.seats.get(position=match.turn_seat).player
    handle(mover, "pass", TELEGRAM)
    match.refresh_from_db()
    mover = match.seats.get(position=match.turn_seat).player
    handle(mover, "pass", TELEGRAM)
    match.refresh_from_db()
    mover = match.seats.get(position=match.turn_seat).player
    handle(mover, "draw", TELEGRAM)
    table = rows_to(mover)[-1]
    labels = [button["text"] for row in table.buttons for button in row if "data" in button]
    assert labels, table.text
    assert all(any(suit in label for suit in "♠♥♦♣") for label in labels), labels
    knocks = [label for label in labels if label.startswith("knock ")]
    assert all(label.endswith(")") for label in knocks), knocks
    assert all(len(button["data"].encode()) <= 64 for row in table.buttons for button in row if "data" in button)
    (hand,) = (line for line in table.text.splitlines() if re.search(r"[♠♥♦♣]\]? \(\d+\)$", line))
    assert [label for label in labels if not label.startswith("knock ")] == SHOWN_CARD.findall(hand), table.text
    counts = [int(label.rsplit("(", 1)[1].rstrip(")")) for label in knocks]
    assert counts == sorted(counts), knocks  # the lowest count first, as the line of moves lists them


@pytest.mark.django_db
def test_a_typed_move_is_answered_with_the_table_that_edits_the_live_one():
    players = [on_telegram(7041, "Ann"), on_telegram(7042, "Bo"), on_telegram(7043, "Cy")]
    match = start(players)
    mover = match.seats.get(position=match.turn_seat).player
    handle(mover, "pass", TELEGRAM)
    reply = rows_to(mover, kind=Outbox.Kind.REPLY)[-1]
    assert reply.replaces == f"table:{match.code}" and reply.match_id == match.pk and reply.silent


@pytest.mark.django_db
def test_only_what_needs_the_reader_sounds_and_at_most_once_a_change():
    players = [on_telegram(7051, "Ann"), on_telegram(7052, "Bo"), on_telegram(7053, "Cy")]
    match = start(players)
    mover = match.seats.get(position=match.turn_seat).player
    for player in players:
        for row in rows_to(player):
            assert row.silent == (row.kind not in outbox.NOTIFYING_KINDS), (row.kind, row.text)
    assert [row.kind for row in rows_to(mover, silent=False)] == [Outbox.Kind.TURN]


def _table(player: Player, match: Match, version: int, kind: str = Outbox.Kind.TURN) -> Outbox:
    return Outbox.objects.create(
        recipient=player,
        match=match,
        channel=Outbox.Channel.TELEGRAM,
        address=str(player.telegram_chat_id),
        kind=kind,
        text=f"<b>#{match.code}</b> hand 1, version {version}",
        buttons=[[{"text": "draw", "data": f"#{match.code}@{version} draw"}]],
        replaces=f"table:{match.code}",
        silent=kind not in outbox.NOTIFYING_KINDS,
    )


@pytest.mark.django_db(transaction=True)
def test_a_new_table_takes_the_old_ones_buttons_first_and_a_retry_shows_nothing_twice(tg):
    players = [on_telegram(7061, "Ann"), on_telegram(7062, "Bo"), on_telegram(7063, "Cy")]
    match = start(players)
    Outbox.objects.all().delete()
    ann = players[0]
    first = _table(ann, match, 1)
    deliver_all()
    first.refresh_from_db()
    tg.fail_next("sendMessage", status=429, retry_after=1)  # the new table's send is refused once
    second = _table(ann, match, 2)
    deliver_all()
    second.refresh_from_db()
    messages = tg.messages_to(ann.telegram_chat_id)
    assert [message.message_id for message in messages] == [int(first.external_id), int(second.external_id)]
    assert messages[0].callback_data == [] and messages[1].callback_data == [f"#{match.code}@2 draw"]
    assert [m.method for m in tg.sent] == ["sendMessage", "editMessageReplyMarkup", "sendMessage"]
    strips = [params["message_id"] for method, params in tg.calls if method == "editMessageReplyMarkup"]
    assert set(strips) == {int(first.external_id)}, "each try takes the old buttons off; again is 'not modified'"
    sounds = [not params.get("disable_notification") for method, params in tg.calls if method == "sendMessage"]
    assert sounds == [True, True, True], "his turn sounds (the refused send included)"


@pytest.mark.django_db(transaction=True)
def test_a_silent_table_edits_the_live_one_and_a_talk_message_leaves_its_buttons(tg):
    players = [on_telegram(7071, "Ann"), on_telegram(7072, "Bo"), on_telegram(7073, "Cy")]
    match = start(players)
    Outbox.objects.all().delete()
    ann = players[0]
    _table(ann, match, 1)
    deliver_all()
    _table(ann, match, 2, kind=Outbox.Kind.SUGGESTION)
    deliver_all()
    Outbox.objects.create(
        recipient=ann,
        match=match,
        channel=Outbox.Channel.TELEGRAM,
        address=str(ann.telegram_chat_id),
        kind=Outbox.Kind.TEAM,
        text="a word from the sitter",
        silent=True,
    )
    deliver_all()
    assert [m.method for m in tg.sent] == ["sendMessage", "editMessageText", "sendMessage"]
    table, _talk = tg.messages_to(ann.telegram_chat_id)
    assert table.callback_data == [f"#{match.code}@2 draw"], "talk does not take the table's place"
    silent = [bool(params.get("disable_notification")) for method, params in tg.calls if method == "sendMessage"]
    assert silent == [False, True], "his turn sounds, the talk does not"


@pytest.mark.django_db(transaction=True)
def test_the_lobbys_offer_of_a_computer_player_loses_its_buttons_at_the_first_table(tg):
    """ "Add a computer player" under the reply to ``new`` looked live after the match
    filled; pressed, it could only be refused. The match's first table takes it off."""
    ann, bo = on_telegram(7081, "Ann"), on_telegram(7082, "Bo")
    handle(ann, "new", TELEGRAM)
    match = Match.objects.order_by("-pk").first()
    handle(bo, f"join {match.code}", TELEGRAM)
    deliver_all()
    lobby = [m for m in tg.messages_to(ann.telegram_chat_id) if f"#{match.code} bot" in m.callback_data]
    assert lobby, "the reply to new offers a computer player"
    handle(ann, f"#{match.code} bot", TELEGRAM)
    deliver_all()
    current = {m.message_id: m for m in tg.messages_to(ann.telegram_chat_id)}
    assert all(f"#{match.code} bot" not in current[m.message_id].callback_data for m in lobby)
    assert any(m.callback_data for m in current.values()), "his table keeps its own buttons"
    strips = [p["message_id"] for method, p in tg.calls if method == "editMessageReplyMarkup" and p["chat_id"] == 7081]
    assert set(strips) == {m.message_id for m in lobby}, "the offers and nothing else (a retried send strips again)"
