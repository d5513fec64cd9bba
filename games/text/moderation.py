"""What players hear of the moderators, and what the desk refuses (``games.contract.moderation``)."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.contract import moderation as m

from .sentences import codes_text, sentence
from .style import deadline_text

# A match's status as ``Match.Status`` labels it (the same words, so the same translations).
STATUS_WORDS = {
    "lobby": gettext_lazy("waiting for players"),
    "running": gettext_lazy("running"),
    "finished": gettext_lazy("finished"),
    "aborted": gettext_lazy("aborted"),
}


def _with_reason(text: str, action: m.AdminAction) -> str:
    """An admin's notice, with the reason he gave."""
    return text + (" " + _("Reason: %(reason)s") % {"reason": action.reason} if action.reason else "")


@sentence.register
def _aborted(notice: m.Aborted) -> str:
    return _with_reason(_("An admin aborted #%(code)s.") % {"code": notice.code}, notice)


@sentence.register
def _adjudicated(notice: m.Adjudicated) -> str:
    said = _("An admin ended #%(code)s: %(name)s wins the match.") % {"code": notice.code, "name": notice.winner}
    return _with_reason(said, notice)


@sentence.register
def _paused(notice: m.Paused) -> str:
    return _with_reason(_("An admin paused the clock of #%(code)s.") % {"code": notice.code}, notice)


@sentence.register
def _resumed(notice: m.Resumed) -> str:
    said = _("An admin restarted the clock of #%(code)s. Time runs out %(when)s.") % {
        "code": notice.code,
        "when": deadline_text(notice.deadline),
    }
    return _with_reason(said, notice)


@sentence.register
def _extended(notice: m.Extended) -> str:
    hours = f"{notice.hours:g}"
    if notice.deadline is None:
        said = _("An admin gave %(hours)s more hours for the move in #%(code)s (the clock is paused).") % {
            "hours": hours,
            "code": notice.code,
        }
    else:
        said = _("An admin gave %(hours)s more hours for the move in #%(code)s. Time runs out %(when)s.") % {
            "hours": hours,
            "code": notice.code,
            "when": deadline_text(notice.deadline),
        }
    return _with_reason(said, notice)


@sentence.register
def _your_seat_given(notice: m.YourSeatGiven) -> str:
    said = _("An admin gave your seat in #%(code)s to a computer player, %(computer)s.") % {
        "code": notice.code,
        "computer": notice.computer,
    }
    return _with_reason(said, notice)


@sentence.register
def _replaced(notice: m.Replaced) -> str:
    said = _("An admin replaced %(name)s in #%(code)s with a computer player, %(computer)s.") % {
        "name": notice.name,
        "code": notice.code,
        "computer": notice.computer,
    }
    return _with_reason(said, notice)


@sentence.register
def _banned(notice: m.Banned) -> str:
    reason = notice.reason.strip().rstrip(".") or "-"
    text = _("You are banned from gin3: %(reason)s.") % {"reason": reason}
    if notice.until is None:
        return text
    return text + " " + _("The ban ends %(when)s.") % {"when": deadline_text(notice.until)}


@sentence.register
def _suspended(notice: m.Suspended) -> str:
    return _("%(name)s may not play for now: a computer player plays in their place in #%(code)s.") % {
        "name": notice.name,
        "code": notice.code,
    }


@sentence.register
def _unbanned(notice: m.Unbanned) -> str:
    text = _("Your ban was lifted: you can play gin3 again.")
    if not notice.codes:
        return text
    return (
        text
        + " "
        + _("Any command in a match gives you your seat back: %(codes)s") % {"codes": codes_text(notice.codes, " ")}
    )


@sentence.register
def _report_taken(notice: m.ReportTaken) -> str:
    return _("Thank you: the moderators got your report on #%(code)s and will look into it.") % {"code": notice.code}


@sentence.register
def _reports_waiting(refusal: m.ReportsWaiting) -> str:
    return _("Your reports on #%(code)s wait for a moderator already; they will read them.") % {"code": refusal.code}


@sentence.register
def _already_paused(refusal: m.AlreadyPaused) -> str:
    return _("#%(code)s is already paused.") % {"code": refusal.code}


@sentence.register
def _not_paused(refusal: m.NotPaused) -> str:
    return _("#%(code)s is not paused.") % {"code": refusal.code}


@sentence.register
def _empty_extension(refusal: m.EmptyExtension) -> str:
    return _("An extension must be longer than zero.")


@sentence.register
def _seat_is_computer(refusal: m.SeatIsComputer) -> str:
    return _("A computer player already plays in that seat.")


@sentence.register
def _cannot_ban_computer(refusal: m.CannotBanComputer) -> str:
    return _("%(name)s is a computer player: replace it in a match instead.") % {"name": refusal.name}


@sentence.register
def _not_banned(refusal: m.NotBanned) -> str:
    return _("%(name)s is not banned.") % {"name": refusal.name}


@sentence.register
def _not_possible_now(refusal: m.NotPossibleNow) -> str:
    return _("#%(code)s is %(status)s: not possible now.") % {
        "code": refusal.code,
        "status": STATUS_WORDS.get(refusal.status, refusal.status),
    }


@sentence.register
def _no_such_seat(refusal: m.NoSuchSeat) -> str:
    return _("#%(code)s has no seat %(position)s.") % {"code": refusal.code, "position": refusal.position}
