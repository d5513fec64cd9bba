"""A match's options in words: what ``new`` confirms, what the lobby lists, what the parser asks for."""

from __future__ import annotations

from django.utils.translation import gettext as _

from games.contract.options import MOVE_TIMES, OPTION, MatchOptions


def move_time_text(seconds: int) -> str:
    """A move time by the word that sets it (``1d``), or in seconds if no word does."""
    return next((name for name, value in MOVE_TIMES.items() if value == seconds), f"{seconds}s")


def options_text(options: MatchOptions) -> str:
    """Every option of a match, as ``new`` would set it: ``1d a move, to 100, gin bonus 25, undercut bonus 10``."""
    parts = [
        _("%(time)s a move") % {"time": move_time_text(options.move_seconds)},
        _("to %(target)s") % {"target": options.target},
        _("gin bonus %(bonus)s") % {"bonus": options.gin_bonus},
        _("undercut bonus %(bonus)s") % {"bonus": options.undercut_bonus},
    ]
    if options.may_discard_taken:
        parts.append(_("the card taken from the pile may be discarded at once"))
    if options.is_open:
        parts.append(_("listed in the lobby"))
    return ", ".join(parts)


def lobby_options_text(options: MatchOptions) -> str:
    """The move time and the target always, the other options where they differ from the default."""
    parts = [_("%(time)s a move") % {"time": move_time_text(options.move_seconds)}]
    parts.append(_("to %(target)s") % {"target": options.target})
    changed = options.differs_from_default()
    if "gin_bonus" in changed:
        parts.append(_("gin bonus %(bonus)s") % {"bonus": options.gin_bonus})
    if "undercut_bonus" in changed:
        parts.append(_("undercut bonus %(bonus)s") % {"bonus": options.undercut_bonus})
    if options.may_discard_taken:
        parts.append(OPTION["may_discard_taken"].word)
    return ", ".join(parts)
