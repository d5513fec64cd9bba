"""A ban takes the banned player's seats out of play at once.

Why: otherwise his matches wait on his clock (a day by default, three times)
before a computer takes over, and nobody knows why. A computer player plays
his seats from the ban on (the seat's autopilot, so that the hands he played
stay his), the others are told without the ban's reason, and once the ban is
over any command of his in a match gives him his seat back.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.admin.models import LogEntry
from django.urls import reverse
from django.utils import timezone, translation

from games.models import Event, Match, Outbox, Player
from games.services import handle
from games.services.write import computer_moves, moderation
from games.text import moderation as moderation_words
from tests.conftest import code_in, mover, refresh


def seat_of(match: Match, player: Player):
    return match.seats.get(player=player)


def told(player: Player, kind: str) -> list[str]:
    return list(Outbox.objects.filter(recipient=player, kind=kind).values_list("text", flat=True))


def test_a_ban_gives_the_seat_to_a_computer_who_moves_at_once(match3):
    banned = mover(match3)
    moves = Event.objects.filter(match=match3, kind="move").count()
    moderation.ban(banned, "root", "abuse", timezone.now() + timedelta(days=3))

    assert seat_of(match3, banned).autopilot
    assert refresh(match3).version > match3.version  # old buttons are refused; the computer is scheduled
    assert computer_moves.play_computer_move(match3.pk)
    move = Event.objects.filter(match=match3, kind="move").order_by("seq")[moves]
    assert move.data["automatic"] == "autopilot"


def test_the_hands_he_played_stay_his(match3):
    banned = mover(match3)
    moderation.ban(banned, "root", "abuse")
    assert seat_of(match3, banned).player == banned
    assert Player.objects.filter(display_name__startswith="Bot").count() == 0


def test_the_others_are_told_without_the_reason(match3, alice, bob, carol):
    moderation.ban(bob, "root", "private matter")
    for other in (alice, carol):
        (notice,) = told(other, "autopilot")
        assert notice == f"Bob may not play for now: a computer player plays in their place in #{match3.code}."
    others = Outbox.objects.filter(match=match3).exclude(recipient=bob)
    assert not [text for text in others.values_list("text", flat=True) if "private" in text]
    assert not told(bob, "autopilot")


def test_the_others_are_told_in_their_own_language(match3, alice, bob, carol, monkeypatch):
    """Each notice is worded under its reader's language (the catalogues come later,
    so the test marks each string with the language it was asked in)."""
    monkeypatch.setattr(moderation_words, "_", lambda text: f"[{translation.get_language()}] {text}")
    Player.objects.filter(pk=alice.pk).update(language="de")
    moderation.ban(bob, "root", "abuse")
    assert told(alice, "autopilot")[0].startswith("[de] Bob may not play")
    assert told(carol, "autopilot")[0].startswith("[en] Bob may not play")


def test_the_banned_player_is_told_why_and_until_when(match3, bob):
    moderation.ban(bob, "root", "abuse", timezone.now() + timedelta(days=3))
    (notice,) = told(bob, "admin")
    assert notice.startswith("You are banned from gin3: abuse. The ban ends in 3d (")


def test_a_reason_that_ends_a_sentence_gets_no_second_full_stop(bob):
    moderation.ban(bob, "root", "Abuse in chat.")
    assert told(bob, "admin") == ["You are banned from gin3: Abuse in chat."]


def test_once_the_ban_ends_any_command_in_the_match_gives_the_seat_back(match3, bob):
    moderation.ban(bob, "root", "abuse", timezone.now() + timedelta(days=1))
    assert "banned" in handle(Player.objects.get(pk=bob.pk), "status", "terminal")
    assert seat_of(match3, bob).autopilot

    Player.objects.filter(pk=bob.pk).update(ban_expires_at=timezone.now() - timedelta(seconds=1))
    handle(Player.objects.get(pk=bob.pk), "status", "terminal")
    assert not seat_of(match3, bob).autopilot
    assert Event.objects.filter(match=match3, kind="returned", actor=bob).exists()


def test_once_the_ban_is_lifted_any_command_in_the_match_gives_the_seat_back(match3, bob):
    moderation.ban(bob, "root", "abuse")
    moderation.unban(bob, "root", "sorry")
    assert seat_of(match3, bob).autopilot
    assert told(bob, "admin")[-1] == (
        f"Your ban was lifted: you can play gin3 again. Any command in a match gives you your seat back: #{match3.code}"
    )
    handle(Player.objects.get(pk=bob.pk), "score", "terminal")
    assert not seat_of(match3, bob).autopilot


def test_a_match_not_yet_started_gets_the_seat_back_when_the_ban_is_lifted(alice, bob):
    code = code_in(handle(alice, "new", "terminal"))
    handle(bob, f"join {code}", "terminal")
    lobby = Match.objects.get(code=code)
    moderation.ban(bob, "root", "abuse")
    assert seat_of(lobby, bob).autopilot
    moderation.unban(bob, "root")
    assert not seat_of(lobby, bob).autopilot


def test_a_second_ban_tells_the_others_nothing_new(match3, alice, bob):
    moderation.ban(bob, "root", "abuse")
    moderation.ban(bob, "root", "abuse again", timezone.now() + timedelta(days=7))
    assert len(told(alice, "autopilot")) == 1


@pytest.mark.parametrize(("days", "said"), [("1", "Banned for 1 day: abuse"), ("3", "Banned for 3 days: abuse")])
def test_the_admin_log_counts_days_in_words_that_agree(client, django_user_model, bob, days, said):
    client.force_login(django_user_model.objects.create_superuser("root"))
    data = {"action": "ban", "_selected_action": [bob.pk], "apply": "1", "reason": "abuse", "days": days}
    client.post(reverse("admin:games_player_changelist"), data)
    assert LogEntry.objects.get(object_id=str(bob.pk)).get_change_message() == said


def test_a_ban_longer_than_the_calendar_is_refused_by_the_form_not_a_500(client, django_user_model, bob):
    client.force_login(django_user_model.objects.create_superuser("root"))
    data = {"action": "ban", "_selected_action": [bob.pk], "apply": "1", "reason": "abuse", "days": str(10**9)}
    response = client.post(reverse("admin:games_player_changelist"), data)
    assert response.status_code == 200  # the form again, with its error
    assert not Player.objects.get(pk=bob.pk).banned
