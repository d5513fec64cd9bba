"""The moderation desk.

Everything here is read-only: a match or a player changes only through the
actions of its page, each a form (``games.admin.forms``) that calls a service function
(``games.services.write.moderation``) and writes Django's admin log. The secret
parts of a hand in play (its deck and salt, a suggestion, the messages that
show a player's cards) are shown only once they are public
(``games.services.read.public`` and ``games.services.read.desk``), and no list
is filtered, searched or sorted on them (``games.admin.lookups``).

One module per page of the desk; importing this package registers them all, and
names the desk on every page of it, the login page too (Django's own words were
"Django administration").
"""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from . import events, matches, outbox, players, reports, sign_in

admin.site.site_header = _("gin3 moderation desk")  # the top of every page and the login form
admin.site.site_title = _("gin3 moderation desk")  # after each page's title in the browser's tab
admin.site.index_title = _("Moderation")  # the desk's first page

__all__ = ["events", "matches", "outbox", "players", "reports", "sign_in"]
