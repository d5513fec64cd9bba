"""Golden transcripts: every message each of three players reads in one scripted match, in order.

Why: what a player reads is the product. A scripted match (fixed decks, a
fixed cut, a fixed clock) is played through ``handle`` on each channel, in
every language of the site (Hebrew right to left); every message each player gets, as the
channel would send it, is compared with the transcript checked in under
tests/golden/. Any change to what players read then shows in review as a
change to those files. To accept a change on purpose, run the tests with
``GIN3_UPDATE_GOLDEN=1`` and read the diff.

On Telegram what a player reads also depends on how each message arrives: as a new
message, with a sound or silent, or as an edit of his live table; and which old
message loses its buttons. The Telegram transcripts say so for each message, as the
Telegram backend decides it (``TelegramChats``).
"""

from __future__ import annotations

import os
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import timezone

from bot.backends.telegram import edit_target, stale_buttons
from games.engine import DECK, Roles, format_cards, parse_cards, stacked_deck
from games.models import Outbox, Player
from games.services import handle
from games.services.plumbing import state
from games.services.write import matches, play
from games.services.write.players import phone_player, telegram_player, terminal_player
from tests.conftest import player_in_role

GOLDEN = Path(__file__).parent / "golden"
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
CODE = "G0LD".replace("0", "Q")  # codes never have a 0 or an O
# Hand 1: the captain goes gin with the sitter's help; hand 2: the new captain takes the upcard and knocks.
HANDS = (
    stacked_deck(
        captain=parse_cards("2s 3s 4s 7h 7d 7c Jd Qd 9c 5h"),
        box=parse_cards("Ah 2h 3h 6c 6d 9s Ts Jh Kc Kh"),
        upcard=parse_cards("Ks")[0],
        stock=parse_cards("Kd 8s 5s 4h"),
    ),
    stacked_deck(
        captain=parse_cards("Ac 2c 3c 5d 6d 7d 9h 9d 9s Qc"),
        box=parse_cards("4s 5s 6s 8h 8d 8c Jc Qh Kd Th"),
        upcard=parse_cards("2h")[0],
        stock=parse_cards("7s 3h"),
    ),
    random.Random(3).sample(DECK, len(DECK)),  # hand 3: dealt, then the match is given up
)
ROLES = Roles(box=1, captain=0, sitter=2)  # Alice captains, Bob is the box, Carol sits out
CUT_SEED = 26  # a cut that gives ROLES in one round: Alice 9c, Bob Ks, Carol 4c
REAL_CUT = play.cut_for_roles


class Clock:
    """``timezone.now`` that moves a minute with each command, so that deadlines read the same every run."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now

    def tick(self) -> None:
        self.now += timedelta(minutes=1)


def players_on(channel: str, language: str) -> list[Player]:
    names = {
        "en": ("Alice", "Bob", "Carol"),
        "he": ("אלה", "בני", "כרמל"),
        "lt": ("Aistė", "Bronius", "Dalia"),
        "mk": ("Ана", "Боро", "Цвета"),
        "mr": ("अनिता", "भरत", "कविता"),
        "ms": ("Aisyah", "Badrul", "Siti"),
    }[language]
    made = []
    for number, name in enumerate(names):
        if channel == "telegram":
            player = telegram_player(user_id=900 + number, chat_id=900 + number, name=name, language=language)
        elif channel == "sms":
            player, _created = phone_player(f"+1555000010{number}")
            player.display_name, player.language = name, language
            player.save(update_fields=["display_name", "language"])
        else:
            player = terminal_player(f"golden-{number}", name)
            player.language = language
            player.save(update_fields=["language"])
        made.append(player)
    return made


def play_script(channel: str, language: str, monkeypatch) -> dict[str, list[str]]:
    """The scripted match; returns what each player read, in order."""
    clock = Clock()
    monkeypatch.setattr(timezone, "now", clock)
    monkeypatch.setattr(matches, "new_code", lambda length=4: CODE)
    decks = iter(HANDS)
    monkeypatch.setattr(state, "shuffled_deck", lambda: next(decks))
    monkeypatch.setattr(play, "cut_for_roles", lambda rng: REAL_CUT(random.Random(CUT_SEED)))
    alice, bob, carol = players_on(channel, language)
    read: dict[int, list[str]] = {player.pk: [] for player in (alice, bob, carol)}
    seen = {"outbox": 0}
    chats = TelegramChats() if channel == "telegram" else None

    def say(player: Player, text: str) -> None:
        clock.tick()
        inline = channel == "sms"
        reply = handle(player, text, channel, reply_inline=inline)
        if inline and reply:
            read[player.pk].append(f"[reply] {reply}")
        for message in Outbox.objects.filter(pk__gt=seen["outbox"]).order_by("pk"):
            seen["outbox"] = message.pk
            how = chats.deliver(message) if chats is not None else delivered(message)
            if message.recipient_id in read:
                read[message.recipient_id].append(transcribed(message, how))

    say(alice, "new 5m")
    say(bob, f"join {CODE}")
    say(carol, f"join {CODE}")
    match = alice.seats.get().match
    say(bob, "take")  # not his turn
    say(carol, "help")
    say(carol, "suggest pass")
    say(alice, "accept")
    say(bob, "pass")
    say(carol, "suggest draw")
    say(carol, "team the 8s would fit your spades")
    say(alice, "draw")
    say(alice, "discard Ks Qd")  # one card at a time
    say(alice, "d 9c")
    say(bob, "draw")
    say(bob, "d Kh")
    say(alice, "draw")
    say(alice, "status")
    say(alice, "knock 5h")  # gin
    say(player_in_role(match, "captain"), "help")
    say(player_in_role(match, "captain"), "take")
    say(player_in_role(match, "captain"), "knock Qc")
    say(bob, "score")
    say(carol, "resign")
    say(carol, "resign yes")
    names = {alice.pk: alice.display_name, bob.pk: bob.display_name, carol.pk: carol.display_name}
    return {names[pk]: lines for pk, lines in read.items()}


def delivered(message: Outbox) -> str:
    """A terminal's or a phone's message, marked sent as its delivery would."""
    Outbox.objects.filter(pk=message.pk).update(status=Outbox.Status.SENT, sent_at=timezone.now())
    return ""


class TelegramChats:
    """Each message delivered as the Telegram backend decides (``bot.backends.telegram``),
    without the Bot API: an edit of the live table, or a new message with or without a
    sound, taking the buttons off the match's message before it."""

    def __init__(self) -> None:
        self.next_id: dict[str, int] = {}

    def deliver(self, message: Outbox) -> str:
        edited = edit_target(message)
        if edited:
            self._sent(message, edited)
            return f"edits message {edited}"
        stripped = stale_buttons(message)
        number = self.next_id.get(message.address, 1)
        self.next_id[message.address] = number + 1
        self._sent(message, str(number))
        how = f"new message {number}, " + ("silent" if message.silent else "sounds")
        return how + "".join(f", buttons off message {old}" for old in stripped)

    def _sent(self, message: Outbox, external_id: str) -> None:
        Outbox.objects.filter(pk=message.pk).update(
            status=Outbox.Status.SENT, external_id=external_id, sent_at=timezone.now()
        )


def transcribed(message: Outbox, how: str = "") -> str:
    buttons = " | ".join(button["text"] for row in message.buttons for button in row)
    shown = f"[{message.kind}{', ' + how if how else ''}] {message.text}"
    return shown + (f"\n    buttons: {buttons}" if buttons else "")


def transcript(read: dict[str, list[str]]) -> str:
    return "\n\n".join(f"== {name}\n" + "\n".join(lines) for name, lines in read.items()) + "\n"


# English and Hebrew (right to left) are read on every database: the order of what a player
# reads is the database's order. The other languages change the words only: SQLite alone.
ON_EVERY_DATABASE = ("en", "he")
LANGUAGES = [
    pytest.param(code, marks=() if code in ON_EVERY_DATABASE else pytest.mark.any_database)
    for code, _name in settings.LANGUAGES
]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("channel", ["terminal", "telegram", "sms"])
def test_the_golden_transcript_of_a_scripted_match(channel, language, monkeypatch, db):
    got = transcript(play_script(channel, language, monkeypatch))
    path = GOLDEN / f"{channel}-{language}.txt"
    if os.environ.get("GIN3_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(exist_ok=True)
        path.write_text(got)
    assert path.exists(), f"no golden transcript yet: run with GIN3_UPDATE_GOLDEN=1 and read {path}"
    assert got == path.read_text()


def test_the_script_is_dealt_as_it_says():
    assert REAL_CUT(random.Random(CUT_SEED))[0] == ROLES
    for deck in HANDS:
        assert sorted(deck) == list(range(52)), format_cards(deck)
