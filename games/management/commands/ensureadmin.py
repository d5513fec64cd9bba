"""Make the first local admin account, once, with a random password.

A fresh ``make run`` needs a way into the moderation desk without a default
password anyone could guess: this makes ``admin`` with a password from
``secrets`` and prints it once. It does nothing when an admin exists.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser


class Command(BaseCommand):
    help = "Create the first admin account with a random password, if there is none."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--username", default="admin")

    def handle(self, *args: object, **options: object) -> None:
        users = get_user_model()
        if users.objects.filter(is_superuser=True).exists():
            self.stdout.write("Admin: log in at /admin/ with your account (python manage.py changepassword admin).")
            return
        password = secrets.token_urlsafe(12)
        users.objects.create_superuser(str(options["username"]), "", password)
        self.stdout.write(
            self.style.SUCCESS(
                f"Created the admin account. Log in at {settings.GIN3_SITE_URL}/admin/ as "
                f"{options['username']} with password {password} (shown only now; change it with "
                f"python manage.py changepassword {options['username']})."
            )
        )
