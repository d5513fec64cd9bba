"""The lobby, time off, quiet hours, zones, reports and rematches on each channel, end to end.

Why: a command is only as good as the channel that carries it. Telegram runs
through the real bot polling the fake Bot API over HTTP, with its buttons;
SMS through Twilio's signed webhook and the real TwilioBackend against the
fake Twilio; the terminal through ``manage.py play`` with typed lines.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client as WebClient
from django.utils import timezone

from bot.backends import memory
from games.engine import Role
from games.models import Match, Player, Report
from games.services import handle
from games.services.write.players import terminal_player
from tests.conftest import code_in, player_in_role, refresh, rig
from tests.fakes.twilio_api import sms_switched_on
from tests.terminal_harness import assert_clean, play
from tests.test_rematch import FINAL_GIN
from tests.test_sms import SAM, THROUGH_TWILIO, deliver_all, text


def code_of(text: str) -> str:
    return re.search(r"#([A-Z0-9]{4,8})", text)[1]


def quiet_later() -> str:
    """Quiet hours that do not hold what a test sends now: two hours from now, an hour long (UTC)."""
    hour = (timezone.now().hour + 2) % 24
    return f"{hour:02d}-{(hour + 1) % 24:02d}"


# Telegram --------------------------------------------------------------------------------


@pytest.mark.any_database
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_on_telegram_strangers_find_a_match_by_buttons_take_time_off_report_and_play_again(tg, people):
    alice, bob, carol = tg.user(1001, "Alice", "alice"), tg.user(1002, "Bob", "bob"), tg.user(1003, "Carol")
    people.say(alice, "/start")
    start = tg.last_message_to(alice.id)
    assert start.callback_data == ["join any", "new open"]
    people.press(alice, start.button("Find a match"), start)
    opened = tg.last_message_to(alice.id).plain_text
    assert opened.startswith("No open match was waiting, so you opened #")
    code = code_of(opened)
    people.say(bob, "/open")
    assert f"#{code} 1d a move, to 100: Alice, waiting" in tg.last_message_to(bob.id).plain_text
    people.say(bob, "join any")
    people.say(carol, "/start")
    start = tg.last_message_to(carol.id)
    people.press(carol, start.button("Find a match"), start)
    match = Match.objects.get(code=code)
    assert match.status == Match.Status.RUNNING

    people.say(carol, "/tz Europe/Skopje")
    assert tg.last_message_to(carol.id).plain_text.startswith("Your time zone: Europe/Skopje, where it is")
    people.say(carol, f"quiet {quiet_later()}")
    assert "(Europe/Skopje)" in tg.last_message_to(carol.id).plain_text
    people.say(alice, "away 2d")
    assert tg.last_message_to(alice.id).plain_text.startswith("You are away, back in 2d")
    assert tg.last_message_to(carol.id).plain_text.startswith("Alice is away, back in 2d (")
    assert re.search(r"\(\d\d? [A-Z][a-z]{2} \d\d:\d\d CES?T\)", tg.last_message_to(carol.id).plain_text)
    people.say(alice, "back")
    assert tg.last_message_to(bob.id).plain_text == f"Alice is back: the clock runs for them again in #{code}."
    people.say(bob, "/report Alice writes rude things")
    assert tg.last_message_to(bob.id).plain_text.startswith("Thank you: the moderators got your report")
    assert Report.objects.get().text == "Alice writes rude things"

    rig(match, **FINAL_GIN)
    users = {user.id: user for user in (alice, bob, carol)}
    captain = users[player_in_role(match, Role.CAPTAIN).telegram_user_id]
    people.say(captain, "take")
    people.say(captain, "knock 8s")
    assert refresh(match).status == Match.Status.FINISHED
    for user in users.values():
        result = next(m for m in reversed(tg.messages_to(user.id)) if "wins the match!" in m.plain_text)
        people.press(user, result.button("Play again"), result)
    rematch = Match.objects.get(rematch_of=match)
    assert rematch.status == Match.Status.RUNNING
    for user in users.values():
        said = [m.plain_text for m in tg.messages_to(user.id)]
        assert any(f"All three agreed: #{rematch.code}, a rematch of #{code}, starts now." in t for t in said)
    assert tg.violations == []


# SMS ---------------------------------------------------------------------------------


@pytest.fixture
def twilio(settings, db):
    """SMS on, through the real TwilioBackend to a fake Twilio (as in test_sms)."""
    with sms_switched_on(settings, THROUGH_TWILIO) as fake:
        memory.sent.clear()
        yield fake


def test_by_sms_a_player_finds_a_match_takes_time_off_reports_and_plays_again(twilio, alice, bob):
    web = WebClient()
    welcome, opened = text(web, twilio, SAM, "join any")
    assert welcome.startswith("Welcome to gin3") and opened.startswith("No open match was waiting, so you opened #")
    code = code_of(opened)
    handle(alice, "join any", "terminal")
    (listed,) = text(web, twilio, SAM, "open")
    assert listed == "No open match waits for players now. join any opens one that others can join."
    handle(bob, "join any", "terminal")
    match = Match.objects.get(code=code)
    assert match.status == Match.Status.RUNNING
    deliver_all()

    (zone,) = text(web, twilio, SAM, "tz america/new_york")
    assert zone.startswith("Your time zone: America/New_York, where it is") and re.search(r"E[DS]T now", zone)
    (quiet,) = text(web, twilio, SAM, f"quiet {quiet_later()}")
    assert quiet.startswith("Quiet hours") and "(America/New_York)" in quiet
    (away,) = text(web, twilio, SAM, "away 3d")
    assert away.startswith("You are away, back in 3d (") and "Time off left this year: 11d." in away
    assert re.search(r"\(\d\d? [A-Z][a-z]{2} \d\d:\d\d E[DS]T\)", away)
    assert text(web, twilio, SAM, "back")[0].startswith("Welcome back: your clocks run again.")
    (thanks,) = text(web, twilio, SAM, "report Alice spams the team chat")
    assert thanks.startswith("Thank you: the moderators got your report")

    rig(match, **FINAL_GIN)
    captain = player_in_role(match, Role.CAPTAIN)
    answers = []
    for move in ("take", "knock 8s"):
        if captain.phone == SAM:
            answers += text(web, twilio, SAM, move)
        else:
            handle(captain, move, "terminal")
    deliver_all()
    sam = Player.objects.get(phone=SAM)
    results = [body for body in answers + [sms.body for sms in twilio.messages_to(SAM)] if "wins the match!" in body]
    assert results and all(body.endswith("\nTo play again with the same players: again") for body in results)
    (agreed,) = text(web, twilio, SAM, "again")
    assert agreed == f"You agreed to play #{code} again; the others are asked."
    handle(alice, "again", "terminal")
    handle(bob, "again", "terminal")
    deliver_all()
    rematch = Match.objects.get(rematch_of=match)
    assert rematch.status == Match.Status.RUNNING and rematch.seats.filter(player=sam).exists()
    assert any(f"a rematch of #{code}, starts now" in sms.body for sms in twilio.messages_to(SAM))


# The terminal ------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_in_the_terminal_a_player_finds_a_match_takes_time_off_reports_and_plays_again():
    ann, bea = terminal_player("terminal:ann", "ann"), terminal_player("terminal:bea", "bea")
    finished = Match.objects.get(code=code_in(handle(ann, "new 5m", "terminal")))
    handle(ann, "bot", "terminal")
    handle(ann, "bot", "terminal")
    handle(ann, "resign", "terminal")
    handle(ann, "resign yes", "terminal")
    waiting = Match.objects.get(code=code_in(handle(bea, "new 5m open", "terminal")))
    session = play(
        "--name",
        "ann",
        "--options",
        "5m",
        typist=[
            "open",
            "join any 5m",
            "away 1d",
            "back",
            "tz Europe/Skopje",
            "quiet 23-07",
            f"#{waiting.code} report bea is rude",
            f"#{finished.code} again",
            "quit",
        ],
    )
    said = session.text
    assert_clean(said)
    assert f"#{waiting.code} 5m a move, to 100: bea, waiting" in said
    assert f"You joined #{waiting.code}: 5m a move" in said
    assert "You are away, back in 1d (" in said and "Welcome back: your clocks run again." in said
    assert "Your time zone: Europe/Skopje, where it is" in said
    assert "Quiet hours 23:00-07:00 (Europe/Skopje)" in said
    assert f"Thank you: the moderators got your report on #{waiting.code}" in said
    rematch = Match.objects.get(rematch_of=finished)
    assert f"All three agreed: #{rematch.code}, a rematch of #{finished.code}, starts now." in said
    assert Report.objects.get().match == waiting
    assert refresh(waiting).seats.filter(player=ann).exists()
