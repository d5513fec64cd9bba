"""Playing a match: its start, every move, the end of each hand and of the match.

Each public function runs inside a change (``services.change``) on a locked
table (``locked_table``): it applies the move through the engine, appends the
events, updates the scores, starts the next turn (``turns``) and tells each
player what he must hear of it (``announcements``). Moves from players, computer
players, timeouts and admins all end in ``apply_move``.
"""

from __future__ import annotations

import secrets

from django.utils import timezone

from games import metrics
from games.contract.matches import CutForRoles, CutRound
from games.contract.moves import IllegalMove, MatchPaused, NotYourTurn
from games.contract.tables import Automatic, MoveView, ResultView
from games.engine import Action, IllegalAction, Role, cut_for_roles
from games.engine.hand import Phase, Take
from games.models import Event, Match, Outbox, Player
from games.services.errors import ServiceError
from games.services.plumbing import outbox, state
from games.services.plumbing.change import current
from games.services.read.tables import result_view
from games.services.write import groups, records
from games.services.write.announcements import (
    announce_turn,
    move_view,
    recent_moves,
    send_table,
    tell_mover,
    tell_sitter,
    turn_so_far,
)
from games.services.write.locked_table import Table, begin_change
from games.services.write.turns import computer_next, start_turn

# Starting ------------------------------------------------------------------


def start(match: Match) -> None:
    """The cut for roles, shown to all (R3.3), and the first deal. Caller holds the lock."""
    seats = state.seats_of(match)
    roles, rounds = cut_for_roles(secrets.SystemRandom())
    names = {seat.position: seat.player.display_name for seat in seats}
    draws = [{str(position): str(card) for position, card in cut.draws.items()} for cut in rounds]
    begin_change(match)
    state.append_event(match, Event.Kind.CUT, rounds=draws, box=roles.box, captain=roles.captain, sitter=roles.sitter)
    match.status = Match.Status.RUNNING
    match.started_at = timezone.now()
    cut = CutForRoles(
        match.code,
        tuple(CutRound(tuple((names[p], card) for p, card in sorted(r.draws.items()))) for r in rounds),
        box=names[roles.box],
        captain=names[roles.captain],
        sitter=names[roles.sitter],
    )
    for seat in seats:
        outbox.send(seat.player, Outbox.Kind.CUT, cut, match)
    groups.to_group(match, Outbox.Kind.CUT, cut)
    hand_row, hand = state.deal_hand(match, seats, 1, roles)
    _begin_hand(Table(match, seats, hand_row, hand))


def _begin_hand(table: Table) -> None:
    """Everyone gets his cards privately; the captain is to decide on the upcard."""
    start_turn(table)
    for seat in table.seats:
        if seat.position != table.mover and table.role_of(seat.position) is not Role.SITTER:
            send_table(table, seat.position, Outbox.Kind.DEAL)
    announce_turn(table, ())


# Moves ---------------------------------------------------------------------


def check_turn(table: Table, position: int) -> None:
    """Refuse any move of the seat in ``position`` now: the match is paused, or it is not his turn."""
    if table.match.is_paused:
        raise ServiceError(MatchPaused(table.match.code))
    if position != table.mover:
        raise ServiceError(NotYourTurn(table.name(table.mover)))


def refused_by_engine(error: IllegalAction) -> ServiceError:
    """The engine's refusal of a move, as its stable code for the text layer."""
    return ServiceError(IllegalMove(error.code, dict(error.params), error.message))


def apply_move(
    table: Table, position: int, action: Action, actor: Player | None, automatic: Automatic = Automatic.TYPED
) -> ResultView | None:
    """Apply one move for the seat to move; return the hand's result if the move ended it.
    ``automatic`` says how it was made. Caller holds the lock."""
    check_turn(table, position)
    before = table.hand
    try:
        after, _events = before.apply(action)
    except IllegalAction as error:
        raise refused_by_engine(error) from None
    begin_change(table.match)
    data = {"move": str(action), "seat": position, "role": before.to_move.value}
    if automatic:
        data["automatic"] = automatic
    if isinstance(action, Take):
        data["taken"] = str(before.pile[-1])  # face up: the others are told which card went
    event = state.append_event(table.match, Event.Kind.MOVE, table.hand_row, actor, **data)
    metrics.count_on_commit(metrics.MOVES, by=automatic.value or "player")
    table.moves.append({**data, "seq": event.seq})
    table.hand = after
    table.match.last_move_at = timezone.now()
    seat = table.seat(position)
    if automatic.is_own and seat.timeouts_in_row:
        seat.timeouts_in_row = 0
        seat.save(update_fields=["timeouts_in_row"])
    if table.hand_row.suggestion:
        table.hand_row.suggestion = ""
        table.hand_row.save(update_fields=["suggestion"])
    public = move_view(table, table.moves[-1])
    if after.is_over:
        return _finish_hand(table)
    if after.to_move is not before.to_move or after.phase in (Phase.UPCARD, Phase.DRAW):
        start_turn(table)
        tell_mover(table, position, automatic, public)
        announce_turn(table, turn_so_far(table, public))
    else:
        computer_next(table)  # the second half of the turn: first, so that the sitter's table reads its wait
        tell_mover(table, position, automatic, public)
        tell_sitter(table, (public,))
    return None


def _finish_hand(table: Table) -> ResultView:
    """Score the hand (R8), rotate roles (R3.4, R3.5), and either end the game
    (R10) or deal the next hand. Returns the result, which every player is sent."""
    match, hand_row, hand = table.match, table.hand_row, table.hand
    result = hand.result
    assert result is not None
    winner = table.position_of_role(result.winner) if result.winner else None
    game = state.game_of(match, table.seats, hand_row).after_hand(winner, result.points)
    if winner is not None:
        seat = table.seat(winner)
        seat.score = game.scores[winner]
        seat.save(update_fields=["score"])
    hand_row.result = result.kind
    hand_row.winner = winner
    hand_row.points = result.points
    hand_row.ended_at = timezone.now()
    game_winner = table.name(game.winner) if game.winner is not None else ""
    next_roles = {} if game.winner is not None else {seat: role.value for seat, role in game.roles.by_seat().items()}
    view = result_view(match, table.seats, hand_row, hand, next_roles, game_winner, last_turns(table, 1))
    hand_row.summary = summary_of(view)
    records.hand_finished(hand_row, table.seat(winner).player if winner is not None else None)
    hand_row.save(update_fields=["result", "winner", "winner_player", "points", "ended_at", "summary"])
    current().review(hand_row.pk)
    state.append_event(
        match,
        Event.Kind.HAND_OVER,
        hand_row,
        result=result.kind,
        winner=winner,
        points=result.points,
        scores=list(game.scores),
        deck=hand_row.deck,
        salt=hand_row.salt,
    )
    # The sitter's last table came within his captain's last turn: if the box ended the hand,
    # the captain's discard came after it, and the sitter's result tells it too.
    sitters = view
    if table.moves[-1]["seat"] == hand_row.box:
        sitters = result_view(match, table.seats, hand_row, hand, next_roles, game_winner, last_turns(table, 2))
    for seat in table.seats:  # the sitter sat the hand out: its result asks nothing of him, unless it ends the match
        sitter = seat.position == hand_row.sitter
        seen = sitters if sitter else view
        outbox.send(seat.player, Outbox.Kind.RESULT, seen, match, silent=sitter and not game_winner)
    groups.to_group(match, Outbox.Kind.RESULT, view)
    if game.winner is not None:
        finish(match, table.seat(game.winner).player, "target")
        return view
    hand_row, new_hand = state.deal_hand(match, table.seats, hand_row.number + 1, game.roles)
    table.hand_row, table.hand, table.moves = hand_row, new_hand, []
    _begin_hand(table)
    return view


def last_turns(table: Table, turns: int) -> tuple[MoveView, ...]:
    """The moves of the hand's last ``turns`` turns; the last is the one that ended it:
    what the knocker took and threw, which a player whose discard he took would
    otherwise have to work out."""
    count, seat, counted = 0, None, 0
    for data in reversed(table.moves):
        if data["seat"] != seat:
            if counted == turns:
                break
            seat, counted = data["seat"], counted + 1
        count += 1
    return recent_moves(table, count)


def summary_of(view) -> dict:
    """The public record of a hand's end, kept on the hand row for the pages."""

    def cards(cards_view) -> dict | None:
        if cards_view is None:
            return None
        return {
            "owner": cards_view.owner,
            "melds": [[str(card) for card in meld] for meld in cards_view.melds],
            "deadwood": [str(card) for card in cards_view.deadwood],
            "count": cards_view.count,
        }

    return {
        "kind": view.kind,
        "knocker": view.knocker,
        "winner": view.winner,
        "points": view.points,
        "knocker_cards": cards(view.knocker_cards),
        "defender_cards": cards(view.defender_cards),
        "layoffs": [str(card) for layoff in view.layoffs for card in layoff.cards],
        "laid_on": [
            {"cards": [str(card) for card in layoff.cards], "meld": [str(card) for card in layoff.meld]}
            for layoff in view.layoffs
        ],
    }


UNPLAYED = ("aborted", "empty", "expired")  # ends that leave a match aborted, not finished


def finish(match: Match, winner: Player | None, reason: str) -> None:
    """End the match: played to its end (the target, a resignation, an admin's
    ruling), with or without a winner, or aborted (``UNPLAYED``). Caller holds the lock."""
    match.status = Match.Status.ABORTED if reason in UNPLAYED else Match.Status.FINISHED
    match.winner = winner
    match.finished_at = timezone.now()
    match.deadline = match.remind_at = None
    match.turn_seat = None
    match.paused_at = None
    match.paused_remaining = None
    state.append_event(match, Event.Kind.MATCH_OVER, winner=winner.pk if winner else None, reason=reason)
    records.match_finished(match, winner, reason)
