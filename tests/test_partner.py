"""Computer players worth playing with (issue 19): levels, a computer partner that
advises and reads advice (R3.2: the box learns nothing of either), hints against
computers only, and the review of a finished hand."""

from __future__ import annotations

import copy
import random
import re
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from types import MappingProxyType

import pytest
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from bot.terminal.worker import do_due_work
from games.contract.advice import AdviceDeclined, AdviceReason
from games.engine import DECK, Role, deal, parse_action
from games.engine.advice import Appraisal, Reason, appraise, reason_for
from games.engine.bots import bot_view
from games.models import Event, Hand, Match, Outbox, Player, Strength
from games.services import handle
from games.services.plumbing import state
from games.services.plumbing.change import change
from games.services.write import (
    advice,
    clock_scan,
    computer_moves,
    deadlines,
    locked_table,
    matches,
    play,
    review,
    turns,
)
from games.text.advice import team_words
from tests.conftest import (
    NO_EARLY_KNOCK,
    best_action,
    code_in,
    hand_row,
    legal_actions,
    mover,
    outbox_of,
    player_in_role,
    refresh,
    rig,
)

REAL_CUT = play.cut_for_roles
ALICE_CAPTAINS = 26  # a cut seed that gives seat 0 the captain, seat 1 the box, seat 2 the sitter
ALICE_SITS_OUT = 1  # ... seat 0 the sitter, seat 1 the captain, seat 2 the box


def new_match(player: Player, *levels: str) -> Match:
    code = code_in(handle(player, "new 5m to 300", "terminal"))
    for level in levels:
        handle(player, f"bot {level}".strip(), "terminal")
    return Match.objects.get(code=code)


def fake_appraise(prefer: str, worth: dict[str, float] | None = None):
    """``appraise`` that chooses ``prefer``'s kind of move (the first legal one) and values
    moves as ``worth`` says (by their text; 0 otherwise): a level whose mind the test knows."""

    def appraise(view, level="hard", rng=None, budget=None, weigh=()) -> Appraisal:
        legal = list(view.legal_actions)
        choice = next((action for action in legal if str(action).startswith(prefer)), legal[0])
        values = {action: (worth or {}).get(str(action), 0.0) for action in legal}
        values.setdefault(choice, 0.0)
        return Appraisal(choice, MappingProxyType(values), Reason.SHEDS_DEADWOOD)

    return appraise


def until(match: Match, condition, person: Player, limit: int = 400) -> Match:
    """Play on (the person plays the strong computer's move) until ``condition(match)``."""
    for _step in range(limit):
        match = refresh(match)
        assert match.status == Match.Status.RUNNING, "the match ended first"
        if condition(match):
            return match
        if mover(match) == person:
            handle(person, str(best_action(match)), "terminal")
        else:
            assert computer_moves.play_computer_move(match.pk)
    raise AssertionError("never came")


def advised(match: Match) -> Match:
    """What the computer queue does after a change: here, the computer sitter's advice."""
    assert not computer_moves.play_computer_move(match.pk)
    return refresh(match)


def captain_to_move(person: Player):
    return lambda match: mover(match) == person and player_in_role(match, Role.CAPTAIN) == person


def sitter_advising(person: Player, with_a_choice: bool = False):
    """A computer captains and ``person`` sits out; ``with_a_choice``: not at a forced draw (R5.4)."""
    return (
        lambda match: player_in_role(match, Role.SITTER) == person
        and mover(match).is_computer
        and (mover(match) == player_in_role(match, Role.CAPTAIN))
        and (not with_a_choice or len(legal_actions(match)) > 1)
    )


# Levels ---------------------------------------------------------------------------------


def test_bot_hard_fills_a_seat_with_a_hard_computer_named_by_its_level(alice):
    match = new_match(alice)
    assert handle(alice, "bot hard", "terminal") == f"Hard 1, a computer player (hard), joined #{match.code}."
    assert handle(alice, "bot easy", "terminal") == f"Easy 1, a computer player (easy), joined #{match.code}."
    levels = dict(match.seats.filter(player__is_computer=True).values_list("player__display_name", "player__strength"))
    assert levels == {"Hard 1": Strength.HARD, "Easy 1": Strength.EASY}
    assert refresh(match).status == Match.Status.RUNNING


def test_plain_bot_seats_a_normal_computer_and_a_second_of_a_level_gets_the_next_number(alice):
    match = new_match(alice)
    handle(alice, "bot", "terminal")
    handle(alice, "bot normal", "terminal")
    names = set(match.seats.filter(player__is_computer=True).values_list("player__display_name", flat=True))
    assert names == {"Bot 1", "Bot 2"}


def test_a_level_that_is_none_is_refused_with_the_levels(alice):
    new_match(alice)
    reply = handle(alice, "bot expert", "terminal")
    assert reply == "bot adds a computer player; say how well it plays: bot easy, bot normal, bot hard."


@pytest.mark.parametrize("typed", ["bot superhard", "bot hardd"])
def test_a_level_mistyped_is_answered_with_the_level_it_is_close_to(alice, typed):
    new_match(alice)
    reply = handle(alice, typed, "terminal")
    word = typed.split()[1]
    assert reply == f"There is no level '{word}'. Did you mean bot hard? The levels: bot easy, bot normal, bot hard."


def test_the_level_is_said_in_the_players_language(alice):
    handle(alice, "lang lt", "terminal")
    match = new_match(alice)
    reply = handle(alice, "bot hard", "terminal")
    assert reply.startswith("Hard 1") and f"#{match.code}" in reply and "(hard)" not in reply


def test_a_hard_computer_plays_its_moves_from_its_own_view(alice, monkeypatch):
    """It never sees a hidden card: every view it is given is ``bot_view``'s for the seat to move."""
    seen = []
    real = computer_moves.mover_view

    def spying(table):
        view = real(table)
        seen.append((view, table.hand))
        return view

    monkeypatch.setattr(computer_moves, "mover_view", spying)
    match = new_match(alice, "hard", "hard")
    until(match, lambda m: len(seen) >= 6 or mover(m) == alice, alice)
    for view, hand in seen:
        assert view.cards == hand.cards_of(view.role)
        assert set(view.cards).isdisjoint(hand.cards_of(view.role.opponent))


def test_the_autopilot_and_a_timeout_play_normal_or_better():
    assert computer_moves.AUTOPILOT_STRENGTH in (Strength.NORMAL, Strength.HARD)
    assert deadlines.TIMEOUT_STRENGTH in (Strength.NORMAL, Strength.HARD)


def test_make_play_offers_the_levels():
    from bot.management.commands.play import Command

    parser = Command().create_parser("manage.py", "play")
    assert parser.parse_args(["--level", "hard"]).level == "hard"
    with pytest.raises(CommandError):
        parser.parse_args(["--level", "expert"])


# A computer sitter advises -----------------------------------------------------------------


def test_r3_2_a_computer_sitter_suggests_on_each_of_a_persons_captain_turns(alice):
    match = advised(until(new_match(alice, "", ""), captain_to_move(alice), alice))
    row = hand_row(match)
    assert row.suggestion and row.suggestion_version == match.version
    assert parse_action(row.suggestion) in legal_actions(match)
    suggested = Event.objects.filter(hand=row, kind=Event.Kind.SUGGESTION).last()
    assert suggested.actor == player_in_role(match, Role.SITTER) and suggested.data["reason"] in set(Reason)
    assert outbox_of(alice, Outbox.Kind.SUGGESTION), "the captain sees it, with accept"
    computer_moves.play_computer_move(match.pk)  # once for the moment
    assert Event.objects.filter(hand=row, kind=Event.Kind.SUGGESTION).count() == 1


@pytest.mark.parametrize("delivered", [True, False])
def test_a_captain_who_has_his_table_gets_the_computer_sitters_suggestion_as_one_line(alice, delivered):
    """In the terminal (and by SMS) the captain read his table, then the same table again
    with 'Sitter suggests: pass' under it. With his table delivered, the suggestion is a
    line of its own; while it still waits to go, the table with the suggestion replaces it,
    and he gets one table."""
    match = until(new_match(alice, "", ""), captain_to_move(alice), alice)
    table = outbox_of(alice)[-1]
    assert table.replaces == f"table:{match.code}"
    if delivered:
        Outbox.objects.filter(recipient=alice).update(status=Outbox.Status.SENT)
    match = advised(match)
    (suggestion,) = outbox_of(alice, Outbox.Kind.SUGGESTION)
    move = hand_row(match).suggestion
    if delivered:
        assert suggestion.text == f"#{match.code} Sitter suggests: {move} (accept plays it)"
    else:
        assert f"\nSitter suggests: {move} (accept plays it)\n" in suggestion.text
        assert suggestion.text.startswith(f"#{match.code} hand ") and suggestion.replaces == table.replaces


def test_r5_4_the_forced_draw_is_not_advised_and_the_computer_sitter_is_not_asked_again(alice, monkeypatch):
    monkeypatch.setattr(play, "cut_for_roles", lambda rng: REAL_CUT(random.Random(ALICE_CAPTAINS)))
    match = new_match(alice, "", "")
    rig(match, captain="As 3s 5s 7s 9s Jh Kh 2d 4d 6d", box="Ah 3h 5h 7h 9h Js Ks 2c 4c 6c", upcard="Qc")
    assert player_in_role(match, Role.CAPTAIN) == alice
    handle(alice, "pass", "terminal")
    assert computer_moves.play_computer_move(match.pk), "the box refuses the queen too"
    match = refresh(match)
    assert mover(match) == alice and [str(action) for action in legal_actions(match)] == ["draw"]
    suggestions = Event.objects.filter(match=match, kind=Event.Kind.SUGGESTION).count()
    assert not computer_moves.play_computer_move(match.pk)
    assert Event.objects.filter(match=match, kind=Event.Kind.SUGGESTION).count() == suggestions, "nothing to weigh"
    assert match.pk not in computer_moves.computers_to_move([match.pk]), "the moment is marked as advised"
    assert hand_row(match).suggestion == ""


def test_r5_4_a_person_sitter_is_offered_nothing_to_suggest_at_the_forced_draw(match3):
    captain, box, sitter = (player_in_role(match3, role) for role in (Role.CAPTAIN, Role.BOX, Role.SITTER))
    handle(captain, "pass", "terminal")
    handle(box, "pass", "terminal")
    with change():
        table = locked_table.load_table(match3.pk)
        assert table.hand.is_forced
        assert table.view(table.position_of(sitter)).moves == ()
        assert table.view(table.position_of(captain)).moves == ("draw",)


def test_the_captain_accepts_the_computer_sitters_suggestion_and_it_advises_again_on_the_discard(alice):
    match = advised(until(new_match(alice, "", ""), captain_to_move(alice), alice))
    suggestion = hand_row(match).suggestion
    handle(alice, "accept", "terminal")
    moved = Event.objects.filter(match=match, kind=Event.Kind.MOVE).last()
    assert moved.data["move"] == suggestion and moved.actor == alice
    match = refresh(match)
    if mover(match) == alice:  # he took a card: the discard is advised too
        match = advised(match)
        assert hand_row(match).suggestion_version == match.version


def test_the_computer_sitter_answers_team_with_why(alice):
    match = advised(until(new_match(alice, "", ""), captain_to_move(alice), alice))
    sitter = player_in_role(match, Role.SITTER)
    assert handle(alice, "team why?", "terminal") == f"Sent to {sitter.display_name}."
    (answer,) = outbox_of(alice, Outbox.Kind.TEAM)
    assert answer.text.startswith(
        f"#{match.code} {sitter.display_name} (team): I suggested {hand_row(match).suggestion}"
    )
    assert " because " in answer.text


def test_the_computer_sitters_why_names_the_card_it_kept_from_the_opponent(alice, monkeypatch):
    """Its reason is stored with the suggestion and read back when the captain asks why."""

    def appraise(view, level="hard", rng=None, budget=None, weigh=()) -> Appraisal:
        choice = view.legal_actions[0]
        return Appraisal(choice, MappingProxyType({choice: 0.0}), Reason.AVOIDS_FEEDING, view.cards[0])

    match = until(new_match(alice, "", ""), captain_to_move(alice), alice)
    monkeypatch.setattr(advice, "appraise", appraise)
    match = advised(match)
    with change():
        kept = locked_table.load_table(match.pk).hand.captain[0]
    handle(alice, "team why?", "terminal")
    (answer,) = outbox_of(alice, Outbox.Kind.TEAM)
    assert f"because discarding {kept} would leave a lower count but help what the opponent collects." in answer.text


def test_r3_2_a_computer_captain_answers_its_sitters_team_message_with_why_it_played_its_last_move(alice):
    """Sitting out with a computer captain, 'team why?' was answered 'Sent to Bot 1.' and
    nothing more. The captain says why it played its last move of the hand, from what it
    knew then; before it has moved, that it has played nothing yet. The box hears none of it."""

    def captain_moves(match: Match) -> list[str]:
        moves = hand_row(match).events.filter(kind=Event.Kind.MOVE, actor=player_in_role(match, Role.CAPTAIN))
        return [event.data["move"] for event in moves.order_by("seq")]

    match = until(new_match(alice, "", ""), lambda m: sitter_advising(alice)(m) and not captain_moves(m), alice)
    captain, box = player_in_role(match, Role.CAPTAIN), player_in_role(match, Role.BOX)
    said = f"#{match.code} {captain.display_name} (team): "
    assert handle(alice, "team why?", "terminal") == f"Sent to {captain.display_name}."
    assert outbox_of(alice, Outbox.Kind.TEAM)[-1].text == said + "I have played nothing yet this hand."
    match = until(match, lambda m: player_in_role(m, Role.CAPTAIN) == captain and captain_moves(m), alice)
    handle(alice, "team why?", "terminal")
    answer = outbox_of(alice, Outbox.Kind.TEAM)[-1].text
    assert re.fullmatch(re.escape(f"{said}I played {captain_moves(match)[-1]} because ") + r".+\.", answer), answer
    assert not outbox_of(box, Outbox.Kind.TEAM)


def test_r5_4_the_forced_draw_is_explained_as_the_only_move():
    view = replace(
        bot_view(deal(random.Random(1).sample(DECK, 52)), Role.CAPTAIN), legal_actions=(parse_action("draw"),)
    )
    assert reason_for(view, parse_action("draw"), {}) == (Reason.ONLY_MOVE, None)


# A computer captain reads a person's advice ----------------------------------------------------


@pytest.fixture
def waiting_captain(alice, settings) -> Match:
    """Alice sits out and advises; the computer captain is to move and waits for her."""
    settings.GIN3_ADVICE_WAIT_SECONDS = 30
    match = new_match(alice, "", "")
    match = until(match, sitter_advising(alice, with_a_choice=True), alice)
    return match


def test_a_computer_captain_waits_for_its_sitters_advice(waiting_captain, alice):
    match = refresh(waiting_captain)
    with change():
        table = locked_table.load_table(match.pk)
        assert turns.waits_for_advice(table)
    assert match.deadline > timezone.now() + timedelta(seconds=20)
    assert match.pk not in computer_moves.computers_to_move([match.pk]), "the terminal waits too"


def test_r5_4_a_computer_captain_waits_for_no_advice_on_its_forced_draw(alice, settings, monkeypatch):
    settings.GIN3_ADVICE_WAIT_SECONDS = 30
    monkeypatch.setattr(play, "cut_for_roles", lambda rng: REAL_CUT(random.Random(ALICE_SITS_OUT)))
    match = new_match(alice, "", "")
    rig(match, captain="As 3s 5s 7s 9s Jh Kh 2d 4d 6d", box="Ah 3h 5h 7h 9h Js Ks 2c 4c 6c", upcard="Qc")
    assert player_in_role(match, Role.SITTER) == alice
    handle(alice, "suggest pass", "terminal")  # she advises, so the captain would wait for her all hand
    assert computer_moves.play_computer_move(match.pk), "the captain takes her advice"
    assert computer_moves.play_computer_move(match.pk), "the box refuses the queen too"
    with change():
        table = locked_table.load_table(match.pk)
        assert table.hand.is_forced and not turns.waits_for_advice(table)
    assert match.pk in computer_moves.computers_to_move([match.pk])


def test_a_computer_captain_plays_a_suggestion_not_clearly_worse_than_its_own(waiting_captain, alice, monkeypatch):
    moves = [str(action) for action in legal_actions(waiting_captain)]
    own, offered = moves[0], moves[-1]
    worth = {own: 1.0, offered: 1.0 - advice.ADVICE_MARGIN}  # exactly at the margin: played
    monkeypatch.setattr(advice, "appraise", fake_appraise(own, worth))
    handle(alice, f"suggest {offered}", "terminal")
    match = refresh(waiting_captain)
    assert match.deadline <= timezone.now() and match.pk in computer_moves.computers_to_move([match.pk])
    assert computer_moves.play_computer_move(match.pk)
    assert Event.objects.filter(match=match, kind=Event.Kind.MOVE).last().data["move"] == offered
    assert not outbox_of(alice, Outbox.Kind.TEAM)
    handle(alice, "team why?", "terminal")  # not the suggestion's merits, as if it had chosen it
    (told,) = outbox_of(alice, Outbox.Kind.TEAM)
    assert told.text.endswith(
        f"I played your suggestion, {offered}: by my reckoning {own} was worth 2.0 points more, "
        "too little to refuse it."
    )


@pytest.mark.parametrize(
    ("objection", "why"),
    [
        (None, "no unmatched card is worth more"),  # nothing wrong in itself: its own choice's reason
        (Reason.BREAKS_MELD, "the card suggested is in one of my melds"),
    ],
)
def test_a_computer_captain_declines_a_clearly_worse_suggestion_in_one_line(
    waiting_captain, alice, monkeypatch, objection, why
):
    moves = [str(action) for action in legal_actions(waiting_captain)]
    if len(moves) < 2:
        pytest.skip("one legal move")
    own, offered = moves[0], moves[-1]
    monkeypatch.setattr(advice, "appraise", fake_appraise(own, {own: 1.0, offered: -2.5}))
    monkeypatch.setattr(advice, "objection", lambda view, suggestion: objection)
    handle(alice, f"suggest {offered}", "terminal")
    assert computer_moves.play_computer_move(waiting_captain.pk)
    assert Event.objects.filter(match=waiting_captain, kind=Event.Kind.MOVE).last().data["move"] == own
    (told,) = outbox_of(alice, Outbox.Kind.TEAM)
    captain = player_in_role(waiting_captain, Role.CAPTAIN).display_name
    assert told.text == (
        f"#{waiting_captain.code} {captain} (team): Not {offered} but {own}, 3.5 points better by my reckoning: {why}."
    )
    assert "\n" not in told.text


@pytest.mark.parametrize(("language", "points"), [("en", "3.5 points"), ("lt", "3,5 taško"), ("mk", "3,5 поени")])
def test_a_declined_suggestions_points_are_written_as_the_readers_language_writes_numbers(language, points):
    declined = AdviceDeclined("K7Q2", "Bot 1", "discard 8d", "discard Js", 3.5, Reason.SHEDS_DEADWOOD.value)
    with translation.override(language):
        assert points in team_words(declined)


@pytest.mark.parametrize("language", ["en", "he", "lt", "mk", "mr", "ms"])
def test_a_sitter_that_kept_a_card_from_the_opponent_says_which_card(language):
    told = AdviceReason("K7Q2", "Bot 1", "discard 9c", Reason.AVOIDS_FEEDING.value, "Kh")
    with translation.override(language):
        assert "Kh" in team_words(told)
        assert "Kh" not in team_words(replace(told, card=""))


def test_a_computer_captain_not_advised_at_its_first_decision_waits_no_more_that_hand(waiting_captain, alice):
    match = refresh(waiting_captain)
    hand = hand_row(match).number
    Match.objects.filter(pk=match.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    clock_scan.scan_clocks(among=[match.pk])
    match = until(refresh(match), sitter_advising(alice), alice)
    if hand_row(match).number == hand:
        with change():
            assert not turns.waits_for_advice(locked_table.load_table(match.pk))
        assert match.pk in computer_moves.computers_to_move([match.pk])


def test_a_sitter_whose_computer_captain_played_first_is_told_so_and_waited_for_from_then_on(
    waiting_captain, alice, settings
):
    """A sitter who missed the captain's first decision was answered 'Wait for the captain's
    turn to suggest.' at every later one: the captain no longer waited, and he could never
    advise again that hand. Told that it played first, he is waited for from then on."""
    match = refresh(waiting_captain)
    captain = player_in_role(match, Role.CAPTAIN)
    Match.objects.filter(pk=match.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    clock_scan.scan_clocks(among=[match.pk])
    while mover(refresh(match)) == captain:  # it plays its turn out without waiting again
        assert computer_moves.play_computer_move(match.pk)
    match = refresh(match)
    version = match.version
    reply = handle(alice, "suggest draw", "terminal")
    assert reply == (
        f"{captain.display_name} played before your suggestion came. "
        "It will wait for your advice at its next decisions."
    )
    assert refresh(match).version == version, "no move, no new version: the game is as it was"
    assert Event.objects.filter(match=match, kind=Event.Kind.SUGGESTION, actor=alice).exists()
    match = until(match, sitter_advising(alice, with_a_choice=True), alice)
    if hand_row(match).number == hand_row(waiting_captain).number:
        with change():
            assert turns.waits_for_advice(locked_table.load_table(match.pk))
    settings.GIN3_ADVICE_WAIT_SECONDS = 0
    assert handle(alice, "suggest draw", "terminal") != reply, "a captain that never waits promises nothing"


def test_an_advising_sitter_is_waited_for_all_hand(waiting_captain, alice):
    moves = [str(action) for action in legal_actions(waiting_captain)]
    handle(alice, f"suggest {moves[0]}", "terminal")
    assert computer_moves.play_computer_move(waiting_captain.pk)
    match = until(refresh(waiting_captain), sitter_advising(alice, with_a_choice=True), alice)
    if hand_row(match).number == hand_row(waiting_captain).number:
        with change():
            assert turns.waits_for_advice(locked_table.load_table(match.pk))


def test_the_terminal_waits_for_an_advising_sitter_at_each_later_captain_turn(waiting_captain, alice):
    """A newcomer's suggestion was played, and then the computers ran five turns in three
    seconds: the terminal's loop moved on through a computer captain that waits."""
    hand = rig(waiting_captain, **NO_EARLY_KNOCK)
    handle(alice, "suggest pass", "terminal")
    while do_due_work([waiting_captain.pk]):  # as the terminal catches up: until nothing is due
        pass
    match = refresh(waiting_captain)
    captain_moves = Event.objects.filter(hand=hand, kind=Event.Kind.MOVE, data__role=Role.CAPTAIN.value)
    assert [event.data["move"] for event in captain_moves] == ["pass", "draw"], "the forced draw waits for nothing"
    assert hand_row(match).pk == hand.pk and mover(match) == player_in_role(match, Role.CAPTAIN)
    assert match.deadline > timezone.now() + timedelta(seconds=20)


def test_the_sitter_is_offered_what_to_suggest_while_a_computer_captain_waits_and_only_then(waiting_captain, alice):
    """A newcomer who sat out beside a computer captain read only "Bot 1 to move." and
    was never asked to advise, though the captain waited for him."""
    rig(waiting_captain, **NO_EARLY_KNOCK)
    captain = player_in_role(waiting_captain, Role.CAPTAIN).display_name
    handle(alice, "status", "terminal")
    waits = re.search(rf"Advise {captain}, who waits (\d+)s for you: suggest take, pass", outbox_of(alice)[-1].text)
    assert waits and 20 < int(waits[1]) <= 30, "the seconds it waits, not a minute it does not"
    Match.objects.filter(pk=waiting_captain.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    clock_scan.scan_clocks(among=[waiting_captain.pk])  # he let the first decision go: no more waits this hand
    while mover(waiting_captain) != player_in_role(waiting_captain, Role.CAPTAIN):
        assert computer_moves.play_computer_move(waiting_captain.pk)
    last = outbox_of(alice, Outbox.Kind.ADVISE)[-1].text
    assert f"{captain} to move." in last and "Advise" not in last


def test_without_advice_a_waiting_computer_captain_moves_at_its_deadline(waiting_captain):
    match = refresh(waiting_captain)
    assert not clock_scan.scan_clocks(among=[match.pk])["deadline"], "not before its wait is over"
    Match.objects.filter(pk=match.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    clock_scan.scan_clocks(among=[match.pk])
    assert refresh(match).version > match.version


# R3.2: the box learns nothing of the advice ------------------------------------------------------


START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def scripted(alice: Player, bob: Player, monkeypatch, advised: bool) -> tuple[list[str], str, str]:
    """Alice captains, Bob is the box, a computer sits out. Alice plays the same moves
    whether the computer advised her (and she asked it why, and accepted) or not.
    Returns what Bob read, the public page and the match code."""
    monkeypatch.setattr(timezone, "now", lambda: START)
    monkeypatch.setattr(play, "cut_for_roles", lambda rng: REAL_CUT(random.Random(ALICE_CAPTAINS)))
    monkeypatch.setattr(state, "shuffled_deck", lambda: random.Random(7).sample(list(DECK), 52))
    monkeypatch.setattr(state.secrets, "token_hex", lambda size: "5a17" * 8)
    bob.tables_explained = False
    bob.save(update_fields=["tables_explained"])
    first = Outbox.objects.filter(recipient=bob).count()
    code = code_in(handle(alice, "new 5m", "terminal"))
    handle(bob, f"join {code}", "terminal")
    handle(alice, "bot", "terminal")
    match = Match.objects.get(code=code)
    assert player_in_role(match, Role.CAPTAIN) == alice and player_in_role(match, Role.BOX) == bob
    for _turn in range(12):
        match = refresh(match)
        if mover(match) == bob:
            handle(bob, f"#{code} {best_action(match)}", "terminal")
            continue
        move = str(best_action(match))
        if advised and len(legal_actions(match)) > 1:  # a forced draw (R5.4) is not advised
            monkeypatch.setattr(advice, "appraise", fake_appraise(move))
            computer_moves.play_computer_move(match.pk)
            assert hand_row(match).suggestion == move
            handle(alice, f"#{code} team why?", "terminal")
            handle(alice, f"#{code} accept", "terminal")
        else:
            handle(alice, f"#{code} {move}", "terminal")
    assert advised == Event.objects.filter(match=match, kind=Event.Kind.SUGGESTION).exists()
    read = [message.text for message in Outbox.objects.filter(recipient=bob).order_by("pk")[first:]]
    page = Client().get(reverse("games:match", args=[code])).content.decode()
    return read, page, code


def test_r3_2_the_box_reads_the_same_and_the_page_is_the_same_whether_or_not_the_team_took_advice(
    alice, bob, monkeypatch, db
):
    codes = iter(["ADV1", "ADV2"])
    monkeypatch.setattr(matches, "new_code", lambda length=4: next(codes))
    with_advice, page_with, first = scripted(alice, bob, monkeypatch, advised=True)
    without, page_without, second = scripted(alice, bob, monkeypatch, advised=False)
    assert [text.replace(first, second) for text in with_advice] == without
    assert normal(page_with.replace(first, second)) == normal(page_without)


def normal(page: str) -> str:
    """A page without what differs between any two requests: the form's CSRF token."""
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", page)


# Hints ------------------------------------------------------------------------------------------


def test_hint_against_computers_gives_the_hard_levels_move_and_why(match_vs_computers, alice):
    match = refresh(match_vs_computers)
    reply = handle(alice, "hint", "terminal")
    found = re.fullmatch(rf"#{match.code} hint: (.+), because (.+)\.", reply)
    assert found, reply
    assert parse_action(found[1]) in legal_actions(match)
    assert refresh(match).version == match.version, "a hint changes nothing"


def test_a_sitters_hint_is_the_suggestion_to_type(waiting_captain, alice):
    """'hint: pass' to a sitter, who cannot type pass: his hint is 'suggest pass'."""
    reply = handle(alice, "hint", "terminal")
    found = re.fullmatch(rf"#{waiting_captain.code} hint: suggest (.+), because (.+)\.", reply)
    assert found, reply
    assert parse_action(found[1]) in legal_actions(waiting_captain)


def test_r3_2_hint_is_refused_with_another_person_in_the_match(match3):
    player = mover(match3)
    reply = handle(player, "hint", "terminal")
    assert reply == (
        f"No hints in #{match3.code}: another person plays in it. Hints are for matches against computers only."
    )


def test_hint_when_it_is_not_his_move_says_so(alice):
    match = until(
        new_match(alice, "", ""), lambda m: mover(m) != alice and player_in_role(m, Role.SITTER) != alice, alice
    )
    assert handle(alice, "hint", "terminal") == f"Nothing to hint in #{match.code}: it is not your move."


# The review of a finished hand ------------------------------------------------------------------


def her_draws(hand: Hand, alice: Player) -> list[str]:
    """Alice's moves of the hand where she could draw or take (after its first discard)."""
    moves = list(hand.events.filter(kind=Event.Kind.MOVE).order_by("seq"))
    first_discard = next((i for i, e in enumerate(moves) if e.data["move"].startswith("discard")), len(moves))
    return [e.data["move"] for e in moves[first_discard:] if e.actor == alice and e.data["move"] in ("draw", "take")]


def finished_hand(alice: Player) -> Hand:
    """A hand over in which Alice chose once between the stock and the pile (she was not the sitter)."""
    match = new_match(alice, "", "")

    def ended(match: Match) -> list[Hand]:
        return [hand for hand in match.hands.filter(ended_at__isnull=False) if her_draws(hand, alice)]

    until(match, ended, alice, 3000)
    return ended(refresh(match))[0]


def test_the_review_marks_each_persons_move_hard_would_have_played_otherwise_and_is_stored_once(alice, monkeypatch):
    row = finished_hand(alice)
    other = "take" if her_draws(row, alice)[0] == "draw" else "draw"
    monkeypatch.setattr(review, "appraise", fake_appraise(other, {other: 1.0}))
    assert review.review_hand(row.pk)
    row.refresh_from_db()
    stored = row.review
    moves = list(row.events.filter(kind=Event.Kind.MOVE).order_by("seq"))
    assert stored["marks"], f"she did not always {other}"
    for mark in stored["marks"]:
        assert moves[mark["index"]].actor == alice
        assert (mark["better"], mark["points"]) == (other, 1.0)
        assert moves[mark["index"]].data["move"] != other
    people = {index for index, event in enumerate(moves) if event.actor == alice}
    assert {mark["index"] for mark in stored["marks"]} <= people
    assert not review.review_hand(row.pk), "stored once"
    row.refresh_from_db()
    assert row.review == stored


def test_the_review_marks_no_move_its_own_values_put_above_hards_choice(alice, monkeypatch):
    """hard keeps the normal level's choice unless the search is sure of better, so a move
    may be valued a little above it by chance: that is no mistake of hers."""
    row = finished_hand(alice)
    monkeypatch.setattr(review, "appraise", fake_appraise("draw", {"draw": -1.0}))
    assert review.review_hand(row.pk)
    row.refresh_from_db()
    assert row.review["marks"] == []


def test_the_review_marks_no_move_worth_less_than_its_margin(alice, monkeypatch):
    """A few tenths of a point are within what two searches of one position tell apart."""
    row = finished_hand(alice)
    other = "take" if her_draws(row, alice)[0] == "draw" else "draw"
    monkeypatch.setattr(review, "appraise", fake_appraise(other, {other: review.REVIEW_MARGIN - 0.1}))
    assert review.review_hand(row.pk)
    row.refresh_from_db()
    assert row.review["marks"] == []


def test_the_review_never_marks_a_move_the_hard_computer_sitter_suggested(alice, settings, monkeypatch):
    """She captained with a hard computer sitter and played each suggestion it made: hard
    chose those moves, and a mark saying it would have played otherwise would contradict
    the advice she followed (R3.2)."""
    settings.GIN3_HARD_SECONDS = 0.01
    match = until(new_match(alice, "hard", "hard"), captain_to_move(alice), alice)
    row = hand_row(match)
    accepted = 0
    while not row.is_over:
        if mover(match) != alice:
            assert computer_moves.play_computer_move(match.pk)
        elif hand_row(advised(match)).suggestion:
            handle(alice, "accept", "terminal")
            accepted += 1
        else:  # a forced draw (R5.4) is not advised
            handle(alice, str(best_action(match)), "terminal")
        match = refresh(match)
        row.refresh_from_db()
    assert accepted

    def prefers_another(view, level="hard", rng=None, budget=None, weigh=()):
        legal = list(view.legal_actions)
        choice = next((action for action in legal if action not in weigh), legal[0])
        return Appraisal(choice, MappingProxyType(dict.fromkeys(legal, 0.0) | {choice: 5.0}), Reason.SHEDS_DEADWOOD)

    monkeypatch.setattr(review, "appraise", prefers_another)
    assert review.review_hand(row.pk)
    row.refresh_from_db()
    assert row.review["marks"] == []


@pytest.mark.any_database  # what the search chooses, not how it is stored
def test_the_review_searches_each_position_as_her_hint_did_and_never_marks_a_hint_she_followed(alice, monkeypatch):
    """She asked for a hint at each of her moves and followed every other one. The review
    searches each of those positions as the hint did: the same view, the same chance, the
    same budget (a followed hint was marked when they differed), so it chooses what the
    hint named, a mark falls only on a move against the hint and names the hint's move."""
    searched: dict[str, list] = {"hint": [], "review": []}

    def recording(where: str):
        def appraise_and_record(view, level="hard", rng=None, budget=None, weigh=()):
            seen = appraise(view, level, copy.copy(rng), budget, weigh)
            if level == advice.HINT_LEVEL:
                searched[where].append((view, rng.getstate(), budget, str(seen.choice)))
            return seen

        return appraise_and_record

    monkeypatch.setattr(advice, "appraise", recording("hint"))
    monkeypatch.setattr(review, "appraise", recording("review"))
    match = new_match(alice, "", "")
    positions = 0
    while positions < 16:
        row = hand_row(match)
        hints: dict[int, str] = {}
        searched["hint"].clear()
        while not row.is_over:
            match = refresh(match)
            if mover(match) != alice:
                assert computer_moves.play_computer_move(match.pk)
            else:
                index = row.events.filter(kind=Event.Kind.MOVE).count()
                hinted = re.fullmatch(rf"#{match.code} hint: (.+), because .+\.", handle(alice, "hint", "terminal"))
                assert hinted
                hints[index] = hinted[1]
                handle(alice, hinted[1] if len(hints) % 2 else str(best_action(match)), "terminal")
            row.refresh_from_db()
        searched["review"].clear()
        assert review.review_hand(row.pk)
        row.refresh_from_db()
        assert row.review["complete"] and searched["review"] == searched["hint"]
        assert [choice for *_search, choice in searched["review"]] == list(hints.values())
        followed = list(hints)[::2]
        for mark in row.review["marks"]:
            assert mark["index"] not in followed and mark["better"] == hints[mark["index"]]
        positions += len(hints)
        match = refresh(match)


def test_a_running_hand_is_not_reviewed(alice):
    match = new_match(alice, "", "")
    assert not review.review_hand(hand_row(match).pk)
    assert hand_row(match).review is None


def test_the_review_keeps_to_its_time_budget(alice, settings):
    row = finished_hand(alice)
    settings.GIN3_REVIEW_SECONDS = 0
    assert review.review_hand(row.pk)
    row.refresh_from_db()
    assert row.review["marks"] == [] and row.review["complete"] is (
        not row.events.filter(kind=Event.Kind.MOVE, actor=alice).exists()
    )


def test_finishing_a_hand_publishes_its_review(alice, settings, monkeypatch, django_capture_on_commit_callbacks):
    from celery import current_app

    sent = []
    match = new_match(alice, "", "")
    settings.GIN3_BACKGROUND = "celery"
    monkeypatch.setattr(current_app, "send_task", lambda name, args=(), **options: sent.append((name, args, options)))
    for _step in range(2000):
        match = refresh(match)
        with django_capture_on_commit_callbacks(execute=True):
            if mover(match) == alice:
                handle(alice, str(best_action(match)), "terminal")
            else:
                computer_moves.play_computer_move(match.pk)
        if match.hands.filter(ended_at__isnull=False).exists():
            break
    ended = Hand.objects.get(match=match, ended_at__isnull=False)
    reviews = [(args, options["queue"]) for name, args, options in sent if name == "games.tasks.review_hand"]
    assert reviews == [((ended.pk,), "review")]


def test_the_match_page_shows_the_review_of_a_finished_hand_only(alice, client):
    row = finished_hand(alice)
    index = next(i for i, e in enumerate(row.events.filter(kind="move").order_by("seq")) if e.actor == alice)
    Hand.objects.filter(pk=row.pk).update(review={"marks": [{"index": index, "better": "discard 9s", "points": 2.5}]})
    page = client.get(reverse("games:match", args=[row.match.code]) + f"?hand={row.number}").content.decode()
    assert page.count("data-review>") == 1 and "by its estimate, worth <bdi>2.5</bdi> points more on average" in page
    running = hand_row(row.match)
    Hand.objects.filter(pk=running.pk).update(review={"marks": [{"index": 0, "better": "pass", "points": 1.0}]})
    page = client.get(reverse("games:match", args=[row.match.code]) + f"?hand={running.number}").content.decode()
    assert page.count("data-review>") == 1, "a hand in play shows none"


def test_a_review_mark_names_the_card_to_take_and_reads_in_the_readers_language(alice, client):
    """A mark for a take named no card ('would have played take'); in Lithuanian its points
    read '22.5' for '22,5'; in Hebrew the points traded places with what came before them.
    The move is in the reader's words, not the command he types ('take')."""
    row = finished_hand(alice)
    index = next(i for i, e in enumerate(row.events.filter(kind="move").order_by("seq")) if e.actor == alice)
    Hand.objects.filter(pk=row.pk).update(
        review={"marks": [{"index": index, "better": "take", "card": "Th", "points": 22.5}]}
    )
    url = reverse("games:match", args=[row.match.code]) + f"?hand={row.number}"
    english = client.get(url).content.decode()
    assert re.search(
        r"would have taken <span class=\"card red\" title=\"10 of hearts\">10.*"
        r"from the pile: by its estimate, worth <bdi>",
        english,
    )
    lithuanian = client.get(url, HTTP_ACCEPT_LANGUAGE="lt").content.decode()
    assert re.search(
        r"būtų paėmęs <span[^>]*>10.* iš krūvos: pagal jo įvertį, vidutiniškai <bdi>22,5</bdi> taško", lithuanian
    )
    hebrew = client.get(url, HTTP_ACCEPT_LANGUAGE="he").content.decode()
    assert re.search(r"הייתה לוקחת את <span[^>]*>10.*מהערימה: לפי ההערכה שלה, שווה בממוצע <bdi>22.5</bdi>", hebrew)


def test_a_review_mark_on_a_knock_says_to_play_on_and_why(alice, client):
    """'knocks, discarding 5h — the hard level would have played discard 5h' meant: the same
    discard without knocking, and did not say why. It says both now."""
    row = finished_hand(alice)
    moves = [event.data["move"] for event in row.events.filter(kind="move").order_by("seq")]
    index = next(i for i, move in enumerate(moves) if move.startswith("knock"))
    better = moves[index].replace("knock", "discard")
    Hand.objects.filter(pk=row.pk).update(
        review={"marks": [{"index": index, "better": better, "points": 4.0, "why": "undercut_risk"}]}
    )
    page = client.get(reverse("games:match", args=[row.match.code]) + f"?hand={row.number}").content.decode()
    said = re.search(r"data-review>— (.*?)</span>\s*</li>", page, re.S)
    assert said
    text = re.sub(r"<[^>]+>", "", said[1])
    assert re.fullmatch(
        r"the hard level would have discarded \S+ without knocking: by its estimate, "
        r"worth 4\.0 points more on average, because knocking now risks an undercut: the opponent may be as low",
        text,
    ), text


def test_help_offers_hint_only_against_computers(match_vs_computers, alice, match3):
    said = handle(mover(match3), "help", "terminal").splitlines()
    assert not any(line.startswith(f"#{match3.code}") and "hint" in line for line in said)
    said = handle(alice, "help", "terminal").splitlines()
    assert any(line.startswith(f"#{match_vs_computers.code}") and "hint: what the hard" in line for line in said)


def test_help_offers_hint_to_a_sitter_who_advises_a_computer_captain(waiting_captain, alice):
    """hint answered the sitter, but his help did not mention it."""
    said = handle(alice, "help", "terminal").splitlines()
    line = next(line for line in said if line.startswith(f"#{waiting_captain.code}"))
    assert "you sit this hand out and advise" in line and "hint: what the hard" in line
    assert "#" + waiting_captain.code + " hint: " in handle(alice, "hint", "terminal")


def test_the_computer_sitters_answer_is_in_the_team_talk_of_the_table_page_in_the_readers_language(alice):
    from django.utils import translation

    from bot.web.serialize import seat_table_json
    from games.services.read.desk import event_text
    from games.services.read.seat_table import seat_table

    match = advised(until(new_match(alice, "", ""), captain_to_move(alice), alice))
    handle(alice, "team why?", "terminal")
    lines = seat_table_json(seat_table(alice, match.code))["team"]
    sitter = player_in_role(match, Role.SITTER).display_name
    assert lines[0] == {"name": "Alice", "text": "why?"}
    assert lines[1]["name"] == sitter and lines[1]["text"].startswith(f"I suggested {hand_row(match).suggestion}")
    with translation.override("lt"):
        said = seat_table_json(seat_table(alice, match.code))["team"][1]["text"]
    assert said.startswith("Pasiūliau")
    answer = Event.objects.filter(match=match, kind=Event.Kind.TEAM, actor__is_computer=True).get()
    assert hand_row(match).suggestion not in event_text(answer), "the desk reads team talk only once it may"
