"""Playing through the service layer: legal and illegal moves, stale buttons,
the wrong player, the sitter's advice, team talk, status and score, the event
log and its replay, the deck commitment, and a whole game to the target.

Why: ``handle`` is the one way in for every channel; a refused command must
leave the version, the turn and the log exactly as they were, and the log must
be enough to rebuild every hand (docs/architecture.md).
"""

from __future__ import annotations

import hashlib
from collections import Counter

import pytest

from games.engine import Card, Discard, Role, deal, parse_action, parse_cards
from games.models import Match
from games.services import handle
from games.services.plumbing import state
from tests.conftest import (
    best_action,
    code_in,
    engine_hand,
    events_of,
    hand_row,
    legal_actions,
    mover,
    outbox_of,
    play_move,
    play_to_end,
    player_in_role,
    refresh,
    rig,
    safe_action,
    snapshot,
)


def refused(match: Match, player, text: str) -> str:
    """Send ``text``, which must be refused, and check that nothing changed."""
    before = snapshot(match)
    reply = handle(player, text, "terminal")
    assert snapshot(match) == before, reply
    return reply


def roles(match: Match):
    """The box, the captain and the sitter of the hand in play."""
    return (player_in_role(match, role) for role in (Role.BOX, Role.CAPTAIN, Role.SITTER))


# Legal moves -------------------------------------------------------------------


def test_a_legal_move_appends_one_event_bumps_the_version_and_replies_with_the_table(match3):
    _box, captain, _sitter = roles(match3)
    before = snapshot(match3)
    upcard = engine_hand(match3).pile[-1]
    reply = handle(captain, "take", "terminal")
    assert reply.startswith(f"#{match3.code} hand 1") and "left): d CARD" in reply
    (event,) = events_of(match3, "move")
    assert event.data == {"move": "take", "seat": hand_row(match3).captain, "role": "captain", "taken": str(upcard)}
    assert event.actor == captain
    assert snapshot(match3)[0] == before[0] + 1
    assert mover(match3) == captain


def test_each_move_appends_one_event_with_the_next_seq(match3):
    seqs = [events_of(match3)[-1].seq]
    for _move in range(8):
        play_move(match3, safe_action)
        seqs.append(events_of(match3)[-1].seq)
    assert seqs == list(range(seqs[0], seqs[0] + 9))


def test_r5_2_after_the_captain_passes_the_box_may_take(match3):
    box, captain, _sitter = roles(match3)
    handle(captain, "pass", "terminal")
    assert mover(match3) == box
    assert "left): take, pass" in outbox_of(box, "turn")[-1].text
    handle(box, "take", "terminal")
    assert engine_hand(match3).to_move is Role.BOX


def test_r6_1_take_may_name_the_pile_top_and_naming_another_card_is_refused(match3):
    """``take Qs`` is what a newcomer types for the face-up card he sees; naming a
    card that is not on top, he meant another move, and nothing is played."""
    _box, captain, sitter = roles(match3)
    hand = engine_hand(match3)
    upcard = hand.pile[-1]
    other = next(card for card in hand.captain if card != upcard)
    reply = refused(match3, captain, f"take {other}")
    assert reply == f"{other} is not on top of the pile: take picks up {upcard}."
    assert f"{other} is not on top of the pile" in refused(match3, sitter, f"suggest take {other}")
    handle(captain, f"take {upcard}", "terminal")
    assert upcard in engine_hand(match3).captain
    assert engine_hand(match3).phase.value == "discard"
    assert "already" in refused(match3, captain, f"take {upcard}")


def test_r6_2_the_table_after_a_take_names_the_card_he_may_not_throw_back(match3):
    """As a draw's table names the card drawn, a take's names the card taken: the one
    card of his hand he may not discard this turn."""
    box, captain, sitter = roles(match3)
    upcard = engine_hand(match3).pile[-1]
    assert f"You took {upcard}." in handle(captain, "take", "terminal")
    assert "took" not in handle(sitter, "status", "terminal") + handle(box, "status", "terminal")


def test_r6_2_the_example_card_for_a_discard_is_one_he_may_throw_not_the_card_he_took(match3):
    """ "Say which card, like: discard 7h" was the one card he could not throw: 7h, just
    taken from the pile. The example is the discard that leaves him the lowest count;
    a knock he may not make yet is answered with why (R7.2)."""
    _box, captain, _sitter = roles(match3)
    upcard = engine_hand(match3).pile[-1]
    handle(captain, "take", "terminal")
    hand = engine_hand(match3)
    example = Card.parse(refused(match3, captain, "d").rpartition(" ")[2])
    discards = [action.card for action in hand.legal_actions() if isinstance(action, Discard)]
    assert example != upcard and example in discards
    assert hand.count_after_discard(example) == min(map(hand.count_after_discard, discards))
    assert hand.count_after_discard(example) > 10, "this deal has no knock on its first turn"
    assert refused(match3, captain, "knock") == refused(match3, captain, f"knock {example}")


def test_r5_r6_1_a_discard_without_its_card_is_answered_as_the_turn_stands(match3):
    """A newcomer at his draw typed discard, was asked which card, named one, and only
    then heard that he must take a card first."""
    box, captain, _sitter = roles(match3)
    assert refused(match3, captain, "discard").startswith("Not allowed: on the first turn you take the face-up card")
    handle(captain, "pass", "terminal")
    assert refused(match3, captain, "knock") == f"It is {box.display_name}'s turn."
    handle(box, "pass", "terminal")
    handle(captain, "draw", "terminal")
    handle(captain, f"discard {engine_hand(match3).cards_of(Role.CAPTAIN)[0]}", "terminal")
    handle(box, "draw", "terminal")
    assert refused(match3, box, "d").startswith("Say which card, like: discard ")
    handle(box, f"discard {engine_hand(match3).cards_of(Role.BOX)[0]}", "terminal")
    take_first = "Not allowed: take a card first: draw from the stock, or take from the pile."
    assert refused(match3, captain, "discard") == take_first


def test_r5_4_after_both_refuse_the_captain_must_draw(match3):
    box, captain, _sitter = roles(match3)
    handle(captain, "pass", "terminal")
    handle(box, "pass", "terminal")
    must_draw = "Not allowed: the box and you both refused the face-up card: draw from the stock."
    assert refused(match3, captain, "take") == must_draw
    hand = engine_hand(match3)
    assert refused(match3, captain, f"discard {hand.cards_of(Role.CAPTAIN)[0]}") == must_draw, "no take offered"
    assert refused(match3, captain, "discard") == must_draw
    handle(captain, "draw", "terminal")
    assert engine_hand(match3).phase.value == "discard"


def test_r5_1_the_upcard_is_taken_or_passed_not_drawn_over(match3):
    _box, captain, _sitter = roles(match3)
    assert "take the face-up card or pass" in refused(match3, captain, "draw")


def test_r5_1_a_discard_on_the_upcard_is_refused_with_what_the_first_turn_allows(match3):
    _box, captain, _sitter = roles(match3)
    card = engine_hand(match3).captain[0]
    assert "take the face-up card or pass" in refused(match3, captain, f"discard {card}")


def test_r6_1_a_discard_before_taking_a_card_is_refused(match3):
    box, captain, _sitter = roles(match3)
    handle(captain, "take", "terminal")
    handle(captain, f"discard {engine_hand(match3).captain[0]}", "terminal")
    card = engine_hand(match3).box[0]
    assert "take a card first" in refused(match3, box, f"discard {card}")


def test_r6_1_a_card_he_does_not_hold_cannot_be_discarded(match3):
    _box, captain, _sitter = roles(match3)
    handle(captain, "take", "terminal")
    card = engine_hand(match3).box[0]
    assert "you do not hold" in refused(match3, captain, f"discard {card}")


def test_r6_2_the_card_just_taken_from_the_pile_may_not_be_discarded(match3):
    _box, captain, _sitter = roles(match3)
    upcard = engine_hand(match3).pile[-1]
    handle(captain, "take", "terminal")
    assert "the card you just took from the pile" in refused(match3, captain, f"discard {upcard}")


def test_r7_2_a_knock_over_ten_is_refused(match3):
    rig(match3, captain="2s 5h 8d Jc Kh 3c 6d 9s Qc Kd", box="As 2h 3d 4c 5s 6h 7d 8c 9h Td", upcard="Ah")
    _box, captain, _sitter = roles(match3)
    handle(captain, "take", "terminal")
    assert "to knock, your count" in refused(match3, captain, "knock Kd")


def test_r8_3_a_gin_ends_the_hand_scores_and_deals_the_next(match3, alice, bob, carol):
    rig(match3, captain="As 2s 3s 4s 5s 6s 7s 8s 9s Kd", box="Ah 3h 5h 7h 9h Jh Kh 2d 4d 6d", upcard="Ts")
    _box, captain, _sitter = roles(match3)
    first = hand_row(match3)
    handle(captain, "take", "terminal")
    handle(captain, "knock Kd", "terminal")
    first.refresh_from_db()
    assert (first.result, first.winner, first.points) == ("gin", first.captain, 25 + 57)
    assert refresh(match3).seats.get(player=captain).score == 82
    for player in (alice, bob, carol):
        assert "goes gin!" in outbox_of(player, "result")[-1].text
        assert f"{captain.display_name} scores 82 (gin 25 + 57)." in outbox_of(player, "result")[-1].text
    second = hand_row(match3)
    assert (second.number, second.box, second.captain, second.sitter) == (2, first.captain, first.sitter, first.box)


def knock_with_layoffs(match: Match):
    """Rig and play a knock on which the box lays off 3h and 7h on the captain's 4h 5h 6h (R7.5)."""
    rig(match, captain="4h 5h 6h 9s 9d 9c As 2c 3d Kd", box="7h 3h 8c 8d Qs Js Ts 5c 4c 6d", upcard="Ac")
    box, captain, _sitter = roles(match)
    handle(captain, "take", "terminal")
    handle(captain, "knock Kd", "terminal")
    return box, captain


def test_r7_5_the_result_says_who_laid_off_which_cards_on_whose_meld(match3, alice, bob, carol):
    """It said "Laid off: 3h 7h", not whose meld the cards went on."""
    box, captain = knock_with_layoffs(match3)
    said = f"{box.display_name} laid off 3h 7h on {captain.display_name}'s meld [4h 5h 6h]."
    for player in (alice, bob, carol):
        assert said in outbox_of(player, "result")[-1].text
    summary = refresh(match3).hands.get(number=1).summary
    assert summary["laid_on"] == [{"cards": ["3h", "7h"], "meld": ["4h", "5h", "6h"]}]


def test_r8_1_r8_2_the_result_says_how_a_knocks_points_add_up_after_the_layoffs(match3, alice):
    _box, captain = knock_with_layoffs(match3)
    assert f"{captain.display_name} scores 24 (31 less 7)." in outbox_of(alice, "result")[-1].text


def test_r8_4_the_result_says_how_an_undercuts_points_add_up(match3, alice):
    rig(match3, captain="9d 9c 9h 4h 5h 6h As 2c 3d Kd", box="Qs Js Ts 8c 8d 8s 5c 6c 7c Ad", upcard="Ac")
    box, captain, _sitter = roles(match3)
    handle(captain, "take", "terminal")
    handle(captain, "knock Kd", "terminal")
    assert f"{box.display_name} scores 16 (undercut 10 + 6)." in outbox_of(alice, "result")[-1].text


def test_the_table_after_his_draw_still_shows_what_the_opponent_threw(match3):
    """His turn's table listed the opponent's turn; the table after his draw (on Telegram
    the same message, edited) dropped it, though his discard is weighed against it."""
    rig(match3, captain="As 3s 5s 7s 9s Jh Kh 2d 4d 6d", box="Ah 3h 5h 7h 9h Js Ks 2c 4c 6c", upcard="Qc")
    box, captain, _sitter = roles(match3)
    for player, typed in ((captain, "pass"), (box, "pass"), (captain, "draw"), (captain, "discard Kh")):
        handle(player, typed, "terminal")
    assert f"{captain.display_name}: draw, d Kh\n" in handle(box, "draw", "terminal")


def test_r7_1_the_result_says_what_the_knocker_took_and_threw_in_his_last_turn(match3, alice, bob, carol):
    """A player read "Bob knocks." and had to work out that Bob had taken his discard;
    the advice the knocker followed stays the team's (R3.2)."""
    rig(match3, captain="As 2s 3s 4s 5s 6s 7s 8s 9s Kd", box="Ah 3h 5h 7h 9h Jh Kh 2d 4d 6d", upcard="Ts")
    _box, captain, sitter = roles(match3)
    handle(sitter, "suggest take", "terminal")
    handle(captain, "accept", "terminal")
    handle(captain, "knock Kd", "terminal")
    for player in (alice, bob, carol):
        result = outbox_of(player, "result")[-1].text
        assert f"\n{captain.display_name}: take Ts, knock Kd\n{captain.display_name} goes gin!" in result
        assert "suggestion" not in result


def test_the_move_that_reaches_the_target_finishes_the_match(match3):
    """The last move's reply is the result that says who won, once: no table, no "is over" below it."""
    rig(match3, captain="As 2s 3s 4s 5s 6s 7s 8s 9s Kd", box="Ah 3h 5h 7h 9h Jh Kh 2d 4d 6d", upcard="Ts")
    _box, captain, _sitter = roles(match3)
    match3.seats.filter(player=captain).update(score=90)
    handle(captain, "take", "terminal")
    before = len(outbox_of(captain))
    reply = handle(captain, "knock Kd", "terminal")
    assert "wins the match!" in reply
    assert [message.text for message in outbox_of(captain)[before:]] == [reply]
    match = refresh(match3)
    assert (match.status, match.winner, match.turn_seat) == (Match.Status.FINISHED, captain, None)
    assert events_of(match)[-1].data == {"winner": captain.pk, "reason": "target"}


# Refusals --------------------------------------------------------------------


def test_a_stale_button_is_refused_with_the_current_table(match3):
    _box, captain, _sitter = roles(match3)
    old = refresh(match3).version
    handle(captain, "take", "terminal")
    reply = refused(match3, captain, f"#{match3.code}@{old} draw")
    assert reply.startswith(f"#{match3.code} hand 1") and "left): d CARD" in reply


def test_a_button_of_the_current_version_is_played(match3):
    _box, captain, _sitter = roles(match3)
    handle(captain, f"#{match3.code}@{refresh(match3).version} pass", "terminal")
    assert events_of(match3, "move")[0].data["move"] == "pass"


def test_the_player_not_to_move_is_told_whose_turn_it_is(match3):
    box, captain, _sitter = roles(match3)
    assert refused(match3, box, "take") == f"It is {captain.display_name}'s turn."


def test_r3_2_the_sitter_may_not_play_and_is_told_to_suggest(match3):
    _box, _captain, sitter = roles(match3)
    assert "You are the sitter: advise with suggest take" in refused(match3, sitter, "take")


def test_r3_2_the_sitter_suggests_on_the_captains_turn_and_only_the_captain_is_told(match3):
    box, captain, sitter = roles(match3)
    told_box = len(outbox_of(box))
    version = refresh(match3).version
    assert handle(sitter, "suggest pass", "terminal") == f"Suggested to {captain.display_name}: pass"
    assert "Sitter suggests: pass" in outbox_of(captain, "suggestion")[-1].text
    assert len(outbox_of(box)) == told_box
    assert refresh(match3).version == version  # the captain's buttons stay good
    assert "Sitter suggests: pass" in handle(captain, "status", "terminal")
    assert "Sitter suggests" not in handle(box, "status", "terminal")


def test_r3_2_the_sitter_cannot_suggest_on_the_box_turn(match3):
    _box, captain, sitter = roles(match3)
    handle(captain, "pass", "terminal")
    assert "Wait for the captain's turn" in refused(match3, sitter, "suggest take")


def test_the_sitter_cannot_suggest_what_the_captain_may_not_play_and_is_told_why(match3):
    """The sitter heard "The captain can't play discard 5h now." where the captain himself
    would have heard that he does not hold 5h: the reason is the engine's, said of him."""
    _box, captain, sitter = roles(match3)
    assert refused(match3, sitter, "suggest draw") == (
        "The captain can't play draw: on the first turn he takes the face-up card or passes."
    )
    handle(captain, "take", "terminal")
    hand = engine_hand(match3)
    lacking = next(card for card in hand.box)
    assert refused(match3, sitter, f"suggest d {lacking}") == (
        f"The captain can't play discard {lacking}: he does not hold {lacking}."
    )
    taken = hand.taken
    assert refused(match3, sitter, f"suggest d {taken}") == (
        f"The captain can't play discard {taken}: he may not discard {taken}, the card he just took from the pile."
    )


def test_a_bare_suggest_is_answered_with_a_move_the_captain_may_play_now(match3):
    """It answered "suggest discard 7h" when only take or pass was open to the captain."""
    _box, _captain, sitter = roles(match3)
    assert refused(match3, sitter, "suggest") == "Say what to suggest, like: suggest take"


def test_r3_2_only_the_sitter_suggests_and_the_others_are_told_their_role(match3):
    box, captain, _sitter = roles(match3)
    assert refused(match3, captain, "suggest take").startswith("You are the captain: you play the team's moves")
    assert refused(match3, box, "suggest take").startswith("You are the box: you play alone this hand")


def test_r3_2_the_captain_accepts_the_suggestion_and_it_is_played(match3):
    _box, captain, sitter = roles(match3)
    handle(sitter, "suggest take", "terminal")
    reply = handle(captain, "accept", "terminal")
    move = events_of(match3, "move")[-1]
    assert (move.data["move"], move.data["automatic"], move.actor) == ("take", "suggestion", captain)
    assert hand_row(match3).suggestion == ""
    assert "You played the sitter's suggestion: take" in reply, "his table after it does not say which move it was"


def test_the_accepted_move_is_told_after_the_box_moves_that_came_before_it(match3):
    """'You played the sitter's suggestion: draw' above 'Box: take 7d, d Kh' read as if
    the captain had drawn first."""
    box, captain, sitter = roles(match3)
    handle(captain, "pass", "terminal")
    handle(box, "pass", "terminal")
    handle(captain, "draw", "terminal")
    hand = engine_hand(match3)
    handle(captain, f"discard {hand.cards_of(Role.CAPTAIN)[0]}", "terminal")
    handle(box, "draw", "terminal")
    handle(box, f"discard {engine_hand(match3).cards_of(Role.BOX)[0]}", "terminal")
    handle(sitter, "suggest draw", "terminal")
    lines = handle(captain, "accept", "terminal").splitlines()
    box_turn = next(i for i, line in enumerate(lines) if line.startswith(f"{box.display_name}: draw, d "))
    assert lines[box_turn + 1] == "You played the sitter's suggestion: draw"


def test_accept_without_a_suggestion_is_refused(match3):
    _box, captain, _sitter = roles(match3)
    assert "no suggestion waiting" in refused(match3, captain, "accept")


def test_only_the_captain_accepts(match3):
    box, _captain, sitter = roles(match3)
    handle(sitter, "suggest take", "terminal")
    assert "Only the captain accepts" in refused(match3, box, f"#{match3.code} accept")


def test_r3_2_the_captains_own_move_replaces_the_suggestion(match3):
    box, captain, sitter = roles(match3)
    handle(sitter, "suggest take", "terminal")
    handle(captain, "pass", "terminal")
    assert hand_row(match3).suggestion == ""
    assert "Sitter suggests" not in handle(box, "status", "terminal")


# Team talk, status, score -----------------------------------------------------


def test_team_reaches_only_the_partner(match3):
    box, captain, sitter = roles(match3)
    told_box = len(outbox_of(box))
    assert handle(captain, "team keep the hearts", "terminal") == f"Sent to {sitter.display_name}."
    assert outbox_of(sitter, "team")[-1].text == f"#{match3.code} {captain.display_name} (team): keep the hearts"
    handle(sitter, "team ok", "terminal")
    assert outbox_of(captain, "team")[-1].text.endswith("(team): ok")
    assert len(outbox_of(box)) == told_box
    assert [event.data["text"] for event in events_of(match3, "team")] == ["keep the hearts", "ok"]


def test_the_box_has_no_partner(match3):
    box, _captain, _sitter = roles(match3)
    assert "Only the captain and the sitter" in handle(box, "team hello", "terminal")
    assert not events_of(match3, "team")


def test_status_shows_the_players_own_cards_and_the_sitter_the_captains(match3):
    box, captain, sitter = roles(match3)
    hand = engine_hand(match3)
    box_status, captain_status = handle(box, "status", "terminal"), handle(captain, "status", "terminal")
    assert all(str(card) in box_status for card in hand.box)
    assert all(str(card) in captain_status for card in hand.captain)
    assert all(str(card) in handle(sitter, "status", "terminal") for card in hand.captain)


def test_status_lists_the_moves_since_the_players_last_turn(match3):
    rig(match3, captain="Ks Qh Jd 9c 7s 5h 3d Kc Qd 9h", box="Kh Qs Jc 9d 7h 5s 3c Jh 8d 6c", upcard="Ts")
    box, captain, sitter = roles(match3)
    handle(captain, "pass", "terminal")
    handle(box, "pass", "terminal")
    handle(captain, "draw", "terminal")
    handle(captain, "discard Ks", "terminal")
    handle(box, "draw", "terminal")
    handle(box, "discard Kh", "terminal")
    assert f"{box.display_name}: draw, d Kh" in handle(captain, "status", "terminal")
    handle(captain, "draw", "terminal")
    captain_status = handle(captain, "status", "terminal")
    assert f"{box.display_name}: draw, d Kh" in captain_status and "d Ks" not in captain_status
    sitter_status = handle(sitter, "status", "terminal")
    assert f"{box.display_name}: draw, d Kh" in sitter_status and f"{captain.display_name} drew " in sitter_status
    assert "You drew " in captain_status


def test_r3_2_the_sitter_is_told_which_card_each_of_his_captains_draws_took_and_the_box_is_not(match3):
    """helper-35: a computer captain that does not wait for advice draws and discards in one
    go, and his sitter saw the card he kept only as one more card in the hand."""
    rig(
        match3,
        captain="Ks Qh Jd 9c 7s 5h 3d Kc Qd 9h",
        box="Kh Qs Jc 9d 7h 5s 3c Jh 8d 6c",
        upcard="Ts",
        stock="2h 8s 4c",
    )
    box, captain, sitter = roles(match3)
    for player, move in ((captain, "pass"), (box, "pass"), (captain, "draw"), (captain, "discard Ks")):
        handle(player, move, "terminal")
    handle(box, "draw", "terminal")
    handle(box, "discard Kh", "terminal")
    advice_table = outbox_of(sitter, "advise")[-1].text  # at the captain's turn: his last one and the box's
    assert f"{captain.display_name}: draw 2h, d Ks\n{box.display_name}: draw, d Kh" in advice_table
    assert "8s" not in advice_table
    assert all("2h" not in message.text for message in outbox_of(box))


def test_score_lists_the_scores_and_every_hand(match3):
    rig(match3, captain="As 2s 3s 4s 5s 6s 7s 8s 9s Kd", box="Ah 3h 5h 7h 9h Jh Kh 2d 4d 6d", upcard="Ts")
    _box, captain, _sitter = roles(match3)
    handle(captain, "take", "terminal")
    handle(captain, "knock Kd", "terminal")
    reply = handle(captain, "score", "terminal")
    assert f"{captain.display_name} 82" in reply
    assert f"Hand 1: {captain.display_name} +82 (gin)" in reply
    assert "The match is over" not in reply


def test_score_of_a_finished_match_says_who_won_it(finished_match, alice):
    """helper-32 read the scores and the hands of his finished match, and not that it was over."""
    said = handle(alice, f"#{finished_match.code} score", "terminal")
    assert said.endswith(f"The match is over: {finished_match.winner.display_name} won it.")


# The event log -------------------------------------------------------------------


def test_replaying_the_log_reproduces_the_hand_step_by_step(match3):
    """``state.load_hand`` rebuilds the hand from the deck and the logged moves;
    it must equal the engine's hand reached by applying each move in turn."""
    row = hand_row(match3)
    expected = deal(parse_cards(row.deck), match3.rules)
    for _move in range(30):
        action = parse_action(play_move(match3))
        if hand_row(match3).number != row.number:
            break
        expected, _events = expected.apply(action)
        assert state.load_hand(refresh(match3), row) == expected
        assert [parse_action(data["move"]) for data in state.moves_of(row)][-1] == action


def test_r4_4_the_deck_commitment_is_published_at_the_deal_and_the_deck_revealed_at_the_end(match3):
    first = hand_row(match3)
    (dealt,) = events_of(match3, "deal")
    assert dealt.data["commitment"] == first.commitment
    assert "deck" not in dealt.data and "salt" not in dealt.data
    while hand_row(match3).number == 1:
        play_move(match3)
    (over,) = events_of(match3, "hand_over")
    assert (over.data["deck"], over.data["salt"]) == (first.deck, first.salt)
    assert hashlib.sha256(f"{over.data['salt']}:{over.data['deck']}".encode()).hexdigest() == dealt.data["commitment"]
    assert sorted(parse_cards(over.data["deck"])) == list(range(52))
    second = hand_row(match3)
    assert (
        events_of(match3, "deal")[1].data["commitment"]
        == second.commitment
        == state.commitment_of(second.deck, second.salt)
    )


# A whole game ----------------------------------------------------------------------


@pytest.fixture
def finished_match(match_vs_computers, alice):
    """Alice's match against two computer players played to its end: she knocks
    when she can, and otherwise plays as the strong computer player would."""
    return play_to_end(match_vs_computers, alice)


def test_r10_1_a_whole_game_ends_with_a_winner_at_or_above_the_target_r8_5_scored_as_logged(finished_match):
    """The winner reached the target and no one else did; every seat's score is the
    sum of the points of the hands it won, as the "hand_over" events record them."""
    match = finished_match
    winner = match.seats.get(player=match.winner)
    assert match.status == Match.Status.FINISHED
    assert winner.score >= match.target
    assert all(seat.score < match.target for seat in match.seats.exclude(pk=winner.pk))
    assert events_of(match)[-1].data == {"winner": match.winner.pk, "reason": "target"}
    points = Counter()
    for event in events_of(match, "hand_over"):
        if event.data["winner"] is not None:
            points[event.data["winner"]] += event.data["points"]
    assert {seat.position: seat.score for seat in match.seats.all()} == {
        position: points[position] for position in range(3)
    }


def test_every_hand_of_a_whole_game_replays_to_its_logged_result(finished_match):
    for row in finished_match.hands.order_by("number"):
        hand = state.load_hand(finished_match, row)
        assert hand.is_over
        assert (hand.result.kind, hand.result.points) == (row.result, row.points)


def test_a_move_after_the_end_is_refused(match3, alice):
    captain = player_in_role(match3, Role.CAPTAIN)
    handle(alice, "resign yes", "terminal")
    before = snapshot(match3)
    assert "is not running" in handle(captain, f"#{match3.code} take", "terminal")
    assert snapshot(match3) == before


def test_the_legal_actions_helper_agrees_with_the_table(match3):
    """The helpers the other tests lean on: the captain starts with take or pass (R5.1)."""
    assert set(map(str, legal_actions(match3))) == {"take", "pass"}
    assert best_action(match3) in legal_actions(match3)


def test_a_button_of_a_turn_message_carries_the_version_it_was_saved_with(telegram_user, bob, carol):
    """A button pressed as soon as it arrives must be played, not refused as old."""
    code = code_in(handle(telegram_user, "new", "telegram"))
    handle(bob, f"join {code}", "terminal")
    handle(carol, f"join {code}", "terminal")
    match = Match.objects.get(code=code)
    if player_in_role(match, Role.BOX) == telegram_user:
        handle(mover(match), "pass", "terminal")
    message = [message for message in outbox_of(telegram_user) if message.buttons][-1]
    button = message.buttons[0][0]["data"]
    assert button.startswith(f"#{code}@{refresh(match).version} ")
    events = len(events_of(match))
    handle(telegram_user, button, "telegram")
    assert len(events_of(match)) == events + 1
