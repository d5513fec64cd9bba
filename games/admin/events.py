"""The desk's event log, newest first, each event's data as ``desk.event_text`` words it."""

from __future__ import annotations

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from games.services.read.desk import event_text

from ..models import Event
from .base import DeskAdmin


@admin.register(Event)
class EventAdmin(DeskAdmin):
    list_display = ["match", "seq", "kind", "actor", "text", "created_at"]
    ordering = ["-pk"]  # the newest first: what a moderator looks for
    list_filter = ["kind"]
    search_fields = ["match__code"]
    fields = ["match", "seq", "hand", "kind", "actor", "text", "created_at"]
    list_select_related = ["match", "actor", "hand"]

    @admin.display(description=_("data"))
    def text(self, event: Event) -> str:
        return event_text(event)
