"""Who is told what of a move: each seat's table, when he has a use for it.

The player to move gets his table once, with his cards and his options; the
sitter follows his captain's hand and sees, at each of the captain's turns, the
moves since the last one; a player hears of a move made for him (a timeout, his
autopilot). A newer table of a match replaces the one before it (``table_key``),
and a match's Telegram group sees what anyone may see (``groups.tell_table``).
"""

from __future__ import annotations

from games.contract.tables import Automatic, MoveView
from games.engine import Role
from games.engine.hand import Phase
from games.models import Outbox
from games.services.plumbing import outbox
from games.services.write import groups
from games.services.write.locked_table import Table
from games.services.write.turns import waits_for_advice

SINCE_CAPTAIN = 4  # his take or draw and discard, then the box's
UNSEEN_AT_MOST = 20  # the moves a sitter missed that his next table lists (a whole hand can be 60)


def tell_mover(table: Table, position: int, automatic: Automatic, public: MoveView) -> None:
    """A player's own move is answered by the reply to his command; a move made
    for him (a timeout, his autopilot) he hears of here."""
    if not automatic.is_own:
        send_table(table, position, Outbox.Kind.MOVED, (public,))


def turn_so_far(table: Table, public: MoveView) -> tuple[MoveView, ...]:
    """What the player who just moved did in his whole turn: how he took his card, then this."""
    if table.hand.phase is not Phase.DRAW or table.hand.turns == 0:
        return (public,)
    taking, _discard = recent_moves(table, 2)
    return (taking, public) if taking.move in ("take", "draw") else (public,)


def send_table(table: Table, position: int, kind: str, last_moves: tuple[MoveView, ...] = ()) -> None:
    """The table to one seat, unless he has no use for it: a seat a computer plays
    for an absent player (he gets the results, and the table when he is back), or
    a sitter who asked for no advice tables. A move made for him (``moved``) is news
    that a newer table must not replace while it waits: he would never learn what
    was played in his name."""
    seat = table.seat(position)
    if seat.autopilot or (kind == Outbox.Kind.ADVISE and not seat.player.advises):
        return
    replaces = "" if kind == Outbox.Kind.MOVED else table_key(table.match.code)
    outbox.send(seat.player, kind, table.view(position, last_moves), table.match, replaces=replaces)


def table_key(code: str) -> str:
    """What a newer table of match ``code`` replaces: edited in place on Telegram, skipped when queued."""
    return f"table:{code}"


def announce_turn(table: Table, last_moves: tuple[MoveView, ...]) -> None:
    """The player to move is told once, with his cards and his options. The
    sitter follows his captain's hand: at each of the captain's turns he sees
    the moves since the last one, the captain's own discard included."""
    send_table(table, table.mover, Outbox.Kind.TURN, last_moves)
    if table.hand.to_move is Role.CAPTAIN:
        tell_sitter_of(table, recent_moves(table, SINCE_CAPTAIN))
    groups.tell_table(table.match, table.seats, table.hand_row, table.hand, last_moves)


def tell_sitter(table: Table, last_moves: tuple[MoveView, ...]) -> None:
    """Within the captain's turn (he took a card), the sitter sees it, to advise
    on the discard; a computer captain waits for it only when it waits for advice."""
    if table.hand.to_move is Role.CAPTAIN and (not table.computer_plays(table.mover) or waits_for_advice(table)):
        tell_sitter_of(table, last_moves)


def tell_sitter_of(table: Table, last_moves: tuple[MoveView, ...]) -> None:
    """The sitter's table, with ``last_moves`` or, if he missed more, every move since
    the last table he got."""
    position = table.position_of_role(Role.SITTER)
    send_table(table, position, Outbox.Kind.ADVISE, with_missed(table, position, last_moves))


def with_missed(table: Table, position: int, last_moves: tuple[MoveView, ...]) -> tuple[MoveView, ...]:
    """``last_moves``, or every move since the last table the seat's player got if he
    missed more (up to ``UNSEEN_AT_MOST``): a table replaces the one before it, and
    must not drop the moves that one listed."""
    missed = min(unseen_moves(table, position), UNSEEN_AT_MOST)
    return recent_moves(table, missed) if missed > len(last_moves) else last_moves


def since_last_turn(table: Table, position: int) -> tuple[MoveView, ...]:
    """The others' moves since the seat's last turn ended (up to ``UNSEEN_AT_MOST``):
    his own he made himself. For the sitter, who holds no cards, every move since his
    captain's last turn, the captain's included (R3.2)."""
    player = position
    if table.role_of(position) is Role.SITTER:
        position = table.position_of_role(Role.CAPTAIN)
    count, own_turn_now = 0, True
    for data in reversed(table.moves):
        mine = data["seat"] == position
        if mine and not own_turn_now:
            break
        own_turn_now = own_turn_now and mine
        count += 1
    window = table.moves[len(table.moves) - count :]
    others = [data for data in window if data["seat"] != player][-UNSEEN_AT_MOST:]
    return tuple(move_view(table, data) for data in others)


def unseen_moves(table: Table, position: int) -> int:
    """How many moves of the hand came after the last table of the match that reached
    the seat's player (``state.lock_seats`` reads when that was; the seats a new match
    starts with were not read through it, and he has seen no table of it). A newer table
    replaces an older one still waiting to go (``delivery.claim``): when computers
    move faster than his messages go out, a sitter following the hand would
    otherwise never see the moves that one listed."""
    seen = getattr(table.seat(position), "seen_events", None) or 0
    return sum(move["seq"] > seen for move in table.moves)


def recent_moves(table: Table, count: int) -> tuple[MoveView, ...]:
    """The hand's last ``count`` moves, oldest first, as everyone saw them."""
    return tuple(move_view(table, data) for data in table.moves[-count:])


def move_view(table: Table, data: dict) -> MoveView:
    """A logged move as everyone hears of it."""
    automatic = Automatic(data.get("automatic", ""))
    return MoveView(table.name(data["seat"]), data["move"], automatic, data.get("taken", ""), data["seq"])
