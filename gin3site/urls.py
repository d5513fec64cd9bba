"""The site's URLs: the moderation desk, the public pages, the webhooks, the players' tables
and the metrics (the health checks are answered before any URL: gin3site/health.py)."""

from django.contrib import admin
from django.urls import include, path

from bot import sms_status, sms_views
from gin3site import monitoring

urlpatterns = [
    path("admin/", admin.site.urls),
    path("telegram/", include("bot.telegram.urls")),
    path("sms/inbound/", sms_views.inbound, name="sms-inbound"),
    path("sms/status/", sms_status.status_callback, name="sms-status"),
    path("metrics", monitoring.metrics, name="metrics"),
    path("", include("bot.web.urls")),
    path("", include("games.site.urls")),
]
