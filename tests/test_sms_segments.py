"""What an SMS costs: GSM-7 and UCS-2 segments, and every message gin3 texts measured in them.

Why: docs/protocol.md promises that on SMS the table, the turn notice and a short
error fit one 160-character GSM-7 segment where that can be done. One stray
character outside GSM-7 (or a bracket, which costs two) silently doubles or
triples a player's bill, so every message template is measured here, in
every language of settings.LANGUAGES; the counts per language are printed.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest
from django.conf import settings as django_settings
from django.utils import timezone, translation
from hypothesis import given
from hypothesis import strategies as st

from games.contract.account import SmsWelcome
from games.contract.tables import MoveView
from games.engine import DECK, Hand, Knock, Phase, Role, deal
from games.models import Hand as HandRow
from games.models import Match, Outbox, Player, Seat
from games.services import handle
from games.services.plumbing import state
from games.services.plumbing.change import change
from games.services.read.tables import table_view
from games.services.write import computer_moves, deadlines, linking, locked_table, play, presence
from games.services.write.players import phone_player, telegram_player
from games.text.render import render
from games.text.sms import (
    GSM7_EXTENSION,
    GSM7_PART,
    GSM7_SINGLE,
    UCS2_PART,
    UCS2_SINGLE,
    compact,
    fits,
    is_gsm7,
    segments,
)
from games.text.style import SMS_KNOCKS, deadline_text
from tests.conftest import code_in, refresh
from tests.fakes.twilio_api import num_segments

pytestmark = pytest.mark.any_database

CARD = re.compile(r"(?<![\w#])(?:[2-9TJQKA][shdc])(?!\w)")


# Counting ---------------------------------------------------------------------------


def test_gsm7_text_up_to_160_characters_is_one_segment():
    assert segments("a" * 160).count == 1 and segments("a" * 161).count == 2
    assert segments("").count == 0


def test_a_long_gsm7_text_goes_in_153_character_parts():
    assert segments("a" * 306).count == 2
    assert segments("a" * 307).count == 3


def test_gsm7_extension_characters_cost_two_septets():
    assert segments("[" * 80).units == 160 and segments("[" * 80).count == 1
    assert segments("[" * 81).count == 2
    assert segments("€^{}\\~]|").encoding == "GSM-7"


def test_an_escaped_character_is_never_split_across_two_parts():
    text = "a" * 152 + "€" + "a" * 152  # 306 septets, but the euro can't start in the 153rd
    assert segments(text).units == 306
    assert segments(text).count == 3


def test_one_character_outside_gsm7_makes_the_whole_text_ucs2():
    assert segments("a" * 69 + "ą").encoding == "UCS-2"
    assert segments("a" * 69 + "ą").count == 1
    assert segments("a" * 70 + "ą").count == 2
    assert segments("ж" * 134).count == 2 and segments("ж" * 135).count == 3


def test_an_emoji_takes_two_ucs2_units_and_is_never_split():
    assert segments("🂡").units == 2
    assert segments("a" * 66 + "🂡" + "a" * 66).count == 3  # 134 units, but the pair can't straddle


def packed_one_by_one(text: str) -> int:
    """The parts ``text`` takes, packed character by character: no part ends inside an
    escape sequence or a surrogate pair."""
    gsm7 = is_gsm7(text)
    sizes = [(2 if char in GSM7_EXTENSION else 1) if gsm7 else len(char.encode("utf-16-le")) // 2 for char in text]
    if sum(sizes) <= (GSM7_SINGLE if gsm7 else UCS2_SINGLE):
        return 1 if text else 0
    count, used = 1, 0
    for size in sizes:
        if used + size > (GSM7_PART if gsm7 else UCS2_PART):
            count, used = count + 1, 0
        used += size
    return count


@pytest.mark.parametrize("letter, wide", [("a", "€"), ("a", "["), ("ж", "🂡")])
def test_a_character_of_two_units_at_the_end_of_a_part_is_counted_as_packed(letter, wide):
    """Every length of text with the two-unit character just before, at or after
    the end of a part: where packing takes one part more than the units divided."""
    for end in (67, 134, 153, 306):
        for before in range(end - 3, end + 2):
            for after in range(0, 330):
                text = letter * before + wide + letter * after
                assert segments(text).count == packed_one_by_one(text), (before, after)


# Where a part ends: 67 and 134 UTF-16 units, 153 and 306 septets.
NEAR_AN_END = st.one_of(st.integers(0, 330), st.sampled_from([65, 66, 67, 132, 133, 134, 151, 152, 153, 304, 305, 306]))


@given(
    st.sampled_from("aж"),
    NEAR_AN_END,
    st.lists(st.tuples(NEAR_AN_END, st.sampled_from("€[^🂡é")), max_size=4),
)
def test_the_count_is_the_character_by_character_packing_of_any_text(letter, length, inserted):
    """Texts around the lengths where a part ends, with escapes and surrogate pairs anywhere."""
    chars = [letter] * length
    for at, char in inserted:
        chars.insert(at, char)
    text = "".join(chars)
    assert segments(text).count == packed_one_by_one(text)


@pytest.mark.parametrize(
    "text",
    ["7h Td Qs", "x" * 161, "[7h 8h 9h]" * 20, "Пиле 7h, шпил 12", "נועה: take", "a" * 306, "अनिता " * 30, ""],
)
def test_our_count_agrees_with_the_twilio_fake(text):
    assert segments(text).count == (num_segments(text) if text else 0)


def test_compact_replaces_typography_and_suit_symbols_with_gsm7():
    assert compact("You are in no match — start one… “new” ‘now’") == "You are in no match - start one... \"new\" 'now'"
    assert compact("7♥ 10♠ Q♦ K♣") == "7h 10s Qd Kc"
    assert is_gsm7(compact("non\u00a0breaking\u2009spaces"))


def test_compact_drops_diacritics_gsm7_lacks_but_keeps_those_it_has():
    assert compact("Rūta, Žygimantas, Ąžuolas") == "Ruta, Zygimantas, Azuolas"
    assert compact("Müller, José, Ñandú") == "Müller, José, Ñandu"
    assert is_gsm7(compact("Lietuvių kalba"))


def test_compact_keeps_scripts_that_have_no_gsm7_twin():
    for text in ("Марија", "נועה", "अनिता", "Tess 🃏"):
        assert compact(text) == text
        assert not fits(text * 30, parts=1)


# The table ------------------------------------------------------------------------------


NAMES = ("Alice", "…4567", "Bot 1")  # a Telegram name, an SMS player's default name, a computer
LONG_NAMES = ("Bartholomew", "Cordelia-Anne", "Evangelina")


def table_views(names: tuple[str, str, str], deals: int = 60):
    """Every table each seat sees, from ``deals`` random hands played to their end, with
    the previous player's whole turn as its last moves, as the turn notice has it.
    Yields (view, hand, viewer position)."""
    seats = [
        Seat(position=position, player=Player(display_name=name, is_computer=name.startswith("Bot")), score=score)
        for position, (name, score) in enumerate(zip(names, (95, 7, 120), strict=True))
    ]
    match = Match(code="K7Q2", version=212, target=150)
    hand_row = HandRow(number=12, box=0, captain=1, sitter=2, commitment="c")
    positions = {Role.BOX: 0, Role.CAPTAIN: 1}
    for seed in range(deals):
        rng = random.Random(seed)
        deck = list(DECK)
        rng.shuffle(deck)
        hand, last, turn = deal(deck), (), []
        while not hand.is_over:
            for position in range(3):
                yield table_view(match, seats, hand_row, hand, position, last), hand, position
            knocks = [action for action in hand.legal_actions() if isinstance(action, Knock)]
            action = knocks[0] if knocks and rng.random() < 0.3 else computer_moves.safe_move(hand)
            mover = hand.to_move
            turn.append(MoveView(names[positions[mover]], str(action)))
            hand, _events = hand.apply(action)
            if hand.to_move is not mover:
                last, turn = tuple(turn), []


@pytest.mark.slow
def test_the_sms_table_fits_one_gsm7_segment_for_every_role_in_every_phase():
    seen = set()
    for view, _hand, _position in table_views(NAMES):
        text = render(view, "sms").text
        seen.add((view.phase, view.viewer_role, bool(view.moves)))
        assert segments(text).encoding == "GSM-7", text
        assert segments(text).count == 1, f"{segments(text)}\n{text}"
    phases, roles = ("upcard", "draw", "discard"), ("box", "captain", "sitter")
    assert seen == {(phase, role, moves) for phase in phases for role in roles for moves in (True, False)}


def test_the_sms_table_fits_one_segment_even_with_long_names():
    """Names are cut to SMS_NAME characters, and a second knock is left out when it would not fit."""
    for view, _hand, _position in table_views(LONG_NAMES, 20):
        text = render(view, "sms").text
        assert segments(text).count == 1, text


@pytest.mark.slow
@pytest.mark.parametrize("language", ["mr", "mk", "he"])
def test_a_table_that_takes_two_ucs2_segments_anyway_keeps_the_moves_and_the_deadline(language, time_machine):
    """Devanagari, Cyrillic and Hebrew never fit one segment: leaving the moves and the
    deadline out to try saved nothing, and the player read neither (a trial in Marathi).
    The clock is set so that the deadline falls the same day and is written without a date."""
    time_machine.move_to(datetime(2026, 12, 1, 9, 0, tzinfo=UTC), tick=False)
    deadline = timezone.now() + timedelta(hours=5)
    checked = 0
    with translation.override(language):
        for view, _hand, _position in table_views(("अनिता", "Марија", "נועה"), 20):
            if not (view.moves and view.viewer_role != "sitter" and view.last_moves):
                continue
            view = replace(view, deadline=deadline)
            text = render(view, "sms").text
            fewest = min(segments(render(replace(view, last_moves=()), "sms").text).count, segments(text).count)
            assert segments(text).count == fewest, text
            assert f"{view.last_moves[-1].name}: " in text, text
            assert deadline_text(deadline, short=True) in text, text
            checked += 1
    assert checked > 20


def test_the_sms_table_shows_no_card_its_reader_may_not_see():
    """Only the reader's cards (the captain's, for the sitter) and the pile, never
    the other hand or the stock."""
    for view, hand, position in table_views(NAMES, 30):
        role = Role(view.viewer_role)
        own = set(hand.cards_of(Role.CAPTAIN if role is Role.SITTER else role))
        shown = {card for card in CARD.findall(render(view, "sms").text)}
        allowed = {str(card) for card in own | set(hand.pile)}
        assert shown <= allowed, (position, shown - allowed)


def test_the_sms_table_lists_the_lowest_knocks_first_and_only_a_few():
    for view, _hand, _position in table_views(NAMES, 40):
        if len(view.knocks) > SMS_KNOCKS and view.viewer_role != "sitter":
            text = render(view, "sms").text
            best = sorted(view.knocks.items(), key=lambda item: (item[1], item[0]))
            assert f"knock {best[0][0]}({best[0][1]})" in text
            assert f"{best[SMS_KNOCKS][0]}({best[SMS_KNOCKS][1]})" not in text
            return
    pytest.fail("no table offered more knocks than the SMS lists")


def test_the_sms_table_writes_melds_without_brackets_which_cost_two_septets():
    for view, _hand, _position in table_views(NAMES, 5):
        text = render(view, "sms").text
        assert "[" not in text and "]" not in text
        if view.cards and view.cards.melds:
            assert "-".join(str(card) for card in view.cards.melds[0]) in text


# Every message, in every language ---------------------------------------------------------

SCRIPT_NAMES = {"en": "Tess", "mk": "Марија", "he": "נועה", "lt": "Rūta", "mr": "अनिता", "ms": "Aisyah"}
ONE_SEGMENT_IN_ENGLISH = (
    "table",
    "deal",
    "turn",
    "advise",
    "cut",
    "joined",
    "reminder",
    "unreachable",
    "link-code",
    "welcome",
    "opt-in",
    "parser error",
    "service error",
    "reply",
)
TWO_IN_ENGLISH = ("result", "suggestion", "team", "help")  # and any table after a timeout
TIMEOUT_NOTE = "(automatic: time ran out)"
SEED = 7  # deals and cuts under which one match to 50 shows every kind of message
BOUND_IN_ANY_LANGUAGE = 4
BOUND_FOR_LISTS = 6  # these list what there is: the commands, the hands, both hands of a result
LISTS = ("help", "score", "result")
PARSER_ERRORS = (
    "frobnicate",
    "discard 7x",
    "discard",
    "join K",
    "new 2d",
    "#K7 draw",
    "lang xx",
    "phone 12345",
    "x" * 40,
    "team " + "x" * 301,
)


def choose(hand: Hand) -> str:
    """A sensible legal move: the lowest knock, else a safe move."""
    knocks = [action for action in hand.legal_actions() if isinstance(action, Knock)]
    if knocks:
        return str(min(knocks, key=lambda knock: hand.count_after_discard(knock.card)))
    return str(computer_moves.safe_move(hand))


def catalogue(language: str, monkeypatch) -> dict[str, list[str]]:
    """Every kind of message an SMS player gets, from matches played to their end with
    a Telegram player named in ``language``'s script and a computer, both humans
    speaking ``language``; played until each side has advised the other, each has
    run out of time once, a reminder has gone out and he has been the box at a deal.
    Once only the deal is missing, the next match's cut makes him the box: matches
    played for it alone took three in four of the time."""
    texts: dict[str, list[str]] = defaultdict(list)
    sam, _created = phone_player("+15550001234")
    tess = telegram_player(user_id=7001, chat_id=7001, name=SCRIPT_NAMES[language], language=language)

    def say(kind: str, command: str) -> str:
        reply = handle(sam, command, "sms", reply_inline=True)
        if reply:  # a move that ends his turn is not answered by SMS
            texts[kind].append(reply)
        return reply

    say("reply", f"lang {language}")
    sam.refresh_from_db()
    with translation.override(language):
        texts["welcome"].append(render(SmsWelcome(), "sms").text)
        texts["opt-in"].append(render(linking.opt_in(sam), "sms").text)
    for bad in PARSER_ERRORS:
        say("parser error", bad)
    say("service error", "status")
    say("service error", "join ZZZZ")
    say("help", "help")
    handle(tess, "phone +15550001234", "telegram")
    wanted = {"sam advises", "tess advises", "sam's time ran out", "tess's time ran out", "reminder"}
    done: set[str] = set()
    dealt = Outbox.objects.filter(address=sam.phone, kind="deal")  # he is the box at a deal
    for _match in range(10):
        if done == wanted and not dealt.exists():
            monkeypatch.setattr(play, "cut_for_roles", cut_making_box(0))
        code = code_in(say("reply", "new 5m to 50"))
        handle(tess, f"join {code}", "telegram")
        say("help", "help")
        say("reply", "bot")
        match = Match.objects.get(code=code)
        while refresh(match).status == Match.Status.RUNNING:
            with change():
                table = locked_table.load_table(match.pk)
            mover = table.seat(table.mover).player
            sitter = table.seat(table.position_of_role(Role.SITTER)).player
            if mover == sam and "reminder" not in done:
                done.add("reminder")
                Match.objects.filter(pk=match.pk).update(remind_at=timezone.now())
                assert deadlines.send_reminder(match.pk)
                say("service error", "take" if table.hand.phase is Phase.DISCARD else "knock 7h")
            timeout = f"{'sam' if mover == sam else 'tess'}'s time ran out"
            if not mover.is_computer and timeout not in done and table.hand.turns:
                done.add(timeout)
                Match.objects.filter(pk=match.pk).update(deadline=timezone.now() - timedelta(seconds=1))
                assert deadlines.enforce_deadline(match.pk)
                continue
            if sitter == sam and mover == tess and "sam advises" not in done:
                done.add("sam advises")
                say("reply", f"suggest {choose(table.hand)}")
                say("reply", "team a pair of kings")
            if sitter == tess and mover == sam and "tess advises" not in done:
                done.add("tess advises")
                handle(tess, f"suggest {choose(table.hand)}", "telegram")
                handle(tess, "team a pair of kings", "telegram")
            if mover.is_computer:
                computer_moves.play_computer_move(match.pk)
            elif mover == sam:
                move = choose(table.hand)
                say("result" if move.startswith("knock") else "table", move)  # a knock is answered by the result
            else:
                handle(tess, choose(table.hand), "telegram")
        say("score", "score")
        if done == wanted and dealt.exists():
            break
    assert done == wanted and dealt.exists()
    handle(tess, f"join {code_in(say('reply', 'new'))}", "telegram")
    presence.player_unreachable(tess, "telegram")  # while they wait in the lobby
    for message in Outbox.objects.filter(channel=Outbox.Channel.SMS, address=sam.phone):
        texts[message.kind].append(message.text)
    return texts


def cut_making_box(position: int):
    """``play.cut_for_roles`` as a cut that makes the player in ``position`` the box."""
    real = play.cut_for_roles
    seed = next(seed for seed in range(1000) if real(random.Random(seed))[0].box == position)
    return lambda rng: real(random.Random(seed))


@pytest.mark.parametrize("language", [code for code, _name in django_settings.LANGUAGES])
def test_every_sms_message_in_every_language_is_counted_and_bounded(language, db, settings, capsys, monkeypatch):
    settings.SMS_ENABLED = True
    monkeypatch.setattr(play, "secrets", SimpleNamespace(SystemRandom=lambda: random.Random(SEED)))
    monkeypatch.setattr(state, "_shuffler", random.Random(SEED))  # the same deals in every language
    texts = classified(catalogue(language, monkeypatch))
    for kind, found in texts.items():
        for text in found:
            count = segments(text).count
            assert count <= (BOUND_FOR_LISTS if kind in LISTS else BOUND_IN_ANY_LANGUAGE), (language, kind, text)
            if language == "en" and kind in ONE_SEGMENT_IN_ENGLISH:
                assert count == 1, (kind, text)
            if language == "en" and (kind in TWO_IN_ENGLISH or kind.endswith("+timeout")):
                assert count <= 2, (kind, text)
            if language in ("en", "lt", "ms"):
                assert is_gsm7(text), (language, kind, text)
    if language == "en":
        assert set(ONE_SEGMENT_IN_ENGLISH + TWO_IN_ENGLISH + LISTS) <= set(texts)
    with capsys.disabled():
        print(segment_line(language, {kind: max(cost(text) for text in found) for kind, found in texts.items()}))


def classified(texts: dict[str, list[str]]) -> dict[str, list[str]]:
    """A table after a timeout says so on each line it names the move: a kind of its own."""
    result: dict[str, list[str]] = defaultdict(list)
    for kind, found in texts.items():
        for text in found:
            result[f"{kind}+timeout" if TIMEOUT_NOTE in text else kind].append(text)
    return result


def cost(text: str) -> tuple[int, str]:
    measured = segments(text)
    return measured.count, measured.encoding


def segment_line(language: str, counts: dict[str, tuple[int, str]]) -> str:
    """Segments per message kind in one language (most of any instance; U marks UCS-2)."""
    cells = [
        f"{kind} {count}{'U' if encoding == 'UCS-2' else ''}" for kind, (count, encoding) in sorted(counts.items())
    ]
    return f"\nSMS segments per message in {language}: " + ", ".join(cells)
