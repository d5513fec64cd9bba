"""What the page tests share: matches in a known state, and reading cards off a
page or a JSON response in every notation they may take there."""

from __future__ import annotations

import re
from itertools import count

from django.utils import timezone

from games.engine import DECK, Card, format_cards
from games.models import Hand, Match, Player, Seat
from games.services import handle
from games.services.plumbing.change import change
from games.services.plumbing.state import commitment_of
from games.services.write import computer_moves, records
from games.services.write.locked_table import load_table

ASCII_CARD = re.compile(r"(?<![\w-])(?:10|[A2-9TJQK])[shdc](?![\w])")
SYMBOL_CARD = re.compile(r"(10|[A2-9JQK])(?:<span class=\"suit\">)?([♠♥♦♣])")
SUIT_LETTERS = dict(zip("♠♥♦♣", "shdc", strict=True))
codes = count(1)


def cards_on(text: str) -> set[str]:
    """Every card named on a page or in a JSON document: ``7h``, ``10d``, or ``7♥`` as the pages draw it."""
    found = {token.replace("10", "T") for token in ASCII_CARD.findall(text)}
    found |= {("T" if rank == "10" else rank) + SUIT_LETTERS[suit] for rank, suit in SYMBOL_CARD.findall(text)}
    return found


def running_match(player: Player, options: str = "") -> Match:
    """A running match of ``player`` and two computer players."""
    handle(player, f"new {options}".strip(), "terminal")
    handle(player, "bot", "terminal")
    handle(player, "bot", "terminal")
    return Match.objects.get(seats__player=player, status=Match.Status.RUNNING)


def step(match: Match, player: Player) -> None:
    """One move: a computer player's if one is to move, else the player's safe move."""
    if computer_moves.play_computer_move(match.pk):
        return
    with change():
        move = computer_moves.safe_move(load_table(match.pk).hand)
    handle(player, str(move), "terminal")


def secret_cards(match: Match) -> set[str]:
    """The cards nobody outside may know now: those in a hand or the stock that
    never lay face up on the pile in this hand (a card taken back from the pile
    was seen by all)."""
    with change():
        table = load_table(match.pk)
    hand = table.hand
    seen = {str(hand.deck[20])}
    for data in table.hand_row.events.filter(kind="move").values_list("data", flat=True):
        if data["move"].split()[0] in ("discard", "knock"):
            seen.add(data["move"].split()[1])
    return {str(card) for card in (*hand.box, *hand.captain, *hand.stock)} - seen


def finished_match(players: list[Player], scores: list[int], winner: Player, days_ago: int = 0) -> Match:
    """A finished match as the services would leave it, records included, without playing it."""
    finished_at = timezone.now() - timezone.timedelta(days=days_ago)
    match = Match.objects.create(
        code=f"T{next(codes)}", status=Match.Status.FINISHED, winner=winner, finished_at=finished_at
    )
    for position, (player, score) in enumerate(zip(players, scores, strict=True)):
        Seat.objects.create(match=match, player=player, position=position, score=score)
    best = scores.index(max(scores))
    Hand.objects.create(
        match=match,
        number=1,
        box=best,
        captain=(best + 1) % 3,
        sitter=(best + 2) % 3,
        box_player=players[best],
        captain_player=players[(best + 1) % 3],
        sitter_player=players[(best + 2) % 3],
        deck=format_cards(DECK),
        salt="00",
        commitment=commitment_of(format_cards(DECK), "00"),
        result="gin",
        winner=best,
        winner_player=players[best],
        points=max(scores),
        ended_at=finished_at,
    )
    with change():
        records.match_finished(match, winner, "target")
    return match


def all_cards() -> set[str]:
    return {str(Card(index)) for index in range(52)}
