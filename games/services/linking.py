"""A player's phone: linking a number with a one-time code, where turns go, and SMS opt-out.

Why a code: anyone can type any number after ``phone``; only the person who
holds that phone can text back the code it was sent. The number then belongs
to the player who asked, and a bare SMS player that the number had made on
its first message is merged into him (his row stays, for the log).

Opt-out follows the carriers' rules (``STOP``/``START``): after STOP nothing
at all is sent to the number until START; ``outbox.route`` skips it and the
SMS backend refuses it as a last gate.
"""

from __future__ import annotations

import secrets
from datetime import timedelta

from django.conf import settings
from django.db.models import F
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.translation import gettext as _

from games.text.protocol import Command
from games.text.render import render

from ..models import Match, Outbox, PhoneLink, Player
from . import automation, outbox, presence
from .errors import ServiceError

CODE_LIFETIME = timedelta(minutes=10)
MAX_TRIES = 5
MAX_CODES_PER_DAY = 5
DAY = timedelta(days=1)
CODE_MESSAGE = "link-code"  # the kind of the text that carries a code; the admin never shows one


def code_hash(phone: str, code: str) -> str:
    """A hash keyed with SECRET_KEY: a leaked database row does not give the code away."""
    return salted_hmac("gin3.PhoneLink", f"{phone}:{code}", algorithm="sha256").hexdigest()


def masked(phone: str) -> str:
    """A number as messages show it: enough to recognise, not enough to copy."""
    return phone[:3] + "…" + phone[-4:]


# phone NUMBER ---------------------------------------------------------------


def phone(player: Player, command: Command) -> str:
    """Text a one-time code to a number; ``link CODE`` from it makes it this player's."""
    number = command.text
    if not settings.SMS_ENABLED:
        raise ServiceError(_("SMS is off on this server."))
    if player.phone == number:
        raise ServiceError(_("%(number)s is already your number.") % {"number": masked(number)})
    if Player.objects.filter(phone=number, sms_opted_out=True).exists():
        raise ServiceError(_("%(number)s has sent STOP. Text START from it to us first.") % {"number": masked(number)})
    now = timezone.now()
    player.phone_links.filter(created_at__lt=now - DAY).delete()
    if player.phone_links.count() >= MAX_CODES_PER_DAY:
        raise ServiceError(_("That is enough codes for today. Try again tomorrow."))
    player.phone_links.filter(expires_at__gt=now).update(expires_at=now)
    code = f"{secrets.randbelow(10**6):06d}"
    PhoneLink.objects.create(
        player=player, phone=number, code_hash=code_hash(number, code), expires_at=now + CODE_LIFETIME
    )
    minutes = CODE_LIFETIME.seconds // 60
    text = _(
        "gin3 code %(code)s. To play as %(name)s on this phone, text back: link %(code)s (%(minutes)s min). "
        "Not you? Ignore it."
    ) % {"code": code, "name": player.display_name, "minutes": minutes}
    outbox.post(Outbox.Channel.SMS, number, CODE_MESSAGE, render(text, Outbox.Channel.SMS).text)
    return _("I texted a code to %(number)s. From that phone, text it back within %(minutes)s minutes: link CODE") % {
        "number": masked(number),
        "minutes": minutes,
    }


# link CODE ------------------------------------------------------------------


def link(player: Player, command: Command) -> str:
    """Check a code texted from a phone and give that number to the player who asked for it.

    A wrong code is answered, not raised, so that the try it cost is kept.
    """
    number = player.phone
    if not number:
        raise ServiceError(_("Text link CODE from the phone you are linking."))
    now = timezone.now()
    waiting = list(
        PhoneLink.objects.select_for_update()
        .select_related("player")
        .filter(phone=number, expires_at__gt=now, tries__lt=MAX_TRIES)
    )
    given = code_hash(number, command.text)
    found = next((row for row in waiting if constant_time_compare(row.code_hash, given)), None)
    if found is None:
        PhoneLink.objects.filter(pk__in=[row.pk for row in waiting]).update(tries=F("tries") + 1)
        if not waiting:
            return _("No code is waiting for this phone. Where you play, type: phone %(number)s") % {"number": number}
        return _("That code is wrong. Check it, or ask for a new one.")
    owner = found.player
    if owner.pk == player.pk:
        PhoneLink.objects.filter(phone=number).update(expires_at=now)
        return _("This phone is already yours.")
    _give_number(player, owner)
    PhoneLink.objects.filter(phone=number).update(expires_at=now)
    if owner.last_channel and owner.last_channel != Outbox.Channel.SMS:
        outbox.send(
            owner,
            "linked",
            lambda: _("%(number)s is linked to you. Turns by SMS: notify sms") % {"number": masked(number)},
            channel=owner.last_channel,
        )
    return _("This phone now plays as %(name)s. For your turns by SMS, text: notify sms") % {"name": owner.display_name}


def _give_number(sender: Player, owner: Player) -> None:
    """Move ``sender``'s number to ``owner``. A bare SMS player (no other way to
    reach him) was only the number's first messages: he is marked as merged
    into the owner, and his row is kept without the number, so that the log
    still names who made his moves and the scoreboard keeps his finished
    matches. A bare one with a match still to play must finish it first."""
    bare = not sender.telegram_user_id and not sender.terminal_user
    if bare:
        busy = Match.objects.filter(seats__player=sender, status__in=(Match.Status.LOBBY, Match.Status.RUNNING)).first()
        if busy is not None:
            raise ServiceError(
                _("This phone plays in #%(code)s. Finish it (or resign) first, then text the code again.")
                % {"code": busy.code}
            )
    number = sender.phone
    sender.phone = None
    if bare:
        sender.merged_into = owner
    sender.save(update_fields=["phone", "merged_into"])
    owner.phone = number
    owner.sms_opted_out = False
    owner.save(update_fields=["phone", "sms_opted_out"])


# notify sms|telegram|auto ---------------------------------------------------


def notify(player: Player, command: Command) -> str:
    """Choose where turn notices go; replies always go back where the command came from."""
    choice = command.text
    if choice == Player.Notify.SMS:
        if not player.phone:
            raise ServiceError(_("Link a phone first: phone +15551234567"))
        if player.sms_opted_out:
            raise ServiceError(_("Your phone has sent STOP. Text START from it first."))
    if choice == Player.Notify.TELEGRAM and not player.telegram_chat_id:
        raise ServiceError(_("Write to the gin3 bot on Telegram first."))
    player.notify_by = choice
    player.save(update_fields=["notify_by"])
    if choice == Player.Notify.SMS:
        return _("Your turns now come by SMS to %(number)s.") % {"number": masked(player.phone)}
    if choice == Player.Notify.TELEGRAM:
        return _("Your turns now come on Telegram.")
    return _("Your turns now come where you last wrote from.")


# STOP and START ------------------------------------------------------------


def opt_out(player: Player) -> None:
    """STOP (or STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT): the number gets nothing
    more until START. In his matches he is then like a player who blocked the
    Telegram bot: his turns go elsewhere if he can be reached elsewhere, and if
    not the others are told that the turn clock will play for him."""
    automation.player_unreachable(player, Outbox.Channel.SMS)
    player.sms_opted_out = True


def opt_in(player: Player) -> str:
    """START (or UNSTOP, YES): the number may be texted again, and he takes back the
    seats a computer played for him since STOP (the others are told, he gets the tables)."""
    player.sms_opted_out = False
    player.save(update_fields=["sms_opted_out"])
    presence.back_everywhere(player)
    return _("You get gin3 texts again. Text help for the commands, STOP to stop them.")
