"""One seat's table, read for the table's page (``bot.web``): what its player may see now.

A read, without a lock: the page asks often, and what it shows is the state
committed last. Every part of it is a view of ``tables`` or ``public``, which
decide what a seat may see: his table (``TableView``: his cards, or the captain's for the sitter),
the hand so far as anyone saw it (``PublicMove``), the team talk he is part of, and
the last hand's result, public once it ended. ``version`` is cheap to read on its
own (``seat_version``), so that the page's polls cost one indexed query while
nothing changed.
"""

from __future__ import annotations

from dataclasses import replace

from games.contract.table_page import LastResult, SeatTable
from games.engine import parse_action, parse_cards, replay
from games.models import Event, Match, Player, Seat
from games.services.plumbing import state
from games.services.read.public import PLAYER_FIELDS, hand_players, public_table_view, role_names, seat_views
from games.services.read.tables import table_view, team_talk


def seat_version(player: Player, code: str) -> str | None:
    """What the page's ETag is made of: the match's version and its count of events
    (a suggestion or a team word adds an event, not a version), for this player;
    None if he has no seat in match ``code``. One indexed query."""
    row = (
        Seat.objects.filter(player=player, match__code=code.upper())
        .values("match__version", "match__event_count")
        .first()
    )
    if row is None:
        return None
    return f"{player.pk}.{row['match__version']}.{row['match__event_count']}"


def seat_table(player: Player, code: str) -> SeatTable | None:
    """``player``'s table in match ``code``; None if he has no seat in it."""
    current = [f"match__current_hand__{field}" for field in PLAYER_FIELDS]
    seat = Seat.objects.select_related("match__current_hand", "match__winner", *current).filter(
        player=player, match__code=code.upper()
    )
    mine = seat.first()
    if mine is None:
        return None
    match = mine.match
    seats = state.seats_of(match)
    version = f"{player.pk}.{match.version}.{match.event_count}"
    hand_row = match.current_hand
    base = SeatTable(
        code=match.code,
        status=match.status,
        version=version,
        position=mine.position,
        target=match.target,
        seats=seat_views(seats, hand_row if match.status == Match.Status.RUNNING else None),
        last_result=_last_result(match, seats),
        winner=match.winner.display_name if match.winner else "",
    )
    if match.status != Match.Status.RUNNING or hand_row is None:
        return base
    moves = hand_row.events.filter(kind=Event.Kind.MOVE).order_by("seq")
    logged = list(moves.values_list("data", "actor__display_name"))
    hand = replay(parse_cards(hand_row.deck), [parse_action(data["move"]) for data, _actor in logged], match.rules)
    role = role_names(hand_row)[mine.position]
    return replace(
        base,
        table=table_view(match, seats, hand_row, hand, mine.position),
        so_far=public_table_view(match, seats, hand_row, hand, logged=logged).moves,
        team=team_talk(hand_row, role),
    )


def _last_result(match: Match, seats: list[Seat]) -> LastResult | None:
    """The last hand that ended, with its public summary."""
    ended = match.hands.filter(ended_at__isnull=False).select_related(*PLAYER_FIELDS)
    row = ended.order_by("-number").first()
    if row is None:
        return None
    roles = tuple((role, player.display_name) for role, player in hand_players(row, seats).items())
    return LastResult(row.number, row.summary, roles)
