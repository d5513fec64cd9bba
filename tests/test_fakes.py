"""The Telegram and Twilio fakes, driven by the real client libraries over real HTTP.

Why: the rest of the suite trusts these fakes to behave like the real services as seen
through python-telegram-bot and twilio; these tests pin down that contract.
"""

from __future__ import annotations

import asyncio
import datetime as dtm
import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from telegram import Bot, BotCommand, InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.constants import ParseMode
from telegram.error import BadRequest, Conflict, Forbidden, InvalidToken, RetryAfter
from telegram.ext import Application, CallbackQueryHandler, CommandHandler, ContextTypes
from twilio.base.exceptions import TwilioRestException
from twilio.request_validator import RequestValidator
from twilio.rest import Client

from tests.fakes.telegram_api import FakeTelegram, FakeUsageError
from tests.fakes.twilio_api import FakeTwilio, client, num_segments, sign

# PTB 22 warns that RetryAfter.retry_after will become a timedelta; irrelevant to the fakes.
pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")

# PTB capitalizes Telegram's error descriptions, hence the (?i) in pytest.raises(match=...).

ALICE = 1001
BOB = 1002
KEYBOARD = InlineKeyboardMarkup(
    [
        [
            InlineKeyboardButton("Draw", callback_data="draw"),
            InlineKeyboardButton("Discard", callback_data="discard"),
        ]
    ]
)


@pytest.fixture
def tg() -> Iterator[FakeTelegram]:
    with FakeTelegram() as fake:
        yield fake


@pytest.fixture
def tw() -> Iterator[FakeTwilio]:
    with FakeTwilio() as fake:
        yield fake


def post_json(url: str, payload: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        url, json.dumps(payload).encode(), {"Content-Type": "application/json"}, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


# -- Telegram ---------------------------------------------------------------------------------


def test_get_me_returns_the_configured_bot_user(tg: FakeTelegram) -> None:
    async def scenario() -> None:
        async with tg.bot() as bot:
            me = await bot.get_me()
            assert (me.id, me.is_bot, me.username, me.can_join_groups) == (
                123456789,
                True,
                "gin3_test_bot",
                True,
            )

    asyncio.run(scenario())


def test_send_message_returns_a_message_with_per_chat_ids_and_is_recorded(tg: FakeTelegram) -> None:
    async def scenario() -> None:
        async with tg.bot() as bot:
            first = await bot.send_message(ALICE, "Deal!", reply_markup=KEYBOARD)
            second = await bot.send_message(ALICE, "Your turn")
            other = await bot.send_message(BOB, "Wait")
            assert (first.message_id, second.message_id, other.message_id) == (1, 2, 1)
            assert first.chat.id == ALICE and first.from_user.username == "gin3_test_bot"
            assert first.reply_markup == KEYBOARD

    asyncio.run(scenario())
    assert [(m.method, m.chat_id, m.text) for m in tg.sent] == [
        ("sendMessage", ALICE, "Deal!"),
        ("sendMessage", ALICE, "Your turn"),
        ("sendMessage", BOB, "Wait"),
    ]
    assert tg.messages_to(ALICE)[0].callback_data == ["draw", "discard"]
    assert tg.last_message_to(BOB).text == "Wait"


def test_pressing_a_button_delivers_a_callback_query_that_can_be_answered_once(tg: FakeTelegram) -> None:
    alice = tg.user(ALICE, "Alice", username="alice")

    async def scenario() -> None:
        async with tg.bot() as bot:
            await bot.send_message(ALICE, "Deal!", reply_markup=KEYBOARD)
            alice.press(tg.last_message_to(ALICE), "discard")
            (update,) = await bot.get_updates()
            query = update.callback_query
            assert (query.data, query.from_user.username, query.message.message_id) == ("discard", "alice", 1)
            assert await query.answer("Discarded", show_alert=True)
            with pytest.raises(BadRequest, match=r"(?i)query is too old"):
                await query.answer()
            with pytest.raises(BadRequest, match=r"(?i)query is too old"):
                await bot.answer_callback_query("no-such-query")

    asyncio.run(scenario())
    (answer,) = tg.callback_answers
    assert (answer.text, answer.show_alert) == ("Discarded", True)


def test_press_refuses_data_that_is_not_on_the_message(tg: FakeTelegram) -> None:
    alice = tg.user(ALICE, "Alice")
    bob = tg.user(BOB, "Bob")

    async def scenario() -> None:
        async with tg.bot() as bot:
            await bot.send_message(ALICE, "Deal!", reply_markup=KEYBOARD)

    asyncio.run(scenario())
    message = tg.last_message_to(ALICE)
    with pytest.raises(FakeUsageError, match=r"'knock' is not a button"):
        alice.press(message, "knock")
    with pytest.raises(FakeUsageError, match=r"cannot see"):
        bob.press(message, "draw")
    assert tg.pending_updates == []


def test_edit_message_text_replaces_text_and_keyboard_and_rejects_no_op_edits(tg: FakeTelegram) -> None:
    async def scenario() -> None:
        async with tg.bot() as bot:
            sent = await bot.send_message(ALICE, "Deal!", reply_markup=KEYBOARD)
            edited = await bot.edit_message_text("Dealt", ALICE, sent.message_id)
            assert edited.text == "Dealt" and edited.reply_markup is None and edited.edit_date is not None
            with pytest.raises(BadRequest, match=r"(?i)message is not modified"):
                await bot.edit_message_text("Dealt", ALICE, sent.message_id)
            with pytest.raises(BadRequest, match=r"(?i)message to edit not found"):
                await bot.edit_message_text("Dealt", ALICE, 999)

    asyncio.run(scenario())
    assert [m.method for m in tg.sent] == ["sendMessage", "editMessageText"]
    (current,) = tg.messages_to(ALICE)
    assert (current.text, current.callback_data) == ("Dealt", [])


def test_commands_can_be_set_read_back_and_deleted(tg: FakeTelegram) -> None:
    async def scenario() -> None:
        async with tg.bot() as bot:
            assert await bot.set_my_commands([BotCommand("start", "Join a game"), BotCommand("hand", "Show hand")])
            assert [c.command for c in await bot.get_my_commands()] == ["start", "hand"]
            assert tg.commands == [
                {"command": "start", "description": "Join a game"},
                {"command": "hand", "description": "Show hand"},
            ]
            with pytest.raises(BadRequest, match=r"(?i)BOT_COMMAND_INVALID"):
                await bot.set_my_commands([BotCommand("Bad-Name", "x")])
            assert await bot.delete_my_commands()
            assert await bot.get_my_commands() == ()

    asyncio.run(scenario())


def test_fail_next_429_raises_retry_after_then_recovers(tg: FakeTelegram) -> None:
    tg.fail_next("sendMessage", times=1, status=429, retry_after=7)

    async def scenario() -> None:
        async with tg.bot() as bot:
            with pytest.raises(RetryAfter) as caught:
                await bot.send_message(ALICE, "hi")
            assert caught.value.retry_after in (7, dtm.timedelta(seconds=7))
            await bot.send_message(ALICE, "hi")

    asyncio.run(scenario())
    assert len(tg.sent) == 1


def test_blocked_chat_raises_forbidden(tg: FakeTelegram) -> None:
    tg.block_chat(ALICE)

    async def scenario() -> None:
        async with tg.bot() as bot:
            with pytest.raises(Forbidden, match=r"(?i)bot was blocked by the user"):
                await bot.send_message(ALICE, "hi")
            with pytest.raises(Forbidden):
                await bot.send_chat_action(ALICE, "typing")
            await bot.send_message(BOB, "hi")

    asyncio.run(scenario())
    assert [m.chat_id for m in tg.sent] == [BOB]


def test_long_poll_returns_as_soon_as_an_update_is_injected(tg: FakeTelegram) -> None:
    alice = tg.user(ALICE, "Alice")

    async def scenario() -> float:
        async with tg.bot() as bot:
            threading.Timer(0.2, alice.send, args=("hello",)).start()
            started = time.monotonic()
            (update,) = await bot.get_updates(timeout=10)
            assert update.message.text == "hello"
            return time.monotonic() - started

    assert asyncio.run(scenario()) < 1.0


def test_long_poll_returns_nothing_after_the_capped_timeout() -> None:
    with FakeTelegram(max_poll_wait=0.2) as tg:

        async def scenario() -> tuple[tuple[Update, ...], float]:
            async with tg.bot() as bot:
                started = time.monotonic()
                return await bot.get_updates(timeout=30), time.monotonic() - started

        updates, elapsed = asyncio.run(scenario())
    assert updates == () and 0.15 < elapsed < 2


def test_get_updates_confirms_updates_below_the_offset(tg: FakeTelegram) -> None:
    alice = tg.user(ALICE, "Alice")
    for text in ("one", "two", "three"):
        alice.send(text)

    async def scenario() -> None:
        async with tg.bot() as bot:
            first, second, third = await bot.get_updates()
            assert [u.update_id for u in (first, second, third)] == [first.update_id + i for i in range(3)]
            assert [u.message.text for u in await bot.get_updates(offset=second.update_id)] == [
                "two",
                "three",
            ]
            assert [u.message.text for u in await bot.get_updates(offset=third.update_id + 1)] == []

    asyncio.run(scenario())


def test_command_messages_carry_the_entity_command_handler_needs(tg: FakeTelegram) -> None:
    alice = tg.user(ALICE, "Alice")
    alice.send("/start join_ABC")

    async def scenario() -> None:
        async with tg.bot() as bot:
            (update,) = await bot.get_updates()
            args, _ = CommandHandler("start", lambda *_: None).check_update(update)
            assert args == ["join_ABC"]

    asyncio.run(scenario())


def test_group_messages_and_make_update_build_updates_without_queueing(tg: FakeTelegram) -> None:
    alice = tg.user(ALICE, "Alice")
    table = tg.group(-100123, "Gin table")
    update = alice.message_update("hi all", chat=table)
    assert update["message"]["chat"] == {"id": -100123, "type": "supergroup", "title": "Gin table"}
    custom = tg.make_update(my_chat_member={"chat": table.chat})
    assert custom["update_id"] == update["update_id"] + 1
    assert tg.pending_updates == []
    tg.queue_update(update)
    assert tg.pending_updates == [update]


def test_wrong_token_is_unauthorized_and_unknown_methods_are_not_found(tg: FakeTelegram) -> None:
    async def scenario() -> None:
        async with Bot("42:wrong", base_url=tg.base_url):
            pass  # entering the context calls getMe

    with pytest.raises(InvalidToken):
        asyncio.run(scenario())
    assert post_json(f"{tg.base_url}{tg.token}/frobnicate", {}) == (
        404,
        {"ok": False, "error_code": 404, "description": "Not Found"},
    )


def test_json_bodies_are_accepted_like_form_bodies(tg: FakeTelegram) -> None:
    status, body = post_json(
        f"{tg.base_url}{tg.token}/sendMessage",
        {
            "chat_id": ALICE,
            "text": "json",
            "reply_markup": {"inline_keyboard": [[{"text": "A", "callback_data": "a"}]]},
        },
    )
    assert status == 200 and body["result"]["reply_markup"]["inline_keyboard"][0][0]["callback_data"] == "a"
    assert tg.last_message_to(ALICE).callback_data == ["a"]


def test_webhook_settings_are_recorded_and_block_get_updates(tg: FakeTelegram) -> None:
    async def scenario() -> None:
        async with tg.bot() as bot:
            with pytest.raises(BadRequest, match=r"(?i)HTTPS URL must be provided"):
                await bot.set_webhook("http://example.com/hook")
            assert await bot.set_webhook("https://example.com/hook", secret_token="s3cret", allowed_updates=["message"])
            info = await bot.get_webhook_info()
            assert (info.url, info.allowed_updates) == ("https://example.com/hook", ("message",))
            with pytest.raises(Conflict):
                await bot.get_updates()
            assert await bot.delete_webhook()
            assert await bot.get_updates() == ()

    asyncio.run(scenario())
    assert tg.webhook is None


def test_parse_modes_are_validated_and_rendered_like_telegram(tg: FakeTelegram) -> None:
    async def scenario() -> None:
        async with tg.bot() as bot:
            html = await bot.send_message(ALICE, "<b>7♠</b> &amp; 8♥", parse_mode=ParseMode.HTML)
            assert html.text == "7♠ & 8♥" and html.text_html == "<b>7♠</b> &amp; 8♥"
            with pytest.raises(BadRequest, match=r"(?i)Unsupported start tag"):
                await bot.send_message(ALICE, "score < 10", parse_mode=ParseMode.HTML)
            with pytest.raises(BadRequest, match=r"(?i)Character '\.' is reserved"):
                await bot.send_message(ALICE, "*Gin* at 10.", parse_mode=ParseMode.MARKDOWN_V2)

    asyncio.run(scenario())
    assert tg.last_message_to(ALICE).text == "<b>7♠</b> &amp; 8♥"


def test_rate_limit_violations_are_recorded_and_optionally_enforced() -> None:
    with FakeTelegram(enforce_rate_limits=True) as tg:

        async def scenario() -> None:
            async with tg.bot() as bot:
                await bot.send_message(ALICE, "one")
                await bot.send_message(BOB, "other chat is fine")
                with pytest.raises(RetryAfter):
                    await bot.send_message(ALICE, "two, too soon")

        asyncio.run(scenario())
        assert [(v.chat_id, v.rule) for v in tg.violations] == [
            (ALICE, f"more than 1 message per second to chat {ALICE}")
        ]


def test_wait_for_blocks_until_a_matching_message_is_sent(tg: FakeTelegram) -> None:
    async def send_later() -> None:
        await asyncio.sleep(0.1)
        async with tg.bot() as bot:
            await bot.send_message(ALICE, "Gin!")

    sender = threading.Thread(target=asyncio.run, args=(send_later(),))
    sender.start()
    found = tg.wait_for(lambda m: m.chat_id == ALICE and "Gin" in m.text, timeout=30)
    sender.join()
    assert found.text == "Gin!"
    with pytest.raises(AssertionError, match=r"timed out"):
        tg.wait_for(lambda m: m.chat_id == BOB, timeout=0.1)


def test_application_polling_handles_a_command_and_a_button_press_end_to_end(tg: FakeTelegram) -> None:
    alice = tg.user(ALICE, "Alice")

    async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        await update.message.reply_text(f"Joined {context.args[0]}", reply_markup=KEYBOARD)

    async def button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        await update.callback_query.answer()
        await update.callback_query.edit_message_text(f"You chose {update.callback_query.data}")

    async def scenario() -> None:
        app = Application.builder().token(tg.token).base_url(tg.base_url).build()
        app.add_handlers([CommandHandler("start", start), CallbackQueryHandler(button)])
        async with app:
            await app.start()
            await app.updater.start_polling(poll_interval=0)
            alice.send("/start join_ABC")
            joined = await asyncio.to_thread(tg.wait_for, lambda m: m.text == "Joined join_ABC")
            alice.press(joined, "draw")
            await asyncio.to_thread(tg.wait_for, lambda m: m.method == "editMessageText")
            await app.updater.stop()
            await app.stop()

    asyncio.run(scenario())
    assert tg.last_message_to(ALICE).text == "You chose draw"
    assert len(tg.callback_answers) == 1 and tg.violations == []


# -- Twilio -----------------------------------------------------------------------------------


def test_messages_create_returns_a_queued_message_and_is_recorded(tw: FakeTwilio) -> None:
    message = client(tw).messages.create(
        to="+15550001111",
        from_="+15550009999",
        body="Your turn",
        status_callback="https://example.com/status",
    )
    assert message.sid.startswith("SM") and len(message.sid) == 34
    assert (message.status, message.to, message.from_, message.body) == (
        "queued",
        "+15550001111",
        "+15550009999",
        "Your turn",
    )
    (sent,) = tw.messages_to("+15550001111")
    assert (sent.sid, sent.status_callback, sent.num_segments) == (
        message.sid,
        "https://example.com/status",
        1,
    )


def test_opted_out_number_raises_21610(tw: FakeTwilio) -> None:
    tw.opt_out("+15550001111")
    with pytest.raises(TwilioRestException) as caught:
        client(tw).messages.create(to="+15550001111", from_="+15550009999", body="hi")
    assert (caught.value.status, caught.value.code) == (400, 21610)
    assert tw.sent == []


def test_invalid_number_raises_21211(tw: FakeTwilio) -> None:
    tw.invalid("+15550002222")
    for number in ("+15550002222", "555-1234"):
        with pytest.raises(TwilioRestException) as caught:
            client(tw).messages.create(to=number, from_="+15550009999", body="hi")
        assert caught.value.code == 21211


def test_wrong_credentials_are_rejected(tw: FakeTwilio) -> None:
    wrong = Client(tw.account_sid, "not-the-token", http_client=tw.http_client())
    with pytest.raises(TwilioRestException) as caught:
        wrong.messages.create(to="+15550001111", from_="+15550009999", body="hi")
    assert (caught.value.status, caught.value.code) == (401, 20003)


def test_fail_next_makes_sends_fail_then_recover(tw: FakeTwilio) -> None:
    tw.fail_next(times=2, status=503)
    twilio = client(tw)
    for _ in range(2):
        with pytest.raises(TwilioRestException) as caught:
            twilio.messages.create(to="+15550001111", from_="+15550009999", body="hi")
        assert caught.value.status == 503
    twilio.messages.create(to="+15550001111", from_="+15550009999", body="hi")
    assert len(tw.sent) == 1


def test_clients_built_by_app_code_are_redirected_inside_the_block(tw: FakeTwilio) -> None:
    with tw.redirect_default_clients():
        app_client = Client(tw.account_sid, tw.auth_token)
    app_client.messages.create(to="+15550001111", messaging_service_sid="MG" + "a" * 32, body="hi")
    (sent,) = tw.sent
    assert (sent.from_, sent.resource["status"]) == (None, "accepted")


def test_num_segments_counts_unicode_suits_as_ucs2() -> None:
    assert [
        num_segments("a" * 160),
        num_segments("a" * 161),
        num_segments("7♠" * 35),
        num_segments("7♠" * 36),
    ] == [
        1,
        2,
        1,
        2,
    ]


def test_sign_produces_a_signature_request_validator_accepts(tw: FakeTwilio) -> None:
    params = tw.inbound_sms(from_="+15550001111", to="+15550009999", body="draw")
    url = "http://testserver/sms/inbound"
    signature = sign(url, params, tw.auth_token)
    validator = RequestValidator(tw.auth_token)
    assert validator.validate(url, params, signature)
    assert not validator.validate(url, {**params, "Body": "knock"}, signature)
