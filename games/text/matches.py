"""Making, finding, leaving and giving up matches, in words (``games.contract.matches``)."""

from __future__ import annotations

from collections.abc import Callable

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.contract import matches as m
from games.engine import Card

from .advice import LEVEL_WORDS, level_word
from .links import join_link
from .options import options_text
from .sentences import codes_text, sentence
from .style import Style, deadline_text, duration_text, totals_text


@sentence.register
def _created(notice: m.MatchCreated) -> str:
    code = notice.code
    reply = _("New match #%(code)s: %(options)s.") % {"code": code, "options": options_text(notice.options)}
    reply += " " + _("Friends join with: join %(code)s. Or type bot to add a computer player.") % {"code": code}
    if notice.on_telegram and (link := join_link(code)):
        reply += " " + _("Or send them this link: %(link)s") % {"link": link}
    return reply


@sentence.register
def _you_joined(notice: m.YouJoined) -> str:
    if notice.started:
        return _("You joined #%(code)s.") % {"code": notice.code}  # the cut for roles follows
    if notice.options is not None:
        return _("You joined #%(code)s: %(options)s. Waiting for one more player (or type bot).") % {
            "code": notice.code,
            "options": options_text(notice.options),
        }
    return _("You joined #%(code)s. Waiting for one more player (or type bot).") % {"code": notice.code}


@sentence.register
def _you_opened(notice: m.YouOpened) -> str:
    return _(
        "No open match was waiting, so you opened #%(code)s: %(options)s. Others find it with open or "
        "join any; bot adds a computer player."
    ) % {"code": notice.code, "options": options_text(notice.options)}


@sentence.register
def _computer_joined(notice: m.ComputerJoined) -> str:
    if notice.level in LEVEL_WORDS:
        return _("%(name)s, a computer player (%(level)s), joined #%(code)s.") % {
            "name": notice.name,
            "level": level_word(notice.level),
            "code": notice.code,
        }
    return _("%(name)s, a computer player, joined #%(code)s.") % {"name": notice.name, "code": notice.code}


@sentence.register
def _joined(notice: m.Joined) -> str:
    return _("%(name)s joined #%(code)s.") % {"name": notice.name, "code": notice.code}


@sentence.register
def _you_left(notice: m.YouLeft) -> str:
    return _("You left #%(code)s.") % {"code": notice.code}


@sentence.register
def _left(notice: m.Left) -> str:
    return _("%(name)s left #%(code)s.") % {"name": notice.name, "code": notice.code}


@sentence.register
def _lobby_closed(notice: m.LobbyClosed) -> str:
    return _("#%(code)s waited %(time)s for players and is closed. Start another: new") % {
        "code": notice.code,
        "time": duration_text(notice.waited_seconds),
    }


@sentence.register
def _computer_offer(notice: m.ComputerOffer) -> str:
    return _(
        "#%(code)s has waited %(waited)s for players. To start it now, type #%(code)s bot: a computer "
        "player takes a free seat. If nobody joins, it closes %(when)s."
    ) % {"code": notice.code, "waited": duration_text(notice.waited_seconds), "when": deadline_text(notice.closes)}


@sentence.register
def _confirm_resign(notice: m.ConfirmResign) -> str:
    return _("Resigning ends #%(code)s for all three, and you lose it. To confirm: #%(code)s resign yes") % {
        "code": notice.code
    }


@sentence.register
def _you_resigned(notice: m.YouResigned) -> str:
    return _("You resigned #%(code)s.") % {"code": notice.code} + " " + outcome(notice.winner, notice.scores)


@sentence.register
def _resigned(notice: m.Resigned) -> str:
    said = _("%(name)s resigned #%(code)s.") % {"name": notice.name, "code": notice.code}
    return said + " " + outcome(notice.winner, notice.scores)


def outcome(winner: str, scores: tuple[tuple[str, int], ...]) -> str:
    """Who wins a match given up (R10.3), and on what totals: the one with more points
    of the two who stayed, which nobody was told before."""
    if not winner:
        said = _("The other two have the same score: nobody wins the match.")
    else:
        said = _("%(name)s wins the match!") % {"name": winner}
    return said + "\n" + totals_text(scores)


@sentence.register
def _cut(notice: m.CutForRoles) -> str:
    return cut_text(notice)


def cut_words(notice: m.CutForRoles, style: Style) -> str:
    """The cut on a channel, its cards written as the channel's tables write them
    (``9♣`` on Telegram)."""
    return style.text(cut_text(notice, style.card))


def cut_text(notice: m.CutForRoles, card: Callable[[Card], str] = str) -> str:
    lines = [_("#%(code)s starts. The cut for roles:") % {"code": notice.code}]
    for number, cut in enumerate(notice.rounds, start=1):
        drawn = ", ".join(f"{name} {card(drawn_card)}" for name, drawn_card in cut.draws)
        lines.append((_("redraw: %(drawn)s") if number > 1 else "%(drawn)s") % {"drawn": drawn})
    lines.append(
        _("Box: %(box)s. Captain: %(captain)s. Sitter: %(sitter)s.")
        % {"box": notice.box, "captain": notice.captain, "sitter": notice.sitter}
    )
    return "\n".join(lines)


@sentence.register
def _waiting(notice: m.WaitingForPlayers) -> str:
    return _("#%(code)s is waiting for players: %(names)s.") % {"code": notice.code, "names": ", ".join(notice.names)}


@sentence.register
def _see_the_score(notice: m.SeeTheScore) -> str:
    return _("#%(code)s is over. Type #%(code)s score to see the hands.") % {"code": notice.code}


@sentence.register
def _no_match(notice: m.NoMatch) -> str:
    return _("You are in no match. Start one with new, or join one with join CODE.")


# Refusals ---------------------------------------------------------------------


@sentence.register
def _no_free_code(refusal: m.NoFreeCode) -> str:
    return _("Could not make a new match code; try again.")


@sentence.register
def _no_such_match(refusal: m.NoSuchMatch) -> str:
    return _("There is no match #%(code)s.") % {"code": refusal.code}


@sentence.register
def _not_in_match(refusal: m.NotInMatch) -> str:
    return _("You are not in a match #%(code)s.") % {"code": refusal.code}


@sentence.register
def _already_seated(refusal: m.AlreadySeated) -> str:
    return _("You are already in #%(code)s.") % {"code": refusal.code}


@sentence.register
def _too_many_waiting(refusal: m.TooManyWaiting) -> str:
    return ngettext(
        "You have %(count)s match waiting for players: start it (bot) or leave it first.",
        "You have %(count)s matches waiting for players: start one (bot) or leave one first.",
        refusal.count,
    ) % {"count": refusal.count}


@sentence.register
def _not_a_player_of(refusal: m.NotAPlayerOf) -> str:
    return _("Only a player of #%(code)s can add a computer player.") % {"code": refusal.code}


@sentence.register
def _already_started(refusal: m.AlreadyStarted) -> str:
    return _("#%(code)s has already started.") % {"code": refusal.code}


@sentence.register
def _full(refusal: m.MatchFull) -> str:
    return _("#%(code)s is full.") % {"code": refusal.code}


@sentence.register
def _started_use_resign(refusal: m.StartedUseResign) -> str:
    return _("#%(code)s has started: use resign to give it up.") % {"code": refusal.code}


@sentence.register
def _not_started_use_leave(refusal: m.NotStartedUseLeave) -> str:
    return _("#%(code)s has not started: use leave.") % {"code": refusal.code}


@sentence.register
def _over(refusal: m.MatchIsOver) -> str:
    return _("#%(code)s is over.") % {"code": refusal.code}


@sentence.register
def _not_running(refusal: m.NotRunning) -> str:
    return _("Match #%(code)s is not running.") % {"code": refusal.code}


@sentence.register
def _none_waits(refusal: m.NoneWaitsFor) -> str:
    return _("None of your matches waits on you for %(command)s. Your matches: status") % {"command": refusal.command}


@sentence.register
def _which_match(refusal: m.WhichMatch) -> str:
    return _("Which match? Put its code first, like: #%(code)s %(command)s. Yours: %(codes)s") % {
        "code": refusal.codes[0],
        "command": refusal.command,
        "codes": codes_text(refusal.codes, " "),
    }
