"""The terminal channel: ``manage.py play`` driven through a whole game."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from games.engine import Knock
from games.models import Match, Outbox
from games.services import automation
from games.services.change import change
from games.services.play import load_table


def typist(name: str):
    """Answer the prompt like a careful player: knock when allowed, else a safe move."""

    def answer(prompt: str = "") -> str:
        match = Match.objects.filter(seats__player__display_name=name).latest("pk")
        with change():
            table = load_table(match.pk)
            knocks = [action for action in table.hand.legal_actions() if isinstance(action, Knock)]
            return str(knocks[0] if knocks else automation.safe_move(table.hand))

    return answer


@pytest.mark.django_db
def test_play_runs_a_whole_game_against_two_computer_players(monkeypatch):
    monkeypatch.setattr("builtins.input", typist("tess"))
    out = io.StringIO()
    call_command("play", "--name", "tess", "--options", "5m to 50", stdout=out)
    match = Match.objects.get(seats__player__display_name="tess")
    assert match.status == Match.Status.FINISHED
    assert max(match.seats.values_list("score", flat=True)) >= 50
    text = out.getvalue()
    assert "The cut for roles" in text
    assert "wins the match!" in text
    assert not Outbox.objects.filter(channel=Outbox.Channel.TERMINAL, status=Outbox.Status.PENDING).exists()


@pytest.mark.django_db
def test_play_answers_nonsense_with_a_reason_and_stops_on_quit(monkeypatch):
    answers = iter(["frobnicate", "discard 7x", "quit"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    out = io.StringIO()
    call_command("play", "--name", "ned", stdout=out)
    text = out.getvalue()
    assert "I don't know 'frobnicate'" in text
    assert "'7x' is not a card" in text
    assert Match.objects.get(seats__player__display_name="ned").status == Match.Status.RUNNING
