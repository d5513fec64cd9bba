"""The moderation desk.

Everything here is read-only: a match or a player changes only through the
actions of its page, each a form (``games.admin.forms``) that calls a service function
(``games.services.write.moderation``) and writes Django's admin log. The secret
parts of a hand in play (its deck and salt, a suggestion, the messages that
show a player's cards) are shown only once they are public
(``games.services.read.public`` and ``games.services.read.desk``), and no list
is filtered, searched or sorted on them (``games.admin.lookups``).

One module per page of the desk; importing this package registers them all.
"""

from . import events, matches, outbox, players, reports, sign_in

__all__ = ["events", "matches", "outbox", "players", "reports", "sign_in"]
