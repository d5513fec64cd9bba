"""What the tests of the table's page share: signing a player in, Telegram's signed
initData, and which cards each seat must never be shown at a given moment."""

from __future__ import annotations

import json
import re
import time
from urllib.parse import quote

from games.engine import Role
from games.models import Match, Player
from games.services import handle
from games.services.plumbing.change import change
from games.services.write.locked_table import load_table

from .pages_support import ASCII_CARD, SYMBOL_CARD, cards_on

BOT_TOKEN = "123456:table-tests"
LINK = re.compile(r"/in/([A-Za-z0-9_-]+)/")
THEME = {"bg_color": "#17212b", "text_color": "#f5f5f5", "hint_color": "#aab5c1", "button_color": "#5288c1",
         "button_text_color": "#ffffff", "secondary_bg_color": "#232e3c", "link_color": "#6ab3f3"}  # fmt: skip


def sign_in_path(player: Player, channel: str = "terminal") -> str:
    """The path of the personal link ``web`` answers ``player`` with."""
    return "/in/{}/".format(LINK.search(handle(player, "web", channel)).group(1))


def init_data(player: Player, auth_date: float | None = None, token: str = BOT_TOKEN) -> str:
    """initData as Telegram signs it for ``player``'s Telegram user."""
    from bot.web.initdata import sign

    user = json.dumps({"id": player.telegram_user_id, "first_name": player.display_name, "language_code": "en"})
    fields = {"query_id": "AAHdF6IQAAAAAN0XohDhrOrc", "user": user, "auth_date": str(int(auth_date or time.time()))}
    return sign(fields, token)


def mini_app_path(code: str, data: str, language: str = "en") -> str:
    """The table's address as Telegram opens a Mini App: launch parameters in the fragment."""
    return (
        f"/t/{code}/?lang={language}#tgWebAppData={quote(data, safe='')}&tgWebAppVersion=7.0"
        f"&tgWebAppPlatform=android&tgWebAppThemeParams={quote(json.dumps(THEME), safe='')}"
    )


def hidden_from(match: Match) -> dict[int, set[str]]:
    """For each seat's position, the cards of the hand in play it must not be shown now:
    the cards in the stock and in the other active hand that never lay face up on the
    pile this hand. The sitter sees the captain's cards (R3.2), so the box's are hidden
    from him; the box sees his own."""
    with change():
        table = load_table(match.pk)
    hand = table.hand
    seen = {str(hand.deck[20])}
    for data in table.moves:
        if data["move"].split()[0] in ("discard", "knock"):
            seen.add(data["move"].split()[1])
        if data.get("taken"):
            seen.add(data["taken"])
    secret = {str(card) for card in (*hand.box, *hand.captain, *hand.stock)} - seen
    own = {
        Role.BOX: {str(card) for card in hand.box},
        Role.CAPTAIN: {str(card) for card in hand.captain},
        Role.SITTER: {str(card) for card in hand.captain},
    }
    return {seat.position: secret - own[table.role_of(seat.position)] for seat in table.seats}


def cards_in_json(data: dict) -> set[str]:
    """Every card the page's JSON names about the hand in play: all of it but the last
    hand's result, which is public once that hand ended (another deck), and team talk,
    which is what two partners typed (checked apart)."""
    shown = {key: value for key, value in data.items() if key not in ("last_result", "team")}
    return cards_on(json.dumps(shown, ensure_ascii=False))


__all__ = ["ASCII_CARD", "SYMBOL_CARD", "cards_on"]
