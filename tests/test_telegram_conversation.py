"""What a whole match costs and sounds like over Telegram (issue 18): the real bot
polling the fake Bot API over HTTP, three people playing a match to 50 by buttons
and by typing, every Bot API call counted.

Why: a chat that buzzes for every move and fills with tables whose buttons look
live reads like an SMS client. Telegram players should see one live table per
match, edited as the hand moves, hear the phone only when something needs them,
and find buttons only on their newest table. The figures are printed so that the
before and after of a change can be compared.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from games.models import Event, Match
from tests.fakes.telegram_api import FakeTelegram
from tests.telegram_harness import Players, VisibilityCheck, choose, fixed_deals, table_of
from tests.test_telegram import assert_nothing_said_twice, start_match, typed

pytestmark = pytest.mark.any_database

MOVE_BUTTON = re.compile(r"^#[A-Z0-9]{4,8}@\d+ ")  # a button played on one version of a table
MESSAGE_METHODS = ("sendMessage", "editMessageText", "editMessageReplyMarkup", "deleteMessage", "answerCallbackQuery")
MAX_CALLS_A_MOVE = 3.0  # its floor, counted in the test's docstring, is about 2.9 for this match
MAX_NEW_MESSAGES_A_MOVE = 0.75
RESULT = re.compile(r"#[A-Z0-9]{4,8}</b> hand \d+ over\.")  # a hand's result, which notifies who played it


def tables_with_live_buttons(tg: FakeTelegram, chat_id: int) -> list[int]:
    """The ids of the messages in a chat that still carry buttons for a move."""
    return [
        message.message_id
        for message in tg.messages_to(chat_id)
        if any(MOVE_BUTTON.match(data) for data in message.callback_data)
    ]


def turns_of(match: Match) -> Counter:
    """How many turns each seat had: a turn is a run of moves by one seat within a hand."""
    turns: Counter = Counter()
    previous = None
    for event in match.events.filter(kind=Event.Kind.MOVE).order_by("seq"):
        key = (event.hand_id, event.data["seat"])
        if key != previous:
            turns[event.data["seat"]] += 1
        previous = key
    return turns


def play_match(tg: FakeTelegram, people: Players, monkeypatch) -> tuple[Match, dict]:
    """A match to 50 (three hands, about fifty moves): Alice presses buttons, Bob types,
    Carol does both; once a hand the sitter suggests by a button and the captain accepts
    by another. After each action every message sent since is checked against the cards
    its reader may not see, and what carries move buttons in each player's chat other
    than his newest table is noted as (turn, chat, message ids)."""
    fixed_deals(monkeypatch, seed=45)
    people.say(tg.user(1001, "Alice", "alice"), "/start")
    assert "You are in no match. new starts one" in tg.last_message_to(1001).plain_text
    match, users = start_match(tg, people)
    start = len(tg.calls)
    check = VisibilityCheck(tg)
    with_cards = check()
    turn = presses = 0
    suggested = set()
    old_buttons = []
    while True:
        match.refresh_from_db()
        if match.status != Match.Status.RUNNING:
            break
        hand_row = match.hands.order_by("-number").first()
        seats = {seat.position: seat.player for seat in match.seats.select_related("player")}
        user = users[seats[match.turn_seat].telegram_user_id]
        message = table_of(tg, user)
        if hand_row.number not in suggested and match.turn_seat == hand_row.captain:
            sitter = users[seats[hand_row.sitter].telegram_user_id]
            advice = table_of(tg, sitter)
            suggestion = choose(match, [data.replace(" suggest", "", 1) for data in advice.callback_data])
            people.press(sitter, suggestion.replace(" ", " suggest ", 1), advice)
            table = table_of(tg, user)
            assert "Sitter suggests" in table.plain_text
            people.press(user, table.button(f"accept {suggestion.split(' ', 1)[1]}"), table)
            suggested.add(hand_row.number)
            presses += 2
        elif user.id == 1001 or (user.id == 1003 and turn % 2):
            people.press(user, choose(match, message.callback_data), message)
            presses += 1
        else:
            people.say(user, typed(choose(match, message.callback_data), turn))
        turn += 1
        with_cards += check()
        for chat_id in users:
            live = tables_with_live_buttons(tg, chat_id)
            stale = [message_id for message_id in live if message_id != table_of(tg, users[chat_id]).message_id]
            if stale:
                old_buttons.append((turn, chat_id, stale))
        assert turn < 1000
    return match, {
        "users": users,
        "calls": tg.calls[start:],
        "old_buttons": old_buttons,
        "turns": turn,
        "presses": presses,
        "with_cards": with_cards,
    }


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_whole_match_over_telegram_shows_no_hidden_card_keeps_one_live_table_and_sounds_only_when_needed(
    tg, people, monkeypatch
):
    """Everyone plays every role; every button press is answered once; no message shows
    a reader a card he may not see (R3.2, R4.4); no chat is told the same thing twice in
    a row; and the Bot API calls, the sounds and the live buttons are measured over the
    same match (below)."""
    match, played = play_match(tg, people, monkeypatch)
    assert match.status == Match.Status.FINISHED
    assert match.seats.get(player=match.winner).score >= 50
    assert match.hands.count() == 3  # everyone had every role
    for user_id in played["users"]:
        assert any("wins the match" in m.plain_text for m in tg.messages_to(user_id))
    assert played["with_cards"] > played["turns"]  # the check saw the cards of every table it let through
    assert len(tg.callback_answers) == played["presses"]
    assert tg.violations == []
    assert_nothing_said_twice(tg)
    assert {"draw", "discard", "knock", "new", "join"} <= {command["command"] for command in tg.commands}
    assert_one_live_table_and_sounds_only_for_what_needs_the_player(match, played)


def assert_one_live_table_and_sounds_only_for_what_needs_the_player(match: Match, played: dict) -> None:
    """Measured over the whole match, each figure printed.

    The floor of the Bot API calls: in a turn of two moves the mover sees the card he
    drew (an edit), his table after his discard (an edit), and the next player is woken
    (a new message: an edit makes no sound); the sitter follows the hand (an edit a
    turn); every press must be answered (answerCallbackQuery). That is two calls a move
    before the presses are answered and the hands are dealt and scored, so the figure
    asked for in issue 18 (1.5 calls a move in all) is below what this conversation can
    cost; what is held here is that it costs no more than that floor allows, and that
    most of it is edits of one table rather than new messages."""
    calls = [(method, params) for method, params in played["calls"] if method in MESSAGE_METHODS]
    by_method = Counter(method for method, _params in calls)
    moves = match.events.filter(kind=Event.Kind.MOVE).count()
    seats = {seat.player.telegram_user_id: seat.position for seat in match.seats.select_related("player")}
    turns = turns_of(match)
    sounding = [
        (int(params["chat_id"]), bool(RESULT.search(params["text"])))
        for method, params in calls
        if method == "sendMessage" and not params.get("disable_notification")
    ]
    notifying = Counter(chat_id for chat_id, _result in sounding)
    not_results = Counter(chat_id for chat_id, result in sounding if not result)
    stale = {(chat_id, message_id) for _turn, chat_id, ids in played["old_buttons"] for message_id in ids}
    print(
        f"\nBot API over a match of {moves} moves: {dict(by_method)}, {len(calls) / moves:.2f} calls a move, "
        f"{by_method['sendMessage'] / moves:.2f} new messages a move; "
        + ", ".join(
            f"player {user_id}: {notifying[user_id]} notifying messages ({not_results[user_id]} besides results) "
            f"for {turns[position]} turns"
            for user_id, position in seats.items()
        )
        + f"; old tables left with live buttons: {len(stale)}"
    )
    assert played["old_buttons"] == [], "only each player's newest table carries buttons for a move"
    for user_id, position in seats.items():
        assert not_results[user_id] <= turns[position], f"player {user_id} was woken more often than he had turns"
    assert by_method["sendMessage"] / moves <= MAX_NEW_MESSAGES_A_MOVE, "a table is edited, not sent again"
    assert len(calls) / moves <= MAX_CALLS_A_MOVE
