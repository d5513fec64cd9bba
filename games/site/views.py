"""Public pages: the scoreboard, players, matches (with replays and the live
table) and the lobby.

Every page reads kept records (``games.services.write.records``) and the public
views of ``games.services.read.public``, never a hand's deck or another
player's cards: what anyone may see is decided there. Each page costs a fixed
number of queries on indexed rows, whatever the number of matches stored:
lists are cut into pages, and nothing is added up per request.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from datetime import timedelta

from django.conf import settings
from django.db.models import Prefetch, Sum
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotModified, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from games.contract.public import PublicTableView
from games.models import HeadToHead, Match, Player, PlayerDay, PlayerMatch, PlayerRecord, Seat
from games.services.read.public import public_live_view, public_match_view
from games.services.write import signin
from games.site.charts import line_chart
from games.templatetags.gin3 import MOVE_NOTES, MOVE_WORDS
from games.text.card_names import card_name_parts
from games.text.links import join_link
from games.text.options import move_time_text
from games.text.previews import lobby_preview, match_preview, player_preview, scoreboard_preview

PER_PAGE = 25
LAST_PAGE = 2000  # deep enough for 50,000 names; the search finds the rest
COMPUTERS_SHOWN = 10
MATCHES_LISTED = 8
RIVALS = 6
HISTORY = 100
LATEST_SEATS = 200
PERIOD_DAYS = 30
RANKED_AFTER = getattr(settings, "GIN3_RANKED_AFTER", 5)
SEATS = Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("position"))


def _page_number(request: HttpRequest) -> int:
    try:
        return min(max(int(request.GET.get("page", "1")), 1), LAST_PAGE)
    except ValueError:
        return 1


def _one_page(rows, page: int) -> tuple[list, bool]:
    """A page of rows and whether another follows: one more row is read, not
    counted over the table (a COUNT would grow with it). A deep page still
    walks the index entries before it (OFFSET), which grows with the page
    number, never with the table; ``LAST_PAGE`` bounds it."""
    start = (page - 1) * PER_PAGE
    found = list(rows[start : start + PER_PAGE + 1])
    return found[:PER_PAGE], len(found) > PER_PAGE


# Scoreboard -------------------------------------------------------------------


@require_GET
def scoreboard(request: HttpRequest) -> HttpResponse:
    """People by rating (those with ``RANKED_AFTER`` finished matches), all time
    or active in the last 30 days; a search by the start of a name; computers
    apart; the matches being played and the last finished."""
    period = "30d" if request.GET.get("period") == "30d" else "all"
    query = request.GET.get("q", "").strip()[:64]
    page = _page_number(request)
    since = timezone.now().date() - timedelta(days=PERIOD_DAYS - 1)
    records = PlayerRecord.objects.select_related("player")
    if query:
        key = query.casefold()
        rows = records.filter(search_name__gte=key, search_name__lt=key + "\U0010ffff", search_name__startswith=key)
        rows = rows.order_by("search_name", "player_id")
    else:
        rows = records.filter(is_computer=False, matches__gte=RANKED_AFTER).order_by("-rating", "player_id")
        if period == "30d":
            rows = rows.filter(last_played__gte=since)
    # The page's keys first, without the join to the players: an OFFSET then
    # skips index entries only, and the names are read for the page alone.
    keys, has_next = _one_page(rows.values_list("player_id", flat=True), page)
    found = records.in_bulk(keys)
    shown = [found[key] for key in keys]
    first_rank = (page - 1) * PER_PAGE + 1
    ranked = [(None if query else first_rank + index, record) for index, record in enumerate(shown)]
    recent = {}
    if period == "30d" and shown:
        days = PlayerDay.objects.filter(player__in=[r.player_id for r in shown], day__gte=since)
        totals = days.values("player").annotate(matches=Sum("matches"), wins=Sum("wins"), points=Sum("points"))
        recent = {row["player"]: row for row in totals}
    matches = Match.objects.select_related("winner").prefetch_related(SEATS)
    context = {
        "period": period,
        "query": query,
        "page": page,
        "has_next": has_next,
        "ranked": [(rank, record, recent.get(record.player_id)) for rank, record in ranked],
        "ranked_after": RANKED_AFTER,
        "period_days": PERIOD_DAYS,
        "computers": records.filter(is_computer=True).order_by("-rating", "player_id")[:COMPUTERS_SHOWN],
        "running": matches.filter(status=Match.Status.RUNNING).order_by("-last_move_at", "-pk")[:MATCHES_LISTED],
        "finished": matches.filter(status=Match.Status.FINISHED).order_by("-finished_at", "-pk")[:MATCHES_LISTED],
        "preview": scoreboard_preview(),
    }
    return render(request, "games/scoreboard.html", context)


# Player -------------------------------------------------------------------------


@require_GET
def player_page(request: HttpRequest, pk: int) -> HttpResponse:
    """A player's rating and its history, his totals, his matches (running and
    finished, page by page) and the players he met most."""
    player = get_object_or_404(Player, pk=pk)
    record = PlayerRecord.objects.filter(player=player).first()
    page = _page_number(request)
    results = PlayerMatch.objects.filter(player=player).order_by("-finished_at", "-match_id")
    finished, has_next = _one_page(results.select_related("match", "match__winner"), page)
    # His unfinished matches among his latest seats: a computer player sits in
    # a great many finished ones, which a join from his seats would all read.
    latest_seats = Seat.objects.filter(player=player).order_by("-pk").values("match")[:LATEST_SEATS]
    running = list(
        Match.objects.filter(pk__in=latest_seats, status__in=(Match.Status.LOBBY, Match.Status.RUNNING))
        .prefetch_related(SEATS)
        .order_by("-pk")[:MATCHES_LISTED]
    )
    seats = Seat.objects.filter(match__in=[row.match_id for row in finished]).select_related("player")
    seats_of: dict[int, list[Seat]] = {}
    for seat in seats.order_by("position"):
        seats_of.setdefault(seat.match_id, []).append(seat)
    rated = list(results.filter(rating_after__isnull=False).values_list("rating_before", "rating_after")[:HISTORY])
    history = [rated[-1][0], *(after for _before, after in reversed(rated))] if rated else []
    chart = line_chart([((), history)])
    rivals = HeadToHead.objects.filter(player=player).select_related("opponent").order_by("-matches", "opponent_id")
    context = {
        "player": player,
        "record": record,
        "chart": chart,
        "finished": [(row, seats_of.get(row.match_id, [])) for row in finished],
        "running": running,
        "page": page,
        "has_next": has_next,
        "rivals": rivals[:RIVALS],
        "preview": player_preview(
            player.display_name,
            record.rating if record else None,
            record.matches if record else 0,
            record.wins if record else 0,
        ),
    }
    return render(request, "games/player.html", context)


# Match ------------------------------------------------------------------------------


@require_GET
def match_page(request: HttpRequest, code: str) -> HttpResponse:
    """A match: its players and scores with their chart, the table in play
    (followed live by ``live``), every hand's result, and one hand (``?hand=N``,
    else the last) with its replay and its deck checked against the commitment."""
    match = get_object_or_404(Match.objects.select_related("winner", "rematch_of"), code=code.upper())
    try:
        detail = int(request.GET["hand"])
    except (KeyError, ValueError):
        detail = None
    view = public_match_view(match, detail)
    series = [(names, [scores[index] for scores in view.scores]) for index, names in enumerate(view.seat_names)]
    context = {
        "match": view,
        "move_time": move_time_text(view.options.move_seconds),
        "chart": line_chart(series) if view.seat_names else None,
        "replays": {hand.number: _replay_data(hand) for hand in view.hands if hand.is_detailed},
        "join_link": join_link(view.code) if match.status == Match.Status.LOBBY else "",
        "move_words": _move_words() if view.table else None,
        "card_words": card_name_parts(),
        "rematch_of": match.rematch_of.code if match.rematch_of else "",
        "played_again": _played_again(match),
        "my_table": _my_table(request, match),
        "preview": match_preview(
            view.code,
            view.status,
            [(seat.name, seat.score) for seat in view.seats],
            view.target,
            view.winner,
            view.table.hand_number if view.table else None,
        ),
    }
    return render(request, "games/match.html", context)


def _my_table(request: HttpRequest, match: Match) -> str:
    """The table of a player who is signed in on this browser (``web``) and seated in
    this match, to play at; "" for everyone else. No query without a signed-in session."""
    if match.status == Match.Status.ABORTED or signin.SESSION_KEY not in request.session:
        return ""
    player = signin.player_of(request.session)
    if player is None or not Seat.objects.filter(match=match, player=player).exists():
        return ""
    return reverse("web:table", args=[match.code])


def _played_again(match: Match) -> str:
    """The code of the rematch its players agreed to, if any: only a finished match has one."""
    if match.status != Match.Status.FINISHED:
        return ""
    return match.rematches.values_list("code", flat=True).first() or ""


def _move_words() -> dict[str, str]:
    """The words of the live table's script, in the reader's language: the page's own."""
    words = {action: str(text) for action, text in MOVE_WORDS.items()}
    words |= {f"note:{automatic}": str(note) for automatic, note in MOVE_NOTES.items()}
    return words | {f"role:{role}": _(role) for role in ("box", "captain", "sitter")}


def _replay_data(hand) -> dict:
    """A revealed hand's steps for the page's script, cards as written in the deck."""

    def cards(values) -> list[str]:
        return [str(card) for card in values]

    steps = []
    for step in hand.steps:
        move = step.move
        steps.append(
            {
                "name": move.name if move else "",
                "role": move.role if move else "",
                "action": move.action if move else "deal",
                "card": str(move.card) if move and move.card is not None else "",
                "box": cards(step.box),
                "captain": cards(step.captain),
                "top": str(step.pile_top) if step.pile_top is not None else "",
                "stock": step.stock_count,
            }
        )
    return {"steps": steps, "summary": hand.summary, "roles": dict(hand.roles)}


@require_GET
def live(request: HttpRequest, code: str) -> HttpResponse:
    """The public table of a match as JSON, for the page to follow without a
    reload. Its ETag is the match's version: a poll with the version it has
    (``If-None-Match`` or ``?v=``) costs one indexed lookup and gets 304 while
    nothing moved. Plain HTTP, so it works behind any proxy."""
    row = Match.objects.filter(code=code.upper()).values("pk", "version", "status").first()
    if row is None:
        raise Http404
    etag = f'"{row["version"]}"'
    if request.headers.get("If-None-Match") == etag or request.GET.get("v") == str(row["version"]):
        response = HttpResponseNotModified()
    else:
        match = Match.objects.select_related("winner").get(pk=row["pk"])
        response = JsonResponse(_live_json(match, public_live_view(match)))
    response["ETag"] = etag
    response["Cache-Control"] = "no-cache"
    return response


def _live_json(match: Match, table: PublicTableView | None) -> dict:
    data = {"version": match.version, "status": match.status, "table": None}
    if table is None:
        return data
    plain = asdict(table)
    plain["pile_top"] = str(table.pile_top) if table.pile_top is not None else ""
    plain["deadline"] = table.deadline.isoformat() if table.deadline else None
    plain["moves"] = [
        {
            "name": m.name,
            "role": m.role,
            "action": m.action,
            "card": str(m.card) if m.card is not None else "",
            "automatic": str(m.automatic),
        }
        for m in table.moves
    ]
    plain.pop("last_moves")
    data["table"] = plain
    return json.loads(json.dumps(data, default=str))


# Lobby --------------------------------------------------------------------------------


@require_GET
def lobby(request: HttpRequest) -> HttpResponse:
    """Matches listed publicly that wait for players: their options, who waits
    and since when, and how to join (Telegram's link, or ``join CODE``)."""
    waiting = (
        Match.objects.filter(is_open=True, status=Match.Status.LOBBY).prefetch_related(SEATS).order_by("-created_at")
    )[:50]
    rows = [(match, join_link(match.code), move_time_text(match.move_seconds)) for match in waiting]
    return render(request, "games/lobby.html", {"waiting": rows, "preview": lobby_preview()})
