"""The site's URLs: the moderation desk, the public pages, the webhooks and the players' tables."""

from django.contrib import admin
from django.urls import include, path

from bot import sms_views

urlpatterns = [
    path("admin/", admin.site.urls),
    path("telegram/", include("bot.telegram.urls")),
    path("sms/inbound/", sms_views.inbound, name="sms-inbound"),
    path("", include("bot.web.urls")),
    path("", include("games.urls")),
]
