"""Making matches and the commands around play: new, join, bot, leave, resign,
help, lang, bans, unknown commands, several matches and retried deliveries.

Why: these are the first things every player does on every channel, and each
refusal must leave the match exactly as it was (docs/protocol.md).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games.engine import Role
from games.engine.hand import Phase
from games.models import Match, Outbox, ProcessedUpdate
from games.services import handle
from games.services.write import clock_scan
from tests.conftest import (
    code_in,
    engine_hand,
    events_of,
    hand_row,
    mover,
    outbox_of,
    player_in_role,
    refresh,
    snapshot,
)


def new_match(player, text: str = "new") -> Match:
    return Match.objects.get(code=code_in(handle(player, text, "terminal")))


# new ----------------------------------------------------------------------------


def test_new_makes_a_match_in_the_lobby_with_its_creator_in_the_first_seat(alice):
    reply = handle(alice, "new", "terminal")
    match = Match.objects.get(code=code_in(reply))
    assert f"join {match.code}" in reply
    assert match.status == Match.Status.LOBBY
    assert list(match.seats.values_list("player", "position")) == [(alice.pk, 0)]
    assert [event.kind for event in events_of(match)] == ["created", "joined"]


def test_new_with_options_stores_them(alice):
    match = new_match(alice, "new 3d to 150 gin 20")
    assert (match.move_seconds, match.target, match.gin_bonus) == (3 * 86400, 150, 20)


def test_new_with_a_bad_option_makes_no_match(alice):
    reply = handle(alice, "new to 1000", "terminal")
    assert "50 to 500" in reply
    assert not Match.objects.exists()


# join ---------------------------------------------------------------------------


def test_join_seats_the_player_and_tells_the_others(alice, bob):
    match = new_match(alice)
    reply = handle(bob, f"join {match.code.lower()}", "terminal")
    assert "Waiting for one more player" in reply
    assert refresh(match).seats.count() == 2
    assert [message.text for message in outbox_of(alice, "joined")] == [f"Bob joined #{match.code}."]


def test_r3_3_the_third_join_starts_the_match_with_the_cut_shown_to_all(match3, alice, bob, carol):
    cut = events_of(match3, "cut")[0].data
    row = hand_row(match3)
    assert match3.status == Match.Status.RUNNING
    assert (row.number, row.box, row.captain, row.sitter) == (1, cut["box"], cut["captain"], cut["sitter"])
    for player in (alice, bob, carol):
        (message,) = outbox_of(player, "cut")
        assert "Box: " in message.text and "Captain: " in message.text and "Sitter: " in message.text


def test_r5_1_the_captain_is_told_first_that_it_is_his_turn(match3):
    captain = mover(match3)
    assert match3.turn_seat == hand_row(match3).captain
    (turn,) = outbox_of(captain, "turn")
    assert "(1d left): take, pass" in turn.text


def test_join_an_unknown_code_is_refused(alice):
    assert "There is no match #ZZZZ" in handle(alice, "join ZZZZ", "terminal")


def test_join_a_full_match_that_has_started_is_refused_and_changes_nothing(match3, dave):
    before = snapshot(match3)
    assert "has already started" in handle(dave, f"join {match3.code}", "terminal")
    assert snapshot(match3) == before
    assert not match3.seats.filter(player=dave).exists()


def test_join_a_match_that_is_over_says_it_is_over(match3, dave):
    captain = player_in_role(match3, Role.CAPTAIN)
    handle(captain, "resign yes", "terminal")
    assert refresh(match3).status == Match.Status.FINISHED
    assert handle(dave, f"join {match3.code}", "terminal") == f"#{match3.code} is over."


def test_join_twice_is_refused(alice):
    match = new_match(alice)
    assert "already in" in handle(alice, f"join {match.code}", "terminal")
    assert match.seats.count() == 1


# bot ----------------------------------------------------------------------------


def test_bot_fills_a_seat_and_the_second_starts_the_match(alice):
    match = new_match(alice)
    assert handle(alice, "bot", "terminal") == f"Bot 1, a computer player (normal), joined #{match.code}."
    assert handle(alice, "bot", "terminal") == f"Bot 2, a computer player (normal), joined #{match.code}."
    match = refresh(match)
    assert match.status == Match.Status.RUNNING
    assert match.seats.filter(player__is_computer=True).count() == 2


def test_each_seat_taken_is_told_once_and_the_joiner_hears_his_reply_before_the_cut(alice, bob, carol):
    """No "Bot 1 joined" beside "a computer player joined"; "You joined" before the deal."""
    match = new_match(alice)
    handle(alice, "bot", "terminal")
    handle(bob, f"join {match.code}", "terminal")
    assert [message.text for message in outbox_of(alice)[1:]][:2] == [
        f"Bot 1, a computer player (normal), joined #{match.code}.",
        f"Bob joined #{match.code}.",
    ]
    first_to_bob = outbox_of(bob)[0]
    assert (first_to_bob.kind, first_to_bob.text) == ("reply", f"You joined #{match.code}.")
    assert outbox_of(bob)[1].kind == "cut"


def test_bot_in_a_running_match_says_it_has_started(match3, alice):
    """Not "you are in no match": he is in one, it has just started."""
    before = snapshot(match3)
    assert "has already started" in handle(alice, "bot", "terminal")
    assert snapshot(match3) == before


def test_bot_with_no_match_says_how_to_start_one(alice):
    assert "You are in no match" in handle(alice, "bot", "terminal")


# leave and resign -----------------------------------------------------------


def test_leave_a_match_before_it_starts(alice, bob):
    match = new_match(alice)
    handle(bob, f"join {match.code}", "terminal")
    assert "You left" in handle(bob, "leave", "terminal")
    match = refresh(match)
    assert match.status == Match.Status.LOBBY
    assert list(match.seats.values_list("player", flat=True)) == [alice.pk]


def test_the_last_human_to_leave_closes_the_match(alice):
    match = new_match(alice)
    handle(alice, "bot", "terminal")
    handle(alice, "leave", "terminal")
    assert refresh(match).status == Match.Status.ABORTED
    assert events_of(match)[-1].kind == "match_over"


def test_leave_a_started_match_says_to_resign(match3, alice):
    before = snapshot(match3)
    assert "use resign" in handle(alice, "leave", "terminal")
    assert snapshot(match3) == before


def test_r10_3_resign_gives_the_match_to_the_leader_of_the_others_and_tells_all_the_totals(match3, alice, bob, carol):
    match3.seats.filter(player=carol).update(score=40)
    match3.seats.filter(player=bob).update(score=30)
    assert "To confirm: #" in handle(alice, "resign", "terminal")
    assert refresh(match3).status == Match.Status.RUNNING
    reply = handle(alice, "resign yes", "terminal")
    assert "You resigned" in reply and "Carol wins the match" in reply
    match = refresh(match3)
    assert (match.status, match.winner) == (Match.Status.FINISHED, carol)
    assert (match.deadline, match.turn_seat) == (None, None)
    totals = "Scores: Alice 0, Bob 30, Carol 40"  # R10.3: she wins on them
    assert totals in reply
    for player in (bob, carol):
        assert "Carol wins the match" in outbox_of(player, "over")[0].text
        assert totals in outbox_of(player, "over")[0].text
    assert outbox_of(alice, "over") == [], "the one who resigned is told once, by his reply"


def test_resign_in_the_lobby_says_to_leave(alice):
    match = new_match(alice)
    assert "use leave" in handle(alice, "resign", "terminal")
    assert refresh(match).status == Match.Status.LOBBY


# help, unknown, bans ------------------------------------------------------------


def test_help_names_the_moves_of_the_player_to_move(match3):
    reply = handle(mover(match3), "help", "terminal")
    assert f"#{match3.code}, your move: take, pass" in reply


def test_help_without_a_match_says_how_to_start(alice):
    reply = handle(alice, "help", "terminal")
    assert "You are in no match. new starts one" in reply and "join CODE" in reply


def test_an_unknown_command_gets_a_reason_and_changes_nothing(match3, alice):
    before = snapshot(match3)
    assert "I don't know 'shuffle'" in handle(alice, "shuffle the deck", "terminal")
    assert snapshot(match3) == before


def test_a_banned_player_is_refused_and_nothing_changes(match3):
    player = mover(match3)
    player.banned, player.ban_reason = True, "spam"
    player.save()
    before = snapshot(match3)
    assert handle(player, "take", "terminal") == "You are banned from gin3: spam."
    assert snapshot(match3) == before


def test_an_expired_ban_no_longer_refuses(match3):
    player = mover(match3)
    player.banned, player.ban_expires_at = True, timezone.now() - timedelta(days=1)
    player.save()
    before = snapshot(match3)
    handle(player, "take", "terminal")
    assert snapshot(match3)[0] == before[0] + 1


# several matches -------------------------------------------------------------


@pytest.fixture
def second_match(alice, dave):
    """Alice's second running match, with Dave and a computer player."""
    match = new_match(alice)
    handle(dave, f"join {match.code}", "terminal")
    handle(dave, "bot", "terminal")
    return refresh(match)


def test_status_with_two_matches_lists_them_with_whose_turn_it_is(match3, second_match, alice):
    reply = handle(alice, "status", "terminal")
    assert reply.startswith("Your matches:")
    for match in (match3, second_match):
        line = next(line for line in reply.splitlines() if line.startswith(f"#{match.code}"))
        assert "your move" in line or "to move" in line or "advise" in line
        assert line.startswith(f"#{match.code} hand 1, "), "one colon to a line: the one before the moves"
        assert line.count(":") <= 2, line  # "by 09:26 UTC (5m left): take, pass"


def test_the_code_in_front_names_the_match(match3, second_match, alice):
    reply = handle(alice, f"#{second_match.code} status", "terminal")
    assert reply.startswith(f"#{second_match.code} hand 1")


def alice_to_move_in(alice, others) -> Match:
    """A running match of Alice and ``others`` in which she is the first to move (dealt until so)."""
    for _attempt in range(100):
        match = new_match(alice)
        for other in others:
            handle(other, f"join {match.code}", "terminal")
        if mover(match) == alice:
            return match
        handle(alice, f"#{match.code} resign yes", "terminal")
    raise AssertionError("Alice was never the captain")


def test_a_move_for_two_waiting_matches_needs_the_code_and_then_goes_where_it_fits(alice, bob, carol, dave):
    """Correspondence chess: the code is asked for only while both matches wait on him."""
    first, second = alice_to_move_in(alice, (bob, carol)), alice_to_move_in(alice, (carol, dave))
    before = [snapshot(first), snapshot(second)]
    reply = handle(alice, "pass", "terminal")
    assert "Which match?" in reply and f"#{second.code} pass" in reply and f"#{first.code}" in reply
    assert [snapshot(first), snapshot(second)] == before
    handle(alice, f"#{second.code} pass", "terminal")
    handle(alice, "pass", "terminal")
    assert [snapshot(first)[0], snapshot(second)[0]] == [before[0][0] + 1, before[1][0] + 1]


def alice_to_draw_in(alice, others) -> Match:
    """A match where Alice, the captain, is to draw: she and the box passed on the upcard."""
    match = alice_to_move_in(alice, others)
    handle(alice, f"#{match.code} pass", "terminal")
    handle(mover(match), "pass", "terminal")
    assert mover(match) == alice and engine_hand(match).phase is Phase.DRAW
    return match


def alice_to_discard_in(alice, others) -> Match:
    match = alice_to_draw_in(alice, others)
    handle(alice, f"#{match.code} draw", "terminal")
    assert engine_hand(match).phase is Phase.DISCARD
    return match


def test_a_move_legal_in_only_one_of_his_waiting_matches_goes_there(alice, bob, carol):
    """#ZPFA needing a discard, #5QVS a draw: draw answered "Put its code first, like:
    #ZPFA draw", and a discard legal in one match only asked for a code too."""
    discarding = alice_to_discard_in(alice, (bob, carol))
    drawing = alice_to_draw_in(alice, (bob, carol))
    before = snapshot(discarding)
    reply = handle(alice, "draw", "terminal")
    assert "Which match?" not in reply
    assert snapshot(discarding) == before
    assert engine_hand(drawing).phase is Phase.DISCARD
    held_there = engine_hand(drawing).cards_of(engine_hand(drawing).to_move)
    card = next(
        card for card in engine_hand(discarding).cards_of(engine_hand(discarding).to_move) if card not in held_there
    )
    reply = handle(alice, f"d {card}", "terminal")
    assert "Which match?" not in reply
    assert refresh(discarding).version == before[0] + 1


def test_accept_goes_to_the_one_match_where_a_suggestion_waits(alice, bob, carol):
    """accept answered "Which match?" though only one of his matches had a suggestion."""
    advised, other = alice_to_move_in(alice, (bob, carol)), alice_to_move_in(alice, (bob, carol))
    handle(player_in_role(advised, Role.SITTER), f"#{advised.code} suggest pass", "terminal")
    before = snapshot(other)
    reply = handle(alice, "accept", "terminal")
    assert "Which match?" not in reply and "You played the sitter's suggestion: pass" in reply
    assert snapshot(other) == before


def test_which_match_names_a_match_where_the_move_is_legal(alice, bob, carol):
    discarding = alice_to_discard_in(alice, (bob, carol))
    first, second = alice_to_draw_in(alice, (bob, carol)), alice_to_draw_in(alice, (bob, carol))
    reply = handle(alice, "draw", "terminal")
    assert f"like: #{second.code} draw. Yours: #{second.code} #{first.code}" in reply
    assert f"#{discarding.code}" not in reply


def test_which_match_gives_as_example_the_match_whose_table_changed_last(alice, bob, carol):
    """The table on his screen is the one that changed last; the older match as the
    example read as a mistake."""
    first, second = alice_to_draw_in(alice, (bob, carol)), alice_to_draw_in(alice, (bob, carol))
    Match.objects.filter(pk=second.pk).update(last_move_at=refresh(first).last_move_at - timedelta(minutes=5))
    reply = handle(alice, "draw", "terminal")
    assert f"like: #{first.code} draw. Yours: #{first.code} #{second.code}" in reply


def test_a_move_legal_in_none_of_his_matches_is_refused_where_he_is_at_that_step(alice, bob, carol):
    """A discard of a card he holds nowhere asked "Which match?" with the oldest match as
    the example, though that one was waiting for a draw: it goes to the match that waits
    for a discard, to be refused there with the reason."""
    drawing = alice_to_draw_in(alice, (bob, carol))
    discarding = alice_to_discard_in(alice, (bob, carol))
    held = {card for match in (drawing, discarding) for card in engine_hand(match).cards_of(engine_hand(match).to_move)}
    nowhere = next(card for card in engine_hand(drawing).stock if card not in held)
    before = snapshot(drawing), snapshot(discarding)
    reply = handle(alice, f"d {nowhere}", "terminal")
    assert reply == f"Not allowed: you do not hold {nowhere}."  # said by the match that waits for a discard
    assert (snapshot(drawing), snapshot(discarding)) == before


def test_a_code_he_is_not_in_is_refused(match3, dave):
    assert f"not in a match #{match3.code}" in handle(dave, f"#{match3.code} status", "terminal")


# lang ----------------------------------------------------------------------------


def test_lang_stores_the_language_and_replies_in_it(alice, monkeypatch):
    from django.utils import translation

    from games.text import account as words

    monkeypatch.setattr(words, "_", lambda text: f"[{translation.get_language()}] {text}")
    reply = handle(alice, "lang mk", "terminal")
    alice.refresh_from_db()
    assert alice.language == "mk"
    assert reply == "[mk] Language: English."
    assert outbox_of(alice, "reply")[-1].text == reply


# retried deliveries ------------------------------------------------------------


def test_the_same_update_key_twice_has_one_effect(match3):
    player = mover(match3)
    before = snapshot(match3)
    assert handle(player, "take", "telegram", update_key="tg:1")
    messages = Outbox.objects.count()
    assert handle(player, "take", "telegram", update_key="tg:1") == ""
    assert snapshot(match3)[0] == before[0] + 1
    assert len(events_of(match3, "move")) == 1
    assert Outbox.objects.count() == messages
    assert ProcessedUpdate.objects.filter(key="tg:1").count() == 1


def test_a_refused_command_retried_is_answered_once(match3, alice):
    handle(alice, "shuffle", "terminal", update_key="sms:1")
    messages = Outbox.objects.count()
    assert handle(alice, "shuffle", "terminal", update_key="sms:1") == ""
    assert Outbox.objects.count() == messages


def test_a_reply_inline_is_returned_and_not_queued(match3, alice):
    messages = Outbox.objects.count()
    reply = handle(alice, "score", "terminal", reply_inline=True)
    assert reply.startswith(f"#{match3.code} to 100")
    assert Outbox.objects.count() == messages


# Options, R10.3, expiry ---------------------------------------------------------------


def test_new_sets_every_option_and_the_reply_confirms_each(alice):
    reply = handle(alice, "new 3d to 150 gin 20 undercut 15 anydiscard open", "terminal")
    match = Match.objects.get(code=code_in(reply))
    assert (match.move_seconds, match.target, match.gin_bonus, match.undercut_bonus) == (3 * 86400, 150, 20, 15)
    assert match.may_discard_taken and match.is_open
    for said in ("3d a move", "to 150", "gin bonus 20", "undercut bonus 15", "may be discarded", "in the lobby"):
        assert said in reply


def test_r10_3_a_resignation_with_the_other_two_level_has_no_winner(match3, alice, bob, carol):
    match3.seats.filter(player__in=[bob, carol]).update(score=30)
    reply = handle(alice, "resign yes", "terminal")
    assert "nobody wins the match" in reply
    match = refresh(match3)
    assert (match.status, match.winner) == (Match.Status.FINISHED, None)
    assert "nobody wins the match" in outbox_of(bob, "over")[-1].text


def test_a_match_that_waits_a_week_for_players_is_closed_and_its_players_told(alice):
    match = new_match(alice)
    Match.objects.filter(pk=match.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert clock_scan.scan_clocks()["lobby"] == 1
    assert refresh(match).status == Match.Status.ABORTED
    assert "waited 7d for players" in outbox_of(alice, "over")[-1].text
