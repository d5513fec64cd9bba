"""ASGI entry point: ``uvicorn gin3site.asgi:application``."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gin3site.settings")
application = get_asgi_application()
