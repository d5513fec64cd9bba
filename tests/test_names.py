"""No two players share a name, whatever its case, even when they ask for it at the same moment.

Why the database decides: a name checked and then written lets two requests at
the same moment both pass the check (10 first contacts, all named "Twin", got 2
distinct names; two ``name Zed`` at once both held "Zed"). So the database
refuses a second one (the ``player_name_unique`` constraint, whose migration
renames the names a database already shares), a first contact that loses the
race takes the next free number, and a ``name`` that loses it is told the name
is taken.
"""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections
from django.db.migrations.executor import MigrationExecutor
from django.db.models.functions import Lower

from games.models import Player
from games.services import handle
from games.services.commands import account
from games.services.write import players
from games.services.write.players import phone_player, telegram_player, terminal_player


def names() -> list[str]:
    return list(Player.objects.order_by("pk").values_list("display_name", flat=True))


def folded_names() -> set[str]:
    return set(Player.objects.annotate(key=Lower("display_name")).values_list("key", flat=True))


def the_next_name_is_offered_before_a_rival_wrote_it(monkeypatch) -> None:
    """The next free name is worked out before a rival registered at the same moment
    wrote it: the next ``free_name`` offers a name that is taken by the time it is written."""
    real = players.free_name
    offered: list[str] = []

    def stale(wanted: str) -> str:
        if not offered:
            offered.append(wanted)
            return wanted
        return real(wanted)

    monkeypatch.setattr(players, "free_name", stale)


@pytest.mark.django_db
@pytest.mark.parametrize("register", ["telegram", "sms", "terminal"])
def test_a_first_contact_that_loses_the_race_for_its_name_takes_the_next_free_number(register, monkeypatch):
    terminal_player("twin", "Twin")
    terminal_player("someone", "Player 1234")
    the_next_name_is_offered_before_a_rival_wrote_it(monkeypatch)
    if register == "telegram":
        player = telegram_player(user_id=5001, chat_id=5001, name="TWIN")
        assert player.display_name == "TWIN 2"
    elif register == "sms":
        player, _created = phone_player("+15550001234")
        assert player.display_name == "Player 1234 2"
    else:
        player = terminal_player("another", "twin")
        assert player.display_name == "twin 2"
    assert len(folded_names()) == Player.objects.count()


@pytest.mark.django_db
def test_a_name_command_that_loses_the_race_is_told_the_name_is_taken(monkeypatch):
    ann, bea = terminal_player("ann", "Ann"), terminal_player("bea", "Bea")
    handle(ann, "name Zed", "terminal")
    monkeypatch.setattr(account, "is_taken", lambda wanted, player: False)  # checked before Ann wrote it
    assert handle(bea, "name zed", "terminal") == "zed is taken: choose another name."
    assert bea.display_name == "Bea"
    assert Player.objects.get(pk=bea.pk).display_name == "Bea"
    assert handle(bea, "name Bee", "terminal") == "Your name is Bee."


@pytest.mark.django_db
def test_a_name_the_others_would_read_as_themselves_is_refused_and_numbered_at_first_contact():
    """A player named You made the others read "You goes gin!"."""
    ann = terminal_player("ann", "Ann")
    assert handle(ann, "name You", "terminal") == "The others would read You as themselves: choose another name."
    assert handle(ann, "name ти", "terminal").startswith("The others would read ти")
    assert Player.objects.get(pk=ann.pk).display_name == "Ann"
    assert telegram_player(user_id=5002, chat_id=5002, name="you").display_name == "you 2"
    assert handle(ann, "name Youssef", "terminal") == "Your name is Youssef."


@pytest.mark.django_db(transaction=True)
def test_ten_first_contacts_at_the_same_moment_get_ten_names():
    start = threading.Barrier(10)
    errors: list[BaseException] = []

    def first_contact(user_id: int) -> None:
        try:
            start.wait()
            telegram_player(user_id=user_id, chat_id=user_id, name="Twin")
        except BaseException as error:  # reported below, in the test's thread
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=first_contact, args=(6000 + number,)) for number in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    assert Player.objects.filter(telegram_user_id__gte=6000).count() == 10
    assert len(folded_names()) == 10
    assert sorted(names()) == sorted(["Twin", *(f"Twin {number}" for number in range(2, 11))])


@pytest.mark.django_db(transaction=True)
def test_two_name_commands_at_once_leave_one_player_with_the_name():
    ann, bea = terminal_player("ann", "Ann"), terminal_player("bea", "Bea")
    start = threading.Barrier(2)
    replies: dict[str, str] = {}

    def rename(player: Player) -> None:
        try:
            start.wait()
            replies[player.display_name] = handle(player, "name Zed", "terminal")
        finally:
            connections.close_all()

    threads = [threading.Thread(target=rename, args=(player,)) for player in (ann, bea)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(replies.values()) == ["Your name is Zed.", "Zed is taken: choose another name."]
    assert Player.objects.filter(display_name__iexact="zed").count() == 1


@pytest.mark.django_db(transaction=True)
def test_the_migration_renames_the_names_a_database_already_shares():
    executor = MigrationExecutor(connection)
    before, after = [("games", "0018_heartbeats_sms_status")], [("games", "0019_unique_names")]
    executor.migrate(before)
    try:
        Old = executor.loader.project_state(before).apps.get_model("games", "Player")
        for name in ("Twin", "twin", "TWIN", "Twin 2", "Solo", "x" * 64, "X" * 64):
            Old.objects.create(display_name=name)
        executor = MigrationExecutor(connection)
        executor.migrate(after)
    finally:
        MigrationExecutor(connection).migrate(executor.loader.graph.leaf_nodes())
    assert names() == ["Twin", "twin 3", "TWIN 4", "Twin 2", "Solo", "x" * 64, "X" * 62 + " 2"]
    assert len(folded_names()) == Player.objects.count()
