"""Turn clocks: what happens at a deadline, autopilot after missed turns, pauses,
reminders, and computer players.

Why: a player who is away must not stall the other two; the move made for him
is the one a computer player would make, so that a take or a knock made at a
deadline never tells the box that the team was advised (R3.2); and a late or
repeated task must do nothing (docs/architecture.md: deadlines live in the
database).
"""

from __future__ import annotations

import re
from datetime import timedelta

from django.db import transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.engine import Role
from games.models import Match, Outbox
from games.services import handle
from games.services.plumbing.change import change
from games.services.write import clock_scan, computer_moves, deadlines, locked_table
from tests.conftest import (
    code_in,
    events_of,
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


def expire(match: Match) -> None:
    """Move the turn's deadline into the past, as if the player had been away."""
    Match.objects.filter(pk=match.pk).update(deadline=timezone.now() - timedelta(seconds=1))


def time_out(match: Match) -> bool:
    expire(match)
    return deadlines.enforce_deadline(match.pk, refresh(match).version)


def moves(match: Match) -> list[tuple[str, str]]:
    return [(event.data["move"], event.data.get("automatic", "")) for event in events_of(match, "move")]


def seat_of(match: Match, player):
    return refresh(match).seats.get(player=player)


def test_nothing_happens_before_the_deadline(match3):
    before = snapshot(match3)
    assert not deadlines.enforce_deadline(match3.pk)
    assert snapshot(match3) == before


def test_a_deadline_task_for_an_older_version_does_nothing(match3):
    old = refresh(match3).version
    play_move(match3)
    expire(match3)
    before = snapshot(match3)
    assert not deadlines.enforce_deadline(match3.pk, old)
    assert snapshot(match3) == before


def test_r5_at_the_deadline_an_upcard_he_has_no_use_for_is_refused_for_him(match3):
    rig(match3, captain="As 3s 5s 7s 9s Jh Kh 2d 4d 6d", box="Ah 3h 5h 7h 9h Js Ks 2c 4c 6c", upcard="Qc")
    captain, box = player_in_role(match3, Role.CAPTAIN), player_in_role(match3, Role.BOX)
    assert time_out(match3)
    assert moves(match3) == [("pass", "timeout")]
    assert events_of(match3, "move")[0].actor is None
    assert "(automatic: time ran out)" in outbox_of(box, "turn")[-1].text
    assert seat_of(match3, captain).timeouts_in_row == 1
    assert refresh(match3).deadline > timezone.now()  # the box has his own full time


def test_r3_2_a_timed_out_turn_is_played_whole_as_a_computer_player_would_knocking_if_it_would(match3):
    """One missed turn is one whole turn and one timeout; when the drawn card makes gin,
    the computer knocks, as it would in its own seat."""
    rig(match3, captain="As 2s 3s 4s 5s 6s 7s 8s 9s Kd", box="Ah 3h 5h 7h 9h Jh Kh 2d 4d 6d", upcard="Qc", stock="Ts")
    captain, box = player_in_role(match3, Role.CAPTAIN), player_in_role(match3, Role.BOX)
    handle(captain, "pass", "terminal")
    handle(box, "pass", "terminal")
    assert time_out(match3)
    assert moves(match3)[2:] == [("draw", "timeout"), ("knock Kd", "timeout")]
    assert hand_row(match3).number == 2
    assert seat_of(match3, captain).timeouts_in_row == 1


def test_a_timed_out_turn_plays_the_computer_players_move_for_his_seat(match3):
    with change():
        table = locked_table.load_table(match3.pk)
        wanted = computer_moves.computer_choice(table, deadlines.TIMEOUT_STRENGTH)
    assert time_out(match3)
    assert moves(match3)[0] == (str(wanted), "timeout")


def test_a_timed_out_discard_ends_the_turn_he_began(match3):
    """He took the upcard and let his time run out: the timeout discards for him (no
    knock is possible with these cards) and the box is to move."""
    rig(match3, captain="As 3s 5s 7s 9s Jh Kh 2d 4d 6d", box="Ah 3h 5h 7h 9h Js Ks 2c 4c 6c", upcard="Qc")
    captain = player_in_role(match3, Role.CAPTAIN)
    handle(captain, "take", "terminal")
    assert time_out(match3)
    assert moves(match3)[1][1] == "timeout"
    assert moves(match3)[1][0].startswith("discard ")
    assert mover(match3) == player_in_role(match3, Role.BOX)


def test_a_players_own_move_clears_his_missed_turns(match3):
    captain = player_in_role(match3, Role.CAPTAIN)
    time_out(match3)
    assert seat_of(match3, captain).timeouts_in_row == 1
    while mover(match3) != captain:
        play_move(match3, safe_action)
    play_move(match3, safe_action)
    assert seat_of(match3, captain).timeouts_in_row == 0


def miss_three_turns(match: Match):
    """The captain misses three turns in a row; the box plays his own (safely)."""
    captain = player_in_role(match, Role.CAPTAIN)
    for _turn in range(3):
        assert mover(match) == captain
        assert time_out(match)
        while mover(match) != captain:
            play_move(match, safe_action)
    return captain


def test_three_missed_turns_put_the_seat_on_autopilot_and_everyone_is_told(match3, alice, bob, carol):
    captain = miss_three_turns(match3)
    seat = seat_of(match3, captain)
    assert (seat.timeouts_in_row, seat.autopilot) == (3, True)
    for player in (alice, bob, carol):
        (told,) = outbox_of(player, "autopilot")
        assert f"{captain.display_name} missed 3 turns in a row" in told.text


def test_a_seat_on_autopilot_is_played_by_the_computer(match3):
    captain = miss_three_turns(match3)
    assert mover(match3) == captain
    assert computer_moves.play_computer_move(match3.pk)
    assert moves(match3)[-1][1] == "autopilot"  # said as made for him, not as his own
    assert events_of(match3, "move")[-1].actor is None


def test_a_player_a_computer_plays_for_gets_no_tables_only_results(match3):
    """A player who is away gets the takeover notice, the results of the hands, and the
    table when he comes back, not a text for every move (107 in one match)."""
    captain = miss_three_turns(match3)
    before = len(outbox_of(captain))
    for _move in range(40):
        if computer_moves.play_computer_move(match3.pk):
            continue
        if refresh(match3).status != Match.Status.RUNNING:  # a gin can reach 100 in the first hands
            break
        if seat_of(match3, mover(match3)).autopilot:  # it waits for its sitter's advice, until the deadline
            expire(match3)
            clock_scan.scan_clocks(among=[match3.pk])
        else:
            play_move(match3, safe_action)
    kinds = {message.kind for message in outbox_of(captain)[before:]}
    assert kinds <= {"result", "cut"}, kinds


def test_any_command_from_the_player_on_autopilot_brings_him_back(match3):
    captain = miss_three_turns(match3)
    handle(captain, "status", "terminal")
    seat = seat_of(match3, captain)
    assert (seat.timeouts_in_row, seat.autopilot) == (0, False)
    assert events_of(match3)[-1].kind == "returned"
    assert not computer_moves.play_computer_move(match3.pk)


def test_a_paused_match_does_not_time_out(match3):
    expire(match3)
    Match.objects.filter(pk=match3.pk).update(paused_at=timezone.now())
    before = snapshot(match3)
    assert not deadlines.enforce_deadline(match3.pk)
    assert snapshot(match3) == before
    assert clock_scan.scan_clocks()["deadline"] == 0
    assert snapshot(match3) == before


def test_a_missed_deadline_is_found_by_the_clock_scan(match3):
    captain = mover(match3)
    expire(match3)
    assert clock_scan.scan_clocks() == {"deadline": 1, "remind_at": 0, "lobby": 0, "rematch": 0}
    assert match3.seats.get(player=captain).timeouts_in_row == 1
    assert clock_scan.scan_clocks() == {"deadline": 0, "remind_at": 0, "lobby": 0, "rematch": 0}


def test_the_clock_scan_acts_on_each_due_match_once_and_leaves_the_others(make_player):
    due, waiting = (match_of(*(make_player(f"{prefix}{n}") for n in range(3))) for prefix in ("a", "b"))
    expire(due)
    before = snapshot(waiting)
    assert clock_scan.scan_clocks()["deadline"] == 1
    assert {automatic for _move, automatic in moves(due)} == {"timeout"}
    assert snapshot(waiting) == before


def match_of(first, second, third) -> Match:
    code = code_in(handle(first, "new", "terminal"))
    handle(second, f"join {code}", "terminal")
    handle(third, f"join {code}", "terminal")
    return Match.objects.get(code=code)


def test_r3_2_the_sitters_waiting_suggestion_is_played_at_the_deadline(match3):
    sitter = player_in_role(match3, Role.SITTER)
    handle(sitter, "suggest take", "terminal")
    assert time_out(match3)
    assert moves(match3)[0] == ("take", "timeout-suggestion")
    assert moves(match3)[1][1] == "timeout"
    assert hand_row(match3).suggestion == ""


def test_the_reminder_is_sent_once_when_most_of_the_time_is_used(match3):
    captain = mover(match3)
    assert clock_scan.scan_clocks()["remind_at"] == 0
    assert not deadlines.send_reminder(match3.pk)
    Match.objects.filter(pk=match3.pk).update(remind_at=timezone.now() - timedelta(seconds=1))
    assert clock_scan.scan_clocks()["remind_at"] == 1
    assert not deadlines.send_reminder(match3.pk)
    (reminder,) = outbox_of(captain, "reminder")
    assert f"it is your move in #{match3.code}" in reminder.text


def test_a_computer_move_is_only_played_for_a_computer(match3):
    before = snapshot(match3)
    assert not computer_moves.play_computer_move(match3.pk)
    assert snapshot(match3) == before


def test_computer_players_play_on_until_the_human_is_to_move(match_vs_computers, alice):
    assert mover(match_vs_computers) == alice
    assert {automatic for _move, automatic in moves(match_vs_computers)} <= {"computer"}
    assert not computer_moves.play_computer_move(match_vs_computers.pk)


def test_the_clock_scan_goes_on_from_where_it_got_to_among_matches_due_at_the_same_moment(make_player):
    """Two deadlines at the same instant: the scan's cursor (the moment, then the match)
    finds both, once each, even when acting on one leaves it due (here: it is paused
    between the scan's find and its act, so its action does nothing)."""
    first, second = (match_of(*(make_player(f"{prefix}{n}") for n in range(3))) for prefix in ("c", "d"))
    moment = timezone.now() - timedelta(seconds=5)
    Match.objects.filter(pk__in=[first.pk, second.pk]).update(deadline=moment)
    with change():
        seen = clock_scan.next_due(clock_scan.CLOCKS[0], timezone.now())
        after = clock_scan.next_due(clock_scan.CLOCKS[0], timezone.now(), seen)
        assert clock_scan.next_due(clock_scan.CLOCKS[0], timezone.now(), after) is None
    assert {seen[1], after[1]} == {first.pk, second.pk}


class _Seen(Exception):
    """Carries what a scenario showed out of the savepoint that undoes it."""


def seen_by_the_box_and_the_public(match: Match, suggestion: str) -> tuple:
    """The captain's time runs out, with ``suggestion`` from the sitter waiting (or none):
    the box's new messages, the public match page and its live table. Undone afterwards."""
    box = player_in_role(match, Role.BOX)
    sitter = player_in_role(match, Role.SITTER)
    try:
        with transaction.atomic():
            if suggestion:
                handle(sitter, f"suggest {suggestion}", "terminal")
            mark = Outbox.objects.order_by("-pk").values_list("pk", flat=True).first()
            assert time_out(match)
            told = [(m.kind, m.text) for m in Outbox.objects.filter(recipient=box, pk__gt=mark).order_by("pk")]
            page = Client().get(reverse("games:match", args=[match.code])).content.decode()
            page = re.sub(r'name="csrfmiddlewaretoken" value="\w+"', "", page)  # a new one each time
            live = Client().get(reverse("games:live", args=[match.code])).content.decode()
            raise _Seen(told, page, live)
    except _Seen as seen:
        return seen.args


def test_r3_2_the_box_and_the_public_see_the_same_timed_out_turn_whether_or_not_advice_waited(match3, time_machine):
    """A timeout never takes a card, so "take 9h, d Kc (automatic: time ran out)" would
    tell the box that the sitter's suggestion was waiting."""
    time_machine.move_to(timezone.now(), tick=False)
    rig(match3, captain="7h 8h Js Qs 2c 5c 9c Kc 3d Kd", box="Ah 3h 5h Th Jh 2s 4s 6s 8s Ad", upcard="9h")
    advised = seen_by_the_box_and_the_public(match3, "take")
    unadvised = seen_by_the_box_and_the_public(match3, "")
    assert advised == unadvised
    assert "take 9h" in advised[0][-1][1] and "(automatic: time ran out)" in advised[0][-1][1]
