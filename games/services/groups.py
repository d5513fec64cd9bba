"""Telegram groups that follow a match: the public table and the results, never a card in hand.

A seated player links a group by typing ``group CODE`` in it. From then on
the group gets what anyone may see (``visibility.public_table_view`` and the
hand results, which are public), in the language of the player who linked it.

Anyone in a group may type commands there, and a group's sending budget is
small (Telegram: 20 messages a minute), so what the bot answers in a group is
limited: ``GROUP_REPLIES_PER_MINUTE`` a group, and someone who plays no match
the group follows at most once every ``STRANGER_REPLY_SECONDS`` in it, briefly.
These replies wait behind the match's own messages to the group (delivery's
``CHAT_KINDS``), so a flood never holds up a table.
"""

from __future__ import annotations

from django.utils import translation
from django.utils.translation import gettext as _

from games.engine import Hand
from games.ratelimit import Rule, shared_limiter
from games.text.render import render

from ..models import Hand as HandRow
from ..models import Match, Outbox, Player, Seat
from . import outbox, state
from .change import change
from .visibility import MoveView, public_table_view

TELEGRAM = Outbox.Channel.TELEGRAM
GROUP_REPLIES_PER_MINUTE = 3
STRANGER_REPLY_SECONDS = 600.0
REPLY = "pointer"  # the outbox kind of an answer to a command typed in a group


def may_answer(chat_id: int, plays_here: bool) -> bool:
    """Whether the bot may answer a command typed in the group ``chat_id`` now; counted if so."""
    rules = [Rule(f"gin3:group-replies:{chat_id}", GROUP_REPLIES_PER_MINUTE, 60.0)]
    if not plays_here:
        rules.append(Rule(f"gin3:group-strangers:{chat_id}", 1, STRANGER_REPLY_SECONDS))
    return shared_limiter().acquire(rules) == 0


def answer_command(chat_id: int, user_id: int, update_key: str, pointer: str, brief: str) -> None:
    """A command typed in a group other than ``group CODE``: a player of a match the group
    follows gets ``pointer`` (to the private chat, where cards are), anyone else ``brief``,
    within the limits above; once per update."""
    with change():
        if not state.first_time(update_key):
            return
        plays_here = Seat.objects.filter(
            player__telegram_user_id=user_id,
            match__telegram_group_chat_id=chat_id,
            match__status__in=(Match.Status.LOBBY, Match.Status.RUNNING),
        ).exists()
        if may_answer(chat_id, plays_here):
            outbox.post(TELEGRAM, str(chat_id), REPLY, pointer if plays_here else brief)


def link_telegram_group(player: Player, code: str, chat_id: int, update_key: str = "") -> None:
    """Link the group ``chat_id`` to match ``code`` if ``player`` sits in it; the
    group is answered either way, once per update. A banned player's command does
    nothing (his ban's reason is his alone, not the group's)."""
    with change():
        if not state.first_time(update_key) or player.is_banned():
            return
        match_id = Match.objects.filter(
            code=code, seats__player=player, status__in=(Match.Status.LOBBY, Match.Status.RUNNING)
        ).values_list("pk", flat=True)
        if not may_answer(chat_id, plays_here=bool(match_id)):
            return
        with translation.override(player.language):
            if not match_id:
                text = _("%(name)s has no open match #%(code)s to show here.") % {
                    "name": player.display_name,
                    "code": code,
                }
                outbox.post(TELEGRAM, str(chat_id), "group", render(text, TELEGRAM).text)
                return
        match = state.lock(match_id[0])
        match.telegram_group_chat_id = chat_id
        match.group_language = player.language
        state.append_event(match, "group_linked", actor=player, chat=chat_id)
        to_group(
            match,
            "group",
            lambda: _("This group follows #%(code)s: tables and results, never a hand.") % {"code": match.code},
        )
        if match.status == Match.Status.RUNNING:
            hand_row = match.current_hand
            tell_table(match, state.seats_of(match), hand_row, state.load_hand(match, hand_row))


def to_group(match: Match, kind: str, content: object, replaces: str = "") -> None:
    """Post public ``content`` to the match's group, if it has one, in the group's language."""
    if match.telegram_group_chat_id is None:
        return
    with translation.override(match.group_language):
        rendered = render(content() if callable(content) else content, TELEGRAM)
    outbox.post(TELEGRAM, str(match.telegram_group_chat_id), kind, rendered.text, match, replaces=replaces)


def tell_table(
    match: Match, seats: list[Seat], hand_row: HandRow, hand: Hand, last_moves: tuple[MoveView, ...] = ()
) -> None:
    """The public table, edited in place while it stays the group's newest message."""
    if match.telegram_group_chat_id is not None:
        view = public_table_view(match, seats, hand_row, hand, last_moves)
        to_group(match, "table", view, replaces=f"group:{match.code}")
