"""The moderation desk's sign-in links (the ``web`` command): who signed in a browser, and
revoking a link, which signs that browser out at its next request (``services.signin``).

A link's token is never shown anywhere, nor its hash filtered on (``games.admin.lookups``).
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.auth import get_permission_codename
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.services.write import signin

from ..models import SignInLink
from .base import DeskAdmin


@admin.register(SignInLink)
class SignInLinkAdmin(DeskAdmin):
    list_display = ["created_at", "player", "state", "expires_at", "used_at", "revoked_at"]
    list_filter = [("used_at", admin.EmptyFieldListFilter), ("revoked_at", admin.EmptyFieldListFilter)]
    search_fields = ["player__display_name"]
    list_select_related = ["player"]
    fields = ["player", "state", "created_at", "expires_at", "used_at", "revoked_at"]
    readonly_fields = fields
    actions = ["revoke"]

    def has_moderate_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(f"{self.opts.app_label}.{get_permission_codename('change', self.opts)}")

    @admin.display(description=_("state"))
    def state(self, link: SignInLink) -> str:
        if link.revoked_at:
            return _("revoked")
        if link.used_at:
            return _("signed a browser in")
        if link.expires_at <= timezone.now():
            return _("expired unused")
        return _("waiting to be used")

    @admin.action(description=_("Revoke (signs out the browser it signed in)"), permissions=["moderate"])
    def revoke(self, request: HttpRequest, queryset: QuerySet) -> None:
        for link in queryset.filter(revoked_at=None):
            self.log_change(request, link, "revoked")
        count = signin.revoke(queryset)
        self.message_user(request, _("Links revoked: %(count)s.") % {"count": count}, messages.SUCCESS)
