"""The desk's event log, newest first, each event's data as ``desk.event_text`` words it,
and who acted as ``by`` names him."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Case, IntegerField, OuterRef, QuerySet, Subquery, When
from django.db.models.fields.json import KT
from django.db.models.functions import Cast
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from ..models import Event, Player
from .base import DeskAdmin, event_words


def with_seated(queryset: QuerySet) -> QuerySet:
    """Events with, on a "joined" event, the name of the player it seated (``seated_name``).

    A computer player is seated by a command of the person who added it (``bot``), so its
    "joined" event has him as its actor and the computer as ``data["player"]``. The log
    is append-only, so the desk reads the seated player from it rather than the log
    being written again; one subquery for the whole page, not a query a row."""
    seated_id = Case(
        When(kind=Event.Kind.JOINED, then=Cast(KT("data__player"), IntegerField())),
        output_field=IntegerField(),
    )
    seated_name = Player.objects.filter(pk=OuterRef("seated_id")).values("display_name")[:1]
    return queryset.annotate(seated_id=seated_id, seated_name=Subquery(seated_name))


def who_acted(event: Event) -> str:
    """Who the event is by: the actor, except that a player seated by someone else
    (a computer player, added with ``bot``) is the one who joined, added by the actor."""
    actor = str(event.actor) if event.actor is not None else "-"
    seated_id = event.data.get("player") if event.kind == Event.Kind.JOINED else None
    if seated_id is None or seated_id == event.actor_id:
        return actor
    seated = getattr(event, "seated_name", None)  # with_seated annotates every page's queryset
    return _("%(player)s (added by %(actor)s)") % {"player": seated or seated_id, "actor": actor}


@admin.register(Event)
class EventAdmin(DeskAdmin):
    list_display = ["match", "seq", "kind", "by", "text", "created_at"]
    ordering = ["-pk"]  # the newest first: what a moderator looks for
    list_filter = ["kind"]
    search_fields = ["match__code"]
    fields = ["match", "seq", "hand", "kind", "by", "text", "created_at"]
    list_select_related = ["match", "actor", "hand"]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return with_seated(super().get_queryset(request))

    @admin.display(description=Event._meta.get_field("actor").verbose_name, ordering="actor")
    def by(self, event: Event) -> str:
        return who_acted(event)

    @admin.display(description=_("data"))
    def text(self, event: Event) -> str:
        return event_words(event)
