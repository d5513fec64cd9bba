"""What each player reads, and in which order: the message stream.

Why: a player gets each thing once, in the order it happened, and nothing he
does not need. These tests read the outbox (what would be sent) after the
commands of a match, as the player would read it.
"""

from __future__ import annotations

import random
import re
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone, translation

from bot.terminal.worker import do_due_work
from games.contract.tables import Automatic, MoveView
from games.engine import Role
from games.models import Hand as HandRow
from games.models import Match, Outbox
from games.services import handle
from games.services.plumbing import delivery, state
from games.services.plumbing.change import change
from games.services.write import computer_moves, deadlines, locked_table, play
from games.services.write.players import phone_player, telegram_player, terminal_player
from games.text.render import render
from games.text.style import PLAIN, RICH, deadline_text, duration_text, your_move
from games.text.tables import turns_text
from tests.conftest import (
    NO_EARLY_KNOCK,
    code_in,
    hand_row,
    mover,
    outbox_of,
    play_move,
    player_in_role,
    refresh,
    rig,
    safe_action,
    snapshot,
)

REAL_CUT = play.cut_for_roles
GIN_FOR_CAPTAIN = {"captain": "As 2s 3s 4s 5s 6s 7s 8s 9s Kd", "box": "Ah 3h 5h 7h 9h Jh Kh 2d 4d 6d", "upcard": "Ts"}


def texts(player, kind: str | None = None) -> list[str]:
    return [message.text for message in outbox_of(player, kind)]


# Once, and in order -----------------------------------------------------------------


def test_the_knocker_reads_the_result_then_his_next_table_once(match3):
    rig(match3, **GIN_FOR_CAPTAIN)
    captain = player_in_role(match3, Role.CAPTAIN)
    handle(captain, "take", "terminal")
    before = len(outbox_of(captain))
    reply = handle(captain, "knock Kd", "terminal")
    after = outbox_of(captain)[before:]
    assert [message.kind for message in after] == ["result", "deal"]
    assert after[0].text == reply and "goes gin!" in reply
    assert after[1].text.startswith(f"#{match3.code} hand 2")


def test_r5_1_the_others_read_which_face_up_card_the_captain_took(match3):
    """A take names its card, which lay face up: the box's table after the deal may be
    replaced by a newer one before he reads it, and "take" alone left him guessing."""
    rig(match3, **GIN_FOR_CAPTAIN)
    captain, box = player_in_role(match3, Role.CAPTAIN), player_in_role(match3, Role.BOX)
    handle(captain, "take", "terminal")
    handle(captain, "discard Kd", "terminal")
    assert f"{captain.display_name}: take Ts, d Kd" in texts(box, "turn")[-1]
    assert refresh(match3).events.filter(kind="move").first().data["taken"] == "Ts"


def test_a_timeout_that_draws_and_discards_sends_its_player_one_table_with_both_moves(match3):
    """The timeout draws, or takes the discard when it helps (as a computer would, so it
    depends on the deal), then discards: one table says both, and how, once."""
    rig(match3, **NO_EARLY_KNOCK)
    for _move in range(4):
        play_move(match3, safe_action)  # pass, pass, draw and discard: the box is to draw
    player = mover(match3)
    before = len(outbox_of(player))
    Match.objects.filter(pk=match3.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert deadlines.enforce_deadline(match3.pk)
    (moved,) = outbox_of(player)[before:]
    assert moved.kind == "moved"
    assert re.search(r": (draw|take \S+), d \S+ \(automatic: time ran out\)", moved.text), moved.text
    assert moved.text.count("time ran out") == 1


def test_a_move_made_two_ways_says_both_in_one_pair_of_brackets():
    moves = [MoveView("Ann", "take 9s", Automatic.TIMEOUT_SUGGESTION), MoveView("Ann", "discard 7s", Automatic.TIMEOUT)]
    (line,) = turns_text(moves, PLAIN)
    assert line == "Ann: take 9s (automatic: time ran out; the sitter's suggestion), d 7s (automatic: time ran out)"


def test_the_moves_before_a_table_write_their_cards_as_the_table_does():
    """Telegram's table shows K♥ on the pile: the line of the move that put it there says so too."""
    moves = [MoveView("Bo", "take", taken="2h"), MoveView("Bo", "discard Th"), MoveView("Bo", "knock Qc")]
    assert turns_text(moves, RICH) == ["Bo: take 2♥, d 10♥, knock Q♣"]
    assert turns_text(moves, PLAIN) == ["Bo: take 2h, d Th, knock Qc"]


def test_r3_2_the_box_never_reads_that_the_captain_followed_the_sitters_advice(match3):
    box, captain, sitter = (player_in_role(match3, role) for role in (Role.BOX, Role.CAPTAIN, Role.SITTER))
    handle(sitter, "suggest pass", "terminal")
    handle(captain, "accept", "terminal")
    turn = outbox_of(box, "turn")[-1].text
    assert "pass" in turn and "suggestion" not in turn


def test_r3_2_a_suggestion_played_at_the_deadline_is_a_timeout_to_the_box(match3):
    box, sitter = player_in_role(match3, Role.BOX), player_in_role(match3, Role.SITTER)
    handle(sitter, "suggest take", "terminal")
    Match.objects.filter(pk=match3.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert deadlines.enforce_deadline(match3.pk)
    seen = texts(box)[-1]
    assert "time ran out" in seen and "suggestion" not in seen


def test_the_first_table_a_player_reads_says_how_to_read_it_and_later_ones_do_not(match3, alice):
    tables = [message.text for message in outbox_of(alice) if f"#{match3.code} hand" in message.text]
    assert "How to read it" in tables[0]
    handle(alice, "status", "terminal")
    assert "How to read it" not in texts(alice)[-1]


def test_a_sitter_who_says_advise_off_gets_no_tables_while_he_sits_out(match3):
    sitter = player_in_role(match3, Role.SITTER)
    assert "no tables" in handle(sitter, "advise off", "terminal")
    before = len(outbox_of(sitter))
    for _move in range(6):
        play_move(match3, safe_action)
        if player_in_role(match3, Role.SITTER) != sitter:
            break
    assert [message.kind for message in outbox_of(sitter)[before:] if message.kind == "advise"] == []


SITTER_AT_SEAT_0 = 1  # a cut seed that gives seat 0 the sitter
CAPTAIN_AT_SEAT_0 = 9  # a cut seed that gives seat 0 the captain


def first_hand_beside_two_computers(alice, monkeypatch, cut_seed: int) -> tuple[HandRow, RecordingBackend]:
    """Alice in seat 0 of a match with two computer players, the first hand played out
    by the terminal's own loop (computer moves, then delivery; her moves the safest),
    and what her screen showed."""
    monkeypatch.setattr(play, "cut_for_roles", lambda rng: REAL_CUT(random.Random(cut_seed)))
    monkeypatch.setattr(state, "_shuffler", random.Random(3))
    match = Match.objects.get(code=code_in(handle(alice, "new 5m to 300", "terminal")))
    handle(alice, "bot", "terminal")
    handle(alice, "bot", "terminal")
    first = hand_row(match)
    screen = RecordingBackend()
    while refresh(match).status == Match.Status.RUNNING and hand_row(match).pk == first.pk:
        do_due_work([match.pk])
        delivery.deliver_address(Outbox.Channel.TERMINAL, alice.terminal_user, screen)
        if mover(match) == alice and hand_row(match).pk == first.pk:
            play_move(match, safe_action)
    return first, screen


def test_a_sitter_beside_fast_computers_reads_every_move_of_the_hand(alice, monkeypatch):
    """As sitter beside two computer players, a newcomer got one table of a 38-move hand.
    The terminal plays up to 20 computer moves before it shows what came of them, and a
    newer table replaces one still waiting: so each table lists every move since the
    last he was shown, and his last table of a hand is not replaced by the next hand's."""
    first, screen = first_hand_beside_two_computers(alice, monkeypatch, SITTER_AT_SEAT_0)
    assert first.roles.sitter == 0
    discards = [move["move"].split()[1] for move in state.moves_of(first) if move["move"].startswith("discard")]
    assert len(discards) > 5
    shown = "\n".join(message.text for message in screen.sent)
    missed = [card for card in discards if f"d {card}" not in shown]
    assert missed == [], "the captain's last discard, if the box then knocked, is in the sitter's result"


def test_a_captain_beside_a_computer_sitter_reads_every_move_of_the_box(alice, monkeypatch):
    """A newcomer who captained beside a computer sitter never read the box's moves: the
    sitter's suggestion came in a table that replaced his turn's, without them."""
    first, screen = first_hand_beside_two_computers(alice, monkeypatch, CAPTAIN_AT_SEAT_0)
    assert first.roles.captain == 0
    box = first.roles.box
    discards = [
        move["move"].split()[1] for move in state.moves_of(first) if move["seat"] == box and "discard" in move["move"]
    ]
    assert len(discards) > 3
    assert any(message.kind == Outbox.Kind.SUGGESTION for message in screen.sent)
    shown = "\n".join(message.text for message in screen.sent)
    missed = [card for card in discards if f"d {card}" not in shown]
    assert missed in ([], discards[-1:])  # the box's last discard, if the captain then knocked


def test_a_player_back_from_autopilot_is_told_and_gets_the_table(match3):
    captain = mover(match3)
    for _missed in range(deadlines.TIMEOUTS_BEFORE_AUTOPILOT):
        while mover(match3) != captain:
            play_move(match3, safe_action)
        Match.objects.filter(pk=match3.pk).update(deadline=timezone.now() - timedelta(seconds=1))
        deadlines.enforce_deadline(match3.pk)
    assert match3.seats.get(player=captain).autopilot
    handle(captain, "score", "terminal")
    returned = outbox_of(captain, "returned")
    assert returned and "You are back" in returned[-1].text and f"#{match3.code} hand" in returned[-1].text
    others = [seat.player for seat in match3.seats.exclude(player=captain)]
    assert all("is back in" in texts(other, "returned")[-1] for other in others)


# SMS: few texts, the deadline always ---------------------------------------------------


@pytest.fixture
def sms_match(make_player):
    """Sam on SMS with two terminal players, Sam the captain to move first."""
    sam, _created = phone_player("+15550009999")
    for _attempt in range(50):
        code = code_in(handle(sam, "new 5m", "sms", reply_inline=True))
        handle(make_player("Una"), f"join {code}", "terminal")
        handle(make_player("Vic"), f"join {code}", "terminal")
        match = Match.objects.get(code=code)
        if mover(match) == sam:
            return sam, match
        handle(sam, f"#{code} resign yes", "sms", reply_inline=True)
    raise AssertionError("Sam never captained")


def test_by_sms_an_own_turn_costs_at_most_two_texts(sms_match):
    sam, match = sms_match
    handle(sam, "pass", "sms", reply_inline=True)
    handle(mover(match), "pass", "terminal")  # both refused the upcard: Sam draws
    before = Outbox.objects.filter(recipient=sam).count()
    replies = [handle(sam, "draw", "sms", reply_inline=True)]
    replies.append(handle(sam, str(safe_action(match)), "sms", reply_inline=True))
    queued = Outbox.objects.filter(recipient=sam).count() - before
    assert [bool(reply) for reply in replies] == [True, False]  # the discard is not answered by SMS
    assert queued == 0
    turn = Outbox.objects.filter(recipient=sam, kind="turn").latest("pk").text
    assert "by " in turn and "UTC" in turn  # the turn notice that came before: with its deadline


def test_by_sms_a_move_after_a_refused_text_is_answered_so_he_knows_it_was_taken(sms_match):
    sam, match = sms_match
    handle(sam, "pass", "sms", reply_inline=True)
    handle(mover(match), "pass", "terminal")
    handle(sam, "draw", "sms", reply_inline=True)
    discard = str(safe_action(match))
    assert "One card at a time" in handle(sam, "discard Ks Qd", "sms", reply_inline=True)
    answered = handle(sam, discard, "sms", reply_inline=True)
    assert "to move" in answered, answered  # his table as his discard left it
    handle(mover(match), "draw", "terminal")  # the box's turn, never one that ends the hand
    handle(mover(match), str(safe_action(match)), "terminal")
    handle(sam, "draw", "sms", reply_inline=True)
    assert handle(sam, str(safe_action(match)), "sms", reply_inline=True) == "", "only the move after a refusal"


def test_every_sms_turn_notice_keeps_its_deadline_and_fits_one_segment(sms_match):
    from games.text.sms import segments

    sam, match = sms_match
    for _move in range(40):
        if refresh(match).status != Match.Status.RUNNING:
            break
        player = mover(match)
        channel = "sms" if player == sam else "terminal"
        handle(player, str(safe_action(match)), channel, reply_inline=channel == "sms")
    notices = Outbox.objects.filter(recipient=sam, kind="turn")
    assert notices.exists()
    for notice in notices:
        assert re.search(r"Your move by [0-9. :]+UTC: ", notice.text), notice.text
        assert segments(notice.text).count == 1, notice.text


# Words ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seconds", "said"),
    [(59, "1m"), (60, "1m"), (61, "2m"), (3600, "1h"), (2 * 3600 + 59 * 60, "2h 59m"), (86400 + 3600, "1d 1h")],
)
def test_the_time_left_is_rounded_up_to_the_minute(seconds, said):
    assert duration_text(seconds) == said


@pytest.mark.parametrize(
    ("language", "said"), [("he", "2 שע' 59 דק'"), ("lt", "2 val. 59 min."), ("ms", "2 jam 59 min")]
)
def test_the_time_left_is_said_in_the_units_of_the_readers_language(language, said):
    with translation.override(language):
        assert duration_text(2 * 3600 + 59 * 60) == said


def test_a_deadline_that_has_passed_is_now_never_0m():
    now = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    assert deadline_text(now - timedelta(seconds=5), now) == "now"
    assert deadline_text(now + timedelta(seconds=5), now) == "in 1m (09:00 UTC)"
    assert deadline_text(now + timedelta(days=2), now) == "in 2d (4 Mar 09:00 UTC)"


def test_the_time_to_move_comes_before_the_moves_it_allows():
    """After them, "take, pass in 1d" read as if the day were for passing only."""
    now = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    assert (
        your_move(now + timedelta(minutes=130), False, heading=True, now=now) == "Your move by 11:10 UTC (2h 10m left):"
    )
    assert your_move(now + timedelta(days=1), True, heading=False, now=now) == "your move by 3 Mar 09:00 UTC:"
    assert your_move(now - timedelta(seconds=5), False, heading=True, now=now) == "Your move by 08:59 UTC:"
    assert your_move(None, False, heading=False, now=now) == "your move:"


def test_a_player_chooses_his_name_and_no_two_players_share_one(match3, alice, bob):
    assert handle(alice, "name Alicia", "terminal") == "Your name is Alicia."
    assert "taken" in handle(bob, "name alicia", "terminal")
    assert refresh(match3).seats.get(player=bob).player.display_name == "Bob"


def test_a_new_player_whose_name_is_taken_gets_it_with_a_number(db):
    first = telegram_player(501, 501, "Alex")
    second = telegram_player(502, 502, "alex")
    assert (first.display_name, second.display_name) == ("Alex", "alex 2")
    handle(first, "name Ann", "terminal")
    assert terminal_player("terminal:Ann", "Ann").display_name == "Ann 2"
    assert telegram_player(501, 501, "Alex").display_name == "Ann", "only a new player's name is chosen so"


def test_an_sms_player_is_named_until_he_chooses_a_name(db):
    sam, _created = phone_player("+15550001234")
    assert sam.display_name == "Player 1234"


# Delivery: the newest table, the game before the chat ----------------------------------


def test_a_queued_table_that_a_newer_one_replaces_is_not_sent(match3):
    player = player_in_role(match3, Role.BOX)
    for _move in range(6):
        play_move(match3, safe_action)
    waiting = Outbox.objects.filter(recipient=player, replaces=f"table:{match3.code}", status=Outbox.Status.PENDING)
    tables = list(waiting.order_by("pk").values_list("pk", flat=True))
    assert len(tables) > 1
    delivery.deliver_address("terminal", player.terminal_user, RecordingBackend())
    statuses = list(Outbox.objects.filter(pk__in=tables).order_by("pk").values_list("status", flat=True))
    assert statuses[-1] == Outbox.Status.SENT
    assert set(statuses[:-1]) == {Outbox.Status.SUPERSEDED}


def test_a_move_made_for_an_absent_player_reaches_him_though_newer_tables_wait(match3):
    rig(match3, **NO_EARLY_KNOCK)  # a timeout plays a computer's choice: here never a knock that ends the hand
    for _move in range(4):
        play_move(match3, safe_action)  # pass, pass, draw and discard: the box is to draw
    player = mover(match3)
    Match.objects.filter(pk=match3.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert deadlines.enforce_deadline(match3.pk)
    for _move in range(4):
        play_move(match3, safe_action)  # the others play on while he is away
    backend = RecordingBackend()
    delivery.deliver_address("terminal", player.terminal_user, backend)
    told = [message.text for message in backend.sent if "time ran out" in message.text]
    assert len(told) == 1 and re.search(r": (draw|take \S+), d \S+ \(automatic: time ran out\)", told[0])


def test_a_reminder_for_a_turn_that_has_moved_on_is_not_sent(match3):
    player = mover(match3)
    Match.objects.filter(pk=match3.pk).update(remind_at=timezone.now() - timedelta(seconds=1))
    assert deadlines.send_reminder(match3.pk)
    (reminder,) = outbox_of(player, "reminder")
    Match.objects.filter(pk=match3.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert deadlines.enforce_deadline(match3.pk)  # his time ran out before he read it
    delivery.deliver_address("terminal", player.terminal_user, RecordingBackend())
    assert Outbox.objects.get(pk=reminder.pk).status == Outbox.Status.SUPERSEDED
    assert Outbox.objects.filter(recipient=player, kind="moved", status=Outbox.Status.SENT).exists()


def test_the_first_table_explains_itself_even_when_newer_tables_wait(match3):
    player = player_in_role(match3, Role.BOX)
    for _move in range(6):
        play_move(match3, safe_action)
    backend = RecordingBackend()
    delivery.deliver_address("terminal", player.terminal_user, backend)
    assert sum("How to read it" in message.text for message in backend.sent) == 1


def test_a_flood_of_team_talk_waits_behind_the_captains_turn_notice(match3):
    captain, sitter = player_in_role(match3, Role.CAPTAIN), player_in_role(match3, Role.SITTER)
    for number in range(3):
        handle(sitter, f"team hint {number}", "terminal")
    play_move(match3, safe_action)  # the captain passes
    play_move(match3, safe_action)  # the box passes: the captain's turn again
    backend = RecordingBackend()
    delivery.deliver_address("terminal", captain.terminal_user, backend)
    kinds = [message.kind for message in backend.sent]
    assert kinds.index("turn") < kinds.index("team")


class RecordingBackend:
    def __init__(self) -> None:
        self.sent = []

    def send(self, message) -> str:
        self.sent.append(message)
        return f"r{message.pk}"


def test_a_paused_table_says_so_instead_of_your_move(match3):
    with change():
        table = locked_table.load_table(match3.pk)
        view = replace(table.view(table.mover), paused=True)
    for channel in ("sms", "telegram", "terminal"):
        text = render(view, channel).text
        assert "Paused by an admin" in text and "Your move" not in text


def test_every_reason_a_player_can_meet_is_said_in_words_without_a_rule_number():
    from games.engine.errors import REASONS
    from games.text.reasons import SENTENCES

    by_a_bug = {"not_a_move", "bad_deck", "shared_card", "card_twice"}  # never a player's move
    options = {"gin_bonus_choice", "undercut_bonus_range", "target_range"}  # refused by the parser first
    assert set(SENTENCES) == {reason.code for reason in REASONS if reason.rule} - by_a_bug - options


def test_a_refused_move_says_why_in_words(match3):
    captain = player_in_role(match3, Role.CAPTAIN)
    reply = handle(captain, "d 7h", "terminal")
    assert reply.startswith("Not allowed: ") and "(R" not in reply


def test_stop_from_a_sitter_hands_his_seat_to_a_computer_and_start_brings_him_back_with_the_table(make_player):
    """STOP from a sitter does not tell the others "His turns will be played for him" (a
    sitter has none), and START tells them he is back and brings him the table."""
    from games.services.write import linking

    sam, _created = phone_player("+15550004444")
    code = code_in(handle(sam, "new", "sms", reply_inline=True))
    una, vic = make_player("Una"), make_player("Vic")
    handle(una, f"join {code}", "terminal")
    handle(vic, f"join {code}", "terminal")
    match = Match.objects.get(code=code)
    with change():
        linking.opt_out(sam)
    assert match.seats.get(player=sam).autopilot
    told = outbox_of(una, "unreachable")[-1].text
    assert "a computer player plays in their place" in told and "until they are back" in told
    sam.refresh_from_db()
    linking.opt_in(sam)
    assert not match.seats.get(player=sam).autopilot
    assert "is back in" in outbox_of(vic, "returned")[-1].text
    back = Outbox.objects.filter(recipient=sam, kind="returned").latest("pk")
    assert "You are back" in back.text and f"#{code} hand" in back.text


def test_while_an_admin_pauses_a_match_nobody_moves_and_everyone_is_told_why(match3):
    from games.services.write import moderation

    moderation.pause(match3, "root", "a complaint is looked into")
    for seat in match3.seats.select_related("player"):
        assert "a complaint is looked into" in outbox_of(seat.player, "admin")[-1].text
    before = snapshot(match3)
    reply = handle(mover(match3), "pass", "terminal")
    assert "paused by an admin" in reply
    assert snapshot(match3) == before
    assert not computer_moves.play_computer_move(match3.pk)
