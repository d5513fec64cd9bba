"""Making and leaving matches: ``new``, ``join``, ``bot``, ``leave`` and ``resign``."""

from __future__ import annotations

from django.utils.translation import gettext as _

from games.text.links import join_link
from games.text.protocol import MOVE_TIMES, Command

from ...models import Match, Player
from .. import matches
from .choosing import LOBBY, RUNNING, Reply, any_match, pick


def new(player: Player, command: Command) -> Reply:
    """A match in the lobby; the reply confirms every option it set."""
    match = matches.create(player, command.options)
    reply = _("New match #%(code)s: %(options)s.") % {"code": match.code, "options": options_text(match)}
    reply += " " + _("Friends join with: join %(code)s. Or type bot to add a computer player.") % {"code": match.code}
    if player.last_channel == "telegram" and (link := join_link(match.code)):
        reply += " " + _("Or send them this link: %(link)s") % {"link": link}
    return reply


def options_text(match: Match) -> str:
    """Every option of a match, as ``new`` would set it: ``1d a move, to 100, gin 25, undercut 10``."""
    parts = [
        _("%(time)s a move") % {"time": duration(match.move_seconds)},
        _("to %(target)s") % {"target": match.target},
        _("gin bonus %(bonus)s") % {"bonus": match.gin_bonus},
        _("undercut bonus %(bonus)s") % {"bonus": match.undercut_bonus},
    ]
    if match.may_discard_taken:
        parts.append(_("the card taken from the pile may be discarded at once"))
    if match.is_open:
        parts.append(_("listed in the lobby"))
    return ", ".join(parts)


def duration(seconds: int) -> str:
    return next((name for name, value in MOVE_TIMES.items() if value == seconds), f"{seconds}s")


def join(player: Player, command: Command) -> Reply:
    match = matches.join(player, command.text)
    if match.status == Match.Status.RUNNING:
        return _("You joined #%(code)s.") % {"code": match.code}  # the cut for roles follows
    return _("You joined #%(code)s. Waiting for one more player (or type bot).") % {"code": match.code}


def bot(player: Player, command: Command) -> Reply:
    match, computer = matches.add_computer(player, pick(player, command, any_match, LOBBY).match)
    return _("%(name)s, a computer player, joined #%(code)s.") % {"name": computer.display_name, "code": match.code}


def leave(player: Player, command: Command) -> Reply:
    match = pick(player, command, any_match, LOBBY).match
    matches.leave(player, match)
    return _("You left #%(code)s.") % {"code": match.code}


def resign(player: Player, command: Command) -> Reply:
    """Giving up ends the match for all three, so it is asked for twice: ``resign``, then ``resign yes``."""
    match = pick(player, command, any_match, RUNNING).match
    matches.check_resignable(match)
    if command.text != "yes":
        return _("Resigning ends #%(code)s for all three, and you lose it. To confirm: #%(code)s resign yes") % {
            "code": match.code
        }
    winner = matches.resign(player, match)
    return _("You resigned #%(code)s.") % {"code": match.code} + " " + matches.outcome(winner)
