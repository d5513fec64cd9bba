"""The words of the web table outside the page itself: the reply to ``web`` and the
"Open table" button of a Telegram table (``tables.table_buttons``)."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.contract.account import SignInLinkView

from .links import sign_in_link
from .sentences import sentence


@sentence.register
def _sign_in_link(view: SignInLinkView) -> str:
    """The reply to ``web``: his personal link, how long it works, and that it is his alone."""
    return _(
        "To play at your table in a browser, open this link on that device: %(link)s "
        "It signs you in once, within %(minutes)s minutes. Keep it to yourself: whoever opens it plays as you."
    ) % {"link": sign_in_link(view.token), "minutes": view.minutes}


def open_table_label() -> str:
    return _("Open table")


# Why the table's page refuses a request (``bot.web.auth``): nothing was done.
REFUSALS = {
    "missing": gettext_lazy("Telegram did not say who you are: open the table with its button in the chat."),
    "forged": gettext_lazy(
        "Telegram's signature on this page is wrong: it was not opened from Telegram, or was changed. Nothing was done."
    ),
    "stale": gettext_lazy(
        "This page was opened too long ago: close it and open the table again from the chat. Nothing was done."
    ),
    "unknown": gettext_lazy("Write to the gin3 bot on Telegram first."),
    "signed-out": gettext_lazy(
        "You are not signed in on this device. Send web to gin3 (on Telegram, by SMS or in the terminal) "
        "for a link that signs you in."
    ),
    "no-seat": gettext_lazy("You have no seat at this table."),
}


def refusal_text(reason: str) -> str:
    """Why the page refused a request, in the active language."""
    return str(REFUSALS[reason])


def page_words() -> dict[str, str]:
    """The sentences the table's script says, in the active language: it has no words
    of its own. The moves, roles and results use the words of the messages and pages."""
    return {
        "upcard": _("Your move: take the upcard, or pass."),
        "draw": _("Your move: take the top of the pile, or draw from the stock."),
        "discard": _("Your move: choose a card to discard, or to knock with."),
        "advise": _("Advise %(name)s: choose a move to suggest."),
        "to_move": _("%(name)s to move."),
        "paused": _("Paused by an admin: nobody moves until it is resumed."),
        "waiting": _("Waiting for players"),
        "over": _("The match is over."),
        "wins": _("%(name)s wins the match!"),
        "your_cards": _("Your cards"),
        "partner_cards": _("The cards of %(name)s, your captain"),
        "deadwood": _("deadwood %(count)s"),
        "take": _("take"),
        "draw_button": _("draw"),
        "pass": _("pass"),
        "discard_button": _("Discard"),
        "knock_button": _("Knock"),
        "suggest": _("Suggest:"),
        "accept": _("accept %(move)s"),
        "suggests": _("Sitter suggests: %(move)s (accept plays it)"),
        "you_suggested": _("You suggested: %(move)s"),
        "accepted": _("You played the sitter's suggestion: %(move)s"),
        "you": _("(you)"),
        "computer": _("computer"),
        "autopilot": _("a computer plays in their place"),
        "away": _("away until"),
        "deal": _("The deal: the captain decides on the upcard."),
        "hand": _("Hand %(number)s"),
        "drawn": _("Drawn: nobody scores."),
        "gin": _("Gin: %(winner)s scores %(points)s."),
        "undercut": _("Undercut: %(winner)s scores %(points)s."),
        "knock": _("Knock: %(winner)s scores %(points)s."),
        "laid_off": _("Laid off on the knocker's melds:"),
        "offline": _("Connection lost: trying again…"),
        "sending": _("Sending…"),
        "not_done": _("Not done: try again."),
        "team_to": _("A word to %(name)s"),
    }
