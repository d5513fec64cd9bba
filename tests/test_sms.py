"""The SMS channel end to end: Twilio's signed webhook in, the real TwilioBackend out.

Why: SMS is played through a webhook anyone on the internet can post to, and
through carriers whose rules (STOP, START, HELP) are law; the tests drive the
real view with Django's test client and the real twilio library against a fake
Twilio over HTTP, so that signing, form encoding, TwiML and Twilio's error
codes are all exercised as in production.
"""

from __future__ import annotations

import random
import re
from datetime import timedelta
from types import SimpleNamespace
from urllib.parse import urlencode
from xml.etree import ElementTree

import pytest
from django.test import Client as WebClient
from django.utils import timezone
from twilio.base.exceptions import TwilioRestException

from bot.backends import memory
from bot.backends.sms import TwilioBackend
from games.engine import Knock, Role
from games.models import Match, Outbox, PhoneLink, Player, ProcessedUpdate
from games.services import handle
from games.services.plumbing import state
from games.services.plumbing.backends import Rejected, RetryLater, Unreachable
from games.services.plumbing.change import change
from games.services.plumbing.delivery import deliver
from games.services.write import computer_moves, linking, locked_table, play
from games.services.write.players import telegram_player
from games.text.protocol import ProtocolError, parse
from games.text.sms import is_gsm7, segments
from tests.conftest import code_in, refresh
from tests.fakes.twilio_api import OUR_NUMBER, PUBLIC_URL, FakeTwilio, sign, sms_switched_on

# SMS through the real client to the fake Twilio, Telegram into memory.
THROUGH_TWILIO = {"sms": "bot.backends.sms.TwilioBackend", "telegram": "bot.backends.memory.MemoryBackend"}
SAM = "+15550001234"
UNFINISHED = (Outbox.Status.PENDING, Outbox.Status.SENDING)


@pytest.fixture
def twilio(settings, db):
    """SMS on, through the real TwilioBackend to a fake Twilio; Telegram into memory."""
    settings.GIN3_BACKGROUND = "off"
    with sms_switched_on(settings, THROUGH_TWILIO) as fake:
        memory.sent.clear()
        yield fake


@pytest.fixture
def web() -> WebClient:
    return WebClient()


@pytest.fixture
def tess(db) -> Player:
    return telegram_player(user_id=7001, chat_id=7001, name="Tess", username="tess", language="en")


def post(web: WebClient, params: dict[str, str], signature: str | None, path: str = "/sms/inbound/"):
    """POST as Twilio does: a urlencoded form with the signature header."""
    headers = {"HTTP_X_TWILIO_SIGNATURE": signature} if signature is not None else {}
    return web.post(path, urlencode(params), content_type="application/x-www-form-urlencoded", **headers)


def replies_of(response) -> list[str]:
    """The texts of the TwiML answer's <Message> elements."""
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/xml")
    root = ElementTree.fromstring(response.content)
    assert root.tag == "Response"
    return [message.text or "" for message in root.findall("Message")]


def text(web: WebClient, fake: FakeTwilio, phone: str, body: str, params: dict[str, str] | None = None) -> list[str]:
    """``phone`` texts ``body`` to our number: a correctly signed webhook; the immediate replies."""
    params = params or fake.inbound_sms(phone, OUR_NUMBER, body)
    return replies_of(post(web, params, sign(PUBLIC_URL, params, fake.auth_token)))


def deliver_all() -> None:
    """What the Celery worker would do: deliver every message waiting in the outbox."""
    while waiting := list(
        Outbox.objects.filter(status__in=UNFINISHED).exclude(channel=Outbox.Channel.TERMINAL).order_by("pk")
    ):
        for message in waiting:
            deliver(message.pk)
        assert not Outbox.objects.filter(pk__in=[m.pk for m in waiting], status__in=UNFINISHED).exists()


def sms_player(phone: str = SAM) -> Player:
    return Player.objects.get(phone=phone)


def refresh_player(player: Player) -> Player:
    return Player.objects.get(pk=player.pk)


def code_texted_to(fake: FakeTwilio, phone: str) -> str:
    return re.search(r"code (\d{6})", fake.messages_to(phone)[-1].body).group(1)


# The webhook's gate ---------------------------------------------------------------


def test_an_unsigned_webhook_is_refused_with_403_and_does_nothing(twilio, web):
    response = post(web, twilio.inbound_sms(SAM, OUR_NUMBER, "new"), signature=None)
    assert response.status_code == 403
    assert not Player.objects.exists()


def test_a_webhook_signed_with_another_token_is_refused_with_403(twilio, web):
    params = twilio.inbound_sms(SAM, OUR_NUMBER, "new")
    response = post(web, params, sign(PUBLIC_URL, params, "not-our-auth-token"))
    assert response.status_code == 403
    assert not Player.objects.exists()


def test_a_webhook_whose_fields_were_changed_after_signing_is_refused_with_403(twilio, web):
    params = twilio.inbound_sms(SAM, OUR_NUMBER, "new")
    signature = sign(PUBLIC_URL, params, twilio.auth_token)
    response = post(web, {**params, "Body": "resign"}, signature)
    assert response.status_code == 403


def test_the_signature_must_cover_the_configured_public_url_not_the_host_django_sees(twilio, web):
    """Behind a proxy Django sees http://testserver; Twilio signed the public https URL."""
    params = twilio.inbound_sms(SAM, OUR_NUMBER, "new")
    response = post(web, params, sign("http://testserver/sms/inbound/", params, twilio.auth_token))
    assert response.status_code == 403


def test_a_query_string_twilio_called_with_is_part_of_what_is_signed(twilio, web):
    params = twilio.inbound_sms(SAM, OUR_NUMBER, "help")
    signature = sign(PUBLIC_URL + "?region=eu", params, twilio.auth_token)
    assert post(web, params, signature, path="/sms/inbound/?region=eu").status_code == 200
    assert post(web, params, signature, path="/sms/inbound/").status_code == 403


@pytest.mark.parametrize(
    "change",
    [
        {"From": "not a number"},
        {"MessageSid": "'; drop table"},
        {"From": None},
        {"Body": None},
        {"MessageSid": None},
    ],
)
def test_a_signed_but_malformed_request_is_a_400(twilio, web, change):
    params = twilio.inbound_sms(SAM, OUR_NUMBER, "new")
    params = {key: value for key, value in {**params, **change}.items() if value is not None}
    response = post(web, params, sign(PUBLIC_URL, params, twilio.auth_token))
    assert response.status_code == 400
    assert not Player.objects.exists()


def test_the_webhook_takes_only_post(twilio, web):
    assert web.get("/sms/inbound/").status_code == 405


def test_with_sms_off_the_webhook_answers_503(twilio, web, settings):
    settings.SMS_ENABLED = False
    params = twilio.inbound_sms(SAM, OUR_NUMBER, "new")
    assert post(web, params, sign(PUBLIC_URL, params, twilio.auth_token)).status_code == 503


def test_a_failure_inside_is_logged_and_answered_with_empty_twiml_never_a_500(twilio, web, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("the database went away")

    monkeypatch.setattr("bot.sms_views.handle", broken)
    text(web, twilio, SAM, "help")  # registers the number
    assert text(web, twilio, SAM, "status") == []


# Playing by SMS -------------------------------------------------------------------


def test_the_first_text_registers_the_number_and_is_answered_with_a_welcome(twilio, web):
    (welcome,) = text(web, twilio, SAM, "hello?")
    assert sms_player().display_name.endswith("1234")
    assert "Welcome to gin3" in welcome
    assert "join CODE" in welcome and "STOP" in welcome
    assert segments(welcome).count == 1


def test_a_first_text_that_is_a_command_is_carried_out_after_the_welcome(twilio, web, tess):
    code = code_in(handle(tess, "new", "telegram"))
    welcome, joined = text(web, twilio, SAM, f"join {code}")
    assert "Welcome to gin3" in welcome
    assert f"You joined #{code}" in joined
    assert Match.objects.get(code=code).seats.filter(player=sms_player()).exists()


def test_replies_come_back_in_the_twiml_answer_not_by_the_outbox(twilio, web):
    text(web, twilio, SAM, "hi")
    (reply,) = text(web, twilio, SAM, "new 3d")
    assert reply.startswith("New match #")
    assert not Outbox.objects.filter(channel=Outbox.Channel.SMS).exists()
    assert twilio.sent == []


def test_a_text_twilio_posts_twice_is_acted_on_once(twilio, web):
    text(web, twilio, SAM, "hi")
    params = twilio.inbound_sms(SAM, OUR_NUMBER, "new")
    assert text(web, twilio, SAM, "", params=params)[0].startswith("New match")
    assert text(web, twilio, SAM, "", params=params) == []
    assert Match.objects.count() == 1
    assert ProcessedUpdate.objects.filter(key=f"sms:{params['MessageSid']}").exists()


def test_a_reply_that_echoes_the_players_text_is_escaped_in_the_twiml(twilio, web):
    text(web, twilio, SAM, "hi")
    (reply,) = text(web, twilio, SAM, "<b>&amp;")
    assert reply == "I don't know '<b>&amp;'. Type help for the commands."


def test_sms_replies_are_plain_gsm7_without_typography(twilio, web):
    text(web, twilio, SAM, "hi")
    (reply,) = text(web, twilio, SAM, "status")  # "... Start one with new, or join ..."
    assert "—" not in reply and is_gsm7(reply)


# STOP, START, HELP ----------------------------------------------------------------


@pytest.mark.parametrize("word", ["STOP", "stop", "Stop.", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT"])
def test_every_opt_out_word_opts_the_number_out_and_is_answered_with_nothing(twilio, web, word):
    text(web, twilio, SAM, "hi")
    assert text(web, twilio, SAM, word) == []
    assert sms_player().sms_opted_out


def test_stop_as_the_very_first_text_records_the_opt_out(twilio, web):
    assert text(web, twilio, SAM, "STOP") == []
    assert sms_player().sms_opted_out


def test_after_stop_nothing_is_sent_to_the_number_and_texts_are_ignored_until_start(twilio, web, tess):
    code = code_in(handle(tess, "new", "telegram"))
    text(web, twilio, SAM, f"join {code}")
    text(web, twilio, SAM, "STOP")
    handle(tess, "bot", "telegram")  # the match starts: the cut and the deal go to everyone
    assert text(web, twilio, SAM, "status") == []
    assert text(web, twilio, SAM, "help") == []
    deliver_all()
    assert not Outbox.objects.filter(channel=Outbox.Channel.SMS).exists()
    assert twilio.messages_to(SAM) == []

    (again,) = text(web, twilio, SAM, "START")
    assert "again" in again and not sms_player().sms_opted_out
    (table,) = text(web, twilio, SAM, "status")
    assert f"#{code} hand 1" in table


def test_a_message_queued_before_stop_is_not_sent_after_it(twilio, web, tess):
    code = code_in(handle(tess, "new", "telegram"))
    text(web, twilio, SAM, f"join {code}")
    handle(tess, "bot", "telegram")
    assert Outbox.objects.filter(channel=Outbox.Channel.SMS, status=Outbox.Status.PENDING).exists()
    text(web, twilio, SAM, "STOP")
    deliver_all()
    assert twilio.messages_to(SAM) == []
    assert set(Outbox.objects.filter(channel=Outbox.Channel.SMS).values_list("status", flat=True)) == {"failed"}


def test_stop_in_a_running_match_tells_the_others_he_cannot_be_reached(twilio, web, tess):
    code = code_in(handle(tess, "new", "telegram"))
    text(web, twilio, SAM, f"join {code}")
    handle(tess, "bot", "telegram")
    text(web, twilio, SAM, "STOP")
    notice = Outbox.objects.get(recipient=tess, kind="unreachable")
    assert "be reached any more" in notice.text and code in notice.text


def test_start_from_a_number_that_never_stopped_is_a_welcome_not_a_resubscription(twilio, web):
    (welcome,) = text(web, twilio, SAM, "START")
    assert "Welcome to gin3" in welcome


def test_help_replies_with_short_help_and_how_to_stop(twilio, web):
    text(web, twilio, SAM, "hi")
    (reply,) = text(web, twilio, SAM, "HELP")
    assert "new" in reply and "join CODE" in reply
    assert reply.endswith("Text STOP to stop gin3 texts.")
    assert segments(reply).count <= 2


# Linking a phone to a Telegram player -----------------------------------------------


def test_phone_from_telegram_texts_a_code_that_links_the_number_when_texted_back(twilio, web, tess):
    reply = handle(tess, "phone +1 (555) 000-1234", "telegram")
    assert "I texted a code" in reply
    deliver_all()
    code = code_texted_to(twilio, SAM)
    assert code not in reply
    (linked,) = text(web, twilio, SAM, f"link {code}")
    assert "This phone now plays as Tess" in linked
    assert refresh_player(tess).phone == SAM
    assert Player.objects.filter(phone=SAM).get() == tess
    deliver_all()
    assert any("is linked to you" in message.text for message in memory.sent if message.address == "7001")


def test_linking_merges_away_the_bare_sms_player_the_number_had_made(twilio, web, tess):
    text(web, twilio, SAM, "hi")
    bare = sms_player()
    handle(tess, "phone +15550001234", "telegram")
    deliver_all()
    (linked,) = text(web, twilio, SAM, f"link {code_texted_to(twilio, SAM)}")
    assert "Tess" in linked
    bare.refresh_from_db()
    assert bare.merged_into == tess and bare.phone is None  # kept, so that the log still names him
    assert sms_player() == tess


def test_linking_is_refused_while_the_numbers_sms_player_plays_a_match(twilio, web, tess):
    text(web, twilio, SAM, "hi")
    text(web, twilio, SAM, "new")
    handle(tess, "phone +15550001234", "telegram")
    deliver_all()
    (refused,) = text(web, twilio, SAM, f"link {code_texted_to(twilio, SAM)}")
    assert "Finish it (or resign) first" in refused
    assert sms_player() != tess and refresh_player(tess).phone is None


def test_a_wrong_code_does_not_link_and_five_wrong_codes_kill_the_right_one(twilio, web, tess):
    handle(tess, "phone +15550001234", "telegram")
    deliver_all()
    code = code_texted_to(twilio, SAM)
    wrong = f"{(int(code) + 1) % 10**6:06d}"
    (answer,) = text(web, twilio, SAM, f"link {wrong}")
    assert "wrong" in answer
    for _ in range(4):
        text(web, twilio, SAM, f"link {wrong}")
    (answer,) = text(web, twilio, SAM, f"link {code}")
    assert "No code is waiting" in answer
    assert refresh_player(tess).phone is None


def test_an_expired_code_does_not_link(twilio, web, tess):
    handle(tess, "phone +15550001234", "telegram")
    deliver_all()
    PhoneLink.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    (answer,) = text(web, twilio, SAM, f"link {code_texted_to(twilio, SAM)}")
    assert "No code is waiting" in answer


def test_a_new_code_replaces_the_last_one_and_codes_are_limited_per_day(twilio, web, tess, monkeypatch):
    codes = iter([111111, 222222, 333333, 444444, 555555])
    monkeypatch.setattr(linking, "secrets", SimpleNamespace(randbelow=lambda _n: next(codes)))
    for _ in range(5):
        handle(tess, "phone +15550001234", "telegram")
    assert "enough codes" in handle(tess, "phone +15550001234", "telegram")
    deliver_all()
    assert [re.search(r"code (\d{6})", sms.body).group(1) for sms in twilio.messages_to(SAM)] == [
        "111111",
        "222222",
        "333333",
        "444444",
        "555555",
    ]
    assert "wrong" in text(web, twilio, SAM, "link 111111")[0]
    assert "now plays as Tess" in text(web, twilio, SAM, "link 555555")[0]


def test_the_code_is_kept_only_as_a_keyed_hash(twilio, tess):
    handle(tess, "phone +15550001234", "telegram")
    deliver_all()
    code = code_texted_to(twilio, SAM)
    row = PhoneLink.objects.get()
    assert code not in row.code_hash and len(row.code_hash) == 64
    assert code not in Outbox.objects.get(channel=Outbox.Channel.TELEGRAM).text


def test_link_from_telegram_says_to_text_it_from_the_phone(twilio, tess):
    assert "from the phone" in handle(tess, "link 123456", "telegram")


def test_phone_is_refused_for_a_number_that_sent_stop(twilio, web, tess):
    text(web, twilio, SAM, "STOP")
    assert "has sent STOP" in handle(tess, "phone +15550001234", "telegram")
    assert not Outbox.objects.filter(channel=Outbox.Channel.SMS).exists()


def test_phone_is_refused_when_sms_is_off(twilio, tess, settings):
    settings.SMS_ENABLED = False
    assert "SMS is off" in handle(tess, "phone +15550001234", "telegram")
    assert not PhoneLink.objects.exists()


@pytest.mark.parametrize(
    ("typed", "number"),
    [
        ("phone +15550001234", "+15550001234"),
        ("phone +44 20 7946 0958", "+442079460958"),
        ("phone 0049301234567", "+49301234567"),
    ],
)
def test_phone_reads_numbers_as_people_write_them(typed, number):
    assert parse(typed).text == number


@pytest.mark.parametrize(
    "typed", ["phone", "phone 5550001234", "phone +1555", "link 12345", "link abcdef", "notify email"]
)
def test_phone_link_and_notify_refuse_what_they_cannot_read(typed):
    with pytest.raises(ProtocolError):
        parse(typed)


def test_notify_sms_sends_turns_by_sms_and_notify_telegram_back(twilio, web, tess):
    assert "Link a phone first" in handle(tess, "notify sms", "telegram")
    handle(tess, "phone +15550001234", "telegram")
    deliver_all()
    text(web, twilio, SAM, f"link {code_texted_to(twilio, SAM)}")
    tess = refresh_player(tess)
    assert "by SMS to +15…1234" in handle(tess, "notify sms", "telegram")
    code = code_in(handle(tess, "new", "telegram"))
    handle(tess, "bot", "telegram")
    handle(tess, "bot", "telegram")
    match = Match.objects.get(code=code)
    notices = Outbox.objects.filter(recipient=tess, match=match).exclude(kind="reply")  # replies go where he wrote
    assert set(notices.values_list("channel", flat=True)) == {Outbox.Channel.SMS}
    assert set(Outbox.objects.filter(recipient=tess, kind="reply").values_list("channel", flat=True)) == {"telegram"}

    assert "on Telegram" in handle(tess, "notify telegram", "telegram")
    notices.delete()
    for _move in range(100):
        if notices.exists():
            break
        if not computer_moves.play_computer_move(match.pk):
            handle(tess, choose(match), "sms")
    assert set(notices.values_list("channel", flat=True)) == {Outbox.Channel.TELEGRAM}


# The backend ------------------------------------------------------------------------


def sms_row(phone: str = SAM, body: str = "Your move in #K7Q2") -> Outbox:
    return Outbox.objects.create(channel=Outbox.Channel.SMS, address=phone, kind="turn", text=body)


def test_the_backend_sends_one_twilio_message_and_returns_its_sid(twilio):
    body = "x" * 300
    sid = TwilioBackend().send(sms_row(body=body))
    (sent,) = twilio.messages_to(SAM)
    assert sent.sid == sid and sent.body == body and sent.from_ == OUR_NUMBER
    assert sent.num_segments == segments(body).count == 2


def test_the_backend_sends_from_the_messaging_service_when_one_is_set(twilio, settings):
    settings.TWILIO_MESSAGING_SERVICE_SID = "MG" + "0" * 32
    TwilioBackend().send(sms_row())
    assert twilio.messages_to(SAM)[0].messaging_service_sid == settings.TWILIO_MESSAGING_SERVICE_SID


@pytest.mark.parametrize(
    ("arrange", "raised"),
    [
        (lambda fake: fake.opt_out(SAM), Unreachable),  # 21610
        (lambda fake: fake.invalid(SAM), Unreachable),  # 21211
        (lambda fake: fake.fail_next(status=429), RetryLater),
        (lambda fake: fake.fail_next(status=500), TwilioRestException),
        (lambda fake: fake.fail_next(status=503), TwilioRestException),
    ],
)
def test_the_backend_maps_twilio_errors_for_delivery(twilio, arrange, raised):
    arrange(twilio)
    with pytest.raises(raised):
        TwilioBackend().send(sms_row())


def test_the_backend_rejects_what_twilio_refuses_for_good(twilio):
    with pytest.raises(Rejected):
        TwilioBackend().send(sms_row(body=""))  # 21602: no body


def test_the_backend_never_texts_a_number_that_sent_stop(twilio, db):
    Player.objects.create(display_name="x", phone=SAM, sms_opted_out=True)
    with pytest.raises(Unreachable):
        TwilioBackend().send(sms_row())
    assert twilio.sent == []


def test_delivery_retries_a_twilio_server_error_and_then_sends(twilio):
    twilio.fail_next(status=503)
    message = sms_row()
    deliver(message.pk)
    message.refresh_from_db()
    assert message.status == Outbox.Status.PENDING and message.attempts == 1
    Outbox.objects.filter(pk=message.pk).update(next_attempt_at=timezone.now())
    deliver(message.pk)
    message.refresh_from_db()
    assert message.status == Outbox.Status.SENT and message.external_id.startswith("SM")


def test_delivery_to_a_number_twilio_says_opted_out_marks_the_player(twilio, web):
    text(web, twilio, SAM, "hi")
    twilio.opt_out(SAM)
    message = Outbox.objects.create(
        recipient=sms_player(), channel=Outbox.Channel.SMS, address=SAM, kind="turn", text="Your move"
    )
    deliver(message.pk)
    assert sms_player().sms_opted_out
    message.refresh_from_db()
    assert message.status == Outbox.Status.FAILED


# A whole match ------------------------------------------------------------------------


def choose(match: Match) -> str:
    """A sensible legal move for whoever is to move: the lowest knock, else a safe move."""
    with change():
        hand = locked_table.load_table(match.pk).hand
        knocks = [action for action in hand.legal_actions() if isinstance(action, Knock)]
        if knocks:
            return str(min(knocks, key=lambda knock: hand.count_after_discard(knock.card)))
        return str(computer_moves.safe_move(hand))


def test_a_whole_match_with_one_player_by_sms_one_on_telegram_and_a_computer(twilio, web, tess, monkeypatch):
    """Sam plays only by texting; Tess on Telegram; a computer takes the third seat.
    Sam suggests to Tess when he sits and she captains, and she accepts."""
    monkeypatch.setattr(state, "_shuffler", random.Random(5))  # the same match every run
    monkeypatch.setattr(play, "secrets", SimpleNamespace(SystemRandom=lambda: random.Random(5)))
    code = code_in(handle(tess, "new 5m to 50", "telegram"))
    welcome, joined = text(web, twilio, SAM, f"join {code}")
    assert f"You joined #{code}" in joined
    handle(tess, "bot", "telegram")
    match = Match.objects.get(code=code)
    sam = sms_player()
    inline: list[str] = [welcome, joined]
    suggested: set[int] = set()
    deliver_all()
    for _step in range(3000):
        match = refresh(match)
        if match.status != Match.Status.RUNNING:
            break
        with change():
            table = locked_table.load_table(match.pk)
        mover = table.seat(table.mover).player
        sitter = table.seat(table.position_of_role(Role.SITTER)).player
        captain_to_move = table.hand.to_move is Role.CAPTAIN
        if mover == tess and captain_to_move and sitter == sam and table.hand_row.number not in suggested:
            suggested.add(table.hand_row.number)
            (said,) = text(web, twilio, SAM, f"suggest {choose(match)}")
            assert said.startswith("Suggested to Tess")
            handle(tess, "accept", "telegram")
        elif mover.is_computer:
            assert computer_moves.play_computer_move(match.pk)
        elif mover == sam:
            move = choose(match)
            replies = text(web, twilio, SAM, move)
            ends_turn = move.startswith(("discard", "pass"))  # by SMS only a refusal answers those
            assert len(replies) == (0 if ends_turn else 1) and "I don't know" not in "".join(replies), (move, replies)
            inline += replies
        else:
            handle(tess, choose(match), "telegram")
        deliver_all()
    assert match.status == Match.Status.FINISHED and match.winner is not None
    assert suggested, "Sam never sat while Tess captained"

    texts = twilio.messages_to(SAM)
    rows = Outbox.objects.filter(recipient=sam, channel=Outbox.Channel.SMS)
    done = (Outbox.Status.SENT, Outbox.Status.SUPERSEDED)  # a table a newer one replaced before it went
    assert not Outbox.objects.exclude(status__in=done).exclude(channel=Outbox.Channel.TERMINAL).exists()
    assert {row.external_id for row in rows} == {sms.sid for sms in texts}
    assert rows.filter(kind="turn").exists() and rows.filter(kind="result").count() == match.hands.count()
    assert any("wins the match!" in sms.body for sms in texts)
    for body in [sms.body for sms in texts] + inline:
        assert is_gsm7(body), body
        assert segments(body).count <= 2, body
    for row in rows.filter(kind__in=("turn", "deal", "advise", "moved")):
        assert segments(row.text).count == 1, row.text
    telegram = [message for message in memory.sent if message.address == "7001"]
    assert any(message.kind == "result" for message in telegram)
    assert any(message.kind == "turn" for message in telegram)
