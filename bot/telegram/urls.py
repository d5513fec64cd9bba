"""Telegram's webhook address."""

from django.urls import path

from . import views

urlpatterns = [
    path("webhook/", views.telegram_webhook, name="telegram-webhook"),
]
