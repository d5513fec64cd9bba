"""The table's page and its JSON, and signing a browser in with the ``web`` command's link."""

from django.urls import path

from . import views

app_name = "web"
urlpatterns = [
    path("t/", views.tables, name="tables"),
    path("t/zone", views.device_zone, name="zone"),
    path("t/sign-out", views.sign_out, name="sign-out"),
    path("t/<str:code>/", views.table_page, name="table"),
    path("t/<str:code>/state.json", views.table_state, name="state"),
    path("t/<str:code>/play", views.table_play, name="play"),
    path("in/<str:token>/", views.sign_in, name="sign-in"),
]
