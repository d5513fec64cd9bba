"""Moves a computer makes: a computer player's, the autopilot's for an absent player, a computer sitter's advice.

Each runs in its own change after the one that made it due (``turns.computer_next``),
checked against the version it was made for, so a late or repeated task does
nothing. A computer chooses from what its seat may know (``advice.mover_view``),
with chance seeded by the hand and the version, so that a task run twice chooses
the same move; its move goes through ``play.apply_move`` like every other.
"""

from __future__ import annotations

import time
from collections.abc import Collection

from django.db.models import Exists, F, OuterRef, Q
from django.utils import timezone

from games import metrics
from games.contract.tables import Automatic
from games.engine import Action, Draw, Hand, Pass
from games.engine.hand import Discard, Phase
from games.engine.levels import make_strategy
from games.models import Match, Seat, Strength
from games.services.plumbing import clocks
from games.services.plumbing.change import change
from games.services.write import advice
from games.services.write.advice import mover_view
from games.services.write.locked_table import Table, still_current
from games.services.write.play import apply_move
from games.services.write.turns import waits_for_advice

# The autopilot plays for a person who kept missing turns: as well as a computer can.
AUTOPILOT_STRENGTH = Strength.HARD


def play_computer_move(match_id: int, version: int | None = None) -> bool:
    """If a computer player is to move, play one move. True if it did. Not while
    an admin has paused the match: a pause holds everything that plays by itself;
    nor while a computer captain waits for its sitter's advice (``turns.waits_for_advice``).
    When a person captains with a computer sitter, the sitter suggests instead, once
    for the moment (False: no move was played)."""
    started = time.perf_counter()
    with change():
        table = still_current(match_id, version)
        if table is None or table.match.is_paused:
            return False
        if not table.computer_plays(table.mover):
            advice.advise_as_computer(table)
            return False
        if waits_for_advice(table) and table.match.deadline and table.match.deadline > timezone.now():
            return False
        play_for_computer(table)
    metrics.COMPUTER_MOVE.observe(time.perf_counter() - started)
    return True


def play_for_computer(table: Table) -> None:
    """The computer's move for the seat to move; a computer captain reads the waiting
    suggestion of a person who sits out (``advice.read_suggestion``)."""
    position = table.mover
    seat = table.seat(position)
    level = seat.player.strength or AUTOPILOT_STRENGTH
    suggestion = advice.person_suggestion(table)
    action = advice.read_suggestion(table, level, suggestion) if suggestion else computer_choice(table, level)
    automatic = Automatic.COMPUTER if seat.player.is_computer else Automatic.AUTOPILOT
    apply_move(table, position, action, seat.player if seat.player.is_computer else None, automatic=automatic)


def computer_choice(table: Table, strength: str) -> Action:
    """The move a computer player of ``strength`` makes for the seat to move: from what
    that seat may know (``bot_view``), with chance seeded by the hand and the match's
    version, so that a task run twice chooses the same move."""
    strategy = make_strategy(strength, advice.chance(table, strength), advice.search_budget())
    return strategy.choose(mover_view(table))


def safe_move(hand: Hand) -> Action:
    """A move that never ends the hand: refuse the upcard, draw from the stock, discard
    the card that leaves the lowest count (the highest such card on a tie); never knock.
    For the benchmarks and tests that play long games (a timeout plays as a computer)."""
    if hand.phase is Phase.UPCARD:
        return Pass()
    if hand.phase is Phase.DRAW:
        return Draw()
    discards = [action for action in hand.legal_actions() if isinstance(action, Discard)]
    return min(discards, key=lambda d: (hand.count_after_discard(d.card), -d.card.points, -d.card))


def computers_to_move(match_ids: Collection[int]) -> list[int]:
    """Which of these running, unpaused matches wait on a computer: a computer player (or
    a computer playing for an absent player) to move, unless it waits for its sitter's
    advice (a deadline past the computer's grace: ``turns.waits_for_advice``), or a
    computer sitter to advise the person who captains. One query, no replay."""
    computer = Seat.objects.filter(match=OuterRef("pk"), position=OuterRef("turn_seat")).filter(
        Q(autopilot=True) | Q(player__is_computer=True)
    )
    sitter = Seat.objects.filter(
        match=OuterRef("pk"), position=OuterRef("current_hand__sitter"), player__is_computer=True
    )
    waiting = Q(deadline__gt=timezone.now() + clocks.COMPUTER_GRACE)
    advised = Q(current_hand__suggestion_version=F("version"))
    running = Match.objects.filter(pk__in=match_ids, status=Match.Status.RUNNING, paused_at__isnull=True)
    moves = Exists(computer) & ~waiting
    advises = ~Exists(computer) & Exists(sitter) & Q(turn_seat=F("current_hand__captain")) & ~advised
    return list(running.filter(moves | advises).values_list("pk", flat=True))
