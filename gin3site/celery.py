"""The Celery app: turn clocks, reminders, computer moves and delivery (games/tasks.py)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gin3site.settings")

app = Celery("gin3site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
