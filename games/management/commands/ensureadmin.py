"""Make the first local admin account, once, with a random password.

A fresh ``make run`` needs a way into the moderation desk without a default
password anyone could guess: this makes ``admin`` with a password from
``secrets`` and prints it once. It makes nothing when an admin exists. Either
way it says where the desk is and how to get a new password, in short lines
that ``serve`` shows framed after everything else it prints.
"""

from __future__ import annotations

import os
import secrets
import shlex
import sys
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser


class Command(BaseCommand):
    help = "Create the first admin account with a random password, if there is none."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--username", default="admin")
        parser.add_argument("--site", default="", help="the site's address (default: SITE_URL)")

    def handle(self, *args: object, **options: object) -> None:
        users = get_user_model()
        desk = f"{str(options['site'] or settings.GIN3_SITE_URL).rstrip('/')}/admin/"
        admin = users.objects.filter(is_superuser=True).order_by("pk").first()
        if admin is not None:
            username = admin.get_username()
            self.stdout.write(f"The moderation desk: {desk} (log in with your admin account, {username})")
        else:
            username = str(options["username"])
            password = secrets.token_urlsafe(12)
            users.objects.create_superuser(username, "", password)
            self.stdout.write(self.style.SUCCESS(f"Created the admin account for the moderation desk at {desk}"))
            self.stdout.write(self.style.SUCCESS(f"user {username}, password {password} (shown only now)"))
        command = f"{interpreter()} manage.py changepassword {shlex.quote(username)}"
        self.stdout.write(f"A new password at any time: {command}")


def interpreter() -> str:
    """The Python running this, as the admin types it in the repository: ``.venv/bin/python``
    for ``make run`` (a bare ``python`` may not exist on a fresh machine, or lack Django),
    its whole path when it is outside the repository."""
    executable = Path(sys.executable or "python")
    if executable.is_absolute():
        base = Path(settings.BASE_DIR)
        # The repository's path is resolved (settings.BASE_DIR); the interpreter's folder is
        # resolved too, but not the interpreter itself, a link out of the virtual environment.
        for candidate in (executable, Path(os.path.realpath(executable.parent)) / executable.name):
            if candidate.is_relative_to(base):
                executable = candidate.relative_to(base)
                break
    return shlex.quote(str(executable))
