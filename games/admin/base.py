"""What every page of the moderation desk shares: read-only lists and pages,
filtered, searched and sorted on public fields only (``games.admin.lookups``), and
the moderation actions, each a form (``games.admin.forms``) that calls a service function
(``games.services.write.moderation``) and writes Django's admin log.
"""

from __future__ import annotations

import re
from datetime import datetime

from django.contrib import admin, messages
from django.contrib.auth import get_permission_codename
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext_lazy as _

from games.admin import forms

from ..models import Event, Match, Player
from ..services import ServiceError
from ..services.read.desk import event_text, team_notice
from ..text import render
from ..text.sentences import sentence
from .lookups import GuardedLookups


class ReadOnly:
    """Nothing is added, changed or deleted by hand; the log is append-only."""

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


class DeskAdmin(ReadOnly, GuardedLookups, admin.ModelAdmin):
    """A list and its pages, read-only, filtered, searched and sorted on public fields only."""

    def get_search_results(self, request: HttpRequest, queryset: QuerySet, search_term: str) -> tuple[QuerySet, bool]:
        """A match code is found as players and messages write it, ``#CODE``, as well as ``CODE``."""
        words = (word.removeprefix("#") for word in search_term.split())
        return super().get_search_results(request, queryset, " ".join(words))


class ModeratedAdmin(DeskAdmin):
    """Actions that ask on an intermediate page (``forms.ModerationForm``), then
    call the service for each selected object and log the change. The change
    page shows the same actions as buttons for its one object."""

    change_form_template = "admin/games/moderated_change_form.html"

    def has_moderate_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(f"{self.opts.app_label}.{get_permission_codename('change', self.opts)}")

    def moderate(
        self, request: HttpRequest, queryset: QuerySet, form_class: type[forms.ModerationForm]
    ) -> HttpResponse | None:
        if form_class.single and queryset.count() != 1:
            self.message_user(request, _("Choose exactly one for this action."), messages.WARNING)
            return None
        data = request.POST if "apply" in request.POST else None
        form = form_class(data, objects=queryset)
        if form.is_bound and form.is_valid():
            for obj in queryset:
                self.apply(request, form, obj)
            return self.back(request)
        context = {
            **self.admin_site.each_context(request),
            "title": form_class.title,
            "opts": self.opts,
            "form": form,
            "objects": queryset,
            "action": request.POST.get("action", ""),
            "next": request.POST.get("next", ""),
        }
        return TemplateResponse(request, "admin/games/moderate.html", context)

    def apply(self, request: HttpRequest, form: forms.ModerationForm, obj: Match | Player) -> None:
        try:
            message = form.apply(obj, request.user.get_username())
        except ServiceError as error:
            said = render.said(error.refusal) if error.refusal is not None else ""
            named = re.search(rf"(?<!\w){re.escape(str(obj))}(?!\w)", said)  # "#K7Q2 is already paused."
            self.message_user(request, said if named else f"{obj}: {said}", messages.ERROR)
            return
        self.log_change(request, obj, message)
        self.message_user(request, f"{obj}: {message}", messages.SUCCESS)

    def back(self, request: HttpRequest) -> HttpResponseRedirect | None:
        """To the change page the action was started from, else to the list."""
        target = request.POST.get("next", "")
        if url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
            return HttpResponseRedirect(target)
        return None

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict | None = None
    ) -> HttpResponse:
        shown = self.get_object(request, object_id)
        actions = [
            (name, description)
            for _func, name, description in self.get_actions(request).values()
            if shown is None or self.offers(name, shown)
        ]
        return super().change_view(request, object_id, form_url, {**(extra_context or {}), "buttons": actions})

    def offers(self, action: str, obj: Match | Player) -> bool:
        """Whether the page of ``obj`` offers ``action`` as a button: not one its state
        refuses (Resume on a match that runs, Ban for a banned player). The list still
        offers every action on a selection, and each says why it refuses one."""
        return True


class ReadOnlyInline(ReadOnly, admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = False

    def get_readonly_fields(self, request: HttpRequest, obj: object = None) -> list[str]:
        return list(self.fields)


def moment(value: datetime | None) -> str:
    """A time in the desk's lists with its zone, its date and its time each kept whole:
    the cell breaks between them rather than widen the list past its column. Left to
    right in a right-to-left page too ("07:53 UTC", not "UTC 07:53")."""
    if value is None:
        return "-"
    local = timezone.localtime(value)
    return format_html(
        '<span dir="ltr"><span class="nowrap">{}</span> <span class="nowrap">{} {}</span></span>',
        local.strftime("%Y-%m-%d"),
        local.strftime("%H:%M"),
        local.tzname(),
    )


def event_words(event: Event) -> str:
    """An event's data as the desk shows it (``desk.event_text``); a computer partner's
    line of team talk as the sentence its partner read, not its fields."""
    notice = team_notice(event)
    return sentence(notice) if notice is not None else event_text(event)
