"""The desk's matches: a match's seats, hands and newest events, and the actions on it
(abort, adjudicate, pause, resume, extend, replace a player with a computer). A hand's
deck and salt are shown only once the hand is public (``public.is_revealed``)."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import OuterRef, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce
from django.http import HttpRequest, HttpResponse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from games.admin import forms
from games.services.read.public import is_revealed, role_names

from ..models import Event, Hand, Match, Player, Seat
from .base import ModeratedAdmin, ReadOnlyInline, event_words, moment
from .events import who_acted, with_seated


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
    fields = ["seq", "kind", "by", "text", "created_at"]
    ordering = ["-seq"]
    SHOWN = 50

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        of_match = Event.objects.filter(match=OuterRef("match")).order_by("-seq").values("seq")
        older = Subquery(of_match[self.SHOWN : self.SHOWN + 1])  # the newest event not shown, if any
        newest = super().get_queryset(request).filter(seq__gt=Coalesce(older, Value(-1)))
        return with_seated(newest.select_related("match", "hand", "actor"))

    @admin.display(description=Event._meta.get_field("actor").verbose_name)
    def by(self, event: Event) -> str:
        return who_acted(event)

    @admin.display(description=_("data"))
    def text(self, event: Event) -> str:
        return event_words(event)


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

    def offers(self, action: str, obj: Match | Player) -> bool:
        assert isinstance(obj, Match)
        if action == "abort":
            return obj.status in (Match.Status.LOBBY, Match.Status.RUNNING)
        if obj.status != Match.Status.RUNNING:
            return False
        if action in ("pause", "resume"):
            return obj.is_paused is (action == "resume")
        return True

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
