"""Turning the service layer's views into text for each channel.

One layout for every channel, in three styles: the terminal gets plain ASCII
(``7h Td Qs``); SMS the same, tightened to fit one 160-character GSM-7 segment
where it can; Telegram HTML with suit symbols and buttons. The views carry
only what their reader may see (``games.services.visibility``), so nothing
here can show a hidden card; and everything is worded here, in the reader's
language, never in the service layer.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from html import escape

from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.engine import Card

from .sms import compact, fits

SMS = "sms"
TELEGRAM = "telegram"
SMS_NAME = 7
SMS_KNOCKS = 2
ROLE_NAMES = {"box": gettext_lazy("box"), "captain": gettext_lazy("captain"), "sitter": gettext_lazy("sitter")}


@dataclass(frozen=True)
class Rendered:
    text: str
    buttons: list[list[dict[str, str]]] = field(default_factory=list)


@dataclass(frozen=True)
class Style:
    """How one channel writes the same layout."""

    rich: bool = False  # HTML with suit symbols (Telegram)
    meld_joiner: str = " "  # SMS writes 7h-8h-9h: brackets cost two GSM-7 characters each
    bracket_melds: bool = True
    name_limit: int = 0  # 0: names in full
    knock_limit: int = 0  # 0: every possible knock listed

    def text(self, text: str) -> str:
        return escape(text) if self.rich else text

    def bold(self, text: str) -> str:
        return f"<b>{escape(text)}</b>" if self.rich else text

    def name(self, name: str) -> str:
        if self.name_limit and len(name) > self.name_limit:
            name = name[: self.name_limit - 1] + "."
        return self.text(name)

    def card(self, card: Card) -> str:
        return card.symbol.replace("T", "10") if self.rich else str(card)

    def cards(self, cards: Iterable[Card]) -> str:
        return " ".join(self.card(card) for card in cards)

    def meld(self, meld: Iterable[Card]) -> str:
        joined = self.meld_joiner.join(self.card(card) for card in meld)
        return f"[{joined}]" if self.bracket_melds else joined


PLAIN = Style()
RICH = Style(rich=True)
SMS_STYLE = Style(meld_joiner="-", bracket_melds=False, name_limit=SMS_NAME, knock_limit=SMS_KNOCKS)


def render(content: object, channel: str) -> Rendered:
    """Render a view (or a plain string) for ``channel``."""
    kind = type(content).__name__
    if channel == SMS:
        if kind == "TableView":
            # Everything if the table then fits a segment; else one knock listed, not
            # two; then no deadline; then fewer of the moves before, oldest first.
            variants = [(content, knocks, deadline) for deadline in (True, False) for knocks in (SMS_KNOCKS, 1)]
            variants += [(replace(content, last_moves=content.last_moves[skip:]), 1, False) for skip in range(1, 5)]
            texts = [compact(table_text(view, SMS_STYLE, knocks, deadline)) for view, knocks, deadline in variants]
            return Rendered(next((text for text in texts if fits(text)), texts[-1]))
        if kind == "ResultView":
            return Rendered(compact(result_text(content, SMS_STYLE)))
        return Rendered(compact(str(content)))
    style = RICH if channel == TELEGRAM else PLAIN
    if kind == "TableView":
        return Rendered(table_text(content, style), table_buttons(content) if style.rich else [])
    if kind == "ResultView":
        return Rendered(result_text(content, style))
    if kind == "PublicTableView":
        return Rendered(public_table_text(content, style))
    return Rendered(style.text(str(content)))


def deadline_text(deadline: datetime, now: datetime | None = None) -> str:
    """When time runs out, in the notation of ``new 5m`` so that every language
    reads it: ``in 3h (29.11 16:30 UTC)``; rounded up, never "in 0m"."""
    seconds = max((deadline - (now or timezone.now())).total_seconds(), 0)
    minutes = math.ceil(seconds / 60)
    if minutes < 120:
        delta = f"{minutes}m"
    elif minutes < 48 * 60:
        delta = f"{minutes // 60}h"
    else:
        delta = f"{minutes // (24 * 60)}d"
    return _("in %(delta)s (%(time)s UTC)") % {"delta": delta, "time": deadline.astimezone(UTC).strftime("%d.%m %H:%M")}


def hand_text(view, style: Style) -> str:
    """Melds first, then the deadwood and its count: ``[7h 8h 9h] 2c 5d (7)``."""
    parts = [style.meld(meld) for meld in view.melds]
    parts += [style.cards(view.deadwood)] if view.deadwood else []
    return " ".join(parts) + " " + _("(%(count)s)") % {"count": view.count}


def turns_text(moves, style: Style) -> list[str]:
    """A player's moves in a row share a line, a discard in the short form players
    type, and how the moves were made is said once: ``Bo: draw, d 7h (automatic: time ran out)``."""
    turns: list[tuple[str, list[str], list[str]]] = []
    for move in moves:
        words = "d " + move.move.split()[1] if move.move.startswith("discard ") else move.move
        note = _move_note(move.automatic)
        if turns and turns[-1][0] == move.name:
            turns[-1][1].append(words)
            turns[-1][2].append(note)
        else:
            turns.append((move.name, [words], [note]))
    lines = []
    for name, words, notes in turns:
        if len(set(notes)) == 1:
            said = ", ".join(words) + notes[0]
        else:
            said = ", ".join(word + note for word, note in zip(words, notes, strict=True))
        lines.append(f"{style.name(name)}: {style.text(said)}")
    return lines


def _move_note(automatic: str) -> str:
    note = ""
    if automatic.startswith("timeout"):
        note += " " + _("(automatic: time ran out)")
    if automatic.endswith("suggestion"):
        note += " " + _("(the sitter's suggestion)")
    return note


def table_text(view, style: Style, knocks: int = 0, deadline: bool = True) -> str:
    """The table as its reader may see it; ``knocks`` caps the knocks listed, and
    the player to move is told when his time runs out unless ``deadline`` is off."""
    lines = [style.bold(f"#{view.code}") + " " + _("hand %(number)s") % {"number": view.hand_number}]
    lines += [style.text(view.note)] if view.note else []
    lines += turns_text(view.last_moves, style)
    if view.cards is not None:
        owner = style.name(view.cards.owner) + ": " if view.viewer_role == "sitter" else ""
        lines.append(owner + hand_text(view.cards, style))
    top = style.card(view.pile_top) if view.pile_top is not None else "-"
    lines.append(_("Pile %(top)s, stock %(count)s") % {"top": top, "count": view.stock_count})
    if view.moves and view.viewer_role != "sitter":
        your_move = style.bold(_("Your move:")) + " " + _moves_text(view, knocks or style.knock_limit)
        if deadline and view.deadline and not view.paused:
            your_move += " " + deadline_text(view.deadline)
        lines.append(your_move)
    elif view.moves:
        lines.append(_("Advise: suggest MOVE"))  # the captain's name heads his cards
    else:
        lines.append(_("%(name)s to move.") % {"name": style.name(view.to_move)})
    if view.suggestion:
        lines.append(_("Sitter suggests: %(move)s") % {"move": view.suggestion})
    lines.append(" ".join(f"{style.name(seat.name)}({seat.role[:1].upper()}){seat.score}" for seat in view.seats))
    return "\n".join(lines)


def public_table_text(view, style: Style) -> str:
    """The table for someone who holds no seat (a group): what lies face up and the counts."""
    lines = [style.bold(f"#{view.code}") + " " + _("hand %(number)s") % {"number": view.hand_number}]
    lines += turns_text(view.last_moves, style)
    top = style.card(view.pile_top) if view.pile_top is not None else "-"
    lines.append(_("Pile %(top)s, stock %(count)s") % {"top": top, "count": view.stock_count})
    lines.append(_("%(name)s to move.") % {"name": style.name(view.to_move)})
    lines.append(" ".join(f"{style.name(seat.name)}({seat.role[:1].upper()}){seat.score}" for seat in view.seats))
    return "\n".join(lines)


def _moves_text(view, knocks: int) -> str:
    moves = [move for move in view.moves if not move.startswith(("discard ", "knock "))]
    if any(move.startswith("discard ") for move in view.moves):
        moves.append("d CARD")
    if view.knocks:
        best = sorted(view.knocks.items(), key=lambda item: (item[1], item[0]))
        listed = ", ".join(f"{card}({count})" for card, count in best[: knocks or None])
        moves.append(_("knock %(cards)s") % {"cards": listed})
    return ", ".join(moves)


def table_buttons(view) -> list[list[dict[str, str]]]:
    """One button per move; each carries the match and its version so that an
    old button is refused instead of acting on a newer table."""
    if not view.moves:
        return []
    prefix = f"#{view.code}@{view.version} "
    if view.viewer_role == "sitter":
        prefix += "suggest "
    rows: list[list[dict[str, str]]] = []
    simple = [m for m in view.moves if not m.startswith(("discard ", "knock "))]
    if simple:
        rows.append([{"text": _label(m), "data": prefix + m} for m in simple])
    discards = [m for m in view.moves if m.startswith("discard ")]
    for start in range(0, len(discards), 6):
        rows.append([{"text": m.split()[1], "data": prefix + m} for m in discards[start : start + 6]])
    knocks = [m for m in view.moves if m.startswith("knock ")]
    if knocks:
        rows.append([{"text": "✊ " + m.split()[1], "data": prefix + m} for m in knocks])
    if view.suggestion and view.viewer_role == "captain":
        rows.append([{"text": _("accept %(move)s") % {"move": view.suggestion}, "data": prefix + "accept"}])
    return rows


def _label(move: str) -> str:
    return {"take": _("take"), "draw": _("draw"), "pass": _("pass")}.get(move, move)


def result_text(view, style: Style) -> str:
    """The end of a hand, public to all: both hands, the layoffs, the points, what comes next."""
    lines = [style.bold(f"#{view.code}") + " " + _("hand %(number)s over.") % {"number": view.hand_number}]
    if view.kind == "draw":
        lines.append(_("Drawn: nobody scores."))
    else:
        lines.append(
            {
                "gin": _("%(knocker)s goes gin!"),
                "undercut": _("%(knocker)s knocks and is undercut!"),
                "knock": _("%(knocker)s knocks."),
            }[view.kind]
            % {"knocker": style.name(view.knocker)}
        )
        for cards in (view.knocker_cards, view.defender_cards):
            lines.append(f"{style.name(cards.owner)}: {hand_text(cards, style)}")
        if view.layoffs:
            lines.append(_("Laid off: %(cards)s") % {"cards": style.cards(view.layoffs)})
        lines.append(_("%(winner)s scores %(points)s.") % {"winner": style.name(view.winner), "points": view.points})
    scores = ", ".join(f"{style.name(seat.name)} {seat.score}" for seat in view.seats)
    lines.append(_("Scores: %(scores)s") % {"scores": scores})
    if view.game_winner:
        lines.append(style.bold(_("%(name)s wins the match!") % {"name": view.game_winner}))
    elif view.next_roles:
        roles = ", ".join(f"{style.name(name)} {ROLE_NAMES[role]}" for name, role in view.next_roles.items())
        lines.append(_("Next: %(roles)s") % {"roles": roles})
    return "\n".join(lines)
