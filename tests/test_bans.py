"""A ban holds at once for every command on every channel.

Why the command reads the player again: a channel may hold the player's row
for long (a terminal session reads it once, when it starts), and a ban checked
on that copy would let a player banned meanwhile play a whole new match
(``new``, ``bot``, ``bot``). So the command reads the player again, his row
locked, where it is carried out; and START and ``group CODE``, which do not go
through a command's handler, check it too.
"""

from __future__ import annotations

import pytest

from games.models import Match, Player
from games.services import handle
from games.services.write import groups, linking, moderation
from games.services.write.players import phone_player, telegram_player
from tests.conftest import refresh
from tests.terminal_harness import play
from tests.test_play_command import running_match, terminal

BAN_NOTICE = "You are banned from gin3: abuse."


def matches_created_by(player: Player) -> int:
    return Match.objects.filter(created_by=player).count()


@pytest.mark.any_database
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_ban_reaches_a_terminal_session_that_is_already_open():
    ann = terminal("ann")
    typed = iter(["help", "new", "bot", "bot", "status"])
    before_the_ban = []

    def typist(prompt: str = "") -> str:
        line = next(typed, None)
        if line is None:
            raise EOFError
        if line == "new":
            before_the_ban.append(matches_created_by(ann))
            moderation.ban(Player.objects.get(pk=ann.pk), "root", "abuse")
        return line

    session = play("--name", "ann", "--computers", "0", typist=typist)  # no match for computers to play out
    assert matches_created_by(ann) == before_the_ban[0]
    assert session.text.count(BAN_NOTICE) >= 4  # new, bot, bot, status: each refused


@pytest.mark.django_db
@pytest.mark.parametrize("channel", ["terminal", "telegram", "sms"])
def test_a_ban_holds_for_a_command_whatever_the_channel_read_of_the_player_before(channel):
    if channel == "telegram":
        player = telegram_player(user_id=5001, chat_id=5001, name="Tess")
    elif channel == "sms":
        player, _created = phone_player("+15550001234")
    else:
        player = terminal("ann")
    moderation.ban(Player.objects.get(pk=player.pk), "root", "abuse")
    for command in ("new", "help", "name Zed", "away 3d", "quiet 23-07"):
        assert handle(player, command, channel).startswith(BAN_NOTICE)
    player = refresh_player(player)
    assert matches_created_by(player) == 0
    assert player.display_name != "Zed" and player.away_until is None and player.quiet_from is None


def refresh_player(player: Player) -> Player:
    return Player.objects.get(pk=player.pk)


@pytest.mark.django_db
def test_start_by_sms_does_not_give_a_banned_player_his_seats_back():
    sam, _created = phone_player("+15550001234")
    match = running_match(terminal("bea"), sam)
    moderation.ban(refresh_player(sam), "root", "abuse")
    linking.opt_out(refresh_player(sam))
    linking.opt_in(refresh_player(sam))
    assert match.seats.get(player=sam).autopilot
    assert refresh(match).status == Match.Status.RUNNING


@pytest.mark.django_db
def test_a_banned_player_cannot_link_a_group_to_his_match():
    tess = telegram_player(user_id=5001, chat_id=5001, name="Tess")
    match = running_match(terminal("bea"), tess)
    moderation.ban(refresh_player(tess), "root", "abuse")
    groups.link_telegram_group(refresh_player(tess), match.code, -100123, update_key="tg:1")
    assert refresh(match).telegram_group_chat_id is None
