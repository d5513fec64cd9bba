"""Links that messages carry: the Telegram deep link that joins a match, the table's
page (a Telegram Mini App) and the personal link that signs a player in on a browser.

The bot's @username comes from settings, or is learned from Telegram's getMe
by the Telegram transport (``bot.telegram.client``), which hands it here:
the words know the name without depending on a channel.
"""

from __future__ import annotations

from django.conf import settings
from django.urls import reverse
from django.utils.http import urlencode

_learned_username = ""


def remember_bot_username(username: str) -> None:
    """Keep the name getMe gave, so that invite links need no setting."""
    global _learned_username
    _learned_username = username or ""


def bot_username() -> str:
    """The bot's @username without the @, or "" while it is unknown."""
    return settings.TELEGRAM_BOT_USERNAME or _learned_username


def join_link(code: str) -> str:
    """The deep link that opens the bot and joins match ``code``; "" if the bot's name is unknown."""
    username = bot_username()
    return f"https://t.me/{username}?start=join_{code}" if username else ""


def site_link(path: str) -> str:
    """An address of the site as the world reaches it (``SITE_URL``)."""
    return settings.GIN3_SITE_URL.rstrip("/") + path


def sign_in_link(token: str) -> str:
    """The personal link the ``web`` command answers with."""
    return site_link(reverse("web:sign-in", args=[token]))


def mini_app_link(code: str, language: str) -> str:
    """The table of match ``code`` as a Telegram Mini App opens it, in the reader's
    language; "" while the Mini App is off (``TELEGRAM_MINI_APP``: Telegram opens
    only HTTPS addresses)."""
    if not settings.TELEGRAM_MINI_APP:
        return ""
    return site_link(reverse("web:table", args=[code])) + "?" + urlencode({"lang": language})
