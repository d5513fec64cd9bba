"""What anyone may see, seat or none: the seats, the public pages, a Telegram group's table, the replays.

The seats (names, roles, scores) and the hand in play as it lies face up, with
its counts (``public_table_view``), are anyone's; a hand's deck, its cards and
its replay become public once it ends, or once its match ends with it unfinished
(``is_revealed``). The public views name the players who played each hand, not
those seated now. A seat's own table is built on these (``tables``), never the
other way round.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from django.utils import timezone

from games.contract.public import PublicHandView, PublicMatchView, PublicMove, PublicTableView, ReplayStep, ReviewMark
from games.contract.tables import Automatic, MoveView, SeatView
from games.engine import Card, Hand, deal, parse_action, parse_cards, replay
from games.models import Event, Match, Player, Seat
from games.models import Hand as HandRow
from games.services.plumbing import state

DEAL_PLACES = ("captain", "box")  # hand.py ``deal``: the captain first, then in turn
PLAYER_FIELDS = ("box_player", "captain_player", "sitter_player", "winner_player")


def seat_views(seats: list[Seat], hand_row: HandRow | None) -> tuple[SeatView, ...]:
    """The seats as anyone may see them: names, roles in ``hand_row``, scores, whether a
    computer player holds the seat or a computer plays it for an absent person, and a
    time off that has not ended."""
    roles = role_names(hand_row) if hand_row else {}
    now = timezone.now()
    return tuple(
        SeatView(
            seat.player.display_name,
            seat.position,
            roles.get(seat.position, ""),
            seat.score,
            seat.player.is_computer,
            seat.autopilot,
            seat.player.away_until if seat.player.away_until and seat.player.away_until > now else None,
        )
        for seat in seats
    )


def role_names(hand_row: HandRow) -> dict[int, str]:
    """Each seat's role in a hand, by name: ``{0: "box", 1: "captain", 2: "sitter"}``."""
    return {seat: role.value for seat, role in hand_row.roles.by_seat().items()}


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
    logged: Sequence[tuple[dict, str | None]] | None = None,
) -> PublicTableView:
    """The hand in play for someone who holds no seat: what lies face up and the
    counts, and (given the hand's ``logged`` moves) the hand so far as anyone saw it."""
    names = {seat.position: seat.player.display_name for seat in seats}
    moves: tuple[PublicMove, ...] = ()
    if logged is not None:
        players = hand_players(hand_row, seats)
        moves = _moves(_steps(hand.deck, match, players, logged, revealed=False))
    return PublicTableView(
        code=match.code,
        hand_number=hand_row.number,
        seats=seat_views(seats, hand_row),
        pile_top=hand.pile[-1] if hand.pile else None,
        stock_count=len(hand.stock),
        to_move=names[hand_row.roles.seat_of(hand.to_move)],
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
    logged: Sequence[tuple[dict, str | None]],
    revealed: bool,
) -> list[ReplayStep]:
    """The hand replayed by the engine from its deck, move by move. Unless
    ``revealed``, a step holds only what lies face up: no hand's cards, and a
    draw without its card."""
    hand = deal(deck, match.rules)

    def held(cards: tuple[Card, ...]) -> tuple[Card, ...]:
        return tuple(sorted(cards)) if revealed else ()

    steps = [ReplayStep(None, held(hand.box), held(hand.captain), hand.pile[-1], len(hand.stock))]
    for data, actor in logged:
        hand, events = hand.apply(parse_action(data["move"]))
        event = events[0]
        card = event.card if revealed or event.kind != "draw" else None
        name = actor or players[data["role"]].display_name
        how = Automatic(data.get("automatic", "")).public()  # never whether the team took advice (R3.2)
        move = PublicMove(name, data["role"], event.kind, card, how)
        pile_top = hand.pile[-1] if hand.pile else None
        steps.append(ReplayStep(move, held(hand.box), held(hand.captain), pile_top, len(hand.stock)))
    return steps


def _moves(steps: list[ReplayStep]) -> tuple[PublicMove, ...]:
    """The moves of a replayed hand: every step's but the deal's."""
    return tuple(step.move for step in steps if step.move is not None)


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
    logged: Sequence[tuple[dict, str | None]] | None = None,
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
            hand_row.events.filter(kind=Event.Kind.MOVE).order_by("seq").values_list("data", "actor__display_name")
        )
    deck = tuple(parse_cards(hand_row.deck))
    steps = _steps(deck, match, players, logged, revealed=True)
    places = [DEAL_PLACES[index % 2] for index in range(20)] + ["upcard"] + ["stock"] * (len(deck) - 21)
    return replace(
        view,
        deck=hand_row.deck,
        salt=hand_row.salt,
        moves=_moves(steps),
        steps=tuple(steps),
        dealt=tuple(zip(deck, places, strict=True)),
        is_revealed=True,
        is_detailed=True,
        marks=review_marks(hand_row),
    )


def review_marks(hand_row: HandRow) -> dict[int, ReviewMark]:
    """The review of a finished hand (``services.write.review``), by move: shown only once the
    hand is over, with its cards, since a mark names a card its player held."""
    if not hand_row.is_over or not hand_row.review:
        return {}
    return {
        mark["index"]: ReviewMark(
            mark["better"], mark["points"], mark.get("card", ""), mark.get("why", ""), mark.get("why_card", "")
        )
        for mark in hand_row.review.get("marks", ())
    }


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
    moves = Event.objects.filter(match=match, kind=Event.Kind.MOVE, hand__in=wanted).order_by("seq")
    for hand_id, data, actor in moves.values_list("hand_id", "data", "actor__display_name") if wanted else ():
        logged[hand_id].append((data, actor))
    table = None
    if running is not None:
        actions = [parse_action(data["move"]) for data, _actor in logged[running.pk]]
        hand = replay(parse_cards(running.deck), actions, match.rules)
        table = public_table_view(match, seats, running, hand, logged=logged[running.pk])
    hands = tuple(public_hand_view(match, seats, row, logged.get(row.pk), detailed=row is shown) for row in hand_rows)
    return PublicMatchView(
        code=match.code,
        status=match.status,
        status_label=match.get_status_display(),
        target=match.target,
        seats=seat_views(seats, hand_rows[-1] if hand_rows else None),  # the roles in play, or in the last hand
        winner=match.winner.display_name if match.winner else "",
        table=table,
        hands=hands,
        created_at=match.created_at,
        finished_at=match.finished_at,
        version=match.version,
        options=match.options,
        seat_names=_seat_names(seats, hand_rows),
        scores=_score_history(hand_rows),
        player_ids=_player_ids(seats, hand_rows),
        resigned=_resigned(match),
    )


def _resigned(match: Match) -> str:
    """Who gave a finished match up, if someone did (R10.3): its page says so, and
    that nobody won when the other two had the same score."""
    if match.status != Match.Status.FINISHED:
        return ""
    resigned = Event.objects.filter(match=match, kind=Event.Kind.RESIGNED)
    return resigned.values_list("actor__display_name", flat=True).last() or ""


def public_live_view(match: Match) -> PublicTableView | None:
    """The table in play of a running match, for the live page: only the
    current hand is read, whatever the length of the match."""
    if match.status != Match.Status.RUNNING:
        return None
    current = match.hands.select_related(*PLAYER_FIELDS).order_by("-number").first()
    if current is None:
        return None
    seats = state.seats_of(match)
    logged = list(
        current.events.filter(kind=Event.Kind.MOVE).order_by("seq").values_list("data", "actor__display_name")
    )
    hand = replay(parse_cards(current.deck), [parse_action(data["move"]) for data, _actor in logged], match.rules)
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
