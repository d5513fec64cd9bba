"""Playing: the moves, the sitter's advice, the captain's acceptance and team talk."""

from __future__ import annotations

from dataclasses import replace
from typing import NoReturn

from django.db.models import Max

from games.contract import moves as m
from games.contract.tables import Automatic, TableView
from games.engine import Discard, Hand, IllegalAction, Knock, Role, Take
from games.services.plumbing import outbox, state
from games.services.write import advice, play
from games.services.write.announcements import since_last_turn
from games.services.write.locked_table import Table, load_table
from games.text.protocol import CARD_ARGUMENT, Command

from ...models import Event, Outbox, Player
from ..errors import ServiceError
from .choosing import RUNNING, Reply, has_suggestion, on_team, pick, playable, role_now, sitter_advising, to_move

MAX_TEAM_MESSAGES = 5  # a player's team messages between two moves: advice, not a flood


def move(player: Player, command: Command) -> Reply:
    """pass, take, draw, discard, knock: the reply is the table after it, or the
    hand's result if the move ended the hand."""
    if command.name in CARD_ARGUMENT and command.card is None:
        _without_its_card(player, command)
    seat = pick(player, command, to_move, RUNNING, playable(command))
    table = load_table(seat.match_id, command.version)
    if table.role_of(seat.position) is Role.SITTER:
        raise ServiceError(m.SitterSuggests(command.as_text()))
    _check_named_top(table.hand, command)
    result = play.apply_move(table, seat.position, command.action(), player)
    return result or _table_after(table, seat.position)


def _table_after(table: Table, position: int) -> TableView:
    """His table after his move. Within his turn (he drew or took a card) it keeps the
    others' moves since his last turn, as his turn's table listed them: what the
    opponent threw is what he weighs his discard against."""
    within_his_turn = table.mover == position
    return table.view(position, since_last_turn(table, position) if within_his_turn else ())


def _without_its_card(player: Player, command: Command) -> NoReturn:
    """A ``discard`` or ``knock`` with no card, refused as his turn stands: a newcomer at
    his draw was asked to name a card, and then told that he must take one first. At his
    discard he is asked which card, with one he may play as the example: the one that
    leaves the lowest count. Where he may play none, he is told why: he must take a card
    first, or his count is too high to knock (R7.2)."""
    seat = pick(player, command, to_move, RUNNING)
    table = load_table(seat.match_id, command.version)
    if table.role_of(seat.position) is Role.SITTER:
        raise ServiceError(m.SitterSuggests(command.as_text()))
    play.check_turn(table, seat.position)
    hand = table.hand
    actions = hand.legal_actions()
    discards = [action.card for action in actions if isinstance(action, Discard)]
    knocks = [action.card for action in actions if isinstance(action, Knock)]
    cards = knocks if command.name == "knock" else discards
    if not cards:
        card = min(discards, key=hand.count_after_discard) if discards else hand.cards_of(hand.to_move)[0]
        try:
            hand.apply(Knock(card) if command.name == "knock" else Discard(card))
        except IllegalAction as error:
            raise play.refused_by_engine(error) from None
    raise ServiceError(m.SayWhichCard(command.name, min(cards, key=hand.count_after_discard)))


def _check_named_top(hand: Hand, command: Command) -> None:
    """``take Qs`` takes the pile's top card only if Qs is it: naming another card, he
    meant another move. A take that is not legal now is left to the engine to refuse."""
    named = command.named_top
    if named is not None and Take() in hand.legal_actions() and hand.pile[-1] != named:
        raise ServiceError(m.NotOnThePile(named, hand.pile[-1]))


def suggest(player: Player, command: Command) -> Reply:
    """The sitter's advice: the captain gets his table with it, and may ``accept``; the
    sitter's answer is his own table, saying what he suggested (``answer`` words it alone
    where no table is edited in place)."""
    seat = pick(player, command, sitter_advising, RUNNING)
    table = load_table(seat.match_id, command.version)
    role = table.role_of(seat.position)
    if role is not Role.SITTER:
        raise ServiceError(m.OnlySitterSuggests(role))
    if table.hand.to_move is not Role.CAPTAIN:
        if advice.wait_for_late_advice(table, player):
            return m.CaptainPlayedFirst(table.name(table.position_of_role(Role.CAPTAIN)))
        raise ServiceError(m.WaitForCaptain())
    suggestion = command.suggestion
    if suggestion is None:
        raise ServiceError(m.SayWhatToSuggest(str(table.hand.legal_actions()[0])))
    _check_named_top(table.hand, suggestion)
    action = suggestion.action()
    try:
        table.hand.apply(action)
    except IllegalAction as error:
        raise ServiceError(m.CaptainCannot(suggestion.as_text(), error.code, dict(error.params))) from None
    advised = table.view(seat.position)  # before it waits: "accept plays it" is for the captain
    return replace(advised, note=advice.record_suggestion(table, player, action))


def accept(player: Player, command: Command) -> Reply:
    """The captain plays the sitter's waiting suggestion."""
    seat = pick(player, command, to_move, RUNNING, has_suggestion)
    table = load_table(seat.match_id, command.version)
    if table.role_of(seat.position) is not Role.CAPTAIN:
        raise ServiceError(m.OnlyCaptainAccepts())
    action = advice.waiting_suggestion(table)
    if action is None:
        raise ServiceError(m.NoSuggestion())
    result = play.apply_move(table, seat.position, action, player, automatic=Automatic.SUGGESTION)
    return result or replace(_table_after(table, seat.position), note=m.Accepted(str(action)))


def team(player: Player, command: Command) -> Reply:
    """A word to the partner only: the captain's sitter, or the sitter's captain."""
    seat = pick(player, command, on_team, RUNNING)
    match, seats = state.lock_table(seat.match_id)
    hand_row = state.hand_in_play(match)
    role = role_now(match, seat)
    if role not in (Role.CAPTAIN, Role.SITTER):
        raise ServiceError(m.NoPartner())
    partner = seats[hand_row.roles.seat_of(Role.SITTER if role is Role.CAPTAIN else Role.CAPTAIN)].player
    if _said_this_turn(match, hand_row, player) >= MAX_TEAM_MESSAGES:
        raise ServiceError(m.TooManyTeamMessages(MAX_TEAM_MESSAGES))
    message = command.text
    state.append_event(match, Event.Kind.TEAM, hand_row, player, text=message)  # the desk reads it: desk.event_text
    outbox.send(partner, Outbox.Kind.TEAM, m.TeamMessage(match.code, player.display_name, message), match)
    if partner.is_computer:
        answer = advice.answer_why if role is Role.CAPTAIN else advice.answer_as_captain
        answer(load_table(match.pk), player)
    return m.TeamSent(partner.display_name)


def hint(player: Player, command: Command) -> Reply:
    """What the hard level would play now, and why: only against computers (fair play)."""
    seat = pick(player, command, lambda match, seat: to_move(match, seat) or sitter_advising(match, seat), RUNNING)
    return advice.hint(load_table(seat.match_id, command.version), player)


def _said_this_turn(match, hand_row, player: Player) -> int:
    """His team messages since the hand's last move."""
    events = Event.objects.filter(match=match, hand=hand_row)
    last_move = events.filter(kind=Event.Kind.MOVE).aggregate(seq=Max("seq"))["seq"] or 0
    return events.filter(kind=Event.Kind.TEAM, actor=player, seq__gt=last_move).count()
