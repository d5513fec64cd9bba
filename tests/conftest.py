"""Shared fixtures for the service-layer tests: players, running matches, and the
helpers that read the outbox and play for whoever is to move.

Why here: every service test needs a match in a known state and a way to tell
who may act in it, and they must all agree on how those are built.
"""

from __future__ import annotations

import os
import random
import re
import zlib
from types import SimpleNamespace

import pytest
from django.conf import settings as django_settings
from django.utils import translation
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

from games.engine import Action, Knock, Role, format_cards, parse_cards, stacked_deck
from games.engine.bots import bot_view
from games.engine.levels import make_strategy
from games.models import Event, Hand, Match, Outbox, Player
from games.services import handle
from games.services.plumbing import ratelimit, state
from games.services.plumbing.change import change
from games.services.write import advice, computer_moves, locked_table, play
from games.services.write.players import phone_player, telegram_player, terminal_player
from tests.telegram_harness import Players, PollingBot, fake_telegram
from tests.workers import REDIS_DB, with_redis_db

# The tests, and every server or worker they start, run over plain HTTP on 127.0.0.1, as
# make run does (GIN3_PLAIN_HTTP); the settings of this process were read before this file.
os.environ.setdefault("GIN3_PLAIN_HTTP", "1")
django_settings.SECURE_SSL_REDIRECT = django_settings.SESSION_COOKIE_SECURE = False
django_settings.CSRF_COOKIE_SECURE = django_settings.SECURE_HSTS_PRELOAD = False
django_settings.SECURE_HSTS_INCLUDE_SUBDOMAINS = False
django_settings.SECURE_HSTS_SECONDS = 0
# A password the tests make is hashed with a cheap hasher (Django's advice for test
# settings): PBKDF2's million rounds cost a second of processor per staff user. PBKDF2
# stays second so that a password set by a process the tests start can still be checked.
django_settings.PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.MD5PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
]

# The servers and workers that tests start inherit REDIS_URL: point it at this test
# process's own Redis database (tests/workers.py), so that parallel workers never
# take each other's tasks or share rate-limit windows.
if os.environ.get("REDIS_URL"):
    os.environ["REDIS_URL"] = with_redis_db(os.environ["REDIS_URL"], REDIS_DB)

# Hypothesis on a machine shared with the database, a worker and other test runs: a
# slow moment is not a failure (no deadline, no health check on generation time).
hypothesis_settings.register_profile("gin3", deadline=None, suppress_health_check=[HealthCheck.too_slow])
hypothesis_settings.load_profile("gin3")


DATABASE_FIXTURES = frozenset({"db", "transactional_db", "django_db_reset_sequences", "django_db_serialized_rollback"})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked slow first: run in parallel (pytest-xdist hands tests out in
    this order), a long test left for the end would keep one worker busy alone.

    A test that never opens the database is marked ``any_database``: what it
    checks cannot depend on which database runs under it (``.ci/run`` runs it on
    SQLite only)."""
    for item in items:
        uses_database = item.get_closest_marker("django_db") or DATABASE_FIXTURES & set(item.fixturenames)
        if not uses_database:
            item.add_marker(pytest.mark.any_database)
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(autouse=True)
def no_background(settings):
    """No test ever enqueues Celery work: tests drive computer moves and clocks themselves.
    Tests play much faster than people: the limit on commands per minute is lifted,
    except in the tests of that limit. Each test counts its rate limits afresh, in
    this process (a test of Redis's limiter sets ``REDIS_URL`` itself): windows left
    in Redis by an earlier test, or an earlier run, would refuse what it sends."""
    settings.GIN3_BACKGROUND = "off"
    settings.GIN3_COMMANDS_PER_MINUTE = 100_000
    settings.GIN3_ADVICE_WAIT_SECONDS = 0  # a computer captain moves at once; the tests of its wait set one
    settings.GIN3_HARD_SECONDS = 0.01  # the hard level's search, short: the tests judge what it does, not how well
    settings.REDIS_URL = ""
    ratelimit._limiter_for.cache_clear()
    yield
    ratelimit._limiter_for.cache_clear()


@pytest.fixture(autouse=True)
def the_same_deals_every_run(request, monkeypatch):
    """Each test's matches are cut and dealt alike every run, from a seed of the test's
    name: a test that holds only for some deals fails every time, where it is written,
    instead of one run in ten on CI. (Deals vary from test to test; the engine's
    property tests cover the rest.) A test that stacks or seeds its own replaces these."""
    seeded = random.Random(zlib.crc32(request.node.nodeid.encode()))
    monkeypatch.setattr(state, "_shuffler", seeded)
    monkeypatch.setattr(play, "secrets", SimpleNamespace(SystemRandom=lambda: seeded))


@pytest.fixture(autouse=True)
def language_of_the_site():
    """Each test starts and ends in the site's language: a page fetched in Hebrew by
    the test client leaves Hebrew active in the thread (LocaleMiddleware activates
    it and nothing puts it back), and the next test's English replies would not be."""
    translation.activate(django_settings.LANGUAGE_CODE)
    yield
    translation.activate(django_settings.LANGUAGE_CODE)


# Players ----------------------------------------------------------------------


@pytest.fixture
def make_player(db):
    """A terminal player by name: ``make_player("Alice")``."""

    def make(name: str) -> Player:
        return terminal_player(name.lower(), name)

    return make


@pytest.fixture
def alice(make_player):
    return make_player("Alice")


@pytest.fixture
def bob(make_player):
    return make_player("Bob")


@pytest.fixture
def carol(make_player):
    return make_player("Carol")


@pytest.fixture
def dave(make_player):
    return make_player("Dave")


@pytest.fixture
def telegram_user(db):
    return telegram_player(user_id=5001, chat_id=5001, name="Tess", username="tess", language="en")


@pytest.fixture
def sms_user(db):
    player, _created = phone_player("+15550001234")
    return player


# Telegram ---------------------------------------------------------------------


@pytest.fixture
def tg(settings, monkeypatch):
    """The fake Bot API, with the project pointed at it (``telegram_harness.fake_telegram``)."""
    with fake_telegram(settings, monkeypatch) as fake:
        yield fake


@pytest.fixture
def people(tg, monkeypatch):
    """The real bot polling ``tg`` from a thread, and fake users acting through it."""
    bot = PollingBot(monkeypatch).start()
    yield Players(tg, bot)
    bot.stop()


# Matches ----------------------------------------------------------------------


def code_in(reply: str) -> str:
    """The match code a ``new`` reply announces."""
    return re.search(r"#([A-Z0-9]{4,8})\b", reply).group(1)


@pytest.fixture
def match3(alice, bob, carol) -> Match:
    """A running match of three human terminal players, started by the third join."""
    code = code_in(handle(alice, "new", "terminal"))
    handle(bob, f"join {code}", "terminal")
    handle(carol, f"join {code}", "terminal")
    return Match.objects.get(code=code)


@pytest.fixture
def match_vs_computers(alice) -> Match:
    """A running match of Alice and two computer players, played on to Alice's first
    turn. Its target is 50, the lowest allowed, so that a whole game stays quick; as
    one gin can score 50, the computers may win it in a hand Alice sits out, and then
    another match is made."""
    for _attempt in range(20):
        code = code_in(handle(alice, "new 5m to 50", "terminal"))
        handle(alice, "bot", "terminal")
        handle(alice, "bot", "terminal")
        match = Match.objects.get(code=code)
        run_computers(match)
        match = refresh(match)
        if match.status == Match.Status.RUNNING:
            return match
    raise AssertionError("the computers kept winning before Alice's first turn")


def refresh(match: Match) -> Match:
    return Match.objects.get(pk=match.pk)


def run_computers(match: Match, limit: int = 500) -> int:
    """Let computer players move until a human is to move (or the match ends)."""
    moves = 0
    while moves < limit and computer_moves.play_computer_move(match.pk):
        moves += 1
    return moves


# Reading the state ------------------------------------------------------------


def hand_row(match: Match) -> Hand:
    """The current hand's row: who is box, captain and sitter."""
    return Hand.objects.filter(match=match).order_by("-number").first()


def player_at(match: Match, position: int) -> Player:
    return match.seats.get(position=position).player


def player_in_role(match: Match, role: Role | str) -> Player:
    row = hand_row(match)
    position = {"box": row.box, "captain": row.captain, "sitter": row.sitter}[Role(role).value]
    return player_at(match, position)


def mover(match: Match) -> Player:
    """The player ``Match.turn_seat`` says is to move."""
    return player_at(match, refresh(match).turn_seat)


def engine_hand(match: Match):
    """The engine's hand now, as the services load it."""
    with change():
        return locked_table.load_table(match.pk).hand


def events_of(match: Match, kind: str | None = None) -> list[Event]:
    events = Event.objects.filter(match=match).order_by("seq")
    return list(events.filter(kind=kind) if kind else events)


def outbox_of(player: Player, kind: str | None = None) -> list[Outbox]:
    """Messages queued for ``player``, oldest first."""
    messages = Outbox.objects.filter(recipient=player).order_by("pk")
    return list(messages.filter(kind=kind) if kind else messages)


def snapshot(match: Match) -> tuple:
    """What must not change when a command is refused: version, turn, events, hands, scores."""
    match = refresh(match)
    return (
        match.version,
        match.turn_seat,
        match.status,
        Event.objects.filter(match=match).count(),
        tuple(Hand.objects.filter(match=match).values_list("number", "suggestion", "ended_at")),
        tuple(match.seats.values_list("position", "score", "autopilot", "timeouts_in_row")),
    )


# Two hands of scattered cards that no two turns can bring down to a knock (for ``rig``).
NO_EARLY_KNOCK = {"captain": "Ks Qh Jd 9c 7s 5h 3d Kc Qd 9h", "box": "Kh Qs Jc 9d 7h 5s 3c Jh 8d 6c", "upcard": "Ts"}


def rig(match: Match, captain: str, box: str, upcard: str, stock: str = "") -> Hand:
    """Replace the deck of the current hand, before its first move, so that the
    captain and the box hold the given ten cards each, ``upcard`` is face up and
    the stock starts with ``stock``. The commitment is recomputed to match."""
    row = hand_row(match)
    assert not row.events.filter(kind=Event.Kind.MOVE).exists(), "rig a hand before its first move"
    (up,) = parse_cards(upcard)
    row.deck = format_cards(stacked_deck(parse_cards(captain), parse_cards(box), up, parse_cards(stock)))
    row.commitment = state.commitment_of(row.deck, row.salt)
    row.save(update_fields=["deck", "commitment"])
    return row


# Playing ------------------------------------------------------------------------


def legal_actions(match: Match) -> list[Action]:
    with change():
        return locked_table.load_table(match.pk).hand.legal_actions()


def best_action(match: Match) -> Action:
    """The move for whoever is to move: knock when he may (the lowest count),
    otherwise what the engine's strong computer player would do."""
    with change():
        table = locked_table.load_table(match.pk)
        hand = table.hand
        knocks = [action for action in hand.legal_actions() if isinstance(action, Knock)]
        if knocks:
            return min(knocks, key=lambda knock: hand.count_after_discard(knock.card))
        view = bot_view(hand, hand.to_move, advice.public_log(table))
        return make_strategy("strong", random.Random(table.match.version)).choose(view)


def safe_action(match: Match) -> Action:
    """A move that never ends the hand (pass, draw, the safest discard): what a timeout plays."""
    return computer_moves.safe_move(engine_hand(match))


def play_move(match: Match, choose=best_action) -> str:
    """Play one legal move through ``handle`` for the player to move; return what he typed."""
    text = str(choose(match))
    handle(mover(match), text, "terminal")
    return text


def play_to_end(match: Match, human: Player, limit: int = 5000) -> Match:
    """Play a match of one human and computers to its end: the human plays ``best_action``."""
    for _step in range(limit):
        match = refresh(match)
        if match.status != Match.Status.RUNNING:
            return match
        if mover(match) == human:
            handle(human, str(best_action(match)), "terminal")
        else:
            assert computer_moves.play_computer_move(match.pk)
    raise AssertionError("the match did not end")
