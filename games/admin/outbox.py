"""The desk's outbox: every message and how its delivery went, its text only as
``desk.message_text`` allows (never a one-time code or a sign-in link)."""

from __future__ import annotations

import html
from collections.abc import Sequence

from django.contrib import admin
from django.http import HttpRequest
from django.utils.html import strip_tags
from django.utils.translation import gettext_lazy as _

from games.services.read.desk import message_text

from ..models import Outbox
from .base import DeskAdmin

# Still to be sent (``delivery.UNFINISHED``): only these have a next attempt. A message
# sent, delivered, failed for good or replaced keeps the time its last attempt was due.
WAITING = (Outbox.Status.PENDING, Outbox.Status.SENDING)


@admin.register(Outbox)
class OutboxAdmin(DeskAdmin):
    list_display = [
        "created_at",
        "status",
        "channel",
        "kind",
        "recipient",
        "match",
        "attempts",
        "last_error",
        "sent_at",
    ]
    ordering = ["-pk"]  # the newest first: what a moderator looks for
    list_filter = ["status", "channel"]
    search_fields = ["recipient__display_name", "address", "match__code"]
    fields = [
        "status",
        "channel",
        "address",
        "kind",
        "recipient",
        "match",
        "shown_text",
        "attempts",
        "last_error",
        "next_attempt_at",
        "external_id",
        "created_at",
        "sent_at",
    ]
    list_select_related = ["recipient", "match"]

    def get_fields(self, request: HttpRequest, obj: Outbox | None = None) -> Sequence:
        """``next_attempt_at`` only while the message waits to be sent: a sent one said
        "Next attempt at" the time of the attempt that sent it."""
        fields = super().get_fields(request, obj)
        if obj is not None and obj.status in WAITING:
            return fields
        return [field for field in fields if field != "next_attempt_at"]

    @admin.display(description=_("text"))
    def shown_text(self, message: Outbox) -> str:
        """What ``desk.message_text`` lets the desk read; never a phone's
        one-time code, which would let whoever reads it link the phone, nor a
        sign-in link, which would let him play as its player."""
        if message.kind == Outbox.Kind.LINK_CODE:
            return _("(a one-time code: never shown)")
        if message.kind == Outbox.Kind.SIGN_IN_LINK:
            return _("(a sign-in link: never shown)")
        text = message_text(message)
        if text is None:
            return _("(hidden while the match runs: it may show a player's cards)")
        if message.channel == Outbox.Channel.TELEGRAM and text == message.text:
            return html.unescape(strip_tags(text))  # as the player reads it, not Telegram's HTML
        return text
