"""Driving the Telegram channel end to end in tests: the fake Bot API, the real
bot polling it from a thread, delivery of the outbox through the real
TelegramBackend, and the checks every test of the channel wants.

Why a harness: a game over Telegram is many round trips (a user acts, the bot
handles the update, the outbox is delivered, the user reads the new message);
each test should read as the users' actions, not as that plumbing.
"""

from __future__ import annotations

import asyncio
import random
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from django.utils import timezone

from bot.telegram import polling
from games.engine import Card, Hand, deadwood, deal, parse_action, parse_cards
from games.models import Match, Outbox, Player
from games.services.plumbing import ratelimit, state
from games.services.plumbing.change import change
from games.services.plumbing.delivery import deliver_address
from games.services.write import locked_table, play
from games.text import links
from tests.fakes.telegram_api import FakeTelegram, FakeUser, SentMessage

WAITING = (Outbox.Status.PENDING, Outbox.Status.SENDING)
CARD = re.compile(r"(?<![\w#@])(10|[2-9TJQKA])([shdc♠♥♦♣])(?!\w)")
HEADER = re.compile(r"#(?P<code>[A-Z0-9]{4,8}) hand (?P<number>\d+)(?P<over> over)?")


BOT = "gin3_test_bot"
SECRET = "s3cret-token_for-tests"


@contextmanager
def fake_telegram(settings, monkeypatch) -> Iterator[FakeTelegram]:
    """The fake Bot API, with the project's settings pointed at it (the bot's name
    to be learned by getMe) and a fresh rate limiter: the ``tg`` fixture of
    tests/conftest.py."""
    with FakeTelegram(username=BOT, max_poll_wait=0.5) as fake:
        settings.TELEGRAM_BOT_TOKEN = fake.token
        settings.TELEGRAM_API_URL = fake.url
        settings.TELEGRAM_BOT_USERNAME = ""
        settings.TELEGRAM_WEBHOOK_SECRET = SECRET
        settings.GIN3_BACKENDS = {**settings.GIN3_BACKENDS, "telegram": "bot.backends.telegram.TelegramBackend"}
        settings.GIN3_BACKGROUND = "off"
        settings.REDIS_URL = ""
        monkeypatch.setattr(links, "_learned_username", "")
        ratelimit._limiter_for.cache_clear()
        yield fake
        ratelimit._limiter_for.cache_clear()
        assert fake.server_errors == []


def fixed_deals(monkeypatch, seed: int) -> None:
    """Shuffle and cut from ``seed``: the game the moves of ``choose`` make is then known
    (its length, its hands), so that a test's time stays steady. (Over Telegram a game
    is slow by design: a chat gets at most one new message a second.)"""
    cut = play.cut_for_roles
    monkeypatch.setattr(state, "_shuffler", random.Random(seed))
    monkeypatch.setattr(play, "cut_for_roles", lambda _rng: cut(random.Random(seed)))


def deliver_all(timeout: float = 30.0) -> None:
    """Deliver every waiting Telegram message, waiting out rate limits as a worker would:
    each chat once a round, oldest first, and after a round that sent nothing, a pause
    until the earliest message due later (a chat's messages wait behind its first)."""
    deadline = time.monotonic() + timeout
    while True:
        waiting = list(
            Outbox.objects.filter(channel=Outbox.Channel.TELEGRAM, status__in=WAITING)
            .order_by("pk")
            .values_list("address", "next_attempt_at")
        )
        if not waiting:
            return
        now = timezone.now()
        due = dict.fromkeys(address for address, at in waiting if at <= now)
        if not sum(deliver_address(Outbox.Channel.TELEGRAM, address) for address in due):
            later = [at for _address, at in waiting if at > now]
            pause = (min(later) - now).total_seconds() if later else 0.01
            time.sleep(min(max(pause, 0.01), 0.5))
        assert time.monotonic() < deadline, f"messages not delivered: {waiting}"


class PollingBot:
    """The real bot (``bot.telegram.polling.serve``) in a thread, counting the updates it has handled."""

    def __init__(self, monkeypatch) -> None:
        self._handled = 0
        self._cond = threading.Condition()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._error: BaseException | None = None
        self._ready = threading.Event()
        process = polling.process

        def counting(update):
            try:
                return process(update)
            finally:
                with self._cond:
                    self._handled += 1
                    self._cond.notify_all()

        monkeypatch.setattr(polling, "process", counting)
        self._thread = threading.Thread(target=self._run, name="polling-bot", daemon=True)

    def _run(self) -> None:
        async def main() -> None:
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()
            self._ready.set()
            await polling.serve(polling.build_application(), self._stop, poll_timeout=1)

        try:
            asyncio.run(main())
        except BaseException as error:
            self._error = error
            self._ready.set()

    def start(self) -> PollingBot:
        self._thread.start()
        self._ready.wait(5)
        return self

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)
        assert not self._thread.is_alive(), "the polling bot did not stop"
        if self._error is not None:
            raise self._error

    @property
    def handled(self) -> int:
        with self._cond:
            return self._handled

    def wait_handled(self, count: int, timeout: float = 10.0) -> None:
        with self._cond:
            if not self._cond.wait_for(lambda: self._handled >= count, timeout):
                raise AssertionError(f"the bot handled {self._handled} updates, expected {count}; {self._error}")


class Players:
    """Fake users acting through the polling bot; after each action the outbox is delivered."""

    def __init__(self, tg: FakeTelegram, bot: PollingBot) -> None:
        self.tg = tg
        self.bot = bot

    def say(self, user: FakeUser, text: str, deliver: bool = True) -> None:
        before = self.bot.handled
        user.send(text)
        self.bot.wait_handled(before + 1)
        if deliver:
            deliver_all()

    def press(self, user: FakeUser, data: str, message: SentMessage, deliver: bool = True) -> None:
        """Press the button carrying ``data`` on ``message``; Telegram needs the press answered."""
        answers = len(self.tg.callback_answers)
        before = self.bot.handled
        user.press(message, data)
        self.bot.wait_handled(before + 1)
        deadline = time.monotonic() + 5
        while len(self.tg.callback_answers) == answers:  # answered just after it is handled
            assert time.monotonic() < deadline, f"the press of {data!r} was not answered"
            time.sleep(0.01)
        if deliver:
            deliver_all()


# Choosing moves --------------------------------------------------------------


def table_of(tg: FakeTelegram, user: FakeUser) -> SentMessage:
    """The newest message to ``user`` with buttons: his table. (A reply may follow it:
    the third player's "you joined" comes after the first deal.)"""
    tables = [message for message in tg.messages_to(user.id) if message.callback_data]
    assert tables, f"no message with buttons to {user.first_name}: {tg.messages_to(user.id)}"
    return tables[-1]


def current_hand(match: Match) -> Hand:
    with change():
        return locked_table.load_table(match.pk).hand


def choose(match: Match, buttons: list[str]) -> str:
    """A legal move among the buttons' commands that ends hands soon: the lowest
    knock, else the discard that leaves the lowest count, else take the upcard or
    the pile's top when it lowers the count, else pass or draw."""
    hand = current_hand(match)
    mine = hand.cards_of(hand.to_move)
    by_move = {data.split(" ", 1)[1]: data for data in buttons}

    def lowest(move: str) -> tuple[int, int]:  # among equal counts, the card held longest: whatever the buttons' order
        card = parse_action(move).card
        return hand.count_after_discard(card), mine.index(card)

    knocks = [move for move in by_move if move.startswith("knock ")]
    if knocks:
        return by_move[min(knocks, key=lowest)]
    discards = [move for move in by_move if move.startswith("discard ")]
    if discards:
        return by_move[min(discards, key=lowest)]
    if "take" in by_move and hand.pile and _improves(mine, hand.pile[-1]):
        return by_move["take"]
    for move in ("pass", "draw", "take"):
        if move in by_move:
            return by_move[move]
    raise AssertionError(f"no move among {buttons}")


def _improves(cards: tuple[Card, ...], top: Card) -> bool:
    with_top = (*cards, top)
    best = min(deadwood([card for card in with_top if card != out]) for out in cards)
    return best < deadwood(cards)


# What each player may see --------------------------------------------------------


def hidden_cards(player: Player) -> Iterator[tuple[Match, int, set[Card]]]:
    """For each running match of ``player``: the hand number and the cards he must not see
    now (the stock and the other hand, less what has been public on the pile)."""
    for match in Match.objects.filter(seats__player=player, status=Match.Status.RUNNING):
        hand_row = state.current_hand_row(match)
        position = match.seats.get(player=player).position
        hand = deal(parse_cards(hand_row.deck), match.rules)
        public = set(hand.pile)
        for move in (data["move"] for data in state.moves_of(hand_row)):
            hand, _events = hand.apply(parse_action(move))
            public |= set(hand.pile)
        role = {hand_row.box: "box", hand_row.captain: "captain", hand_row.sitter: "sitter"}[position]
        seen = hand.captain if role in ("captain", "sitter") else hand.box
        yield match, hand_row.number, set(hand.deck) - set(seen) - public


def cards_in(text: str) -> set[Card]:
    return {Card.parse(rank + suit) for rank, suit in CARD.findall(text)}


class VisibilityCheck:
    """Reads every message the fake received and checks it against the hands at that moment."""

    def __init__(self, tg: FakeTelegram) -> None:
        self.tg = tg
        self.checked = 0

    def __call__(self) -> int:
        """Check the messages sent since the last call; return how many carried a hand's cards."""
        sent = self.tg.sent[self.checked :]
        self.checked += len(sent)
        with_cards = 0
        for message in sent:
            player = Player.objects.filter(telegram_chat_id=message.chat_id).first()
            header = HEADER.search(message.plain_text)
            if player is None or header is None or header["over"]:
                continue  # a group, or not a table: results are public, the cut is public
            shown = cards_in(message.plain_text) | cards_in(" ".join(message.callback_data))
            labels = " ".join(button["text"] for row in message.inline_keyboard for button in row)
            shown |= cards_in(labels)
            for match, number, hidden in hidden_cards(player):
                if match.code == header["code"] and int(header["number"]) == number:
                    leaked = shown & hidden
                    assert not leaked, f"{player} was shown {leaked}: {message.plain_text!r}"
                    with_cards += bool(shown)
        return with_cards
