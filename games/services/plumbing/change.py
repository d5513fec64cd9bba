"""One change of the game: a transaction, what it writes, and the work it asks for after commit.

Every service entry point runs inside ``change()``. A call made inside an open
change joins it, without a savepoint: commands are checked before they write,
so a refusal never needs a partial rollback, and the whole change is one
transaction. The change keeps these until it ends:

- the events it appends to the log, written in one INSERT;
- the matches it locked, each saved once at the end with only the fields that
  changed (nobody has to remember a ``save()``);
- the messages it writes, as letters (``outbox.Letter``), which the outbox
  writes in one INSERT when the change ends (it registers itself as a writer,
  so that this module, below it, never imports it);
- what it asks of the background: the messages to deliver and a computer
  player to move, published after the commit as one task (``scheduling``), and
  the finished hands to review (``scheduling.review``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from django.db import transaction

from games.models import Event, Match, Seat
from games.services.plumbing import scheduling

_current: ContextVar[Work | None] = ContextVar("gin3_change", default=None)


@dataclass
class Work:
    """What one change has done so far."""

    letters: list = field(default_factory=list)  # outbox.Letter
    events: list[Event] = field(default_factory=list)
    writers: list[Callable[[Work], list[int]]] = field(default_factory=list)  # at the end: ids of messages to send
    _computer_moves: dict[int, Match] = field(default_factory=dict)
    _reviews: list[int] = field(default_factory=list)  # finished hands, by id
    _matches: dict[int, tuple[Match, dict]] = field(default_factory=dict)
    seats: dict[int, list[Seat]] = field(default_factory=dict)  # a locked match's seats, read once

    def track(self, match: Match) -> Match:
        """Remember a locked match so that ``finish`` saves what changed in it.
        A match locked twice in one change is the same object."""
        known = self._matches.get(match.pk)
        if known is not None:
            return known[0]
        self._matches[match.pk] = (match, _fields_of(match))
        return match

    def tracked(self, match_id: int) -> Match | None:
        known = self._matches.get(match_id)
        return known[0] if known else None

    def tracked_code(self, code: str) -> Match | None:
        """The match of that code locked in this change, if one is."""
        return next((match for match, _fields in self._matches.values() if match.code == code), None)

    def computer_move(self, match: Match) -> None:
        """A computer player is to move in ``match`` once this change is committed."""
        self._computer_moves[match.pk] = match

    def review(self, hand_id: int) -> None:
        """A finished hand is to be reviewed once this change is committed."""
        self._reviews.append(hand_id)

    def mark(self) -> tuple:
        """Where the change stands, for ``rewind``."""
        matches = {pk: _fields_of(match) for pk, (match, _before) in self._matches.items()}
        return len(self.letters), len(self.events), matches, dict(self._computer_moves), len(self._reviews)

    def rewind(self, mark: tuple) -> None:
        """Forget what was done since ``mark``: a refused command inside a change."""
        letters, events, matches, computer_moves, reviews = mark
        del self.letters[letters:]
        del self.events[events:]
        for pk in [pk for pk in self._matches if pk not in matches]:
            del self._matches[pk]
        self.seats.clear()
        for pk, fields in matches.items():
            match = self._matches[pk][0]
            for name, value in fields.items():
                setattr(match, name, value)
        self._computer_moves = computer_moves
        del self._reviews[reviews:]

    def finish(self) -> None:
        """Write the events, save the changed matches and write the letters; publish after the commit."""
        if self.events:
            Event.objects.bulk_create(self.events)
        for match, before in self._matches.values():
            changed = [name for name, value in _fields_of(match).items() if before[name] != value]
            if changed:
                match.save(update_fields=[_field_name(match, name) for name in changed])
        to_deliver = [message_id for write in self.writers for message_id in write(self)]
        computer_moves = [
            (match.pk, match.version)
            for match in self._computer_moves.values()
            if match.status == Match.Status.RUNNING and not match.is_paused
        ]
        if to_deliver or computer_moves:
            transaction.on_commit(lambda: scheduling.follow_up(to_deliver, computer_moves))
        for hand_id in self._reviews:
            transaction.on_commit(functools.partial(scheduling.review, hand_id))


def _fields_of(match: Match) -> dict[str, object]:
    return {f.attname: getattr(match, f.attname) for f in match._meta.concrete_fields if not f.primary_key}


def _field_name(match: Match, attname: str) -> str:
    """``update_fields`` takes names: ``current_hand`` for the attribute ``current_hand_id``."""
    return next(f.name for f in match._meta.concrete_fields if f.attname == attname)


@contextmanager
def change(isolated: bool = False) -> Iterator[Work]:
    """Run the block as one change: a new transaction, or the change already open.

    Inside an open change the block joins it; ``isolated`` makes it undo its own
    part if it fails (a savepoint, and ``Work.rewind``), for a caller that goes on
    after a refusal."""
    work = _current.get()
    if work is not None:
        if not isolated:
            yield work
            return
        mark = work.mark()
        try:
            with transaction.atomic():
                yield work
        except BaseException:
            work.rewind(mark)
            raise
        return
    with transaction.atomic():
        work = Work()
        token = _current.set(work)
        try:
            yield work
            work.finish()
        finally:
            _current.reset(token)


def pending_events() -> list[Event]:
    """The events the change in progress has appended and not written yet (none outside a change)."""
    work = _current.get()
    return list(work.events) if work is not None else []


def current() -> Work:
    """The change in progress; services that write call this from inside ``change()``."""
    work = _current.get()
    if work is None:
        raise RuntimeError("game state is written only inside services.change.change()")
    return work
