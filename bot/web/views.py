"""The table's page and what its script asks for; signing a browser in and out.

The page (``table_page``) holds no card: its script asks for the seat's table
(``table_state``, JSON, followed by light polling with an ETag as the match page's
live table is) and sends each move as the command a player would type
(``table_play``), through ``games.services.answer`` on the web channel, with a key
of its own so that a request sent again after a lost connection does nothing twice.
"""

from __future__ import annotations

import json
import re

from csp.decorators import csp_replace, csp_update
from django.conf import settings
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseNotModified,
    HttpResponseRedirect,
    JsonResponse,
)
from django.middleware.csrf import get_token
from django.shortcuts import render
from django.urls import reverse
from django.utils import translation
from django.views.decorators.cache import never_cache
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games.models import Match, Player, Seat
from games.services import answer
from games.services.read.seat_table import seat_table, seat_version
from games.services.write import signin
from games.services.write.players import LANGUAGES, adopt_device_zone
from games.templatetags.gin3 import MOVE_WORDS
from games.text.card_names import card_name_parts
from games.text.protocol import CODE_PATTERN
from games.text.style import ROLE_NAMES
from games.text.web import REFUSALS, page_words, refusal_text

from .auth import Refused, asker, csrf_failure
from .serialize import seat_table_json

CHANNEL = "web"  # a channel that delivers nothing: the page shows its answers itself
# Telegram's script for Mini Apps (theme, back button, haptics), loaded only inside Telegram.
TELEGRAM_WEB_APP_SCRIPT = "https://telegram.org/js/telegram-web-app.js"
# The page's policy (gin3site/settings.py CONTENT_SECURITY_POLICY) with Telegram's script,
# and framed by Telegram's web version, which shows Mini Apps in a frame, and nowhere else.
TELEGRAM_SCRIPT_ORIGIN = "https://telegram.org"
FRAMED_BY = ["'self'", "https://web.telegram.org"]
# What the page may send: the commands of a table. Others are typed where he plays.
TABLE_COMMANDS = frozenset({"pass", "take", "draw", "discard", "knock", "suggest", "accept", "team"})
ANSWERED = frozenset({"suggest", "team"})  # their reply says something the table does not show
REQUEST_KEY = re.compile(r"^[A-Za-z0-9_-]{8,48}$")
MAX_COMMAND = 400
MAX_ZONE = 64
MAX_LISTED = 50  # his tables on /t/: more matches than anyone plays at once


def _refusal(reason: str, status: int = 403) -> JsonResponse:
    return JsonResponse({"refused": reason, "error": refusal_text(reason)}, status=status)


def _match_code(code: str) -> str | None:
    code = code.upper()
    return code if CODE_PATTERN.match(code) else None


# The page ---------------------------------------------------------------------------


@require_GET
@xframe_options_exempt  # framed by Telegram's web version only: FRAMED_BY
@csp_update({"script-src": [TELEGRAM_SCRIPT_ORIGIN]})
@csp_replace({"frame-ancestors": FRAMED_BY})
def table_page(request: HttpRequest, code: str) -> HttpResponse:
    """The table of match ``code`` for whoever opens it: the script finds out who that is.

    Telegram's web version shows a Mini App in a frame of its own, so this page may
    be framed there (``FRAMED_BY``, which browsers read instead of X-Frame-Options)
    and nowhere else. Even framed, a page holds nothing: its script asks for the
    table with Telegram's initData, or the browser's session, whose cookie
    (SameSite=Lax) is not sent to a frame of another site."""
    code = _match_code(code)
    if code is None:
        raise Http404
    player = signin.player_of(request.session)
    language = request.GET.get("lang", "")
    if language not in LANGUAGES:
        language = player.language if player else translation.get_language()
    with translation.override(language):
        config = {
            "code": code,
            "language": language,
            "urls": {
                "state": reverse("web:state", args=[code]),
                "play": reverse("web:play", args=[code]),
                "zone": reverse("web:zone"),
            },
            "poll_ms": round(settings.GIN3_TABLE_POLL_SECONDS * 1000),
            "telegram_script": TELEGRAM_WEB_APP_SCRIPT,
            "csrf": get_token(request),
            "words": page_words(),
            "moves": {action: str(said) for action, said in MOVE_WORDS.items()},
            "roles": {role: str(name) for role, name in ROLE_NAMES.items()},
            "cards": card_name_parts(),
            "refusals": {reason: refusal_text(reason) for reason in REFUSALS},
        }
        context = {"code": code, "config": config, "signed_in": player}
        response = render(request, "games/table.html", context)
    response["Content-Language"] = language
    return response


# What the page's script asks for --------------------------------------------------------------


@never_cache
@require_GET
def table_state(request: HttpRequest, code: str) -> HttpResponse:
    """The seat's table as JSON. Its ETag changes with the match's version and its log,
    so a poll while nothing moved is answered 304 after one indexed query."""
    try:
        player = asker(request).player
    except Refused as refused:
        return _refusal(refused.reason)
    code = _match_code(code)
    version = seat_version(player, code) if code else None
    if version is None:
        return _refusal("no-seat", status=404)
    etag = f'"{version}"'
    if request.headers.get("If-None-Match") == etag:
        response = HttpResponseNotModified()
    else:
        view = seat_table(player, code)
        if view is None:
            return _refusal("no-seat", status=404)
        with translation.override(player.language):  # a computer partner's words are worded here
            data = seat_table_json(view)
        data["language"] = player.language
        response = JsonResponse(data)
        etag = f'"{view.version}"'
    response["ETag"] = etag
    response["Vary"] = "Authorization, Cookie"
    response["Cache-Control"] = "private, no-cache"
    return response


@csrf_exempt  # checked in the view: a signed-in browser's token, or Telegram's header (``auth``)
@require_POST
def table_play(request: HttpRequest, code: str) -> JsonResponse:
    """One command from the page, carried out exactly as if typed:
    ``{"command": "discard 7h", "version": 12, "key": "..."}``. A move names the
    version of the table it was chosen on, as a button does, so that a move chosen
    on a table that has changed since is refused. The same ``key`` twice does it once."""
    try:
        who = asker(request)
    except Refused as refused:
        return _refusal(refused.reason)
    if (failure := csrf_failure(request, who)) is not None:
        return JsonResponse({"error": "CSRF"}, status=failure.status_code)
    code = _match_code(code)
    body = _json(request)
    command = body.get("command")
    key, version = body.get("key"), body.get("version")
    valid = (
        code is not None
        and isinstance(command, str)
        and 0 < len(command) <= MAX_COMMAND
        and isinstance(key, str)
        and REQUEST_KEY.match(key)
        and (version is None or (isinstance(version, int) and not isinstance(version, bool) and version >= 0))
    )
    word = command.split()[0].lower() if valid and command.split() else ""
    if word not in TABLE_COMMANDS:
        return JsonResponse({"error": "not-a-table-command"}, status=400)
    selector = f"#{code}" if version is None or word == "team" else f"#{code}@{version}"
    key = f"web:{who.player.pk}:{key}"
    said = answer(who.player, f"{selector} {command}", CHANNEL, update_key=key, reply_inline=True)
    shown = said.reason if said.refused else (said.text if word in ANSWERED else "")
    return JsonResponse({"done": not said.refused, "said": shown, "repeated": said.repeated})


@csrf_exempt  # checked in the view, as for table_play
@require_POST
def device_zone(request: HttpRequest) -> JsonResponse:
    """The device's time zone, which becomes the player's if he has none of his own."""
    try:
        who = asker(request)
    except Refused as refused:
        return _refusal(refused.reason)
    if (failure := csrf_failure(request, who)) is not None:
        return JsonResponse({"error": "CSRF"}, status=failure.status_code)
    zone = _json(request).get("zone")
    if not isinstance(zone, str) or not 0 < len(zone) <= MAX_ZONE:
        return JsonResponse({"error": "zone"}, status=400)
    adopted = adopt_device_zone(who.player, zone)
    return JsonResponse({"adopted": adopted, "zone": who.player.time_zone})


def _json(request: HttpRequest) -> dict:
    try:
        body = json.loads(request.body or b"{}")
    except (ValueError, UnicodeDecodeError):
        return {}
    return body if isinstance(body, dict) else {}


# Signing a browser in and out ------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def sign_in(request: HttpRequest, token: str) -> HttpResponse:
    """The ``web`` command's link. Opening it asks to confirm, and only the confirmation
    uses it: an app that fetches the address for a preview must not sign in in his place."""
    if request.method == "POST":
        player = signin.use(token, request.session)
        if player is None:
            return render(request, "games/sign_in.html", {"refused": True}, status=403)
        request.session.cycle_key()
        response = HttpResponseRedirect(_first_table(player))
        response.set_cookie(settings.LANGUAGE_COOKIE_NAME, player.language, samesite="Lax")
        return response
    link = signin.waiting_link(token)
    if link is None:
        return render(request, "games/sign_in.html", {"refused": True}, status=403)
    with translation.override(link.player.language):
        return render(request, "games/sign_in.html", {"player": link.player})


@require_POST
def sign_out(request: HttpRequest) -> HttpResponse:
    request.session.flush()
    return HttpResponseRedirect(reverse("web:tables"))


@require_GET
def tables(request: HttpRequest) -> HttpResponse:
    """A signed-in browser's matches, each a link to its table; else how to sign in."""
    player = signin.player_of(request.session)
    if player is None:
        return render(request, "games/tables.html", {"player": None})
    seats = (
        Seat.objects.filter(player=player, match__status__in=(Match.Status.LOBBY, Match.Status.RUNNING))
        .select_related("match")
        .order_by("-match__created_at")[:MAX_LISTED]
    )
    with translation.override(player.language):
        return render(request, "games/tables.html", {"player": player, "matches": [seat.match for seat in seats]})


def _first_table(player: Player) -> str:
    """Where a browser goes once signed in: his table if he plays one match, else the list."""
    running = list(
        Match.objects.filter(seats__player=player, status=Match.Status.RUNNING).values_list("code", flat=True)[:2]
    )
    return reverse("web:table", args=running) if len(running) == 1 else reverse("web:tables")
