"""The gin3 Django project; the Celery app loads with it so tasks enqueue from any process."""

from .celery import app as celery_app

__all__ = ["celery_app"]
