"""The Celery app: turn clocks, reminders, computer moves, delivery and the sweep (games/tasks.py).

Run a worker with ``celery -A gin3site worker`` and the clock of the sweep
with ``celery -A gin3site beat``; ``python manage.py serve`` starts both.
Settings are the ``CELERY_*`` names in gin3site/settings.py.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gin3site.settings")

app = Celery("gin3site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# Each worker records its heartbeat while it is connected (games/heartbeat.py).
app.steps["consumer"].add("games.heartbeat:WorkerHeartbeat")
