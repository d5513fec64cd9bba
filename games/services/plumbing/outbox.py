"""Writing outgoing messages: to whom, where, in his language, once and in order.

Services write letters into the change they run in (``change.current()``);
when the change ends, ``write`` turns them into ``Outbox`` rows in one INSERT
(the transactional outbox), and ``games.tasks`` delivers them after the
commit. What a player reads is shaped here:

- **The reply comes first.** A player's answer to his own command is his first
  message of the change, before what the command caused (the third player's
  "You joined" before the cut and his cards).
- **A table once.** A player gets at most one table of a match per change:
  when a change shows him several (a timeout that draws and discards for
  him), he gets the newest, with every move the others showed.
- **Once.** A reply that is also everyone's message (the result of the knock
  that ended the hand) is not sent to its author a second time.
- **A sound when it needs him.** A letter that asks nothing of its reader (the
  others' moves, joins, advice, team talk, the result of a hand he sat out) is
  ``silent``: where the platform can, it arrives without a sound. His turn, a
  reminder, a result he played, the end of a match and a question he must answer
  notify, at most once a change: a result followed by his first turn of the next
  hand sounds once.
- **In his time.** Each letter is written in its reader's language and time
  zone. In his quiet hours what can wait (everything but the reply to his own
  command) waits: its row's ``next_attempt_at`` is the end of them, which
  delivery respects. A reader who writes a command is awake: what waits for
  him is released, to arrive before the reply, and for half an hour what comes
  for him comes at once, without a sound.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from functools import partial
from typing import TypeVar

from django.utils import timezone, translation

from games.contract import Content
from games.contract.tables import TableView
from games.models import Match, Outbox, Player
from games.services.plumbing import clocks
from games.services.plumbing.change import Work, current
from games.text.offers import zone_choice, zone_question
from games.text.render import Rendered, render
from games.text.tables import legend

SMS = Outbox.Channel.SMS
TELEGRAM = Outbox.Channel.TELEGRAM
APART = (SMS, TELEGRAM)  # channels where how to read a table is a message of its own
T = TypeVar("T")
# How long a player who writes in his quiet hours counts as awake: what the game sends
# him meanwhile (the others' answers, his next turn) comes at once, without a sound.
AWAKE_AFTER_WRITING = timedelta(minutes=30)
# What needs its reader: his turn, a reminder, a hand's result, the end of a match, a
# question he must answer (a rematch, the lobby's offer), a moderator's word, a text that
# did not reach his phone. Everything else arrives without a sound.
NOTIFYING_KINDS = frozenset(
    {
        Outbox.Kind.TURN,
        Outbox.Kind.REMINDER,
        Outbox.Kind.RESULT,
        Outbox.Kind.OVER,
        Outbox.Kind.AGAIN,
        Outbox.Kind.LOBBY,
        Outbox.Kind.ADMIN,
        Outbox.Kind.SMS_FAILED,
    }
)


@dataclass
class Letter:
    """A message a change will write: a value, worded for its reader only when the change ends."""

    kind: str
    content: Content
    player: Player | None = None
    match: Match | None = None
    channel: str = ""
    address: str = ""
    replaces: str = ""
    inline: bool = False  # the channel answers it itself (an SMS reply in TwiML): not queued
    is_reply: bool = False  # the answer to its reader's own command
    language: str = ""  # for a post to an address that is nobody's own: the language it is read in
    silent: bool | None = None  # None: as its kind says (``NOTIFYING_KINDS``)
    text: str = ""  # filled in by ``write``


def route(player: Player, channel: str = "") -> tuple[str, str] | None:
    """The channel and address to reach a player now, or None if he can't be reached.

    ``channel`` asks for a particular channel (a reply goes back where the
    command came from); otherwise his preference, then where he last wrote from.
    """
    if player.is_computer:
        return None
    reachable: dict[str, str] = {}
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


def replaces_table(player: Player, match: Match, key: str) -> bool:
    """Whether a newer table of ``match`` sent to ``player`` now would take the place of
    the one he has (``replaces`` ``key``): on Telegram, where it is edited in place, or
    while that one still waits to go. Otherwise it would come as a second table, and
    news about the same moment is better a line of its own."""
    destination = route(player)
    if destination is None or destination[0] == TELEGRAM:
        return True
    return Outbox.objects.filter(recipient=player, match=match, replaces=key, status=Outbox.Status.PENDING).exists()


def send(
    player: Player,
    kind: str,
    content: Content,
    match: Match | None = None,
    channel: str = "",
    replaces: str = "",
    silent: bool | None = None,
) -> Letter:
    """Write ``content`` to ``player`` in this change, for his channel and language;
    ``silent`` says whether it needs him, if its kind does not say it rightly
    (the result of a hand he sat out)."""
    return _add(Letter(kind, content, player, match, channel, replaces=replaces, silent=silent))


def reply(player: Player, content: Content, channel: str, replaces: str = "", inline: bool = False) -> Letter:
    """The answer to ``player``'s command, on the channel it came from. An inline reply
    (the channel answers it itself, as SMS in TwiML) is rendered when the change ends
    like every letter, and written nowhere; it tells that its reader is awake. A reply
    about a match the command acted on (its table, a hand's result) belongs to that match."""
    code = getattr(content, "code", "")
    match = current().tracked_code(code) if code else None
    return _add(
        Letter(Outbox.Kind.REPLY, content, player, match, channel, replaces=replaces, inline=inline, is_reply=True)
    )


def post(
    channel: str,
    address: str,
    kind: str,
    content: Content,
    match: Match | None = None,
    replaces: str = "",
    language: str = "",
) -> Letter:
    """Write to an address that is nobody's own (a Telegram group chat, a phone being
    linked), in ``language`` (the active one if none is given)."""
    return _add(Letter(kind, content, None, match, channel, address, replaces, language=language))


def _add(letter: Letter) -> Letter:
    """Keep ``letter`` in the change in progress, which writes its letters when it ends."""
    work = current()
    if _write_letters not in work.writers:
        work.writers.append(_write_letters)
    work.letters.append(letter)
    return letter


def _write_letters(work: Work) -> list[int]:
    """The change's letters written; the ids of those that a worker delivers (the
    terminal's are printed by its own process)."""
    return [message.pk for message in write(work.letters) if message.channel != Outbox.Channel.TERMINAL]


def write(letters: list[Letter]) -> list[Outbox]:
    """The change's letters as outbox rows, in one INSERT: replies first, one table per
    reader and match, nothing twice. A reader's first table ever comes with how to
    read it: on the terminal on the table, by SMS as a text of its own after it so that the
    table still fits one, on Telegram as a message of its own before it, so that the table
    stays the newest message and is edited in place."""
    rows = []
    explained: set[int] = set()
    now = timezone.now()
    awake = {letter.player.pk: letter.player for letter in letters if letter.is_reply and letter.player}
    woken: set[int | None] = set()
    for letter in _in_order(_merged(letters)):
        destination = _destination(letter)
        if destination is None:
            continue
        channel, address = destination
        rendered = _render(letter, channel)
        first = not letter.inline and _first_table(letter, explained)
        explanation = _in_language(letter, partial(legend, channel)) if first else ""
        if explanation and channel not in APART:
            rendered = replace(rendered, text=rendered.text + "\n" + explanation)
        letter.text = rendered.text
        if not rendered.text or letter.inline:
            continue
        due, hushed = _in_his_hours(letter.player, letter.player is not None and letter.player.pk in awake, now)
        row = partial(
            Outbox,
            recipient=letter.player,
            match=letter.match,
            event_count=letter.match.event_count if letter.match else None,
            channel=channel,
            address=address,
            **due,
        )
        # A table that explains how to read tables is never skipped for a newer one:
        # the explanation is given once (``_first_table``), so it must arrive.
        replaces = "" if explanation and channel not in APART else letter.replaces
        if explanation and channel == TELEGRAM:  # above the table, which stays the newest message
            rows.append(row(kind=Outbox.Kind.LEGEND, silent=True, **_legend_with_zones(letter, explanation, now)))
        silent = hushed or _silent(letter, woken)
        rows.append(
            row(kind=letter.kind, text=rendered.text, buttons=rendered.buttons, replaces=replaces, silent=silent)
        )
        if explanation and channel == SMS:
            rows.append(row(kind=Outbox.Kind.LEGEND, text=explanation, silent=True))
    release([player for player in awake.values() if clocks.has_quiet_hours(player)], now)
    return Outbox.objects.bulk_create(rows) if rows else []


def _legend_with_zones(letter: Letter, explanation: str, now: datetime) -> dict:
    """How to read a table and, for a player who never named his time zone, a one-tap
    choice of it (``offers.zone_choice``): his deadlines then read in his own time."""
    player = letter.player
    if player is None or player.time_zone_set:
        return {"text": explanation}

    def offer() -> dict:
        question = zone_question(player.time_zone)
        return {"text": f"{explanation}\n{question}", "buttons": zone_choice(player.language, now)}

    return _in_language(letter, offer)


def _silent(letter: Letter, woken: set[int | None]) -> bool:
    """Whether the letter arrives without a sound: it asks nothing of its reader, he is
    reading already (the answer to his own command), or this change woke him already.
    Posts to a group never sound."""
    if letter.player is None or letter.is_reply:  # a group, or he is in the chat: he just wrote
        return True
    needs_him = letter.kind in NOTIFYING_KINDS if letter.silent is None else not letter.silent
    if not needs_him or letter.player.pk in woken:
        return True
    woken.add(letter.player.pk)
    return False


def _in_his_hours(player: Player | None, writing: bool, now: datetime) -> tuple[dict[str, datetime], bool]:
    """When a letter is due, as ``Outbox`` fields, and whether it must come without a
    sound. In his quiet hours it waits for their end (``Outbox.next_attempt_at``),
    unless he is playing in them: he writes in this change, or wrote a moment ago
    (``Player.awake_until``). Then it comes at once, so that the game he is playing
    does not seem to stop, but silently, in case he has gone back to sleep."""
    end = None if player is None else clocks.quiet_end(player, now)
    if player is None or end is None:
        return {}, False
    if writing or (player.awake_until is not None and player.awake_until > now):
        return {}, True
    return {"next_attempt_at": end}, False


def release(players: list[Player], now: datetime) -> None:
    """What waits for these players' quiet hours to end is due now: they are awake.
    Those who write in their quiet hours stay awake for ``AWAKE_AFTER_WRITING``."""
    if players:
        Outbox.objects.filter(
            recipient__in=players, status=Outbox.Status.PENDING, attempts=0, next_attempt_at__gt=now
        ).update(next_attempt_at=now)
        in_quiet_hours = [player.pk for player in players if clocks.quiet_end(player, now) is not None]
        if in_quiet_hours:
            Player.objects.filter(pk__in=in_quiet_hours).update(awake_until=now + AWAKE_AFTER_WRITING)


def _merged(letters: list[Letter]) -> list[Letter]:
    """Drop what a reader would get twice: a later table of the same match replaces an
    earlier one (its moves kept), and a letter whose content is the reader's reply."""
    replies = {letter.player.pk: letter for letter in letters if letter.is_reply and letter.player}
    newest: dict[tuple[int, str], Letter] = {}
    kept: list[Letter] = []
    for letter in letters:
        reader = letter.player.pk if letter.player else None
        reply_letter = replies.get(reader) if reader is not None else None
        if reply_letter is not None and letter is not reply_letter and letter.content is reply_letter.content:
            reply_letter.kind = letter.kind  # the reply is that message: a result is a result
            continue
        content = letter.content
        if isinstance(content, TableView) and reader is not None:
            key = (reader, content.code)
            earlier = newest.get(key)
            if earlier is not None:
                assert isinstance(earlier.content, TableView)
                moves = (*earlier.content.last_moves, *content.last_moves)
                earlier.content = replace(content, last_moves=_unique(moves))
                earlier.replaces = earlier.replaces and letter.replaces  # news that must arrive stays so
                if letter.kind == Outbox.Kind.TURN and not earlier.is_reply:
                    earlier.kind = Outbox.Kind.TURN
                continue
            newest[key] = letter
        kept.append(letter)
    return kept


def _unique(items: tuple) -> tuple:
    return tuple(dict.fromkeys(items))


@contextmanager
def _as_reader(letter: Letter) -> Iterator[None]:
    """Words in the reader's language, times in his zone (posts: in the language given)."""
    player = letter.player
    if player is None:
        with translation.override(letter.language or translation.get_language()):
            yield
        return
    with translation.override(player.language), timezone.override(clocks.zone_of(player)):
        yield


def _in_order(letters: list[Letter]) -> list[Letter]:
    return [letter for letter in letters if letter.is_reply] + [letter for letter in letters if not letter.is_reply]


def _destination(letter: Letter) -> tuple[str, str] | None:
    if letter.player is None or letter.inline:  # posted to an address, or answered by the channel itself
        return letter.channel, letter.address
    return route(letter.player, letter.channel)


def _first_table(letter: Letter, explained: set[int]) -> bool:
    """Whether this is the first table its reader ever gets: then it comes with how to
    read it, once (``Player.tables_explained``)."""
    player = letter.player
    if player is None or player.tables_explained or player.pk in explained:
        return False
    if not isinstance(letter.content, TableView):
        return False
    explained.add(player.pk)
    player.tables_explained = True
    return Player.objects.filter(pk=player.pk, tables_explained=False).update(tables_explained=True) == 1


def _in_language(letter: Letter, text: Callable[[], T]) -> T:
    """``text()`` in the letter's reader's language and time zone."""
    with _as_reader(letter):
        return text()


def _render(letter: Letter, channel: str) -> Rendered:
    return _in_language(letter, lambda: render(letter.content, channel))
