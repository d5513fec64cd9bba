"""The moderation desk at scale: a page of a list, or a match with many hands,
runs the same number of queries whatever the number of rows on it.

Why: a list of 100 matches that asks the database for each row's players, or
a match page that asks for each hand's roles and winner, is a page that gets
slower with every match played.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from games.models import Event, Hand, Match, Outbox, Player, Seat

DECK = " ".join(f"{rank}{suit}" for suit in "shdc" for rank in "A23456789TJQK")


def make_matches(count: int, hands: int = 1) -> list[Match]:
    """``count`` finished matches of three new players, each with ``hands`` hands,
    their events and a message to each player, written directly: fast, and
    everything a list or a match page shows."""
    now = timezone.now()
    first, known = Match.objects.count(), Player.objects.count()
    players = Player.objects.bulk_create(
        [Player(display_name=f"P{known + n}", terminal_user=f"p{known + n}") for n in range(count * 3)]
    )
    matches = Match.objects.bulk_create(
        [
            Match(code=f"S{first + n:05d}", status=Match.Status.FINISHED, started_at=now, finished_at=now)
            for n in range(count)
        ]
    )
    seats, hand_rows, events, messages = [], [], [], []
    for index, match in enumerate(matches):
        trio = players[index * 3 : index * 3 + 3]
        seats += [Seat(match=match, player=player, position=p, score=p * 7) for p, player in enumerate(trio)]
        for number in range(1, hands + 1):
            hand_rows.append(
                Hand(
                    match=match,
                    number=number,
                    box=number % 3,
                    captain=(number + 1) % 3,
                    sitter=(number + 2) % 3,
                    deck=DECK,
                    salt="0" * 32,
                    commitment="0" * 64,
                    result="knock",
                    winner=number % 3,
                    points=5,
                    ended_at=now,
                )
            )
        messages += [
            Outbox(recipient=player, match=match, channel="terminal", address="x", kind="result", text="t")
            for player in trio
        ]
    Seat.objects.bulk_create(seats)
    Hand.objects.bulk_create(hand_rows)
    hands_of = {}
    for hand in Hand.objects.filter(match__in=matches):
        hands_of.setdefault(hand.match_id, []).append(hand)
    for index, match in enumerate(matches):
        trio = players[index * 3 : index * 3 + 3]
        for seq, hand in enumerate(sorted(hands_of[match.pk], key=lambda row: row.number), start=1):
            events.append(
                Event(match=match, seq=seq, hand=hand, kind="move", actor=trio[hand.captain], data={"move": "draw"})
            )
    Event.objects.bulk_create(events)
    Outbox.objects.bulk_create(messages)
    return matches


def queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(captured)


@pytest.fixture
def admin_client(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("root"))
    return client


@pytest.mark.parametrize("model", ["match", "player", "event", "outbox"])
def test_a_page_of_100_rows_runs_as_many_queries_as_a_page_of_a_few(admin_client, django_assert_max_num_queries, model):
    make_matches(1)
    url = reverse(f"admin:games_{model}_changelist")
    few = queries(admin_client, url)
    make_matches(100)
    with django_assert_max_num_queries(few):
        response = admin_client.get(url)
    assert len(response.context["cl"].result_list) == 100


def test_a_match_page_runs_as_many_queries_with_30_hands_as_with_1(admin_client, django_assert_max_num_queries):
    (small,) = make_matches(1, hands=1)
    (big,) = make_matches(1, hands=30)
    few = queries(admin_client, reverse("admin:games_match_change", args=[small.pk]))
    with django_assert_max_num_queries(few):
        response = admin_client.get(reverse("admin:games_match_change", args=[big.pk]))
    assert response.content.count(b"knock") >= 30
