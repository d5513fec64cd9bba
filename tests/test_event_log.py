"""The event log is append-only in the database, not only in Python.

Why triggers: ``Event.save`` and ``Event.delete`` refuse to rewrite a row, but a
queryset's ``update()`` and ``delete()``, raw SQL or any other client reach the
table directly. Triggers refuse every UPDATE and DELETE of an event, on SQLite
and on PostgreSQL (whichever these tests run on); an insert still works.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission, User
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction
from django.db.models import ProtectedError
from django.urls import reverse

from games.models import AppendOnlyError, Event, Match, Player
from games.services import handle
from games.services.plumbing import state
from games.services.plumbing.change import change
from games.services.write.players import terminal_player
from tests.conftest import code_in


@pytest.fixture
def event(match3) -> Event:
    return Event.objects.filter(match=match3).order_by("seq").first()


def refused(statement) -> bool:
    """Whether the database refuses ``statement``; the savepoint keeps the test's transaction usable."""
    try:
        with transaction.atomic():
            statement()
    except IntegrityError as error:
        return "append-only" in str(error)
    return False


def raw(sql: str, *params: object):
    def execute() -> None:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)

    return execute


def test_a_queryset_update_of_an_event_is_refused_by_the_database(event):
    assert refused(lambda: Event.objects.filter(pk=event.pk).update(kind="forged"))
    assert refused(lambda: Event.objects.filter(match=event.match).update(data={}))
    assert Event.objects.get(pk=event.pk).kind == event.kind


def test_a_queryset_delete_of_an_event_is_refused_by_the_database(event):
    count = Event.objects.count()
    assert refused(lambda: Event.objects.filter(pk=event.pk).delete())
    assert refused(lambda: Event.objects.all().delete())
    assert Event.objects.count() == count


def test_raw_sql_cannot_update_or_delete_an_event(event):
    assert refused(raw("UPDATE games_event SET kind = %s WHERE id = %s", "forged", event.pk))
    assert refused(raw("DELETE FROM games_event WHERE id = %s", event.pk))
    assert refused(raw("DELETE FROM games_event"))
    assert Event.objects.filter(pk=event.pk, kind=event.kind).exists()


def test_events_are_still_appended(match3):
    with change():
        locked = state.lock(match3.pk)
        added = state.append_event(locked, "note", said="hello")
    assert Event.objects.get(pk=added.pk).data == {"said": "hello"}


def test_the_python_guards_stay(event):
    event.kind = "forged"
    with pytest.raises(AppendOnlyError):
        event.save()
    with pytest.raises(AppendOnlyError):
        event.delete()


def test_a_match_with_a_log_is_never_deleted(match3):
    with pytest.raises(ProtectedError), transaction.atomic():
        match3.delete()
    assert Match.objects.filter(pk=match3.pk).exists()


@pytest.mark.django_db(transaction=True)
def test_flush_empties_the_log_and_leaves_it_append_only(match3):
    """The test runner flushes after every test that commits: a TRUNCATE on
    PostgreSQL, which fires no row trigger, and on SQLite a DELETE FROM, for
    which ``flush`` lifts the triggers; they are back afterwards."""
    call_command("flush", interactive=False, verbosity=0)
    assert not Event.objects.exists()

    players = [terminal_player(name, name) for name in ("ann", "bea", "cid")]
    code = code_in(handle(players[0], "new", "terminal"))
    for player in players[1:]:
        handle(player, f"join {code}", "terminal")
    assert refused(lambda: Event.objects.update(kind="forged"))
    assert refused(lambda: Event.objects.all().delete())


@pytest.mark.django_db(transaction=True)
def test_flush_keeps_the_content_types_and_permissions_the_schema_made_and_empties_the_rest(match3):
    """Made again after every flush, they were three quarters of its time; they are the
    same rows, and keeping them keeps the ids a process has cached."""
    kinds = {(kind.pk, kind.app_label, kind.model) for kind in ContentType.objects.all()}
    permissions = set(Permission.objects.values_list("pk", "codename"))
    User.objects.create_user("moderator").user_permissions.set(Permission.objects.all()[:3])
    assert kinds and permissions
    call_command("flush", interactive=False, verbosity=0)
    assert {(kind.pk, kind.app_label, kind.model) for kind in ContentType.objects.all()} == kinds
    assert set(Permission.objects.values_list("pk", "codename")) == permissions
    assert not User.objects.exists() and not Match.objects.exists() and not Player.objects.exists()
    assert not User.user_permissions.through.objects.exists()


def test_the_admin_offers_no_way_to_delete_a_match(client, django_user_model, match3):
    client.force_login(django_user_model.objects.create_superuser("root"))
    assert client.get(reverse("admin:games_match_delete", args=[match3.pk])).status_code == 403
    actions = client.get(reverse("admin:games_match_changelist")).context["action_form"].fields["action"].choices
    assert "delete_selected" not in [name for name, _label in actions]
