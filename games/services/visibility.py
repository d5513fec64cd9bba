"""What each player may see: the one place that decides it (R3.2, R4.4, PROTOCOL.md).

Every message and page is built from these views, never from a hand directly.
A view holds only what its viewer may know: his own cards (the sitter also
sees the captain's), the top of the pile, the size of the stock and what the
rules make public. Nobody's view holds the stock or another hand before the
hand ends; then everything is public, the deck included.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime

from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext

from games.engine import Card, Hand, Role, best_arrangements, deadwood, deal, parse_action, parse_cards, replay
from games.engine.hand import Discard, Knock, Phase

from ..models import Event, Match, Outbox, Player, Report, Seat
from ..models import Hand as HandRow
from . import state


@dataclass(frozen=True)
class SeatView:
    name: str
    position: int
    role: str  # "box", "captain", "sitter" or "" before the first deal
    score: int
    is_computer: bool = False
    away_until: datetime | None = None  # his time off: his clocks wait until then


@dataclass(frozen=True)
class CardsView:
    """A hand as its owner (or the sitter) sees it: melds grouped, deadwood counted."""

    owner: str
    melds: tuple[tuple[Card, ...], ...]
    deadwood: tuple[Card, ...]
    count: int


@dataclass(frozen=True)
class TableView:
    """The table as one seat may see it."""

    code: str
    version: int
    viewer: str
    viewer_role: str
    seats: tuple[SeatView, ...]
    hand_number: int
    target: int
    cards: CardsView | None
    pile_top: Card | None
    stock_count: int
    to_move: str
    to_move_role: str
    phase: str
    deadline: datetime | None
    paused: bool
    moves: tuple[str, ...] = ()  # the commands the viewer may play now
    knocks: dict[Card, int] = field(default_factory=dict)
    suggestion: str = ""
    last_moves: tuple[MoveView, ...] = ()
    note: str = ""  # why the reader is shown the table, e.g. his button was old
    commitment: str = ""


@dataclass(frozen=True)
class ResultView:
    """The end of a hand: public to all, so it carries both hands."""

    code: str
    hand_number: int
    kind: str
    knocker: str
    winner: str
    points: int
    knocker_cards: CardsView | None
    defender_cards: CardsView | None
    layoffs: tuple[Card, ...]
    seats: tuple[SeatView, ...]
    next_roles: dict[str, str]
    game_winner: str
    deck: str
    salt: str
    commitment: str


def cards_view(owner: str, cards: tuple[Card, ...] | list[Card]) -> CardsView:
    arrangement = best_arrangements(cards)[0]
    return CardsView(
        owner,
        tuple(meld.cards for meld in arrangement.melds),
        tuple(sorted(arrangement.deadwood)),
        deadwood(cards),
    )


def seat_views(seats: list[Seat], hand_row: HandRow | None) -> tuple[SeatView, ...]:
    roles = role_names(hand_row) if hand_row else {}
    now = timezone.now()
    return tuple(
        SeatView(
            seat.player.display_name,
            seat.position,
            roles.get(seat.position, ""),
            seat.score,
            seat.player.is_computer or seat.autopilot,
            seat.player.away_until if seat.player.away_until and seat.player.away_until > now else None,
        )
        for seat in seats
    )


def role_names(hand_row: HandRow) -> dict[int, str]:
    return {hand_row.box: "box", hand_row.captain: "captain", hand_row.sitter: "sitter"}


def seat_of_role(hand_row: HandRow, role: Role) -> int:
    return {Role.BOX: hand_row.box, Role.CAPTAIN: hand_row.captain, Role.SITTER: hand_row.sitter}[role]


@dataclass(frozen=True)
class MoveView:
    """A move as every player may hear of it: a draw never names its card, a
    take names the face-up card it took (``taken``), which everyone saw.
    ``automatic`` says how it was made (see ``play.apply_move``); the words for
    it are the renderer's, in each reader's language."""

    name: str
    move: str
    automatic: str = ""
    taken: str = ""

    def __str__(self) -> str:
        return f"{self.name}: {self.move}"

    def without_advice(self) -> MoveView:
        """The move as the box and the public see it: whether the team's move was the
        sitter's suggestion is the team's secret (R3.2)."""
        automatic = {"suggestion": "", "timeout-suggestion": "timeout"}.get(self.automatic, self.automatic)
        return replace(self, automatic=automatic)


def table_view(
    match: Match,
    seats: list[Seat],
    hand_row: HandRow,
    hand: Hand,
    position: int,
    last_moves: tuple[MoveView, ...] = (),
) -> TableView:
    """The table as the player in ``position`` may see it."""
    names = {seat.position: seat.player.display_name for seat in seats}
    role = Role(role_names(hand_row)[position])
    # The sitter sees the captain's cards (R3.2); each active player sees his own.
    cards_role = Role.CAPTAIN if role is Role.SITTER else role
    cards_owner = names[seat_of_role(hand_row, cards_role)]
    to_move_position = seat_of_role(hand_row, hand.to_move)
    is_mover = position == to_move_position and not hand.is_over
    moves, knocks = (), {}
    captain = seats[seat_of_role(hand_row, Role.CAPTAIN)]
    advising = role is Role.SITTER and hand.to_move is Role.CAPTAIN and not hand.is_over
    if is_mover or (advising and not (captain.player.is_computer or captain.autopilot)):
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
    )


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
) -> ResultView:
    """The end of a hand, which every player sees in full (PROTOCOL.md)."""
    names = {seat.position: seat.player.display_name for seat in seats}
    result = hand.result
    assert result is not None
    settlement = result.settlement
    knocker_cards = defender_cards = None
    knocker = winner = ""
    if result.knocker is not None and settlement is not None:
        knocker = names[seat_of_role(hand_row, result.knocker)]
        defender = names[seat_of_role(hand_row, result.knocker.opponent)]
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
        winner = names[seat_of_role(hand_row, result.winner)]
    return ResultView(
        code=match.code,
        hand_number=hand_row.number,
        kind=result.kind,
        knocker=knocker,
        winner=winner,
        points=result.points,
        knocker_cards=knocker_cards,
        defender_cards=defender_cards,
        layoffs=tuple(card for card, _ in settlement.layoffs) if settlement else (),
        seats=seat_views(seats, hand_row),
        next_roles={names[position]: role for position, role in next_roles.items()},
        game_winner=game_winner,
        deck=hand_row.deck,
        salt=hand_row.salt,
        commitment=hand_row.commitment,
    )


@dataclass(frozen=True)
class TeamLine:
    """A word of team talk (``team TEXT``): who said it, and what."""

    name: str
    text: str


def team_talk(hand_row: HandRow, role: str) -> tuple[TeamLine, ...]:
    """A hand's team talk as one of its seats may read it: its captain and sitter read
    what they said to each other (it may name the captain's cards); the box none of it."""
    if role not in ("captain", "sitter"):
        return ()
    said = hand_row.events.filter(kind="team").order_by("seq").values_list("actor__display_name", "data")
    return tuple(TeamLine(name or "", data.get("text", "")) for name, data in said)


@dataclass(frozen=True)
class MatchLine:
    """One of a player's matches as he may see it in a list (``status``, ``help``):
    where it stands and what he may do in it, never a card of anyone else's."""

    code: str
    status: str  # "lobby" or "running"
    players: int  # seats taken
    hand_number: int = 0
    role: str = ""  # his role in the hand in play
    to_move: str = ""  # who is to move
    your_move: bool = False
    moves: tuple[str, ...] = ()  # what he may play now, or suggest as the sitter
    knocks: dict[Card, int] = field(default_factory=dict)
    upcard: Card | None = None  # the pile's top, which "take" takes
    partner: str = ""  # the captain's sitter, the sitter's captain
    suggestion: str = ""  # the sitter's suggestion waiting for the captain
    deadline: datetime | None = None
    paused: bool = False
    mover_away_until: datetime | None = None  # the player to move is away until then (time off)


def match_line(seat: Seat, seats: list[Seat], hand: Hand | None) -> MatchLine:
    """``seat``'s match as a line of his list; ``hand`` is the hand in play, replayed,
    when he is to move or advises on the move (else None)."""
    match = seat.match
    if match.status != Match.Status.RUNNING:
        return MatchLine(match.code, match.status, len(seats))
    hand_row = match.current_hand
    roles = role_names(hand_row)
    role = roles[seat.position]
    names = {other.position: other.player.display_name for other in seats}
    partner = {"captain": hand_row.sitter, "sitter": hand_row.captain}.get(role)
    moves, knocks = available_moves(hand) if hand is not None else ((), {})
    return MatchLine(
        code=match.code,
        status=match.status,
        players=len(seats),
        hand_number=hand_row.number,
        role=role,
        to_move=names.get(match.turn_seat, ""),
        your_move=match.turn_seat == seat.position,
        moves=moves,
        knocks=knocks,
        upcard=hand.pile[-1] if hand is not None and hand.pile else None,
        partner=names[partner] if partner is not None else "",
        suggestion=hand_row.suggestion if role == "captain" else "",
        deadline=match.deadline,
        paused=match.is_paused,
        mover_away_until=away_until(next((other.player for other in seats if other.position == match.turn_seat), None)),
    )


def away_until(player: Player | None) -> datetime | None:
    """When ``player``'s time off ends, if he is away now: public, the others are told it."""
    if player is None or player.away_until is None or player.away_until <= timezone.now():
        return None
    return player.away_until


@dataclass(frozen=True)
class MatchesView:
    """A player's matches, for ``status`` with several and for ``help``."""

    lines: tuple[MatchLine, ...]
    more: int = 0  # matches left out of a long list


@dataclass(frozen=True)
class HelpView:
    """``help``: his matches as lines, and the ways he can be reached."""

    lines: tuple[MatchLine, ...]
    more: int = 0
    telegram: bool = False
    phone: bool = False
    away_until: datetime | None = None  # his own time off


# Everyone: the public pages and the moderation desk --------------------------
#
# A running hand shows what lies face up: the pile (each card discarded, and
# who took which back), the size of the stock, whose turn and the clock. No
# hand's cards, no card of the stock, no deck and no salt, until it is revealed
# (``is_revealed``); then all of it, move by move, so that anyone can replay it
# and check the deck against the commitment published at the deal.


@dataclass(frozen=True)
class PublicMove:
    """A move as anyone may know it: the card of a take (it lay face up on the
    pile), of a discard and of a knock; the card of a draw only once the hand
    is revealed (``card`` None before)."""

    name: str
    role: str
    action: str  # "pass", "take", "draw", "discard" or "knock"
    card: Card | None = None
    automatic: str = ""


@dataclass(frozen=True)
class PublicTableView:
    """The hand in play as anyone may see it: no hand's cards and not the stock."""

    code: str
    hand_number: int
    seats: tuple[SeatView, ...]
    pile_top: Card | None
    stock_count: int
    to_move: str
    to_move_role: str
    phase: str
    deadline: datetime | None
    paused: bool
    commitment: str
    last_moves: tuple[MoveView, ...] = ()
    moves: tuple[PublicMove, ...] = ()  # the hand so far, as anyone saw it
    version: int = 0


@dataclass(frozen=True)
class ReplayStep:
    """One moment of a revealed hand, everything face up: after ``move`` (the
    deal when None), what each active player holds, the pile's top and the stock."""

    move: PublicMove | None
    box: tuple[Card, ...]
    captain: tuple[Card, ...]
    pile_top: Card | None
    stock_count: int


DEAL_PLACES = ("captain", "box")  # hand.py ``deal``: the captain first, then in turn


@dataclass(frozen=True)
class PublicHandView:
    """A hand on the public page: its result once it ends, and its deck, salt,
    moves and replay once revealed (``is_revealed``); before that, its commitment only."""

    number: int
    roles: tuple[tuple[str, str], ...]  # (role, name) for box, captain, sitter, as dealt
    result: str
    winner: str
    points: int
    summary: dict
    commitment: str
    deck: str = ""
    salt: str = ""
    moves: tuple[PublicMove, ...] = ()
    steps: tuple[ReplayStep, ...] = ()
    dealt: tuple[tuple[Card, str], ...] = ()  # each card of the deck and where the deal put it
    is_revealed: bool = False
    is_detailed: bool = False  # with its deck, moves and replay (one hand per page: see ``public_match_view``)


@dataclass(frozen=True)
class PublicMatchView:
    """A match as the public page shows it."""

    code: str
    status: str
    status_label: str
    target: int
    seats: tuple[SeatView, ...]
    winner: str
    table: PublicTableView | None
    hands: tuple[PublicHandView, ...]
    created_at: datetime
    finished_at: datetime | None
    version: int = 0
    options: dict = field(default_factory=dict)
    seat_names: tuple[tuple[str, ...], ...] = ()  # per seat, everyone who held it, in order
    scores: tuple[tuple[int, ...], ...] = ()  # the three cumulative scores before hand 1 and after each hand
    player_ids: dict[str, int] = field(default_factory=dict)  # name -> player, for links


PLAYER_FIELDS = ("box_player", "captain_player", "sitter_player", "winner_player")


def is_revealed(match: Match, hand_row: HandRow) -> bool:
    """A hand's deck becomes public when the hand ends, or when its match ends
    with the hand unfinished (an aborted or adjudicated match)."""
    return hand_row.is_over or match.status in (Match.Status.FINISHED, Match.Status.ABORTED)


def public_table_view(
    match: Match,
    seats: list[Seat],
    hand_row: HandRow,
    hand: Hand,
    last_moves: tuple[MoveView, ...] = (),
    logged: list[tuple[dict, str | None]] | None = None,
) -> PublicTableView:
    """The hand in play for someone who holds no seat: what lies face up and the
    counts, and (given the hand's ``logged`` moves) the hand so far as anyone saw it."""
    names = {seat.position: seat.player.display_name for seat in seats}
    moves = ()
    if logged is not None:
        players = hand_players(hand_row, seats)
        moves = tuple(step.move for step in _steps(hand.deck, match, players, logged, revealed=False)[1:])
    return PublicTableView(
        code=match.code,
        hand_number=hand_row.number,
        seats=seat_views(seats, hand_row),
        pile_top=hand.pile[-1] if hand.pile else None,
        stock_count=len(hand.stock),
        to_move=names[seat_of_role(hand_row, hand.to_move)],
        to_move_role=hand.to_move.value,
        phase=hand.phase.value,
        deadline=match.deadline,
        paused=match.is_paused,
        commitment=hand_row.commitment,
        last_moves=tuple(move.without_advice() for move in last_moves),
        moves=moves,
        version=match.version,
    )


def _steps(
    deck: tuple[Card, ...],
    match: Match,
    players: dict[str, Player],
    logged: list[tuple[dict, str | None]],
    revealed: bool,
) -> list[ReplayStep]:
    """The hand replayed by the engine from its deck, move by move. Unless
    ``revealed``, a step holds only what lies face up: no hand's cards, and a
    draw without its card."""
    hand = deal(deck, match.options)

    def held(cards: tuple[Card, ...]) -> tuple[Card, ...]:
        return tuple(sorted(cards)) if revealed else ()

    steps = [ReplayStep(None, held(hand.box), held(hand.captain), hand.pile[-1], len(hand.stock))]
    for data, actor in logged:
        hand, events = hand.apply(parse_action(data["move"]))
        event = events[0]
        card = event.card if revealed or event.kind != "draw" else None
        name = actor or players[data["role"]].display_name
        move = PublicMove(name, data["role"], event.kind, card, _public_note(data.get("automatic", "")))
        pile_top = hand.pile[-1] if hand.pile else None
        steps.append(ReplayStep(move, held(hand.box), held(hand.captain), pile_top, len(hand.stock)))
    return steps


def _public_note(automatic: str) -> str:
    """How a move was made, as anyone may know it: a timeout or a computer, but
    never whether the team followed the sitter's advice (R3.2)."""
    return {"suggestion": "", "timeout-suggestion": "timeout"}.get(automatic, automatic)


def hand_players(hand_row: HandRow, seats: list[Seat]) -> dict[str, Player]:
    """Who played each role of a hand, as dealt (``Hand.box_player``...); a seat's
    player now only for a hand that has no record of its own."""
    by_position = {seat.position: seat.player for seat in seats}
    return {
        role: getattr(hand_row, f"{role}_player") or by_position[position]
        for position, role in role_names(hand_row).items()
    }


def hand_winner(hand_row: HandRow, seats: list[Seat]) -> Player | None:
    """Who scored a hand: the player who held the winning seat when it was won."""
    if hand_row.winner is None:
        return None
    return hand_row.winner_player or next(seat.player for seat in seats if seat.position == hand_row.winner)


def public_hand_view(
    match: Match,
    seats: list[Seat],
    hand_row: HandRow,
    logged: list[tuple[dict, str | None]] | None = None,
    detailed: bool = True,
) -> PublicHandView:
    """One hand's public record, naming the players who played it (not those
    seated now); the secret parts, its moves and its replay only once
    ``is_revealed``, and only if ``detailed``. ``logged``: its moves (data,
    actor's name) if already loaded."""
    players = hand_players(hand_row, seats)
    roles = tuple((role, player.display_name) for role, player in players.items())
    winner = hand_winner(hand_row, seats)
    view = PublicHandView(
        number=hand_row.number,
        roles=roles,
        result=hand_row.result,
        winner=winner.display_name if winner else "",
        points=hand_row.points,
        summary=hand_row.summary if hand_row.is_over else {},
        commitment=hand_row.commitment,
    )
    if not is_revealed(match, hand_row):
        return view
    if not detailed:
        return replace(view, is_revealed=True)
    if logged is None:
        logged = list(
            hand_row.events.filter(kind=state.MOVE).order_by("seq").values_list("data", "actor__display_name")
        )
    deck = tuple(parse_cards(hand_row.deck))
    steps = _steps(deck, match, players, logged, revealed=True)
    places = [DEAL_PLACES[index % 2] for index in range(20)] + ["upcard"] + ["stock"] * (len(deck) - 21)
    return replace(
        view,
        deck=hand_row.deck,
        salt=hand_row.salt,
        moves=tuple(step.move for step in steps[1:]),
        steps=tuple(steps),
        dealt=tuple(zip(deck, places, strict=True)),
        is_revealed=True,
        is_detailed=True,
    )


def public_match_view(match: Match, detail: int | None = None) -> PublicMatchView:
    """The whole match for the public page: the table in play while it runs
    (``public_table_view``), every hand's record (``public_hand_view``), and
    one revealed hand in full, with its moves and replay: hand number
    ``detail``, or the last one that ended. A fixed number of queries, and work
    that does not grow with the number of hands."""
    seats = state.seats_of(match)
    hand_rows = list(match.hands.select_related(*PLAYER_FIELDS).order_by("number"))
    revealed = [row for row in hand_rows if is_revealed(match, row)]
    ended = [row for row in revealed if row.is_over] or revealed  # a hand stopped by an admin is seldom the one to see
    shown = next((row for row in revealed if row.number == detail), ended[-1] if ended else None)
    running = hand_rows[-1] if match.status == Match.Status.RUNNING and hand_rows else None
    wanted = [row.pk for row in (shown, running) if row is not None]
    logged: dict[int, list[tuple[dict, str | None]]] = {pk: [] for pk in wanted}
    moves = Event.objects.filter(match=match, kind=state.MOVE, hand__in=wanted).order_by("seq")
    for hand_id, data, actor in moves.values_list("hand_id", "data", "actor__display_name") if wanted else ():
        logged[hand_id].append((data, actor))
    table = None
    if running is not None:
        actions = [parse_action(data["move"]) for data, _actor in logged[running.pk]]
        hand = replay(parse_cards(running.deck), actions, match.options)
        table = public_table_view(match, seats, running, hand, logged=logged[running.pk])
    hands = tuple(public_hand_view(match, seats, row, logged.get(row.pk), detailed=row is shown) for row in hand_rows)
    return PublicMatchView(
        code=match.code,
        status=match.status,
        status_label=match.get_status_display(),
        target=match.target,
        seats=seat_views(seats, hand_rows[-1] if table else None),
        winner=match.winner.display_name if match.winner else "",
        table=table,
        hands=hands,
        created_at=match.created_at,
        finished_at=match.finished_at,
        version=match.version,
        options={
            "target": match.target,
            "gin_bonus": match.gin_bonus,
            "undercut_bonus": match.undercut_bonus,
            "may_discard_taken": match.may_discard_taken,
            "move_seconds": match.move_seconds,
        },
        seat_names=_seat_names(seats, hand_rows),
        scores=_score_history(hand_rows),
        player_ids=_player_ids(seats, hand_rows),
    )


def public_live_view(match: Match) -> PublicTableView | None:
    """The table in play of a running match, for the live page: only the
    current hand is read, whatever the length of the match."""
    if match.status != Match.Status.RUNNING:
        return None
    current = match.hands.select_related(*PLAYER_FIELDS).order_by("-number").first()
    if current is None:
        return None
    seats = state.seats_of(match)
    logged = list(current.events.filter(kind=state.MOVE).order_by("seq").values_list("data", "actor__display_name"))
    hand = replay(parse_cards(current.deck), [parse_action(data["move"]) for data, _actor in logged], match.options)
    return public_table_view(match, seats, current, hand, logged=logged)


def _seat_names(seats: list[Seat], hand_rows: list[HandRow]) -> tuple[tuple[str, ...], ...]:
    """Who held each seat, in order: one name, or two after a replacement."""
    held: dict[int, list[str]] = {seat.position: [] for seat in seats}
    for row in hand_rows:
        for role, player in hand_players(row, seats).items():
            names = held[getattr(row, role)]
            if not names or names[-1] != player.display_name:
                names.append(player.display_name)
    for seat in seats:
        names = held[seat.position]
        if not names or names[-1] != seat.player.display_name:
            names.append(seat.player.display_name)
    return tuple(tuple(held[position]) for position in sorted(held))


def _score_history(hand_rows: list[HandRow]) -> tuple[tuple[int, ...], ...]:
    """The seats' cumulative scores at the start and after each hand that ended."""
    scores = [0, 0, 0]
    history = [tuple(scores)]
    for row in hand_rows:
        if not row.is_over:
            continue
        if row.winner is not None:
            scores[row.winner] += row.points
        history.append(tuple(scores))
    return tuple(history)


def _player_ids(seats: list[Seat], hand_rows: list[HandRow]) -> dict[str, int]:
    ids = {seat.player.display_name: seat.player_id for seat in seats}
    for row in hand_rows:
        for player in hand_players(row, seats).values():
            ids.setdefault(player.display_name, player.pk)
    return ids


HIDDEN = "…"


def event_text(event: Event) -> str:
    """An event's data as the moderation desk may show it. Moves name only
    cards laid face up, and "hand_over" reveals a deck that is public by then;
    a sitter's suggestion names a card of the captain's hand, so it is hidden
    until that hand is revealed. Team talk may name the cards of a hand in
    play too: it is read only once the match is over, or once a player has
    reported the match (``report TEXT``) and the desk must see what was said."""
    data = dict(event.data)
    if event.kind == "suggestion" and event.hand and not is_revealed(event.match, event.hand):
        data["move"] = HIDDEN
    if event.kind == "team" and "text" in data and not team_talk_open(event.match):
        data["text"] = HIDDEN
    return ", ".join(f"{key}: {value}" for key, value in data.items())


def team_talk_open(match: Match) -> bool:
    """Whether the desk may read a match's team talk: it is over, or it was reported."""
    ended = match.status in (Match.Status.FINISHED, Match.Status.ABORTED)
    return ended or Report.objects.filter(match=match).exists()


def message_text(message: Outbox) -> str:
    """An outgoing message's text for the moderation desk. A message may show
    its recipient's cards, so while a hand they could belong to is in play (its
    match runs; for a reply, which names no match, any match runs in which he
    sits or was dealt the hand in play, as a player whose seat a moderator gave
    to a computer was) only a note is shown."""
    if message.match_id:
        matches = Match.objects.filter(pk=message.match_id)
    else:
        reader = message.recipient_id
        matches = Match.objects.filter(
            Q(seats__player=reader)
            | Q(current_hand__box_player=reader)
            | Q(current_hand__captain_player=reader)
            | Q(current_hand__sitter_player=reader)
        )
    if matches.filter(status=Match.Status.RUNNING).exists():
        return gettext("(hidden while the match runs: it may show a player's cards)")
    return message.text
