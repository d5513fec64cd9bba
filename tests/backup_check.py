"""What a backup must keep of every match, computed by a process on one database
(``tests/test_backup.py`` runs it on the original and on the restored copy).

Printed as JSON: for every match, what reads it (each seat's view of the table,
its public page), what its hands replay to from the event log, whether each
deck commitment checks, and, for a running match, what one more move does (a
safe move, which never ends the hand: the next deal's shuffle is new on either
side)."""

from __future__ import annotations

import json

from django.test import Client

from games.models import Hand, Match
from games.services import handle
from games.services.plumbing import state
from games.services.plumbing.change import change
from games.services.write import computer_moves, locked_table


def match_record(match: Match) -> dict:
    hands = []
    for row in Hand.objects.filter(match=match).order_by("number"):
        hands.append(
            {
                "number": row.number,
                "commitment_checks": state.commitment_of(row.deck, row.salt) == row.commitment,
                "replayed": repr(state.load_hand(match, row)),
            }
        )
    views = []
    if match.status == Match.Status.RUNNING:
        with change():
            table = locked_table.load_table(match.pk)
            views = [repr(table.view(seat.position)) for seat in match.seats.order_by("position")]
    page = Client(HTTP_HOST="localhost").get(f"/m/{match.code}/")
    return {
        "code": match.code,
        "status": match.status,
        "version": match.version,
        "events": match.events.count(),
        "scores": list(match.seats.order_by("position").values_list("score", flat=True)),
        "hands": hands,
        "views": views,
        "page": page.status_code,
    }


def play_on(match: Match) -> dict:
    """One more move in a running match: the computer's, or a safe one for the person to move."""
    seat = match.seats.select_related("player").get(position=match.turn_seat)
    if seat.player.is_computer or seat.autopilot:
        moved = computer_moves.play_computer_move(match.pk)
        how = "computer"
    else:
        with change():
            move = str(computer_moves.safe_move(locked_table.load_table(match.pk).hand))
        handle(seat.player, f"#{match.code} {move}", "terminal")
        moved, how = True, move
    after = Match.objects.get(pk=match.pk)
    return {"code": match.code, "moved": moved, "how": how, "version": after.version, "events": after.events.count()}


def report() -> None:
    matches = list(Match.objects.order_by("code"))
    records = [match_record(match) for match in matches]
    played = [play_on(match) for match in matches if match.status == Match.Status.RUNNING and not match.is_paused]
    print(json.dumps({"matches": records, "played_on": played}))
