"""Telegram groups that follow a match: the public table and the results, never a card in hand.

A seated player links a group by typing ``group CODE`` in it. From then on
the group gets what anyone may see (``public.public_table_view`` and the
hand results, which are public), in the language of the player who linked it.

Anyone in a group may type commands there, and a group's sending budget is
small (Telegram: 20 messages a minute), so what the bot answers in a group is
limited: ``GROUP_REPLIES_PER_MINUTE`` a group, and someone who plays no match
the group follows at most once every ``STRANGER_REPLY_SECONDS`` in it, briefly.
These replies wait behind the match's own messages to the group (delivery's
``CHAT_KINDS``), so a flood never holds up a table.
"""

from __future__ import annotations

from games.contract import Content
from games.contract.groups import CardsArePrivate, GroupFollows, NothingToShow, PlayElsewhere
from games.contract.tables import MoveView
from games.engine import Hand
from games.models import Event, Match, Outbox, Player, Seat
from games.models import Hand as HandRow
from games.services.plumbing import outbox, state
from games.services.plumbing.change import change
from games.services.plumbing.ratelimit import Rule, shared_limiter
from games.services.read.public import public_table_view

TELEGRAM = Outbox.Channel.TELEGRAM
GROUP_REPLIES_PER_MINUTE = 3
STRANGER_REPLY_SECONDS = 600.0


def may_answer(chat_id: int, plays_here: bool) -> bool:
    """Whether the bot may answer a command typed in the group ``chat_id`` now; counted if so."""
    rules = [Rule(f"gin3:group-replies:{chat_id}", GROUP_REPLIES_PER_MINUTE, 60.0)]
    if not plays_here:
        rules.append(Rule(f"gin3:group-strangers:{chat_id}", 1, STRANGER_REPLY_SECONDS))
    return shared_limiter().acquire(rules) == 0


def answer_command(chat_id: int, user_id: int, update_key: str, language: str) -> None:
    """A command typed in a group other than ``group CODE``: a player of a match the group
    follows is pointed to the private chat, where cards are, anyone else told briefly where
    to play, in ``language``, within the limits above; once per update."""
    with change():
        if not state.first_time(update_key):
            return
        plays_here = Seat.objects.filter(
            player__telegram_user_id=user_id,
            match__telegram_group_chat_id=chat_id,
            match__status__in=(Match.Status.LOBBY, Match.Status.RUNNING),
        ).exists()
        if may_answer(chat_id, plays_here):
            notice = CardsArePrivate() if plays_here else PlayElsewhere()
            outbox.post(TELEGRAM, str(chat_id), Outbox.Kind.POINTER, notice, language=language)


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
        if not match_id:
            notice = NothingToShow(player.display_name, code)
            outbox.post(TELEGRAM, str(chat_id), Outbox.Kind.GROUP, notice, language=player.language)
            return
        match = state.lock(match_id[0])
        match.telegram_group_chat_id = chat_id
        match.group_language = player.language
        state.append_event(match, Event.Kind.GROUP_LINKED, actor=player, chat=chat_id)
        to_group(match, Outbox.Kind.GROUP, GroupFollows(match.code))
        if match.status == Match.Status.RUNNING:
            hand_row = state.hand_in_play(match)
            tell_table(match, state.seats_of(match), hand_row, state.load_hand(match, hand_row))


def to_group(match: Match, kind: str, content: Content, replaces: str = "") -> None:
    """Post public ``content`` to the match's group, if it has one, in the group's language."""
    if match.telegram_group_chat_id is None:
        return
    group = str(match.telegram_group_chat_id)
    outbox.post(TELEGRAM, group, kind, content, match, replaces=replaces, language=match.group_language)


def tell_table(
    match: Match, seats: list[Seat], hand_row: HandRow, hand: Hand, last_moves: tuple[MoveView, ...] = ()
) -> None:
    """The public table, edited in place while it stays the group's newest message."""
    if match.telegram_group_chat_id is not None:
        view = public_table_view(match, seats, hand_row, hand, last_moves)
        to_group(match, Outbox.Kind.TABLE, view, replaces=f"group:{match.code}")
