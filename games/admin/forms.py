"""The moderation desk's forms: what each admin action asks before it acts.

Each form names the service function it calls (``games.services.write.moderation``)
and returns the change message for Django's admin log. The admin never writes
a game row itself.
"""

from __future__ import annotations

from datetime import timedelta

from django import forms
from django.db.models import Model, QuerySet
from django.utils import timezone
from django.utils.html import escape
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from games.models import Match, Player, Seat, Strength
from games.services.write import moderation


class ModerationForm(forms.Form):
    """An action's intermediate page. ``single`` forms act on one object only,
    because their choices (a seat) depend on it; ending a match or banning
    someone is explained to the players, so there the reason is required."""

    title = ""
    single = False
    reason_required = False
    reason_readers = _("Every player of the match reads it.")
    reason = forms.CharField(label=_("Reason"), required=False, widget=forms.Textarea(attrs={"rows": 3}))

    def __init__(self, *args: object, objects: QuerySet, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.objects = objects
        self.fields["reason"].required = self.reason_required
        self.fields["reason"].help_text = self.reason_readers

    def apply(self, obj: Model, admin: str) -> str:
        """Carry the action out on ``obj`` and say what was done (for the admin log)."""
        raise NotImplementedError

    def said(self, text: str) -> str:
        reason = self.cleaned_data["reason"]
        return f"{text}: {reason}" if reason else text


class AbortForm(ModerationForm):
    title = _("Abort matches")
    reason_required = True

    def apply(self, obj: Match, admin: str) -> str:
        moderation.abort(obj, admin, self.cleaned_data["reason"])
        return self.said(gettext("Aborted"))


class SeatChoiceForm(ModerationForm):
    """A form that picks one seat of the one selected match."""

    single = True
    seat = forms.TypedChoiceField(label=_("Seat"), coerce=int)

    def __init__(self, *args: object, objects: QuerySet, **kwargs: object) -> None:
        super().__init__(*args, objects=objects, **kwargs)
        match = objects.first()
        seats = [seat for seat in match.seats.select_related("player") if self.offers(seat)] if match else []
        self.seats = {seat.position: seat for seat in seats}
        # No seat chosen in advance: a Confirm pressed too soon must not pick a winner.
        self.fields["seat"].choices = [("", "---------"), *((seat.position, self.seat_label(seat)) for seat in seats)]

    def offers(self, seat: Seat) -> bool:
        """Whether the seat is one to choose for this action."""
        return True

    def seat_label(self, seat: Seat) -> str:
        return ngettext("%(name)s, %(score)s point", "%(name)s, %(score)s points", seat.score) % {
            "name": seat.player,
            "score": seat.score,
        }

    def seat_player(self) -> Player:
        """Who sits in the chosen seat, before the action changes anything."""
        return self.seats[self.cleaned_data["seat"]].player


class AdjudicateForm(SeatChoiceForm):
    title = _("Adjudicate: choose the winner")
    reason_required = True

    def apply(self, obj: Match, admin: str) -> str:
        winner = self.seat_player()
        moderation.adjudicate(obj, self.cleaned_data["seat"], admin, self.cleaned_data["reason"])
        return self.said(gettext("Adjudicated: %(name)s wins") % {"name": winner})


class ReplaceForm(SeatChoiceForm):
    """Only a person's seat is offered (a computer's was, then refused), with what the
    replacement does: the desk sees it before Confirm, not after."""

    title = _("Replace a player with a computer player")
    strength = forms.ChoiceField(label=_("Strength"), choices=Strength.choices, initial=Strength.NORMAL)

    def __init__(self, *args: object, objects: QuerySet, **kwargs: object) -> None:
        super().__init__(*args, objects=objects, **kwargs)
        # Escaped: Django writes a help text into the page as it is, and a name is anyone's text.
        self.fields["seat"].help_text = escape(replacement_outcome(list(self.seats.values())))

    def offers(self, seat: Seat) -> bool:
        return not seat.player.is_computer

    def apply(self, obj: Match, admin: str) -> str:
        replaced = self.seat_player()
        computer = moderation.replace_with_computer(
            obj, self.cleaned_data["seat"], admin, self.cleaned_data["reason"], self.cleaned_data["strength"]
        )
        return self.said(gettext("%(name)s replaced by %(computer)s") % {"name": replaced, "computer": computer})


def replacement_outcome(people: list[Seat]) -> str:
    """What replacing one of ``people`` (the seats people hold) will do."""
    if not people:
        return gettext("Every seat is a computer player's: there is nobody to replace.")
    said = gettext(
        "A new computer player takes the seat and its score to the end of the match; the players are told. "
        "The match then counts neither as his win nor as his loss, and the hands he won stay his."
    )
    if len(people) == 1:
        said += " " + gettext(
            "%(name)s is the only person in this match: once he is replaced, three computer players "
            "play it to its end at once, in seconds."
        ) % {"name": people[0].player}
    return said


class PauseForm(ModerationForm):
    title = _("Pause the clock")

    def apply(self, obj: Match, admin: str) -> str:
        moderation.pause(obj, admin, self.cleaned_data["reason"])
        return self.said(gettext("Clock paused"))


class ResumeForm(ModerationForm):
    title = _("Resume the clock")

    def apply(self, obj: Match, admin: str) -> str:
        moderation.resume(obj, admin, self.cleaned_data["reason"])
        return self.said(gettext("Clock resumed"))


class ExtendForm(ModerationForm):
    title = _("Extend the deadline")
    hours = forms.FloatField(label=_("Hours"), min_value=0.1, max_value=24 * 365, initial=24)

    def apply(self, obj: Match, admin: str) -> str:
        hours = self.cleaned_data["hours"]
        moderation.extend(obj, timedelta(hours=hours), admin, self.cleaned_data["reason"])
        return self.said(gettext("Deadline extended by %(hours)s hours") % {"hours": f"{hours:g}"})


class BanForm(ModerationForm):
    title = _("Ban players")
    reason_required = True
    reason_readers = _("Only he reads it: the other players are told only that a computer plays for him.")
    days = forms.IntegerField(
        label=_("Days"), min_value=1, max_value=3650, required=False, help_text=_("Empty: until unbanned.")
    )

    def apply(self, obj: Player, admin: str) -> str:
        days = self.cleaned_data["days"]
        expires_at = timezone.now() + timedelta(days=days) if days else None
        moderation.ban(obj, admin, self.cleaned_data["reason"], expires_at)
        if days:
            until = ngettext("for %(days)s day", "for %(days)s days", days) % {"days": days}
        else:
            until = gettext("until unbanned")
        return self.said(gettext("Banned %(until)s") % {"until": until})


class UnbanForm(ModerationForm):
    title = _("Lift bans")
    reason_readers = _("Only admins read it.")

    def apply(self, obj: Player, admin: str) -> str:
        moderation.unban(obj, admin, self.cleaned_data["reason"])
        return self.said(gettext("Unbanned"))
