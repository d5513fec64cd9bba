"""What an adversary types: fuzzed input on the parser and on live matches, floods and caps.

Why: every input from a player or the network is untrusted. Whatever is
typed, the parser answers with a ``ProtocolError`` or a command, ``handle``
answers with a short reply and never raises, and a command that is not
legal now changes nothing in the match. A flood of commands or of team talk
is refused with a clear reply and never buries a turn notice; a player can't
hold more waiting matches than a few, and match codes never run out.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from games.models import Match, Outbox
from games.services import handle
from games.services.plumbing import ratelimit
from games.services.write import matches
from games.services.write.players import phone_player, terminal_player
from games.text.protocol import Command, ProtocolError, parse
from tests.conftest import code_in, mover, player_in_role, snapshot

NASTY = st.sampled_from(
    [
        "\x00", "\u202e", "\u200b", "\u2066", "\ufeff", "\r\n", "\t", "\x1b[31m", "😀", "ק", "ſ", "\u212a", "²",
        "9" * 5000, "#", "@", "/", "#K7Q2@", "#K7Q2@99999999999999999999", "x" * 10_000,
    ]
)  # fmt: skip
WORDS = st.sampled_from(
    [
        "help", "new", "join", "bot", "leave", "status", "pass", "take", "draw", "discard", "d", "knock", "suggest",
        "accept", "team", "score", "resign", "yes", "lang", "name", "advise", "on", "off", "to", "gin", "undercut",
        "anydiscard", "open", "20", "150", "3d", "7h", "10d", "Td", "q♠",
    ]
)  # fmt: skip
TEXTS = st.text() | st.lists(WORDS | NASTY | st.text(max_size=6), max_size=10).map(" ".join)


@given(TEXTS)
def test_parse_takes_anything_and_answers_a_command_or_a_short_reason(text):
    try:
        command = parse(text)
    except ProtocolError as refused:
        assert 0 < len(str(refused)) <= 300
        assert "\x00" not in str(refused)
    else:
        assert isinstance(command, Command)
        assert "\x00" not in command.text


@pytest.mark.parametrize(
    "text",
    [
        "new to " + "1" * 5000,
        "new undercut " + "9" * 5000,
        "#K7Q2@" + "9" * 5000 + " draw",
        "stat\x00us",
        "team hi\x00there",
        "d 7\x00h",
    ],
)
def test_huge_numbers_and_nul_get_a_clear_reply_and_change_nothing(match3, text):
    player = player_in_role(match3, "captain")
    before = snapshot(match3)
    reply = handle(player, text, "terminal")
    assert reply
    if not text.startswith("team"):
        assert snapshot(match3) == before


def test_a_team_message_with_nul_is_delivered_without_it(match3):
    captain, sitter = player_in_role(match3, "captain"), player_in_role(match3, "sitter")
    handle(captain, "team keep\x00 the spades", "terminal")
    message = Outbox.objects.filter(recipient=sitter, kind="team").latest("pk")
    assert "\x00" not in message.text and "keep the spades" in message.text


def test_a_team_message_too_long_is_refused_and_nothing_reaches_the_partner(match3):
    """A message cut at 300 characters would reach the sitter other than the captain wrote it."""
    captain, sitter = player_in_role(match3, "captain"), player_in_role(match3, "sitter")
    reply = handle(captain, "team " + "keep the spades " * 20, "terminal")
    assert "Too long: a team message has at most 300 characters. Nothing was sent." in reply
    assert not Outbox.objects.filter(recipient=sitter, kind="team").exists()


@hypothesis_settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_handle_on_a_live_match_never_raises_and_an_illegal_command_changes_nothing(match3, data):
    player = data.draw(st.sampled_from([seat.player for seat in match3.seats.select_related("player")]))
    text = data.draw(TEXTS)
    before = snapshot(match3)
    reply = handle(player, text, data.draw(st.sampled_from(["terminal", "telegram", "sms"])))
    assert isinstance(reply, str)
    if snapshot(match3) != before:
        command = parse(text)  # only a command that parses can change the match
        assert command.name in ("pass", "take", "draw", "discard", "knock", "suggest", "accept", "team", "resign")


# Floods ---------------------------------------------------------------------------------


@pytest.fixture
def paced(settings):
    """The real limit on commands per minute, on a limiter of this process alone."""
    settings.GIN3_COMMANDS_PER_MINUTE = 30
    settings.REDIS_URL = ""
    ratelimit._limiter_for.cache_clear()
    yield
    ratelimit._limiter_for.cache_clear()


def test_a_flood_of_commands_is_refused_with_one_clear_reply_and_nothing_applied(match3, paced):
    sitter = player_in_role(match3, "sitter")
    replies = [handle(sitter, f"team spam {number}", "terminal") for number in range(300)]
    refused = [reply for reply in replies if "Too many commands" in reply]
    assert len(refused) == 1, "told once, not 270 times"
    assert sum(reply.startswith("Sent to") for reply in replies) <= 30
    assert Outbox.objects.filter(kind="team").count() <= 30


class Clock:
    """The limiter's clock (``time.monotonic``), moved by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


@pytest.mark.parametrize(("channel", "every"), [("terminal", 5), ("sms", 60)])
def test_a_player_over_the_limit_is_told_again_in_a_few_seconds_or_by_sms_in_a_minute(
    channel, every, paced, monkeypatch, db
):
    clock = Clock()
    monkeypatch.setattr(ratelimit, "time", clock)
    player = terminal_player("tess", "Tess") if channel == "terminal" else phone_player("+15550009999")[0]
    for _command in range(30):
        handle(player, "status", channel)
    assert "Too many commands" in handle(player, "status", channel)
    assert handle(player, "status", channel) == ""
    clock.now += every - 1
    assert handle(player, "status", channel) == ""
    clock.now += 2
    assert handle(player, "status", channel) != "", "a person who typed is answered: refused, or carried out"


def test_team_talk_is_capped_between_two_moves(match3):
    sitter = player_in_role(match3, "sitter")
    replies = [handle(sitter, f"team hint {number}", "terminal") for number in range(8)]
    assert sum(reply.startswith("Sent to") for reply in replies) == 5
    assert "wait for the next one" in replies[-1]
    handle(mover(match3), "pass", "terminal")
    assert handle(sitter, "team and now?", "terminal").startswith("Sent to")


# Caps -------------------------------------------------------------------------------------


def test_a_player_may_have_only_a_few_matches_waiting_for_players(alice):
    codes = [code_in(handle(alice, "new", "terminal")) for _ in range(matches.MAX_WAITING)]
    reply = handle(alice, "new", "terminal")
    assert "waiting for players" in reply
    assert Match.objects.filter(status=Match.Status.LOBBY).count() == len(codes)


def test_status_with_many_matches_is_summarised_to_fit_a_message(alice, make_player):
    for number in range(14):
        other = make_player(f"P{number}")
        code = code_in(handle(other, "new", "terminal"))
        handle(alice, f"join {code}", "terminal")
        handle(other, "bot", "terminal")  # it starts
    reply = handle(alice, "status", "terminal")
    assert reply.startswith("Your matches:") and "... and 4 more." in reply
    assert len(reply.splitlines()) == 1 + 10 + 2


def test_match_codes_grow_a_character_when_the_short_ones_are_taken(alice, monkeypatch):
    taken = code_in(handle(alice, "new", "terminal"))
    real = matches.new_code
    monkeypatch.setattr(matches, "new_code", lambda length=4: taken if length == 4 else real(length))
    code = code_in(handle(alice, "new", "terminal"))
    assert len(code) == 5
