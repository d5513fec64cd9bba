"""Links that messages carry: the Telegram deep link that joins a match.

The bot's @username comes from settings, or is learned from Telegram's getMe
by the Telegram transport (``bot.telegram.client``), which hands it here:
the words know the name without depending on a channel.
"""

from __future__ import annotations

from django.conf import settings

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
