"""Writing outgoing messages: where each player is reached, in his language.

Messages are rows written in the transaction of the change that caused them
(the transactional outbox); ``games.tasks`` delivers them after the commit.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db import transaction
from django.utils import translation

from games.text.render import render

from ..models import Match, Outbox, Player

Content = str | Callable[[], str] | object


def route(player: Player, channel: str = "") -> tuple[str, str] | None:
    """The channel and address to reach a player now, or None if he can't be reached.

    ``channel`` asks for a particular channel (a reply goes back where the
    command came from); otherwise his preference, then where he last wrote from.
    """
    if player.is_computer:
        return None
    reachable = {}
    if player.telegram_chat_id and not player.telegram_blocked:
        reachable[Outbox.Channel.TELEGRAM] = str(player.telegram_chat_id)
    if player.phone and not player.sms_opted_out:
        reachable[Outbox.Channel.SMS] = player.phone
    if player.terminal_user:
        reachable[Outbox.Channel.TERMINAL] = player.terminal_user
    for choice in (channel, player.notify_by, player.last_channel, *reachable):
        if choice in reachable:
            return choice, reachable[choice]
    return None


def send(
    player: Player,
    kind: str,
    content: Content,
    match: Match | None = None,
    channel: str = "",
    replaces: str = "",
) -> Outbox | None:
    """Queue a message for ``player``, rendered for his channel and language."""
    destination = route(player, channel)
    if destination is None:
        return None
    channel, address = destination
    with translation.override(player.language):
        if callable(content):
            content = content()
        rendered = render(content, channel)
    message = Outbox.objects.create(
        recipient=player,
        match=match,
        channel=channel,
        address=address,
        kind=kind,
        text=rendered.text,
        buttons=rendered.buttons,
        replaces=replaces,
    )
    transaction.on_commit(lambda: _deliver_after_commit(message.pk))
    return message


def post(channel: str, address: str, kind: str, text: str, match: Match | None = None, replaces: str = "") -> Outbox:
    """Queue ``text``, already rendered for ``channel``, to an address that is
    nobody's own (a Telegram group chat)."""
    message = Outbox.objects.create(
        match=match, channel=channel, address=address, kind=kind, text=text, replaces=replaces
    )
    transaction.on_commit(lambda: _deliver_after_commit(message.pk))
    return message


def _deliver_after_commit(message_id: int) -> None:
    from .. import scheduling

    scheduling.deliver(message_id)
