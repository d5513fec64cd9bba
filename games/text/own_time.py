"""A player's own time in words: time off, quiet hours, his zone (``games.contract.own_time``)."""

from __future__ import annotations

from django.utils import timezone
from django.utils.translation import gettext as _

from games.contract import own_time as t

from .sentences import codes_text, sentence
from .style import deadline_text, duration_text


@sentence.register
def _time_off_left(notice: t.TimeOffLeft) -> str:
    amounts = {"left": duration_text(notice.left_seconds), "allowance": duration_text(notice.allowance_seconds)}
    said = _("Time off left this year: %(left)s of %(allowance)s.") % amounts
    if notice.until is None:
        return said + " " + _("away 3d stops your clocks in every match for 3 days.")
    return _("You are away, back %(when)s: back ends it now.") % {"when": deadline_text(notice.until)} + " " + said


@sentence.register
def _you_are_away(notice: t.YouAreAway) -> str:
    return _(
        "You are away, back %(when)s: your clocks wait in every match, and nobody plays for you. "
        "Time off left this year: %(left)s. back ends it early."
    ) % {"when": deadline_text(notice.until), "left": duration_text(notice.left_seconds)}


@sentence.register
def _welcome_back(notice: t.WelcomeBack) -> str:
    if not notice.codes:
        return _("Welcome back: your clocks run again.")
    return _("Welcome back: your clocks run again. Your move in %(codes)s: status shows it.") % {
        "codes": codes_text(notice.codes)
    }


@sentence.register
def _player_away(notice: t.PlayerAway) -> str:
    return _("%(name)s is away, back %(when)s: the clock waits for them in %(codes)s.") % {
        "name": notice.name,
        "when": deadline_text(notice.until),
        "codes": codes_text(notice.codes),
    }


@sentence.register
def _player_back(notice: t.PlayerBack) -> str:
    return _("%(name)s is back: the clock runs for them again in %(codes)s.") % {
        "name": notice.name,
        "codes": codes_text(notice.codes),
    }


@sentence.register
def _quiet_hours(notice: t.QuietHours) -> str:
    if notice.start is None or notice.end is None:
        return _("No quiet hours. quiet 23-07 holds reminders and notices from 23:00 to 07:00 of your day.")
    hours = {"from": f"{notice.start:02d}:00", "until": f"{notice.end:02d}:00", "zone": notice.zone}
    reply = (
        _(
            "Quiet hours %(from)s-%(until)s (%(zone)s): reminders and notices wait until they end (while you play "
            "in them, they come at once, without a sound), and a deadline that would fall in them moves to "
            "%(until)s. quiet off ends them."
        )
        % hours
    )
    if notice.zone_is_default:
        reply += " " + _("To keep them in your own time, name your zone: tz Europe/Skopje")
    return reply


@sentence.register
def _quiet_off(notice: t.QuietHoursOff) -> str:
    return _("No quiet hours now: reminders and notices come at any hour.")


@sentence.register
def _time_zone(notice: t.TimeZoneIs) -> str:
    return _("Your time zone: %(zone)s, where it is %(time)s now. Deadlines are shown in it.") % {
        "zone": notice.zone,
        "time": timezone.localtime().strftime("%H:%M %Z"),
    }


@sentence.register
def _too_short(refusal: t.TimeOffTooShort) -> str:
    return _("Time off is an hour at least: away 1h.")


@sentence.register
def _too_many_starts(refusal: t.TooManyTimeOffStarts) -> str:
    return _("You have started time off %(count)s times in a day: the others are told each time. Later, please.") % {
        "count": refusal.count
    }


@sentence.register
def _none_left(refusal: t.NoTimeOffLeft) -> str:
    return _("You have no time off left this year.")


@sentence.register
def _too_much(refusal: t.TooMuchTimeOff) -> str:
    return _("You have %(left)s of time off left this year: ask for that or less, like away %(example)s.") % {
        "left": duration_text(refusal.left_seconds),
        "example": refusal.example,
    }


@sentence.register
def _not_away(refusal: t.NotAway) -> str:
    return _("You are not away. away 3d stops your clocks for 3 days.")
