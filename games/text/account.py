"""A player's own settings and his phone, in words (``games.contract.account``)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from games.contract import account as a

from .sentences import sentence


@sentence.register
def _language(notice: a.LanguageSet) -> str:
    return _("Language: English.")


@sentence.register
def _name_set(notice: a.NameSet) -> str:
    return _("Your name is %(name)s.") % {"name": notice.name}


@sentence.register
def _name_taken(refusal: a.NameTaken) -> str:
    return _("%(name)s is taken: choose another name.") % {"name": refusal.name}


@sentence.register
def _name_reads_as_you(refusal: a.NameReadsAsYou) -> str:
    return _("The others would read %(name)s as themselves: choose another name.") % {"name": refusal.name}


@sentence.register
def _advise(notice: a.AdviseSet) -> str:
    if notice.on:
        return _("As the sitter you get the captain's cards at his turns, to advise him.")
    return _("As the sitter you get no tables now: status shows the captain's cards, advise on brings them back.")


@sentence.register
def _code_sent(notice: a.CodeSent) -> str:
    return _("I texted a code to %(number)s. From that phone, text it back within %(minutes)s minutes: link CODE") % {
        "number": notice.number,
        "minutes": notice.minutes,
    }


@sentence.register
def _link_code(notice: a.LinkCode) -> str:
    return _(
        "gin3 code %(code)s. To play as %(name)s on this phone, text back: link %(code)s (%(minutes)s min). "
        "Not you? Ignore it."
    ) % {"code": notice.code, "name": notice.name, "minutes": notice.minutes}


@sentence.register
def _no_code_waiting(notice: a.NoCodeWaiting) -> str:
    return _("No code is waiting for this phone. Where you play, type: phone %(number)s") % {"number": notice.number}


@sentence.register
def _wrong_code(notice: a.WrongCode) -> str:
    return _("That code is wrong. Check it, or ask for a new one.")


@sentence.register
def _phone_already_yours(notice: a.PhoneAlreadyYours) -> str:
    return _("This phone is already yours.")


@sentence.register
def _phone_now_plays(notice: a.PhoneNowPlays) -> str:
    return _("This phone now plays as %(name)s. For your turns by SMS, text: notify sms") % {"name": notice.name}


@sentence.register
def _phone_linked(notice: a.PhoneLinked) -> str:
    return _("%(number)s is linked to you. Turns by SMS: notify sms") % {"number": notice.number}


@sentence.register
def _turns_go_to(notice: a.TurnsGoTo) -> str:
    if notice.choice == "sms":
        return _("Your turns now come by SMS to %(number)s.") % {"number": notice.number}
    if notice.choice == "telegram":
        return _("Your turns now come on Telegram.")
    return _("Your turns now come where you last wrote from.")


@sentence.register
def _texts_again(notice: a.TextsAgain) -> str:
    return _("You get gin3 texts again. Text help for the commands, STOP to stop them.")


@sentence.register
def _sms_off(refusal: a.SmsOff) -> str:
    return _("SMS is off on this server.")


@sentence.register
def _already_your_number(refusal: a.AlreadyYourNumber) -> str:
    return _("%(number)s is already your number.") % {"number": refusal.number}


@sentence.register
def _number_stopped(refusal: a.NumberStopped) -> str:
    return _("%(number)s has sent STOP. Text START from it to us first.") % {"number": refusal.number}


@sentence.register
def _enough_codes(refusal: a.EnoughCodes) -> str:
    return _("That is enough codes for today. Try again tomorrow.")


@sentence.register
def _link_from_the_phone(refusal: a.LinkFromThePhone) -> str:
    return _("Text link CODE from the phone you are linking.")


@sentence.register
def _phone_busy(refusal: a.PhoneBusy) -> str:
    return _("This phone plays in #%(code)s. Finish it (or resign) first, then text the code again.") % {
        "code": refusal.code
    }


@sentence.register
def _link_a_phone_first(refusal: a.LinkAPhoneFirst) -> str:
    return _("Link a phone first: phone +15551234567")


@sentence.register
def _your_phone_stopped(refusal: a.YourPhoneStopped) -> str:
    return _("Your phone has sent STOP. Text START from it first.")


@sentence.register
def _telegram_first(refusal: a.TelegramFirst) -> str:
    return _("Write to the gin3 bot on Telegram first.")


@sentence.register
def _sms_welcome(notice: a.SmsWelcome) -> str:
    return _(
        "Welcome to gin3, three-handed gin rummy by SMS. Text new to start a match, "
        "join CODE to join one, help for more. Cards: 7h Td Qs. STOP to opt out."
    )


@sentence.register
def _how_to_stop(notice: a.HowToStop) -> str:
    return _("Text STOP to stop gin3 texts.")


@sentence.register
def _send_it_again(notice: a.SendItAgain) -> str:
    return _("gin3 could not take that, please send it again in a minute.")
