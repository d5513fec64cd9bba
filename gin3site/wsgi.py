"""WSGI entry point, for servers that speak WSGI only."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gin3site.settings")
application = get_wsgi_application()
