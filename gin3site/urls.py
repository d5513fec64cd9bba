"""The site's URLs: the moderation desk, the public pages and the webhooks."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("", include("games.urls")),
]
