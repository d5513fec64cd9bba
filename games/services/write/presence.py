"""A player who is gone, and back: a computer plays his seat meanwhile.

A seat goes to a computer (``Seat.autopilot``) when its player misses three
turns in a row, can't be reached any more (delivery finds he blocked the bot or
sent STOP: ``player_unreachable``) or is banned; he gets it back with any command
in that match, or by START. While a computer plays for him he gets no tables
(``announcements.send_table``), only the notices and the results; when he is
back he gets the table as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from games.contract import Notice
from games.contract.presence import PlayerReturned, Unreachable, UnreachableInLobby, YouAreBackIn
from games.models import Event, Match, Outbox, Player, Seat
from games.services.plumbing import delivery, outbox, state
from games.services.plumbing.change import change
from games.services.write import announcements, turns
from games.services.write.locked_table import Table, load_table


def hand_over(table: Table, position: int, kind: str, notice: Notice, tell_him: bool = True) -> None:
    """A computer plays the seat from now on; everyone in the match is told ``notice``
    (a message of ``kind``: "autopilot", "unreachable"), its player too unless he is
    told otherwise (``tell_him``: a banned player hears why from the ban)."""
    seat = table.seat(position)
    if seat.autopilot or seat.player.is_computer:
        return
    turns.set_autopilot(table, position, True)
    for other in table.seats:
        if tell_him or other.position != position:
            outbox.send(other.player, kind, notice, table.match)


def gone(player: Player, kind: str, notice: Callable[[Player, Match], Notice]) -> None:
    """Hand every running seat of ``player`` to a computer, each match told ``notice(player, match)``."""
    with change():
        for match_id in _running_matches_of(player):
            table = load_table(match_id)
            hand_over(table, table.position_of(player), kind, notice(player, table.match))


def take_back(player: Player, seat: Seat) -> None:
    """He takes his seat back from the computer that played for him; the others are
    told, and he gets the table now (after the answer to whatever he typed)."""
    table = load_table(seat.match_id)
    turns.set_autopilot(table, seat.position, False)
    state.append_event(table.match, Event.Kind.RETURNED, actor=player)
    match = table.match
    for other in table.seats:
        if other.position != seat.position:
            outbox.send(other.player, Outbox.Kind.RETURNED, PlayerReturned(player.display_name, match.code), match)
    view = replace(table.view(seat.position), note=YouAreBackIn(match.code))
    outbox.send(player, Outbox.Kind.RETURNED, view, match, replaces=announcements.table_key(match.code))


def back_everywhere(player: Player) -> None:
    """He is reachable again (START): he takes back every seat a computer played for him,
    unless he is banned (the computer plays for him until the ban is over)."""
    with change():
        if player.is_banned():
            return
        for match_id in _running_matches_of(player, autopilot=True):
            table = load_table(match_id)
            take_back(player, table.seat(table.position_of(player)))


UNREACHABLE_FLAGS: dict[str, str] = {Outbox.Channel.TELEGRAM: "telegram_blocked", Outbox.Channel.SMS: "sms_opted_out"}


@delivery.when_unreachable  # imported at start by games.apps.GamesConfig.ready
def player_unreachable(player: Player, channel: str) -> bool:
    """Delivery found that ``player`` can't be reached on ``channel`` any more (he
    blocked the bot, sent STOP, the number is dead): stop writing to him there. If
    nothing else reaches him, a computer plays his seats until he is back, and the
    others in each of his matches are told. True if it was news."""
    flag = UNREACHABLE_FLAGS.get(channel)
    if flag is None:
        return False
    with change():
        player = Player.objects.select_for_update().get(pk=player.pk)
        if getattr(player, flag):
            return False
        setattr(player, flag, True)
        player.save(update_fields=[flag])
        if outbox.route(player) is not None:
            return True
        gone(player, Outbox.Kind.UNREACHABLE, lambda gone, match: Unreachable(gone.display_name, match.code))
        for match in Match.objects.filter(seats__player=player, status=Match.Status.LOBBY):
            notice = UnreachableInLobby(player.display_name, match.code)
            for seat in match.seats.select_related("player").exclude(player=player):
                outbox.send(seat.player, Outbox.Kind.UNREACHABLE, notice, match)
    return True


def _running_matches_of(player: Player, autopilot: bool | None = None) -> list[int]:
    """His running matches, by id (the order they are locked in)."""
    seats = Seat.objects.filter(player=player, match__status=Match.Status.RUNNING)
    if autopilot is not None:
        seats = seats.filter(autopilot=autopilot)
    return list(seats.order_by("match_id").values_list("match_id", flat=True))
