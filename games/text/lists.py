"""A player's matches and the help, as he reads them: where each match stands and what he may do.

``status`` with several matches lists them (``matches_text``); ``help`` says
what makes sense now for the asker's role and state in each (``help_text``).
Both are built from ``games.contract.lists.MatchLine``, which holds only what he
may see; ``score`` from ``ScoreView``.
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from games.contract.lists import HelpView, MatchesView, MatchLine, ScoreView

from .advice import levels_line
from .sentences import sentence
from .style import HAND_KINDS, ROLE_MARKS, Style, deadline_text, moves_text, your_move


def matches_text(view: MatchesView, style: Style) -> str:
    """``status`` with several matches: one line each, the reader's turns first to see."""
    lines = [_("Your matches:")]
    lines += [_match_line(line, style) for line in view.lines]
    if view.more:
        lines.append(_("... and %(count)s more.") % {"count": view.more})
    example = next((line.code for line in view.lines if line.status == "running"), view.lines[0].code)
    lines.append(_("For a table: #%(code)s status") % {"code": example})
    return "\n".join(lines)


def _match_line(line: MatchLine, style: Style) -> str:
    head = style.bold(f"#{line.code}")
    if line.status == "lobby":
        return head + " " + _("waits for players (%(count)s of 3).") % {"count": line.players}
    # A comma after the hand: "your move by 09:26 UTC (5m left):" brings its own colon.
    head += " " + _("hand %(number)s") % {"number": line.hand_number} + ","
    if line.paused:
        return head + " " + _("paused by an admin.")
    if line.your_move:
        said = your_move(line.deadline, short=not style.time_left, heading=False)
        return head + " " + said + " " + moves_text(line, style.knock_limit or 1)
    if line.role == "sitter" and line.moves:
        said = _("advise %(name)s.") % {"name": style.name(line.to_move)}
    else:
        said = _("%(name)s to move.") % {"name": style.name(line.to_move)}
    return head + " " + said + _away_note(line, style)


def help_text(view: HelpView, style: Style) -> str:
    """What makes sense now, match by match, then what always works."""
    lines = [] if view.lines else [_no_match(), _strangers()]
    if view.again:
        code = style.bold(f"#{view.again}")
        lines.insert(1, _("again plays %(code)s again with the same players.") % {"code": code})
    lines += [_help_line(line, style) for line in view.lines]
    if view.more:
        lines.append(_("... and %(count)s more: status lists them.") % {"count": view.more})
    if view.away_until:
        lines.append(_("You are away, back %(when)s: back ends it now.") % {"when": deadline_text(view.away_until)})
    lines.append(
        _("Always: status, score, new, join CODE, name NAME, lang CODE, advise on|off, help. Cards: 7h 10d Qs.")
    )
    if view.lines:
        lines.append(_("Also: open, join any, away 3d, back, quiet 23-07, tz ZONE, report TEXT."))
    if any(line.status == "running" for line in view.lines):
        lines.append(_legend_line(style))
    if view.telegram:
        lines.append(_("Turns by: notify sms|telegram|auto") if view.phone else _("By SMS too: phone +15551234567"))
    return "\n".join(lines)


def _no_match() -> str:
    return _(
        "You are in no match. new starts one (new 1h to 150: an hour a move, to 150 points); "
        "join CODE joins a friend's."
    )


def _strangers() -> str:
    return _("Find players: open lists waiting matches; join any seats you.")


def _away_note(line: MatchLine, style: Style) -> str:
    """`` Alice is away, back in 2d (...).`` when the player to move takes time off."""
    if line.mover_away_until is None or line.your_move:
        return ""
    return " " + _("%(name)s is away, back %(when)s.") % {
        "name": style.name(line.to_move),
        "when": deadline_text(line.mover_away_until, short=not style.time_left),
    }


def _help_line(line: MatchLine, style: Style) -> str:
    code = style.bold(f"#{line.code}")
    if line.status == "lobby":
        waiting = _("%(code)s waits for players (%(count)s of 3): bot adds a computer player, leave leaves it.") % {
            "code": code,
            "count": line.players,
        }
        return waiting + " " + levels_line()
    if line.paused:
        return _("%(code)s is paused by an admin: nobody moves until it is resumed.") % {"code": code}
    return _role_help(line, style, code) + _away_note(line, style) + " " + _("resign gives the match up.")


def _hint_note(line: MatchLine) -> str:
    """``hint`` where it answers: a move or a suggestion of his, against computers only."""
    return " " + _("hint: what the hard computer would play, and why.") if line.hints else ""


def _role_help(line: MatchLine, style: Style, code: str) -> str:
    names = {"partner": style.name(line.partner), "to_move": style.name(line.to_move), "code": code}
    if line.your_move:
        said = _("%(code)s, your move: %(moves)s.") % {"code": code, "moves": moves_text(line, 0)}
        if line.upcard is not None and "take" in line.moves:
            said += " " + _("take picks up %(card)s.") % {"card": style.card(line.upcard)}
        if line.suggestion:
            said += " " + _("%(partner)s suggests %(move)s: accept plays it.") % {
                "partner": names["partner"],
                "move": line.suggestion,
            }
        if line.role == "captain":
            said += " " + _("team TEXT talks to %(partner)s, your sitter.") % names
        return said + _hint_note(line)
    if line.role == "sitter" and line.moves:
        return _(
            "%(code)s: you sit this hand out and advise %(to_move)s: suggest %(moves)s. "
            "team TEXT talks to %(to_move)s only."
        ) % {**names, "moves": moves_text(line, 0)} + _hint_note(line)
    if line.role == "sitter":
        return _("%(code)s: you sit this hand out; %(to_move)s to move. team TEXT talks to %(partner)s.") % names
    if line.role == "captain":
        return _("%(code)s: %(to_move)s to move. team TEXT talks to %(partner)s, your sitter.") % names
    return _("%(code)s: %(to_move)s to move; status shows your cards.") % names


def _legend_line(style: Style) -> str:
    """How to read a table, as this channel writes melds: in brackets, or joined by dashes by SMS."""
    if not style.bracket_melds:
        legend = _(
            "In a table: cards joined by - are a meld, (N) is your deadwood count, knock CARD(N) the count after "
            "that discard; %(box)s box, %(captain)s captain, %(sitter)s sitter."
        )
    else:
        legend = _(
            "In a table: [brackets] hold a meld, (N) is your deadwood count, knock CARD(N) the count after "
            "that discard; %(box)s box, %(captain)s captain, %(sitter)s sitter."
        )
    return legend % ROLE_MARKS


@sentence.register
def score_text(view: ScoreView) -> str:
    """``score``: the scores and every hand played so far, with who won it and how."""
    scores = ", ".join(f"{name} {score}" for name, score in view.scores)
    lines = [_("#%(code)s to %(target)s: %(scores)s") % {"code": view.code, "target": view.target, "scores": scores}]
    for hand in view.hands:
        if not hand.winner:
            lines.append(_("Hand %(number)s: drawn") % {"number": hand.number})
        else:
            lines.append(
                _("Hand %(number)s: %(name)s +%(points)s (%(kind)s)")
                % {"number": hand.number, "name": hand.winner, "points": hand.points, "kind": HAND_KINDS[hand.kind]}
            )
    if view.winner:
        lines.append(_("The match is over: %(name)s won it.") % {"name": view.winner})
    return "\n".join(lines)
