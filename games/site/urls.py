"""Public pages, and the language switch (Django's ``set_language``)."""

from django.urls import path
from django.views.i18n import set_language

from games.site import views

app_name = "games"
urlpatterns = [
    path("", views.scoreboard, name="scoreboard"),
    path("lobby/", views.lobby, name="lobby"),
    path("p/<int:pk>/", views.player_page, name="player"),
    path("m/<str:code>/", views.match_page, name="match"),
    path("m/<str:code>/live.json", views.live, name="live"),
    path("language/", set_language, name="set_language"),
]
