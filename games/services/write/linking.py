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

from games.contract import Notice
from games.contract import account as a
from games.models import Match, Outbox, PhoneLink, Player
from games.services.errors import ServiceError
from games.services.plumbing import outbox, state
from games.services.plumbing.change import change
from games.services.write import presence
from games.text.protocol import HELP_WORDS, OPT_IN_WORDS, OPT_OUT_WORDS, Command

CODE_LIFETIME = timedelta(minutes=10)
MAX_TRIES = 5
MAX_CODES_PER_DAY = 5
DAY = timedelta(days=1)


def code_hash(phone: str, code: str) -> str:
    """A hash keyed with SECRET_KEY: a leaked database row does not give the code away."""
    return salted_hmac("gin3.PhoneLink", f"{phone}:{code}", algorithm="sha256").hexdigest()


def masked(phone: str) -> str:
    """A number as messages show it: enough to recognise, not enough to copy."""
    return phone[:3] + "…" + phone[-4:]


# phone NUMBER ---------------------------------------------------------------


def phone(player: Player, command: Command) -> Notice:
    """Text a one-time code to a number; ``link CODE`` from it makes it this player's."""
    number = command.text
    if not settings.SMS_ENABLED:
        raise ServiceError(a.SmsOff())
    if player.phone == number:
        raise ServiceError(a.AlreadyYourNumber(masked(number)))
    if Player.objects.filter(phone=number, sms_opted_out=True).exists():
        raise ServiceError(a.NumberStopped(masked(number)))
    now = timezone.now()
    player.phone_links.filter(created_at__lt=now - DAY).delete()
    if player.phone_links.count() >= MAX_CODES_PER_DAY:
        raise ServiceError(a.EnoughCodes())
    player.phone_links.filter(expires_at__gt=now).update(expires_at=now)
    code = f"{secrets.randbelow(10**6):06d}"
    PhoneLink.objects.create(
        player=player, phone=number, code_hash=code_hash(number, code), expires_at=now + CODE_LIFETIME
    )
    minutes = CODE_LIFETIME.seconds // 60
    text = a.LinkCode(code, player.display_name, minutes)
    outbox.post(Outbox.Channel.SMS, number, Outbox.Kind.LINK_CODE, text, language=player.language)
    return a.CodeSent(masked(number), minutes)


# link CODE ------------------------------------------------------------------


def link(player: Player, command: Command) -> Notice:
    """Check a code texted from a phone and give that number to the player who asked for it.

    A wrong code is answered, not raised, so that the try it cost is kept.
    """
    number = player.phone
    if not number:
        raise ServiceError(a.LinkFromThePhone())
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
            return a.NoCodeWaiting(number)
        return a.WrongCode()
    owner = found.player
    if owner.pk == player.pk:
        PhoneLink.objects.filter(phone=number).update(expires_at=now)
        return a.PhoneAlreadyYours()
    _give_number(player, owner)
    PhoneLink.objects.filter(phone=number).update(expires_at=now)
    if owner.last_channel and owner.last_channel != Outbox.Channel.SMS:
        outbox.send(owner, Outbox.Kind.LINKED, a.PhoneLinked(masked(number)), channel=owner.last_channel)
    return a.PhoneNowPlays(owner.display_name)


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
            raise ServiceError(a.PhoneBusy(busy.code))
    number = sender.phone
    sender.phone = None
    if bare:
        sender.merged_into = owner
    sender.save(update_fields=["phone", "merged_into"])
    owner.phone = number
    owner.sms_opted_out = False
    owner.save(update_fields=["phone", "sms_opted_out"])


# notify sms|telegram|auto ---------------------------------------------------


def notify(player: Player, command: Command) -> Notice:
    """Choose where turn notices go; replies always go back where the command came from."""
    choice = command.text
    if choice == Player.Notify.SMS:
        if not player.phone:
            raise ServiceError(a.LinkAPhoneFirst())
        if player.sms_opted_out:
            raise ServiceError(a.YourPhoneStopped())
    if choice == Player.Notify.TELEGRAM and not player.telegram_chat_id:
        raise ServiceError(a.TelegramFirst())
    player.notify_by = choice
    player.save(update_fields=["notify_by"])
    return a.TurnsGoTo(choice, masked(player.phone) if choice == Player.Notify.SMS and player.phone else "")


# STOP and START ------------------------------------------------------------


def carriers_keyword(
    player: Player, word: str, update_key: str, first_text: bool, command: bool
) -> list[Notice] | None:
    """A text by SMS before it is a command: the carriers' keywords, and a number's first
    text. ``word`` is the text's letters, lowercased; ``first_text``, whether it
    registered the number; ``command``, whether it reads as a command. The notices that
    answer it (maybe none: STOP is confirmed by the carrier, and a number that sent
    STOP hears nothing until START), or None when it is a command for ``handle``.
    ``update_key`` makes a text the carrier sends again do nothing the second time."""
    with change():
        if word in OPT_OUT_WORDS:
            if state.first_time(update_key):
                opt_out(player)
            return []
        if player.sms_opted_out:
            if word in OPT_IN_WORDS and state.first_time(update_key):
                return [opt_in(player)]
            return []
        if first_text and (word in HELP_WORDS | OPT_IN_WORDS or not command):
            return [a.SmsWelcome()] if state.first_time(update_key) else []
    return None


def opt_out(player: Player) -> None:
    """STOP (or STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT): the number gets nothing
    more until START. In his matches he is then like a player who blocked the
    Telegram bot: his turns go elsewhere if he can be reached elsewhere, and if
    not the others are told that the turn clock will play for him."""
    presence.player_unreachable(player, Outbox.Channel.SMS)
    player.sms_opted_out = True


def opt_in(player: Player) -> Notice:
    """START (or UNSTOP, YES): the number may be texted again, and he takes back the
    seats a computer played for him since STOP (the others are told, he gets the tables)."""
    player.sms_opted_out = False
    player.save(update_fields=["sms_opted_out"])
    presence.back_everywhere(player)
    return a.TextsAgain()
