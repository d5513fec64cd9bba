"""Public pages."""

from django.urls import path

from . import views

app_name = "games"
urlpatterns = [
    path("", views.scoreboard, name="scoreboard"),
    path("m/<str:code>/", views.match_page, name="match"),
]
