"""What a seated player may see of his match: his table, a hand's result, his team's talk.

The one place that decides what a seat may know (R3.2, R4.4, docs/protocol.md):
his own cards (the sitter also sees the captain's), the top of the pile, the size
of the stock and what the rules make public. No seat's view holds the stock or
another hand before the hand ends; then everything is public, the deck included
(``result_view``). Every message a player reads of a match is built from these
views, never from a hand directly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from django.utils import timezone

from games.contract import Notice
from games.contract.advice import (
    AdviceDeclined,
    AdviceReason,
    NoAdviceYet,
    NothingPlayedYet,
    PlayedYourSuggestion,
    PlayReason,
)
from games.contract.table_page import TeamLine
from games.contract.tables import CardsView, LayoffView, MoveView, ResultView, TableView
from games.engine import Card, Hand, Role, Settlement, best_arrangements, deadwood
from games.engine.hand import Discard, Knock, Phase
from games.models import Event, Match, Seat
from games.models import Hand as HandRow
from games.services.plumbing import clocks
from games.services.read.public import seat_views


def cards_view(owner: str, cards: tuple[Card, ...] | list[Card]) -> CardsView:
    arrangement = best_arrangements(cards)[0]
    return CardsView(
        owner,
        tuple(meld.cards for meld in arrangement.melds),
        tuple(sorted(arrangement.deadwood)),
        deadwood(cards),
    )


def table_view(
    match: Match,
    seats: list[Seat],
    hand_row: HandRow,
    hand: Hand,
    position: int,
    last_moves: tuple[MoveView, ...] = (),
    logged: Sequence[dict] = (),
) -> TableView:
    """The table as the player in ``position`` may see it; ``logged``: the hand's moves
    as logged, which say which of ``last_moves`` were the captain's draws."""
    names = {seat.position: seat.player.display_name for seat in seats}
    role = hand_row.roles.role_of(position)
    if role is Role.SITTER:
        last_moves = with_captains_draws(hand, logged, last_moves)
    # The sitter sees the captain's cards (R3.2); each active player sees his own.
    cards_role = Role.CAPTAIN if role is Role.SITTER else role
    cards_owner = names[hand_row.roles.seat_of(cards_role)]
    to_move_position = hand_row.roles.seat_of(hand.to_move)
    is_mover = position == to_move_position and not hand.is_over
    moves: tuple[str, ...] = ()
    knocks: dict[Card, int] = {}
    captain = seats[hand_row.roles.seat_of(Role.CAPTAIN)]
    advising = role is Role.SITTER and hand.to_move is Role.CAPTAIN and not hand.is_over and not hand.is_forced
    if is_mover or (advising and takes_advice(match, captain)):
        moves, knocks = available_moves(hand)
    return TableView(
        code=match.code,
        version=match.version,
        viewer=names[position],
        viewer_role=role.value,
        seats=seat_views(seats, hand_row),
        hand_number=hand_row.number,
        target=match.target,
        cards=cards_view(cards_owner, hand.cards_of(cards_role)),
        pile_top=hand.pile[-1] if hand.pile else None,
        stock_count=len(hand.stock),
        to_move=names[to_move_position],
        to_move_role=hand.to_move.value,
        phase=hand.phase.value,
        deadline=match.deadline,
        paused=match.is_paused,
        moves=moves,
        knocks=knocks,
        suggestion=hand_row.suggestion if role is not Role.BOX else "",
        last_moves=last_moves if role is not Role.BOX else tuple(move.without_advice() for move in last_moves),
        commitment=hand_row.commitment,
        drawn=hand.drawn if cards_role is hand.to_move else None,
        taken=hand.taken if role is hand.to_move else None,
    )


def with_captains_draws(hand: Hand, logged: Sequence[dict], moves: tuple[MoveView, ...]) -> tuple[MoveView, ...]:
    """``moves`` with the card each of the captain's draws took, for his sitter, who sees
    the captain's cards (R3.2): a computer captain that does not wait for advice draws
    and discards in one go, and the card he kept would come unnamed. The hand's draws
    take the dealt stock's cards in order, whoever made them."""
    stock = iter(hand.dealt_stock)
    drawn = {}
    for data in logged:
        if data["move"] == "draw":
            card = next(stock)
            if data["role"] == Role.CAPTAIN.value:
                drawn[data["seq"]] = str(card)
    return tuple(replace(move, drawn=drawn[move.seq]) if move.seq in drawn else move for move in moves)


def takes_advice(match: Match, captain: Seat) -> bool:
    """Whether the sitter's suggestion can still come before the captain moves: a person
    captains, or a computer captain waits for it (``turns.waits_for_advice`` gave it a
    deadline past a computer's grace, as ``computer_moves.computers_to_move`` reads it)."""
    if not (captain.player.is_computer or captain.autopilot):
        return True
    return match.deadline is not None and match.deadline > timezone.now() + clocks.COMPUTER_GRACE


def available_moves(hand: Hand) -> tuple[tuple[str, ...], dict[Card, int]]:
    """The commands the player to move may play, and the knocks with their counts."""
    actions = hand.legal_actions()
    if hand.phase is Phase.DISCARD:
        knocks = {a.card: hand.count_after_discard(a.card) for a in actions if isinstance(a, Knock)}
        discards = tuple(f"discard {a.card}" for a in actions if isinstance(a, Discard))
        return discards + tuple(f"knock {card}" for card in knocks), knocks
    return tuple(str(action) for action in actions), {}


def result_view(
    match: Match,
    seats: list[Seat],
    hand_row: HandRow,
    hand: Hand,
    next_roles: dict[int, str],
    game_winner: str,
    last_turn: tuple[MoveView, ...] = (),
) -> ResultView:
    """The end of a hand, which every player sees in full (docs/protocol.md)."""
    names = {seat.position: seat.player.display_name for seat in seats}
    result = hand.result
    assert result is not None
    settlement = result.settlement
    knocker_cards = defender_cards = None
    knocker = winner = ""
    if result.knocker is not None and settlement is not None:
        knocker = names[hand_row.roles.seat_of(result.knocker)]
        defender = names[hand_row.roles.seat_of(result.knocker.opponent)]
        knocker_cards = CardsView(
            knocker,
            tuple(meld.cards for meld in settlement.knocker.melds),
            tuple(sorted(settlement.knocker.deadwood)),
            settlement.knocker_count,
        )
        defender_cards = CardsView(
            defender,
            tuple(meld.cards for meld in settlement.defender.melds),
            tuple(sorted(settlement.defender.deadwood)),
            settlement.defender_count,
        )
    if result.winner is not None:
        winner = names[hand_row.roles.seat_of(result.winner)]
    return ResultView(
        code=match.code,
        hand_number=hand_row.number,
        kind=result.kind,
        knocker=knocker,
        winner=winner,
        points=result.points,
        knocker_cards=knocker_cards,
        defender_cards=defender_cards,
        layoffs=layoff_views(settlement) if settlement else (),
        seats=seat_views(seats, hand_row),
        next_roles={names[position]: role for position, role in next_roles.items()},
        game_winner=game_winner,
        deck=hand_row.deck,
        salt=hand_row.salt,
        commitment=hand_row.commitment,
        last_turn=tuple(move.without_advice() for move in last_turn),
    )


def layoff_views(settlement: Settlement) -> tuple[LayoffView, ...]:
    """The defender's layoffs, grouped by the knocker's meld each joined, in his melds' order."""
    melds = settlement.knocker.melds
    joined: dict[int, list[Card]] = {}
    for card, index in settlement.layoffs:
        joined.setdefault(index, []).append(card)
    return tuple(LayoffView(tuple(sorted(cards)), melds[index].cards) for index, cards in sorted(joined.items()))


def team_talk(hand_row: HandRow, role: str) -> tuple[TeamLine, ...]:
    """A hand's team talk as one of its seats may read it: its captain and sitter read
    what they said to each other (it may name the captain's cards); the box none of it."""
    if role not in ("captain", "sitter"):
        return ()
    said = hand_row.events.filter(kind=Event.Kind.TEAM).order_by("seq").values_list("actor__display_name", "data")
    return tuple(
        TeamLine(name or "", data.get("text", ""), computer_said(hand_row, name or "", data)) for name, data in said
    )


COMPUTER_TALK = {
    kind.__name__: kind
    for kind in (AdviceReason, NoAdviceYet, PlayReason, PlayedYourSuggestion, NothingPlayedYet, AdviceDeclined)
}


def computer_said(hand_row: HandRow, name: str, data: dict) -> Notice | None:
    """A computer partner's line of team talk as its notice (``advice.tell_team``)."""
    kind = COMPUTER_TALK.get(data.get("advice", ""))
    if kind is None:
        return None
    fields = {key: value for key, value in data.items() if key != "advice"}
    return kind(hand_row.match.code, name, **fields)
