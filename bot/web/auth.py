"""Who is asking: a Telegram user in the Mini App, or a browser signed in with ``web``.

Inside Telegram the page's script has Telegram's signed initData, which the
server never sees unless the script sends it: every request carries it as
``Authorization: tma <initData>`` and is checked on its own (``initdata``),
so nothing rests on a cookie, which Telegram's web version may not keep for a
page in its frame. A header a page on another site cannot make a browser send,
so those requests need no CSRF token. Elsewhere the browser's session says who
it is (``games.services.write.signin``), and a request that changes something carries
Django's CSRF token as any form of the site does.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import CsrfViewMiddleware

from games.models import Player
from games.services.write import signin

from .initdata import InvalidInitData, check

SCHEME = "tma"


class Refused(Exception):
    """The request says nobody we can act for: ``reason`` is a key of ``games.text.web.REFUSALS``."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Asker:
    player: Player
    in_telegram: bool


def asker(request: HttpRequest) -> Asker:
    """The player a request comes from; ``Refused`` if it proves none."""
    scheme, _space, credentials = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() == SCHEME:
        try:
            data = check(
                credentials.strip(), settings.TELEGRAM_BOT_TOKEN, settings.TELEGRAM_INIT_DATA_MAX_AGE, time.time()
            )
        except InvalidInitData as error:
            raise Refused(error.flaw.value) from None
        player = Player.objects.filter(telegram_user_id=data.user_id).first()
        if player is None:
            raise Refused("unknown")
        return Asker(player, in_telegram=True)
    if scheme:
        raise Refused("missing")
    player = signin.player_of(request.session)
    if player is None:
        raise Refused("signed-out")
    return Asker(player, in_telegram=False)


def csrf_failure(request: HttpRequest, asker: Asker) -> HttpResponse | None:
    """Django's CSRF check for a signed-in browser's request that changes something;
    None when it passes, or when Telegram's header proved the asker."""
    if asker.in_telegram:
        return None
    return CsrfViewMiddleware(_no_view).process_view(request, _no_view, (), {})


def _no_view(request: HttpRequest) -> HttpResponse:  # what the check is run for: a view that is not exempt
    raise NotImplementedError
