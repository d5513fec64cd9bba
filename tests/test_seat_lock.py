"""The seat lock's query, compiled once for each shape (games/services/plumbing/seat_lock.py).

Why: every command and computer move runs it, and it sends Django's SQL without
Django's iteration, so what it reads must be what the queryset it replaces
reads, on every database (this runs on both): every column of every model
converted as Django converts it, a match with no hand in play, the count of
the newest table each player got, and the parameters of the query that picks
the matches, not those of the first query of its shape.
"""

from __future__ import annotations

import contextlib

import pytest
from django.db import transaction

from games.models import Match, Outbox, Seat
from games.services import handle
from games.services.plumbing import seat_lock
from games.services.plumbing.delivery import TABLE_KEY
from tests.conftest import code_in

pytestmark = pytest.mark.django_db


def as_django_reads(match_ids: list[int]) -> list[Seat]:
    return list(
        Seat.objects.select_related("match__current_hand", "player")
        .filter(match_id__in=match_ids)
        .annotate(seen_events=seat_lock._last_table_seen())
        .order_by("match_id", "position")
    )


def fields(instance) -> dict:
    return {field.attname: getattr(instance, field.attname) for field in type(instance)._meta.concrete_fields}


def read(match_ids: list[int], queries=None) -> list[Seat]:
    """The seats, read by the seat lock in a transaction of their own (in ``queries``, if
    given: a context that counts its queries)."""
    with transaction.atomic(), queries or contextlib.nullcontext():
        return list(seat_lock.seats(Seat.objects.filter(match_id__in=match_ids).values("match_id")))


def assert_same(mine: list[Seat], django: list[Seat]) -> None:
    assert [seat.pk for seat in mine] == [seat.pk for seat in django]
    for got, expected in zip(mine, django, strict=True):
        assert fields(got) == fields(expected)
        assert fields(got.player) == fields(expected.player)
        assert fields(got.match) == fields(expected.match)
        assert got.seen_events == expected.seen_events
        hand = expected.match.current_hand
        assert (got.match.current_hand and fields(got.match.current_hand)) == (hand and fields(hand))


def test_the_seat_lock_reads_every_field_as_the_queryset_it_replaces(alice, bob, carol, django_assert_num_queries):
    lobby = Match.objects.get(code=code_in(handle(alice, "new 5m to 50", "terminal")))
    running = Match.objects.get(code=code_in(handle(bob, "new", "terminal")))
    handle(alice, f"join {running.code}", "terminal")
    handle(carol, f"join {running.code}", "terminal")
    running.refresh_from_db()
    # What the terminal got, made to look like tables that reached Telegram chats.
    Outbox.objects.filter(match=running).update(status=Outbox.Status.SENT, replaces=f"{TABLE_KEY}{running.code}")
    mine = read([lobby.pk, running.pk], django_assert_num_queries(1))
    assert_same(mine, as_django_reads([lobby.pk, running.pk]))
    assert mine[0].match.current_hand is None and mine[-1].match.current_hand is not None
    assert [seat.seen_events is None for seat in mine] == [True, False, False, False]  # the lobby has no table


def test_a_shape_is_compiled_once_and_then_sent_with_each_calls_own_parameters(alice, bob, monkeypatch):
    monkeypatch.setattr(seat_lock, "_compiled", {})
    first = Match.objects.get(code=code_in(handle(alice, "new", "terminal")))
    second = Match.objects.get(code=code_in(handle(bob, "new 1h", "terminal")))
    assert_same(read([first.pk]), as_django_reads([first.pk]))
    assert len(seat_lock._compiled) == 1
    assert_same(read([second.pk]), as_django_reads([second.pk]))
    assert len(seat_lock._compiled) == 1
    assert_same(read([first.pk, second.pk]), as_django_reads([first.pk, second.pk]))
    assert len(seat_lock._compiled) == 2  # two ids: another shape of IN (...)
