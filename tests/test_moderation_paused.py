"""Every admin action on a paused match: it acts, and nothing plays by itself
until the clock is resumed: a pause means no move is played for anyone."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse

from games.models import Match
from games.services import ServiceError
from games.services.write import computer_moves, moderation
from tests.conftest import mover, refresh


@pytest.fixture
def paused(match3) -> Match:
    return moderation.pause(match3, "root", "looking into it")


def test_abort_ends_a_paused_match_and_its_pause(paused):
    moderation.abort(paused, "root", "cheating")
    after = refresh(paused)
    assert after.status == Match.Status.ABORTED
    assert after.paused_at is None and after.deadline is None


def test_adjudicate_ends_a_paused_match_and_its_pause(paused, alice):
    moderation.adjudicate(paused, paused.seats.get(player=alice).position, "root", "the others left")
    after = refresh(paused)
    assert after.status == Match.Status.FINISHED and after.winner == alice
    assert after.paused_at is None


def test_extend_adds_to_the_time_kept_by_the_pause(paused):
    moderation.extend(paused, timedelta(hours=2), "root")
    after = refresh(paused)
    assert after.is_paused and after.deadline is None
    assert after.paused_remaining == paused.paused_remaining + timedelta(hours=2)
    resumed = moderation.resume(after, "root")
    assert resumed.deadline is not None and resumed.paused_remaining is None


def test_a_computer_put_in_a_paused_match_waits_for_the_resume(paused):
    position = refresh(paused).turn_seat
    moderation.replace_with_computer(paused, position, "root", "gone")
    assert not computer_moves.play_computer_move(paused.pk)
    moderation.resume(paused, "root")
    assert computer_moves.play_computer_move(paused.pk)


def test_a_player_banned_in_a_paused_match_is_played_for_after_the_resume(paused):
    banned = mover(paused)
    moderation.ban(banned, "root", "abuse")
    assert paused.seats.get(player=banned).autopilot
    assert not computer_moves.play_computer_move(paused.pk)
    moderation.resume(paused, "root")
    assert computer_moves.play_computer_move(paused.pk)


def test_a_paused_match_is_not_paused_twice(paused):
    with pytest.raises(ServiceError):
        moderation.pause(paused, "root")
    assert refresh(paused).paused_remaining == paused.paused_remaining


def test_an_extension_past_the_calendar_is_a_form_error_not_a_500(client, django_user_model, paused):
    client.force_login(django_user_model.objects.create_superuser("root"))
    data = {"action": "extend", "_selected_action": [paused.pk], "apply": "1", "hours": "1e12"}
    response = client.post(reverse("admin:games_match_changelist"), data)
    assert response.status_code == 200  # the form again, with its error
    assert refresh(paused).paused_remaining == paused.paused_remaining
