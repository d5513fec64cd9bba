"""The desk's players: where each can be reached, how many matches he finished, and bans."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Count, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext_lazy as _

from games.admin import forms

from ..models import Match, Outbox, Player, Seat
from .base import ModeratedAdmin


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

    def offers(self, action: str, obj: Match | Player) -> bool:
        assert isinstance(obj, Player)
        if action == "ban":
            return not obj.banned and not obj.is_computer
        if action == "unban":
            return obj.banned
        return True

    @admin.action(description=_("Lift the ban"), permissions=["moderate"])
    def unban(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        return self.moderate(request, queryset, forms.UnbanForm)
