"""ASGI entry point: ``uvicorn gin3site.asgi:application``.

gin3 is served over WSGI (waitress, ``manage.py web``); this entry point is
kept for ASGI servers, and it makes the settings take database connections
from a pool (GIN3_ASGI, see gin3site/settings.py): Django's persistent
connections leak under ASGI.
"""

import os

os.environ["GIN3_ASGI"] = "1"

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gin3site.settings")
application = get_asgi_application()
