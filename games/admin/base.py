"""The moderation desk.

Everything here is read-only: a match or a player changes only through the
actions below, each a form (``games.forms``) that calls a service function
(``games.services.moderation``) and writes Django's admin log. The secret
parts of a hand in play (its deck and salt, a suggestion, the messages that
show a player's cards) are shown only once they are public
(``games.services.visibility``), and no list is filtered, searched or sorted
on them (``games.admin_lookups``).
"""

from __future__ import annotations

import html
import re
from datetime import datetime

from django.contrib import admin, messages
from django.contrib.auth import get_permission_codename
from django.db.models import Count, OuterRef, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.html import format_html, strip_tags
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext_lazy as _

from . import forms
from .admin_lookups import GuardedLookups
from .models import Event, Hand, Match, Outbox, Player, Seat
from .services import ServiceError
from .services.visibility import event_text, is_revealed, message_text, role_names
from .text import render


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
        actions = [(name, description) for _func, name, description in self.get_actions(request).values()]
        return super().change_view(request, object_id, form_url, {**(extra_context or {}), "buttons": actions})


class ReadOnlyInline(ReadOnly, admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = False

    def get_readonly_fields(self, request: HttpRequest, obj: object = None) -> list[str]:
        return list(self.fields)


class SeatInline(ReadOnlyInline):
    model = Seat
    fields = ["position", "player", "score", "timeouts_in_row", "autopilot"]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).select_related("player")


class HandInline(ReadOnlyInline):
    """A hand's result and commitment; its deck and salt once revealed. The
    names come from the seats fetched once for all the hands, not per hand."""

    model = Hand
    fields = ["number", "roles", "result", "winner_name", "points", "commitment", "revealed"]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).select_related("match").prefetch_related("match__seats__player")

    @staticmethod
    def names(hand: Hand) -> dict[int, str]:
        return {seat.position: seat.player.display_name for seat in hand.match.seats.all()}

    @admin.display(description=_("roles"))
    def roles(self, hand: Hand) -> str:
        names = self.names(hand)
        return ", ".join(f"{role} {names[position]}" for position, role in role_names(hand).items())

    @admin.display(description=_("winner"))
    def winner_name(self, hand: Hand) -> str:
        return "-" if hand.winner is None else self.names(hand)[hand.winner]

    @admin.display(description=_("deck and salt"))
    def revealed(self, hand: Hand) -> str:
        if not is_revealed(hand.match, hand):
            return _("secret while the hand is in play")
        return f"{hand.deck} / {hand.salt}"


class EventInline(ReadOnlyInline):
    """The match's newest events, newest first: a long match has hundreds, which made
    its page tens of thousands of pixels tall; the events list has them all, a page
    at a time (linked under them)."""

    model = Event
    fields = ["seq", "kind", "actor", "text", "created_at"]
    ordering = ["-seq"]
    SHOWN = 50

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        of_match = Event.objects.filter(match=OuterRef("match")).order_by("-seq").values("seq")
        older = Subquery(of_match[self.SHOWN : self.SHOWN + 1])  # the newest event not shown, if any
        newest = super().get_queryset(request).filter(seq__gt=Coalesce(older, Value(-1)))
        return newest.select_related("match", "hand", "actor")

    @admin.display(description=_("data"))
    def text(self, event: Event) -> str:
        return event_text(event)


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


@admin.register(Match)
class MatchAdmin(ModeratedAdmin):
    list_display = ["code", "status", "paused", "players", "scores", "last_move", "deadline_at"]
    list_filter = ["status", ("paused_at", admin.EmptyFieldListFilter)]
    search_fields = ["code", "seats__player__display_name"]
    inlines = [SeatInline, HandInline, EventInline]
    actions = ["abort", "adjudicate", "pause", "resume", "extend", "replace_with_computer"]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).prefetch_related("seats__player")

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict | None = None
    ) -> HttpResponse:
        context = {**(extra_context or {}), "events_shown": EventInline.SHOWN}
        return super().change_view(request, object_id, form_url, context)

    @admin.display(description=_("players"))
    def players(self, match: Match) -> str:
        return ", ".join(str(seat.player) for seat in match.seats.all())

    @admin.display(description=_("scores"))
    def scores(self, match: Match) -> str:
        return format_html('<span class="nowrap">{}</span>', " : ".join(str(seat.score) for seat in match.seats.all()))

    @admin.display(description=Match._meta.get_field("paused_at").verbose_name, ordering="paused_at")
    def paused(self, match: Match) -> str:
        return moment(match.paused_at)

    @admin.display(description=Match._meta.get_field("last_move_at").verbose_name, ordering="last_move_at")
    def last_move(self, match: Match) -> str:
        return moment(match.last_move_at)

    @admin.display(description=Match._meta.get_field("deadline").verbose_name, ordering="deadline")
    def deadline_at(self, match: Match) -> str:
        return moment(match.deadline)

    @admin.action(description=_("Abort"), permissions=["moderate"])
    def abort(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        return self.moderate(request, queryset, forms.AbortForm)

    @admin.action(description=_("Adjudicate (choose the winner)"), permissions=["moderate"])
    def adjudicate(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        return self.moderate(request, queryset, forms.AdjudicateForm)

    @admin.action(description=_("Pause the clock"), permissions=["moderate"])
    def pause(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        return self.moderate(request, queryset, forms.PauseForm)

    @admin.action(description=_("Resume the clock"), permissions=["moderate"])
    def resume(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        return self.moderate(request, queryset, forms.ResumeForm)

    @admin.action(description=_("Extend the deadline"), permissions=["moderate"])
    def extend(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        return self.moderate(request, queryset, forms.ExtendForm)

    @admin.action(description=_("Replace a player with a computer player"), permissions=["moderate"])
    def replace_with_computer(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        return self.moderate(request, queryset, forms.ReplaceForm)


@admin.register(Player)
class PlayerAdmin(ModeratedAdmin):
    list_display = ["display_name", "channels", "is_computer", "is_banned", "matches_played"]
    list_filter = ["is_computer", "banned"]
    search_fields = ["display_name", "telegram_username", "phone", "terminal_user"]
    actions = ["ban", "unban"]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        """Each player with his finished matches counted in a subquery: a join and
        GROUP BY would drop the model's ordering, and with it stable pages."""
        finished = (
            Seat.objects.filter(player=OuterRef("pk"), match__status=Match.Status.FINISHED)
            .order_by()
            .values("player")
            .annotate(count=Count("pk"))
            .values("count")
        )
        return super().get_queryset(request).annotate(played=Coalesce(Subquery(finished), 0))

    @admin.display(description=_("channels"))
    def channels(self, player: Player) -> str:
        reachable = {
            Outbox.Channel.TELEGRAM: player.telegram_chat_id,
            Outbox.Channel.SMS: player.phone,
            Outbox.Channel.TERMINAL: player.terminal_user,
        }
        return ", ".join(str(channel.label) for channel, address in reachable.items() if address) or "-"

    @admin.display(description=_("banned"), boolean=True)
    def is_banned(self, player: Player) -> bool:
        return player.is_banned()

    @admin.display(description=_("matches played"), ordering="played")
    def matches_played(self, player: Player) -> int:
        return player.played

    @admin.action(description=_("Ban"), permissions=["moderate"])
    def ban(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        return self.moderate(request, queryset, forms.BanForm)

    @admin.action(description=_("Lift the ban"), permissions=["moderate"])
    def unban(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        return self.moderate(request, queryset, forms.UnbanForm)


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

    @admin.display(description=_("text"))
    def shown_text(self, message: Outbox) -> str:
        """What ``visibility.message_text`` lets the desk read; never a phone's
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


from . import admin_reports, admin_sign_in  # noqa: E402, F401  (they register themselves)
