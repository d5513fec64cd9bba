"""Signing a player in on a browser: the ``web`` command's personal link, and the session it opens.

A player of any channel (Telegram, SMS, the terminal) may play at his table in a
browser. ``web`` answers a link of his own; opened on a device and confirmed
there, it signs that browser in as him. Players are not Django users: the
browser's session keeps the link that signed it in, and each request finds the
player through it (``player_of``), so that the desk revoking the link signs the
browser out at its next request.

The link works once, for ``LINK_LIFETIME``, and a newer one replaces it. Only a
keyed hash of its token is stored (as for ``PhoneLink``): neither the database nor
the desk shows a link that still works. The message that carries it is of its own
kind (``Outbox.Kind.SIGN_IN_LINK``), which the desk never shows.
"""

from __future__ import annotations

import secrets
from collections.abc import MutableMapping
from datetime import timedelta

from django.db.models import QuerySet
from django.utils import timezone
from django.utils.crypto import salted_hmac

from games.contract.account import SignInLinkView
from games.models import Outbox, Player, SignInLink
from games.services.plumbing import outbox
from games.text.protocol import Command

LINK_LIFETIME = timedelta(minutes=15)
SESSION_KEY = "gin3_sign_in"  # the session's entry: the id of the link that signed the browser in


def token_hash(token: str) -> str:
    """A hash keyed with SECRET_KEY: a leaked row does not give the link away."""
    return salted_hmac("gin3.SignInLink", token, algorithm="sha256").hexdigest()


def web(player: Player, command: Command) -> SignInLinkView:
    """``web``: a new personal link; the ones he had and did not use stop working."""
    now = timezone.now()
    waiting = player.sign_in_links.filter(used_at=None, revoked_at=None, expires_at__gt=now)
    waiting.update(revoked_at=now)
    token = secrets.token_urlsafe(24)
    SignInLink.objects.create(player=player, token_hash=token_hash(token), expires_at=now + LINK_LIFETIME)
    view = SignInLinkView(token, int(LINK_LIFETIME.total_seconds() // 60))
    # The reply is this letter (``outbox`` merges the two): the message is of the link's kind.
    outbox.send(player, Outbox.Kind.SIGN_IN_LINK, view)
    return view


def waiting_link(token: str) -> SignInLink | None:
    """The link of ``token`` if it would still sign in: for the page that asks to confirm.
    Opening the address does not use it (a chat app fetching a preview would)."""
    return _usable().select_related("player").filter(token_hash=token_hash(token)).first()


def use(token: str, session: MutableMapping) -> Player | None:
    """Sign the browser of ``session`` in with the link of ``token``, once: the first
    to use it wins, a second use finds it used. None: no such link, or no longer usable."""
    found = _usable().filter(token_hash=token_hash(token))
    link = found.select_related("player").first()
    if link is None or not found.filter(pk=link.pk).update(used_at=timezone.now()):
        return None
    session[SESSION_KEY] = link.pk
    return link.player


def player_of(session: MutableMapping) -> Player | None:
    """The player a browser is signed in as: the link in its session was used and is not revoked."""
    link_id = session.get(SESSION_KEY)
    if not isinstance(link_id, int):
        return None
    link = SignInLink.objects.select_related("player").filter(pk=link_id, used_at__isnull=False, revoked_at=None)
    found = link.first()
    return found.player if found else None


def revoke(links: QuerySet[SignInLink]) -> int:
    """The desk's action: these links sign nobody in now, and the browsers they signed in are signed out."""
    return links.filter(revoked_at=None).update(revoked_at=timezone.now())


def _usable() -> QuerySet[SignInLink]:
    return SignInLink.objects.filter(used_at=None, revoked_at=None, expires_at__gt=timezone.now())
