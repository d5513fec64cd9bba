"""A Telegram group linked to a match: the public table and results, never a card in hand."""

from __future__ import annotations

import re

import pytest

from bot.telegram.updates import process_update
from games.engine import parse_cards
from games.models import Event, Outbox, Player, ProcessedUpdate
from games.services import handle
from games.services.plumbing import delivery, state
from games.services.plumbing.change import change
from games.services.write import groups
from games.services.write.players import telegram_player
from tests.conftest import engine_hand, play_to_end, refresh, snapshot
from tests.fakes import backends as fake_backends

GROUP = -100123
CARD = re.compile(r"(?<![\w#])(10|[2-9AJQK])([♠♥♦♣])")


def group_update(update_id: int, user: Player, text: str) -> dict:
    """A group message as Telegram posts it."""
    entities = [{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}] if text.startswith("/") else []
    return {
        "update_id": update_id,
        "message": {
            "message_id": update_id,
            "date": 1700000000,
            "chat": {"id": GROUP, "type": "supergroup", "title": "Gin night"},
            "from": {"id": user.telegram_user_id, "is_bot": False, "first_name": user.display_name},
            "text": text,
            "entities": entities,
        },
    }


def group_messages() -> list[Outbox]:
    return list(Outbox.objects.filter(channel="telegram", address=str(GROUP)).order_by("pk"))


@pytest.fixture
def tess_match(settings):
    """Tess (on Telegram) and two computer players, running."""
    settings.TELEGRAM_BOT_USERNAME = "gin3_test_bot"
    tess = telegram_player(user_id=7001, chat_id=7001, name="Tess", language="en")
    reply = handle(tess, "new to 50", "telegram")
    code = re.search(r"#([A-Z0-9]{4})", reply).group(1)
    handle(tess, "bot", "telegram")
    handle(tess, "bot", "telegram")
    return tess, code


@pytest.mark.django_db
def test_a_seated_player_links_a_group_with_group_code(tess_match):
    tess, code = tess_match
    process_update(group_update(1, tess, f"/group@gin3_test_bot {code}"))
    match = refresh(tess.seats.get().match)
    assert match.telegram_group_chat_id == GROUP
    assert Event.objects.filter(match=match, kind="group_linked").count() == 1
    texts = [message.text for message in group_messages()]
    assert any(f"follows #{code}" in text for text in texts)
    assert any("stock" in text for text in texts), "the current public table is posted at once"


@pytest.mark.django_db
def test_a_replayed_group_update_links_once(tess_match):
    tess, code = tess_match
    process_update(group_update(2, tess, f"group {code}"))
    before = len(group_messages())
    process_update(group_update(2, tess, f"group {code}"))
    assert len(group_messages()) == before
    assert Event.objects.filter(kind="group_linked").count() == 1


@pytest.mark.django_db
def test_someone_not_in_the_match_cannot_link_it(tess_match):
    _tess, code = tess_match
    stranger = telegram_player(user_id=7002, chat_id=7002, name="Sam", language="en")
    process_update(group_update(3, stranger, f"/group {code}"))
    assert refresh(_tess.seats.get().match).telegram_group_chat_id is None
    assert "no open match" in group_messages()[-1].text


@pytest.mark.django_db
def test_other_commands_in_a_group_point_to_the_private_chat(tess_match):
    tess, _code = tess_match
    match = tess.seats.get().match
    before = snapshot(match)
    process_update(group_update(4, tess, "/draw"))
    assert snapshot(match) == before, "a command in a group changes no game"
    assert "https://t.me/gin3_test_bot" in group_messages()[-1].text


def face_up(match, number: int) -> set[str]:
    """Every card that lay face up in hand ``number``: the upcard and each discard."""
    row = match.hands.get(number=number)
    cards = [parse_cards(row.deck)[20]]
    for data in row.events.filter(kind="move").values_list("data", flat=True):
        if data["move"].startswith(("discard ", "knock ")):
            cards += parse_cards(data["move"].split()[1])
    return {card.symbol.replace("T", "10") for card in cards}


@pytest.mark.django_db
def test_the_group_follows_turns_and_results_and_never_sees_a_card_in_hand(tess_match):
    """Played to the end: a group table may only name cards that lay face up in
    its hand (R3.2, R4.4); results are public and show both hands."""
    tess, code = tess_match
    process_update(group_update(5, tess, f"group {code}"))
    match = play_to_end(refresh(tess.seats.get().match), tess)
    assert match.status == match.Status.FINISHED
    tables = [message for message in group_messages() if message.kind == "table"]
    assert tables and any(message.kind == "result" for message in group_messages())
    for message in tables:
        number = int(re.search(r"hand (\d+)", message.text).group(1))
        shown = {"".join(found) for found in CARD.findall(message.text)}
        assert shown <= face_up(match, number), message.text
    assert any(CARD.search(message.text) for message in tables), "the pile's top card is shown"


@pytest.mark.django_db
@pytest.mark.parametrize("channel", ["terminal", "telegram", "sms"])
def test_group_typed_outside_a_group_is_explained_and_changes_nothing(match3, alice, channel):
    before = snapshot(match3)
    reply = handle(alice, f"group {match3.code}", channel)
    assert reply == "Type group CODE in a Telegram group the bot is in: the group then follows that match."
    assert snapshot(match3) == before


# A group can't be flooded ---------------------------------------------------------------


@pytest.fixture
def linked(tess_match):
    tess, code = tess_match
    process_update(group_update(10, tess, f"/group {code}"))
    return tess, code


def answers() -> list[str]:
    return [message.text for message in group_messages() if message.kind == "pointer"]


@pytest.mark.django_db
def test_someone_who_plays_no_match_here_gets_one_brief_answer_to_a_flood_of_commands(linked):
    stranger = telegram_player(user_id=7002, chat_id=7002, name="Sam", language="en")
    for update in range(300):
        process_update(group_update(1000 + update, stranger, "/help"))
    assert answers() == ["To play gin3: https://t.me/gin3_test_bot"]
    assert ProcessedUpdate.objects.filter(key__startswith="tg:1").count() >= 300  # each one recorded, once


@pytest.mark.django_db
def test_a_player_of_the_match_gets_at_most_3_answers_a_minute_in_the_group(linked):
    tess, _code = linked
    for update in range(300):
        process_update(group_update(1000 + update, tess, "/help"))
    assert len(answers()) == groups.GROUP_REPLIES_PER_MINUTE - 1  # the answer to /group was the first
    assert all("play with me in a private chat" in text for text in answers())


@pytest.mark.django_db
def test_a_flood_of_group_codes_from_someone_not_in_the_match_gets_one_answer(linked):
    _tess, code = linked
    stranger = telegram_player(user_id=7002, chat_id=7002, name="Sam", language="en")
    before = len(group_messages())
    for update in range(300):
        process_update(group_update(1000 + update, stranger, f"/group {code}"))
    assert len(group_messages()) == before + 1


@pytest.mark.django_db
def test_the_matchs_messages_to_the_group_go_out_before_the_answers_to_commands(linked, settings):
    tess, _code = linked
    settings.GIN3_BACKENDS = {**settings.GIN3_BACKENDS, "telegram": "tests.fakes.backends.ScriptedBackend"}
    Outbox.objects.filter(address=str(GROUP)).update(status=Outbox.Status.SENT)
    fake_backends.sent.clear()
    for update in range(2):
        stranger = telegram_player(user_id=7100 + update, chat_id=7100 + update, name=f"Sam {update}")
        process_update(group_update(2000 + update, stranger, "/help"))
    match = tess.seats.get().match
    with change():
        groups.tell_table(match, state.seats_of(match), match.current_hand, engine_hand(match))
    delivery.deliver_address("telegram", str(GROUP))
    assert [message.kind for message in fake_backends.sent] == ["table", "pointer"]
