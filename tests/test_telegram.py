"""The Telegram channel end to end: the real bot polling the fake Bot API over
HTTP, the outbox delivered through the real TelegramBackend."""

from __future__ import annotations

import asyncio
import logging
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from itertools import pairwise

import pytest
import redis
from django.core.management import CommandError, call_command

from bot.backends import telegram as backend
from bot.telegram.updates import command_text, process_update
from games.models import Match, Outbox, Player
from games.services import handle
from games.services.plumbing import outbox, ratelimit
from games.services.plumbing.ratelimit import LocalLimiter, RedisLimiter, Rule
from tests.fakes.telegram_api import FakeTelegram
from tests.telegram_harness import (
    BOT,
    Players,
    PollingBot,
    VisibilityCheck,
    choose,
    current_hand,
    deliver_all,
    table_of,
)


@pytest.fixture
def polling_bot(tg, monkeypatch):
    bot = PollingBot(monkeypatch).start()
    yield bot
    bot.stop()


@pytest.fixture
def people(tg, polling_bot) -> Players:
    return Players(tg, polling_bot)


def code_of(text: str) -> str:
    return re.search(r"#([A-Z0-9]{4,8})", text)[1]


def typed(data: str, turn: int) -> str:
    """A button's command as a person might type it instead: with a slash and the
    bot's name, in capitals, with the short form of discard, or with suit symbols."""
    command = data.split(" ", 1)[1]
    name, _, rest = command.partition(" ")
    match turn % 4:
        case 0:
            return f"/{name}@{BOT} {rest}".strip()
        case 1:
            return command.upper()
        case 2:
            return f"d {rest}" if name == "discard" else command
        case _:
            symbols = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}
            return f"{name} {rest[:-1]}{symbols[rest[-1]]}" if rest else command


def start_match(tg: FakeTelegram, people: Players):
    """Alice creates a match to 50, Bob joins by the invite link, Carol by typing."""
    alice, bob, carol = tg.user(1001, "Alice", "alice"), tg.user(1002, "Bob", "bob"), tg.user(1003, "Carol")
    people.say(alice, "/new to 50")
    invite = tg.last_message_to(alice.id).plain_text
    code = code_of(invite)
    assert f"https://t.me/{BOT}?start=join_{code}" in invite
    people.say(bob, f"/start join_{code}")
    people.say(carol, f"/join@{BOT} {code}")
    match = Match.objects.get(code=code)
    assert match.status == Match.Status.RUNNING
    assert {seat.player.telegram_user_id for seat in match.seats.all()} == {1001, 1002, 1003}
    return match, {user.id: user for user in (alice, bob, carol)}


def assert_nothing_said_twice(tg: FakeTelegram) -> None:
    """No chat gets the same text twice in a row, sent or edited: not the next hand's first
    table twice, nor an edit Telegram refuses ("message is not modified"). Taking an old
    table's buttons away says nothing: it is not counted."""
    by_chat: dict[int, list[str]] = {}
    for sent in tg.sent:
        if sent.method == "editMessageReplyMarkup":
            continue
        by_chat.setdefault(sent.chat_id, []).append(sent.plain_text)
    for chat, texts in by_chat.items():
        repeats = [text for earlier, text in pairwise(texts) if earlier == text]
        assert not repeats, f"chat {chat} got twice in a row: {repeats[0]!r}"


@pytest.mark.django_db(transaction=True)
def test_a_double_pressed_button_is_refused_and_both_presses_are_answered(tg, people):
    match, users = start_match(tg, people)
    player = match.seats.get(position=match.turn_seat).player
    user = users[player.telegram_user_id]
    message = table_of(tg, user)
    data = choose(match, message.callback_data)
    people.press(user, data, message, deliver=False)
    match.refresh_from_db()
    before = (match.version, match.events.count())
    people.press(user, data, message)  # the same button again, before the table changed on screen
    match.refresh_from_db()
    assert (match.version, match.events.count()) == before
    assert "earlier moment" in tg.last_message_to(user.id).plain_text
    first, second = tg.callback_answers[-2:]
    assert second.text == "That button is old: here is the table now."
    assert first.text != second.text


@pytest.mark.django_db(transaction=True)
def test_a_press_delivered_twice_acts_once_and_the_second_answer_says_nothing(tg, people):
    """Telegram may deliver one update twice: the second must not be answered "That
    button is old: here is the table now." with no table below it."""
    match, users = start_match(tg, people)
    user = users[match.seats.get(position=match.turn_seat).player.telegram_user_id]
    message = table_of(tg, user)
    update = user.callback_update(message, choose(match, message.callback_data))
    first = process_update(update)
    match.refresh_from_db()
    before = (match.version, match.events.count(), Outbox.objects.count())
    second = process_update(update)
    match.refresh_from_db()
    assert (match.version, match.events.count(), Outbox.objects.count()) == before
    assert first.text and second.text == ""


@pytest.mark.django_db
def test_the_visibility_check_sees_a_card_shown_to_the_wrong_player(tg):
    """The check the game tests rely on is not vacuous: the captain's card in the box's chat fails it."""
    alice, bob, carol = (_telegram_player(user_id) for user_id in (1001, 1002, 1003))
    code = code_of(handle(alice, "new", "telegram"))
    handle(bob, f"join {code}", "telegram")
    handle(carol, f"join {code}", "telegram")
    Outbox.objects.update(status=Outbox.Status.FAILED)  # only the forged message below matters
    match = Match.objects.get(code=code)
    box = match.seats.get(position=match.hands.get().box).player
    card = current_hand(match).captain[0]
    _queue(box, f"<b>#{code}</b> hand 1\nPile {card.symbol}")
    deliver_all()
    with pytest.raises(AssertionError, match="was shown"):
        VisibilityCheck(tg)()


@pytest.mark.django_db(transaction=True)
def test_a_user_who_blocked_the_bot_is_marked_unreachable(tg, people):
    alice, bob = tg.user(1001, "Alice", "alice"), tg.user(1002, "Bob", "bob")
    people.say(alice, "new")
    people.say(bob, f"join {code_of(tg.last_message_to(alice.id).plain_text)}")
    tg.block_chat(bob.id)
    people.say(bob, "status")  # the reply to him gets 403
    player = Player.objects.get(telegram_user_id=bob.id)
    assert player.telegram_blocked
    assert Outbox.objects.filter(recipient=player, status=Outbox.Status.FAILED).exists()
    assert "Bob can't be reached any more" in tg.last_message_to(alice.id).plain_text
    tg.unblock_chat(bob.id)
    people.say(bob, "status")  # writing to the bot again makes him reachable
    player.refresh_from_db()
    assert not player.telegram_blocked
    assert "waiting for players" in tg.last_message_to(bob.id).plain_text


@pytest.mark.django_db(transaction=True)
def test_a_command_in_a_group_that_follows_no_match_gets_a_brief_pointer_to_the_bot(tg, people):
    alice = tg.user(1001, "Alice", "alice")
    group = tg.group(-1001234, "Card club")
    before = people.bot.handled
    alice.send("/new", chat=group)
    alice.send("just chatting", chat=group)
    people.bot.wait_handled(before + 2)
    deliver_all()
    assert [m.plain_text for m in tg.messages_to(group.id)] == [f"To play gin3: https://t.me/{BOT}"]
    assert not Match.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_delivery_keeps_to_telegrams_limits_in_a_burst(tg):
    """35 chats at once (over the 30 a second in all) and 3 messages to one chat:
    all arrive, late rather than refused, and the fake records no violation."""
    players = [_telegram_player(2000 + n) for n in range(35)]
    rows = [_queue(player, f"hello {n}") for n, player in enumerate(players)]
    rows += [_queue(players[0], f"again {n}") for n in range(3)]
    started = time.monotonic()
    deliver_all()
    assert time.monotonic() - started >= 3 * backend.PRIVATE_CHAT[1]
    assert set(Outbox.objects.filter(pk__in=[row.pk for row in rows]).values_list("status", flat=True)) == {"sent"}
    assert len(tg.sent) == 38
    assert tg.violations == []


@pytest.mark.django_db(transaction=True)
def test_a_message_slow_to_reach_telegram_still_arrives_a_second_before_the_next_to_its_chat(tg):
    """Telegram counts a message when it arrives; the next one to the chat is timed
    from then, however long the first took on the way."""
    player = _telegram_player(2001)
    tg.delay_next("sendMessage", 0.6)
    _queue(player, "first")
    _queue(player, "second")
    deliver_all()
    assert [m.plain_text for m in tg.messages_to(2001)] == ["first", "second"]
    assert tg.violations == []


@pytest.mark.django_db(transaction=True)
def test_a_429_from_telegram_is_waited_out(tg):
    player = _telegram_player(2001)
    tg.fail_next("sendMessage", status=429, retry_after=1)
    row = _queue(player, "hello")
    deliver_all()
    row.refresh_from_db()
    assert row.status == Outbox.Status.SENT and row.attempts == 0
    assert [m.plain_text for m in tg.messages_to(2001)] == ["hello"]


@pytest.mark.django_db(transaction=True)
def test_a_table_is_edited_in_place_while_it_is_the_newest_message(tg):
    player = _telegram_player(2001)
    first = _queue(player, "<b>table</b> 1", replaces="table:ABCD", kind="moved")
    deliver_all()
    _queue(player, "<b>table</b> 2", replaces="table:ABCD", kind="reply")
    _queue(player, "<b>table</b> 2", replaces="table:ABCD", kind="reply")  # not modified: still fine
    deliver_all()
    assert [(m.method, m.plain_text) for m in tg.sent] == [("sendMessage", "table 1"), ("editMessageText", "table 2")]
    _queue(player, "a reply")
    deliver_all()
    _queue(player, "table 3", replaces="table:ABCD")  # no longer the newest: sent anew
    deliver_all()
    _queue(player, "table 4", replaces="table:ABCD", kind="turn")  # your move: must notify
    deliver_all()
    assert [m.method for m in tg.sent[2:]] == ["sendMessage"] * 3
    first.refresh_from_db()
    assert Outbox.objects.last().external_id != first.external_id


@pytest.mark.django_db
def test_a_queued_table_that_a_newer_one_replaces_is_never_sent(tg):
    """Back after a while, he gets the table as it is, not every table he missed."""
    player = _telegram_player(2001)
    for number in range(5):
        _queue(player, f"table {number}", replaces="table:ABCD", kind="moved")
    _queue(player, "a result")
    _queue(player, "table 5", replaces="table:ABCD", kind="turn")
    deliver_all()
    assert [m.plain_text for m in tg.messages_to(2001)] == ["a result", "table 5"]


@pytest.mark.django_db
def test_a_message_too_long_for_telegram_goes_in_parts_in_order_a_second_apart(tg):
    """Telegram refuses a message of more than 4,096 characters: a reply of 9,000 goes in
    parts, each counted against the chat's message a second, like any message."""
    player = _telegram_player(2001)
    lines = [f"line {number} " + "x" * 90 for number in range(100)]
    _queue(player, "\n".join(lines))
    deliver_all()
    sent = [message.plain_text for message in tg.messages_to(2001)]
    assert len(sent) == 3 and all(len(part) <= 4096 for part in sent), "no part twice"
    assert "\n".join(sent) == "\n".join(lines)
    assert tg.violations == []


@pytest.mark.django_db(transaction=True)
def test_an_edit_of_a_deleted_message_sends_a_new_one(tg):
    player = _telegram_player(2001)
    first = _queue(player, "table 1", replaces="table:ABCD")
    deliver_all()
    first.refresh_from_db()
    asyncio.run(_delete(tg, 2001, int(first.external_id)))  # the user deleted it
    _queue(player, "table 2", replaces="table:ABCD")
    deliver_all()
    assert [m.plain_text for m in tg.messages_to(2001)] == ["table 2"]


@pytest.mark.django_db
def test_long_button_commands_are_shortened_or_left_out():
    long = "#ABCDEFGH@" + "9" * 40 + " suggest discard 10h"
    assert backend.callback_data(long) == "#ABCDEFGH@" + "9" * 40 + " suggest d Th"
    assert backend.callback_data("#ABCDEFGH@" + "9" * 60 + " draw") == ""
    markup = backend.keyboard([[{"text": "draw", "data": "#AB12@3 draw"}, {"text": "x", "data": "#A@" + "9" * 70}]])
    assert [[button.callback_data for button in row] for row in markup.inline_keyboard] == [["#AB12@3 draw"]]
    assert backend.keyboard([]) is None


def test_the_local_limiter_keeps_sliding_windows(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(ratelimit.time, "monotonic", lambda: now[0])
    limiter = LocalLimiter()
    group = [Rule("group", 20, 60.0)]
    assert all(limiter.acquire(group) == 0 for _ in range(20))
    assert limiter.acquire(group) == pytest.approx(60.0)
    now[0] += 30
    assert limiter.acquire(group) == pytest.approx(30.0)
    now[0] += 30.001
    assert limiter.acquire(group) == 0
    chat = [Rule("chat", 1, 1.1), Rule("all", 30, 1.0)]
    assert limiter.acquire(chat) == 0
    assert limiter.acquire(chat) == pytest.approx(1.1)
    assert limiter.acquire([Rule("all", 30, 1.0)]) == 0  # the refused send was not counted


def test_a_finished_send_counts_from_when_its_request_was_done(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(ratelimit.time, "monotonic", lambda: now[0])
    limiter = LocalLimiter()
    chat = [Rule("chat", 1, 1.0)]
    assert limiter.acquire(chat, "first") == 0
    now[0] += 0.75  # the request took that long
    limiter.finished(chat, "first")
    now[0] += 0.5
    assert limiter.acquire(chat, "second") == pytest.approx(0.5)
    now[0] += 0.5
    assert limiter.acquire(chat, "second") == 0
    limiter.finished(chat, "gone")  # a send the window has forgotten: nothing to move
    assert limiter.acquire(chat) == pytest.approx(1.0)


def test_start_deep_links_become_commands():
    assert command_text("/start") == "help"
    assert command_text("/start join_K7Q2") == "join K7Q2"
    assert command_text(f"/start@{BOT} join_K7Q2") == "join K7Q2"
    assert command_text("/draw@gin3_test_bot") == "/draw@gin3_test_bot"


@pytest.mark.django_db
def test_blocking_the_bot_marks_the_player_at_once(tg):
    player = _telegram_player(2001)
    user = tg.user(2001, "Ann")
    update = tg.make_update(
        my_chat_member={
            "chat": user.chat,
            "from": user.json,
            "date": int(time.time()),
            "old_chat_member": {"status": "member", "user": tg.bot_user},
            "new_chat_member": {"status": "kicked", "user": tg.bot_user, "until_date": 0},
        }
    )
    process_update(update)
    player.refresh_from_db()
    assert player.telegram_blocked


def test_runbot_without_a_token_says_how_to_get_one(settings):
    settings.TELEGRAM_BOT_TOKEN = ""
    with pytest.raises(CommandError, match="@BotFather"):
        call_command("runbot")


@pytest.mark.django_db
def test_settelegramwebhook_registers_the_webhook_with_its_secret(tg):
    call_command("settelegramwebhook", "https://gin3.example.org/")
    assert tg.webhook["url"] == "https://gin3.example.org/telegram/webhook/"
    assert tg.webhook["secret_token"] == "s3cret-token_for-tests"
    assert "draw" in {command["command"] for command in tg.commands}


def _telegram_player(user_id: int) -> Player:
    return Player.objects.create(display_name=f"P{user_id}", telegram_user_id=user_id, telegram_chat_id=user_id)


def _queue(player: Player, text: str, replaces: str = "", kind: str = "reply") -> Outbox:
    """A message as a change writes it: silent unless its kind needs its reader."""
    return Outbox.objects.create(
        recipient=player,
        channel=Outbox.Channel.TELEGRAM,
        address=str(player.telegram_chat_id),
        kind=kind,
        text=text,
        replaces=replaces,
        silent=kind not in outbox.NOTIFYING_KINDS,
    )


async def _delete(tg: FakeTelegram, chat_id: int, message_id: int) -> None:
    async with tg.bot() as bot:
        await bot.delete_message(chat_id, message_id)


@pytest.fixture
def redis_url(tmp_path) -> Iterator[str]:
    """A throwaway Redis server, for the limiter that all workers share."""
    server = shutil.which("redis-server")
    if server is None:
        pytest.skip("redis-server is not installed")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    try:
        connection = redis.Redis.from_url(url)
        for _attempt in range(100):
            try:
                connection.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        yield url
    finally:
        process.terminate()
        process.wait(5)


def test_the_redis_limiter_is_shared_and_counts_all_rules_or_none(redis_url):
    one, other = RedisLimiter(redis_url), RedisLimiter(redis_url)  # two workers
    chat = [Rule("chat:1", 1, 0.3), Rule("all", 3, 1.0)]
    assert one.acquire(chat) == 0
    assert 0 < other.acquire(chat) <= 0.3
    assert other.acquire([Rule("chat:2", 1, 0.3), Rule("all", 3, 1.0)]) == 0
    assert one.acquire([Rule("chat:3", 1, 0.3), Rule("all", 3, 1.0)]) == 0
    assert 0 < one.acquire([Rule("chat:4", 1, 0.3), Rule("all", 3, 1.0)]) <= 1.0  # the 4th in a second
    assert other.acquire([Rule("chat:4", 1, 0.3)]) == 0  # the refused send was not counted
    time.sleep(0.31)
    assert one.acquire([Rule("chat:1", 1, 0.3)], "slow") == 0
    time.sleep(0.2)
    other.finished([Rule("chat:1", 1, 0.3)], "slow")  # another worker's send, done 0.2 s later
    assert 0.25 < one.acquire([Rule("chat:1", 1, 0.3)]) <= 0.3


def test_the_shared_limiter_uses_redis_when_it_is_configured(settings, redis_url):
    settings.REDIS_URL = redis_url
    ratelimit._limiter_for.cache_clear()
    try:
        assert isinstance(ratelimit.shared_limiter(), RedisLimiter)
    finally:
        ratelimit._limiter_for.cache_clear()


@pytest.mark.django_db(transaction=True)
def test_polling_passes_over_an_update_whose_user_id_is_out_of_range_with_a_log_line(tg, polling_bot, caplog):
    """It could never be recorded, so it must not hold up the ones behind it."""
    huge, ann = tg.user(10**20, "Huge"), tg.user(1001, "Ann")
    with caplog.at_level(logging.WARNING, logger="bot.telegram.polling"):
        huge.send("new")
        ann.send("help")
        polling_bot.wait_handled(2)
    assert f"user id {10**20} is out of range" in caplog.text
    assert list(Player.objects.values_list("telegram_user_id", flat=True)) == [1001]
