"""The moderation desk's queue of reports (``report TEXT``): the waiting ones first, oldest first.

A report opens its match's team chat to the desk (``desk.event_text``):
the report's page shows it beside the reporter's words, so that a moderator
reads what was said where it may have happened.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.auth import get_permission_codename
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy as _

from games.services.write import reports

from ..models import Event, Report
from .base import DeskAdmin, event_words

SHORT = 80  # characters of a report in the list


@admin.register(Report)
class ReportAdmin(DeskAdmin):
    list_display = ["created_at", "match_link", "reporter", "short_text", "handled"]
    list_filter = ["handled"]
    search_fields = ["match__code", "reporter__display_name"]
    list_select_related = ["match", "reporter"]
    fields = ["match_link", "reporter", "created_at", "handled", "text", "team_chat"]
    readonly_fields = fields
    actions = ["mark_handled"]

    def has_moderate_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(f"{self.opts.app_label}.{get_permission_codename('change', self.opts)}")

    @admin.display(description=_("match"), ordering="match__code")
    def match_link(self, report: Report) -> str:
        url = reverse("admin:games_match_change", args=[report.match_id])
        return format_html('<a href="{}">{}</a>', url, report.match)

    @admin.display(description=_("report"))
    def short_text(self, report: Report) -> str:
        return report.text if len(report.text) <= SHORT else report.text[: SHORT - 1] + "…"

    @admin.display(description=_("team chat"))
    def team_chat(self, report: Report) -> str:
        """What the captain and the sitter said to each other in the reported match, oldest first."""
        talk = report.match.events.filter(kind=Event.Kind.TEAM).select_related("match", "hand", "actor").order_by("seq")
        if not talk:
            return "-"
        rows = ((event.hand.number if event.hand else "-", event.actor or "-", event_words(event)) for event in talk)
        return format_html_join(mark_safe("<br>"), "{} / {}: {}", rows)

    @admin.action(description=_("Mark as handled"), permissions=["moderate"])
    def mark_handled(self, request: HttpRequest, queryset: QuerySet) -> None:
        for report in queryset.filter(handled=False):
            self.log_change(request, report, "handled")
        count = reports.mark_handled(queryset)
        self.message_user(request, _("Reports marked as handled: %(count)s.") % {"count": count}, messages.SUCCESS)
