"""``answer``: what became of a command, as a channel that shows it itself needs to know.

Why: the table's page shows a refusal's reason on its own (not a whole table under it,
as an old Telegram button gets), and must tell a command done from one refused, and
from one whose key was seen already (sent again after a lost connection)."""

from __future__ import annotations

import pytest

from games.models import Player
from games.services import answer

from .conftest import player_in_role, refresh

pytestmark = pytest.mark.django_db


def test_a_command_carried_out_is_not_refused(match3):
    said = answer(player_in_role(match3, "captain"), "pass", "terminal")
    assert not said.refused and not said.repeated and said.text


def test_a_refused_command_gives_its_reason_alone(match3):
    old = refresh(match3).version
    answer(player_in_role(match3, "captain"), "pass", "terminal")
    said = answer(player_in_role(match3, "box"), f"#{match3.code}@{old} take", "terminal")
    assert said.refused and said.reason.startswith("That was for an earlier moment")
    assert said.reason in said.text and said.text != said.reason, "the text shows the table with it"


def test_a_command_whose_key_was_seen_is_repeated_and_does_nothing(match3):
    captain = player_in_role(match3, "captain")
    answer(captain, "pass", "terminal", update_key="k1")
    said = answer(captain, "pass", "terminal", update_key="k1")
    assert said.repeated and said.text == "" and not said.refused


def test_a_command_from_the_web_page_leaves_where_his_messages_go(match3):
    captain = player_in_role(match3, "captain")
    answer(captain, "status", "web", reply_inline=True)
    assert Player.objects.get(pk=captain.pk).last_channel == "terminal"
