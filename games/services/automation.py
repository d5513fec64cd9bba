"""Moves nobody typed: computer players, the sitter's suggestion, and timeouts.

They go through ``play.apply_move`` like every other move, each in its own
transaction after the one that made it due, and each checked against the
version it was scheduled for, so a late or repeated task does nothing.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext as _

from games.engine import Action, Draw, Event, Hand, Pass, Role
from games.engine.bots import bot_view, make_strategy
from games.engine.hand import Discard, Phase, parse_action
from games.text.render import deadline_text

from ..models import Match, Outbox, Player, Seat
from . import outbox
from .errors import ServiceError
from .play import Table, apply_move, load_table

TIMEOUTS_BEFORE_AUTOPILOT = 3
AUTOPILOT_STRENGTH = "strong"
# A computer move is played by a task at once; one this late was lost, and the sweep plays it.
COMPUTER_MOVE_GRACE = timedelta(seconds=10)


def computer_plays(table: Table, position: int) -> bool:
    seat = table.seat(position)
    return seat.player.is_computer or seat.autopilot


def _still_current(match_id: int, version: int | None) -> Table | None:
    """The locked table, if the match still runs at ``version``: a task made for an
    earlier moment, or run twice, finds None and does nothing."""
    try:
        return load_table(match_id, version)
    except ServiceError:
        return None


def play_computer_move(match_id: int, version: int | None = None) -> bool:
    """If a computer player is to move, play one move. True if it did. Not while
    an admin has paused the match: a pause holds everything that plays by itself."""
    with transaction.atomic():
        table = _still_current(match_id, version)
        if table is None or table.match.is_paused:
            return False
        position = table.mover
        if not computer_plays(table, position):
            return False
        seat = table.seat(position)
        strength = seat.player.strength or AUTOPILOT_STRENGTH
        rng = random.Random(f"{table.hand_row.commitment}:{table.match.version}")
        role = table.hand.to_move
        scores = {role: seat.score, role.opponent: table.seat(table.position_of_role(role.opponent)).score}
        view = bot_view(table.hand, role, public_log(table), scores)
        action = make_strategy(strength, rng).choose(view)
        apply_move(table, position, action, seat.player, automatic="computer")
        return True


def public_log(table: Table) -> list[Event]:
    """The hand's moves as everyone saw them: a draw never carries its card."""
    log = []
    for data in table.hand_row.events.filter(kind="move").order_by("seq").values_list("data", flat=True):
        action = parse_action(data["move"])
        log.append(Event(str(action).split()[0], Role(data["role"]), getattr(action, "card", None)))
    return log


def safe_move(hand: Hand) -> Action:
    """What a player who is away does (issue: turn clocks): refuse the upcard,
    draw from the stock, discard the card that leaves the lowest count (the
    highest such card on a tie); never knock."""
    if hand.phase is Phase.UPCARD:
        return Pass()
    if hand.phase is Phase.DRAW:
        return Draw()
    discards = [action for action in hand.legal_actions() if isinstance(action, Discard)]
    return min(discards, key=lambda d: (hand.count_after_discard(d.card), -d.card.points, -d.card))


def enforce_deadline(match_id: int, version: int | None = None) -> bool:
    """At the deadline: play the sitter's waiting suggestion or a safe move, and end
    the turn with a safe discard if that took a card. After three missed turns in a
    row a computer player takes the seat. True if it acted."""
    with transaction.atomic():
        table = _still_current(match_id, version)
        if table is None:
            return False
        match = table.match
        if match.is_paused or match.deadline is None or match.deadline > timezone.now():
            return False
        position = table.mover
        seat = table.seat(position)
        suggestion = waiting_suggestion(table)
        action = suggestion or safe_move(table.hand)
        seat.timeouts_in_row += 1
        if seat.timeouts_in_row >= TIMEOUTS_BEFORE_AUTOPILOT and not (seat.autopilot or seat.player.is_computer):
            seat.autopilot = True
            for other in table.seats:
                outbox.send(
                    other.player,
                    "autopilot",
                    lambda: _(
                        "%(name)s missed %(count)s turns in a row: a computer player plays for him. "
                        "He can come back with any command in #%(code)s."
                    )
                    % {"name": seat.player.display_name, "count": seat.timeouts_in_row, "code": match.code},
                    match,
                )
        seat.save(update_fields=["timeouts_in_row", "autopilot"])
        apply_move(table, position, action, None, automatic="timeout-suggestion" if suggestion else "timeout")
        if table.hand.phase is Phase.DISCARD:
            # A missed turn is one timeout: after taking a card the turn ends with a discard now,
            # not at a second deadline that has passed already (the turn's deadline stays).
            apply_move(table, position, safe_move(table.hand), None, automatic="timeout")
        return True


def waiting_suggestion(table: Table) -> Action | None:
    """The sitter's latest suggestion, if it was made for this moment and is still legal."""
    hand_row = table.hand_row
    if table.hand.to_move is not Role.CAPTAIN or not hand_row.suggestion:
        return None
    if hand_row.suggestion_version != table.match.version:
        return None
    action = parse_action(hand_row.suggestion)
    return action if action in table.hand.legal_actions() else None


def due_deadlines(now=None) -> list[tuple[int, int]]:
    """Running, unpaused matches whose deadline has passed, for the sweep."""
    now = now or timezone.now()
    return list(
        Match.objects.filter(status=Match.Status.RUNNING, paused_at__isnull=True, deadline__lte=now).values_list(
            "pk", "version"
        )
    )


def due_reminders(now=None) -> list[tuple[int, int]]:
    """Matches past 80% of the time for the current move and not yet reminded."""
    now = now or timezone.now()
    found = []
    candidates = Match.objects.filter(
        status=Match.Status.RUNNING, paused_at__isnull=True, reminded=False, deadline__gt=now
    )
    for match_id, version, deadline, seconds in candidates.values_list("pk", "version", "deadline", "move_seconds"):
        if deadline - now <= timedelta(seconds=seconds * 0.2):
            found.append((match_id, version))
    return found


def send_reminder(match_id: int, version: int | None = None) -> bool:
    """Remind the player to move once, when 80% of his time is used."""
    with transaction.atomic():
        table = _still_current(match_id, version)
        if table is None:
            return False
        match = table.match
        if match.reminded or match.is_paused or match.deadline is None:
            return False
        match.reminded = True
        match.save(update_fields=["reminded"])
        player = table.seat(table.mover).player
        deadline = match.deadline
        outbox.send(
            player,
            "reminder",
            lambda: _("Reminder: it is your move in #%(code)s. Time runs out %(when)s.")
            % {"code": match.code, "when": deadline_text(deadline)},
            match,
        )
        return True


def due_computer_moves(now: datetime | None = None) -> list[tuple[int, int]]:
    """Running, unpaused matches where a computer player (or the autopilot) is to move
    and nothing has happened for a while, for the sweep: the task that should have
    played was lost."""
    now = now or timezone.now()
    computer_to_move = Seat.objects.filter(match=OuterRef("pk"), position=OuterRef("turn_seat")).filter(
        Q(autopilot=True) | Q(player__is_computer=True)
    )
    return list(
        Match.objects.filter(status=Match.Status.RUNNING, paused_at__isnull=True)
        .alias(last_change=Coalesce("last_move_at", "started_at"))
        .filter(Exists(computer_to_move), last_change__lte=now - COMPUTER_MOVE_GRACE)
        .values_list("pk", "version")
    )


UNREACHABLE_FLAGS = {Outbox.Channel.TELEGRAM: "telegram_blocked", Outbox.Channel.SMS: "sms_opted_out"}


def player_unreachable(player: Player, channel: str) -> bool:
    """Delivery found that ``player`` can't be reached on ``channel`` any more (he
    blocked the bot, sent STOP, the number is dead): stop writing to him there. If
    nothing else reaches him, tell the others in his matches that his turns will be
    played when his time runs out (and by a computer after three). True if it was news."""
    flag = UNREACHABLE_FLAGS.get(channel)
    if flag is None:
        return False
    with transaction.atomic():
        player = Player.objects.select_for_update().get(pk=player.pk)
        if getattr(player, flag):
            return False
        setattr(player, flag, True)
        player.save(update_fields=[flag])
        if outbox.route(player) is not None:
            return True
        matches = Match.objects.filter(seats__player=player, status__in=(Match.Status.LOBBY, Match.Status.RUNNING))
        for match in matches:
            for seat in match.seats.select_related("player").exclude(player=player):
                outbox.send(seat.player, "unreachable", _unreachable_text(player, match), match)
    return True


def _unreachable_text(player: Player, match: Match):
    return lambda: _(
        "%(name)s can't be reached any more. His turns in #%(code)s will be played for him when his time runs out."
    ) % {"name": player.display_name, "code": match.code}
