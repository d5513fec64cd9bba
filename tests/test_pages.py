"""The public pages: the scoreboard's ranking and what a match page may show.

A running match's page shows only what lies face up (R4.4): no card of the
box's or the captain's hand and none of the stock, checked card by card.
"""

from __future__ import annotations

import re
from itertools import count

import pytest
from django.urls import reverse
from django.utils import timezone

from games.models import Hand, Match, Player, Seat
from games.services import automation, handle, moderation
from games.services.change import change
from games.services.play import load_table
from games.services.players import terminal_player

CARD_TOKEN = re.compile(r"(?<!\w)[A2-9TJQK][shdc](?!\w)")
SUIT_SYMBOLS = "♠♥♦♣"
codes = count(1)


@pytest.fixture(autouse=True)
def background_off(settings):
    settings.GIN3_BACKGROUND = "off"


@pytest.fixture
def ann(db) -> Player:
    return terminal_player("ann", "Ann")


def running_match(player: Player, options: str = "") -> Match:
    """A running match of ``player`` and two computer players."""
    handle(player, f"new {options}".strip(), "terminal")
    handle(player, "bot", "terminal")
    handle(player, "bot", "terminal")
    return Match.objects.get(seats__player=player, status=Match.Status.RUNNING)


def step(match: Match, player: Player) -> None:
    """One move: a computer player's if one is to move, else the player's safe move."""
    if automation.play_computer_move(match.pk):
        return
    with change():
        move = automation.safe_move(load_table(match.pk).hand)
    handle(player, str(move), "terminal")


def page(client, match: Match) -> str:
    response = client.get(reverse("games:match", args=[match.code]))
    assert response.status_code == 200
    return response.content.decode()


def hidden_cards(match: Match) -> set[str]:
    """The cards nobody outside may see now: both hands and the stock."""
    with change():
        hand = load_table(match.pk).hand
    return {str(card) for card in (*hand.box, *hand.captain, *hand.stock)}


# Scoreboard ---------------------------------------------------------------------


def played(
    players: list[Player], scores: list[int], winner: Player | None, hands=(), status=Match.Status.FINISHED
) -> Match:
    """A match as the log would leave it: seats with scores, hands with results."""
    match = Match.objects.create(code=f"T{next(codes)}", status=status, winner=winner, finished_at=timezone.now())
    for position, (player, score) in enumerate(zip(players, scores, strict=True)):
        Seat.objects.create(match=match, player=player, position=position, score=score)
    for number, (result, winner_position) in enumerate(hands, start=1):
        Hand.objects.create(
            match=match,
            number=number,
            box=0,
            captain=1,
            sitter=2,
            deck="-",
            salt="-",
            commitment="-",
            result=result,
            winner=winner_position,
            points=10,
            ended_at=timezone.now(),
        )
    return match


@pytest.mark.django_db
def test_scoreboard_ranks_by_wins_then_points(client):
    ann, bob, cy = (Player.objects.create(display_name=name) for name in ("Ann", "Bob", "Cy"))
    bot = Player.objects.create(display_name="Bot 1", is_computer=True, strength="strong")
    played([ann, bob, cy], [100, 20, 0], ann, hands=[("gin", 0), ("undercut", 1), ("knock", 0)])
    played([ann, bob, cy], [10, 120, 5], bob, hands=[("gin", 1), ("draw", None)])
    played([ann, bob, bot], [40, 100, 30], bob)
    played([ann, bob, cy], [101, 50, 0], ann)
    played([ann, bob, cy], [0, 0, 500], None, hands=[("gin", 2)], status=Match.Status.ABORTED)

    response = client.get(reverse("games:scoreboard"))

    assert response.status_code == 200
    rows = {player.display_name: player for player in response.context["players"]}
    assert list(rows) == ["Bob", "Ann", "Bot 1", "Cy"]  # Bob and Ann: 2 wins, Bob more points
    assert (rows["Ann"].games, rows["Ann"].wins, rows["Ann"].points) == (4, 2, 251)
    assert (rows["Ann"].gins, rows["Ann"].undercuts) == (1, 0)
    assert (rows["Bob"].gins, rows["Bob"].undercuts) == (1, 1)
    assert (rows["Cy"].games, rows["Cy"].points, rows["Cy"].gins) == (3, 5, 0)  # the aborted match does not count
    html = response.content.decode()
    assert html.index("Bob") < html.index("Ann") < html.index("Cy")
    assert "50%" in html  # Ann's win rate
    assert "(computer)" in html


@pytest.mark.django_db
def test_scoreboard_links_running_and_finished_matches(client, ann):
    match = running_match(ann)
    other = running_match(terminal_player("bea", "Bea"))
    moderation.adjudicate(other, 0, "root", "test")
    html = client.get(reverse("games:scoreboard")).content.decode()
    assert reverse("games:match", args=[match.code]) in html
    assert reverse("games:match", args=[other.code]) in html


# Match page ---------------------------------------------------------------------


@pytest.mark.django_db
def test_running_match_shows_no_hidden_card(client, ann):
    match = running_match(ann)
    hand_row = match.hands.get()
    for _move in range(12):
        html = page(client, match)
        assert "Hand 1 in play" in html
        assert hand_row.commitment in html
        assert not set(CARD_TOKEN.findall(html)) & hidden_cards(match)
        assert not set(html) & set(SUIT_SYMBOLS)
        assert hand_row.salt not in html
        step(match, ann)
        if match.hands.filter(ended_at__isnull=False).exists():
            break


@pytest.mark.django_db
def test_running_match_shows_the_public_table(client, ann):
    match = running_match(ann)
    with change():
        table = load_table(match.pk)
    html = page(client, match)
    assert str(table.hand.pile[-1]) in html
    assert f"Cards in the stock: {len(table.hand.stock)}" in html
    assert table.name(table.mover) in html
    assert "Ann" in html and "Bot 1" in html


@pytest.mark.django_db
def test_finished_match_shows_every_deck_and_how_to_verify(client, ann):
    match = running_match(ann, "to 500")  # so that the first hand cannot end it
    while not match.hands.filter(ended_at__isnull=False).exists():
        step(match, ann)
    moderation.adjudicate(match, 0, "root", "test")
    html = page(client, match)
    first, second = match.hands.all()
    for hand in (first, second):  # the second was in play when the match ended
        assert hand.deck in html and hand.salt in html and hand.commitment in html
    assert 'sha256("salt:deck")' in html
    assert "won the match" in html
    assert f"scores {first.points}" in html or "Drawn" in html
    moves = first.events.filter(kind="move").values_list("data", flat=True)
    assert moves and all(move["move"] in html for move in moves)  # public once the match is over


@pytest.mark.django_db
def test_a_finished_hand_is_revealed_while_the_match_runs(client, ann):
    match = running_match(ann, "to 500")
    while not match.hands.filter(ended_at__isnull=False).exists():
        step(match, ann)
    first, second = match.hands.all()
    html = page(client, match)
    assert first.deck in html and first.salt in html
    assert second.commitment in html and second.salt not in html and second.deck not in html


@pytest.mark.django_db
def test_aborted_match_reveals_the_hand_it_stopped(client, ann):
    match = running_match(ann)
    moderation.abort(match, "root", "test")
    hand = match.hands.get()
    html = page(client, match)
    assert hand.deck in html and hand.salt in html


@pytest.mark.django_db
def test_lobby_shows_who_is_waiting(client, ann):
    handle(ann, "new", "terminal")
    match = Match.objects.get(seats__player=ann)
    html = page(client, match)
    assert "Waiting for players" in html and "Ann" in html


@pytest.mark.django_db
def test_unknown_match_is_404(client):
    assert client.get(reverse("games:match", args=["ZZZZ"])).status_code == 404
