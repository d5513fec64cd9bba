"""Public pages: the scoreboard and each match, built from public views only.

What a page may show of a match is decided in ``games.services.visibility``
(``public_match_view``); the pages never read a hand's deck themselves.
"""

from __future__ import annotations

from django.db.models import F, Func, IntegerField, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from .models import Hand, Match, Player, Seat
from .services.visibility import public_match_view

FINISHED = Match.Status.FINISHED
RECENT = 20


def scoreboard(request: HttpRequest) -> HttpResponse:
    """Players ranked by matches won, then points; recent and running matches."""
    matches = Match.objects.select_related("winner").prefetch_related("seats__player")
    context = {
        "players": ranked_players(),
        "finished": matches.filter(status=FINISHED).order_by("-finished_at")[:RECENT],
        "running": matches.filter(status=Match.Status.RUNNING).order_by("-last_move_at", "-pk"),
    }
    return render(request, "games/scoreboard.html", context)


def match_page(request: HttpRequest, code: str) -> HttpResponse:
    match = get_object_or_404(Match.objects.select_related("winner"), code=code.upper())
    return render(request, "games/match.html", {"match": public_match_view(match)})


def ranked_players() -> QuerySet[Player]:
    """Every player with a finished match, with his totals over finished matches
    (aborted ones do not count), best first."""
    seats = Seat.objects.filter(match__status=FINISHED, player=OuterRef("pk"))
    return (
        Player.objects.annotate(
            games=_total(seats),
            wins=_total(seats.filter(match__winner=F("player"))),
            points=_total(seats, "SUM", "score"),
            gins=_total(_hands_won("gin")),
            undercuts=_total(_hands_won("undercut")),
        )
        .filter(games__gt=0)
        .order_by("-wins", "-points", "display_name")
    )


def _hands_won(result: str) -> QuerySet[Hand]:
    """Hands of finished matches with this result that the player won; one
    ``filter`` so that the seat matched by position is the player's own."""
    return Hand.objects.filter(
        match__status=FINISHED,
        result=result,
        match__seats__position=F("winner"),
        match__seats__player=OuterRef("pk"),
    )


def _total(rows: QuerySet, function: str = "COUNT", field: str = "pk") -> Coalesce:
    """A per-player total as its own subquery: totals over seats and over hands
    would multiply each other's rows if they were joined in one query."""
    total = rows.order_by().annotate(total=Func(field, function=function)).values("total")
    return Coalesce(Subquery(total), 0, output_field=IntegerField())
