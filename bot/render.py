"""Turning the service layer's views into text for each channel.

SMS and the terminal get plain ASCII (``7h Td Qs``) that fits an SMS segment
where it can; Telegram gets HTML with suit symbols and buttons. The views
carry only what their reader may see (``games.services.visibility``), so
nothing here can show a hidden card.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape

from django.utils.translation import gettext as _

from games.engine import Card

RICH_CHANNELS = ("telegram",)


@dataclass(frozen=True)
class Rendered:
    text: str
    buttons: list[list[dict[str, str]]] = field(default_factory=list)


def render(content: object, channel: str) -> Rendered:
    """Render a view (or a plain string) for ``channel``."""
    rich = channel in RICH_CHANNELS
    kind = type(content).__name__
    if kind == "TableView":
        return Rendered(table_text(content, rich), table_buttons(content) if rich else [])
    if kind == "ResultView":
        return Rendered(result_text(content, rich))
    text = str(content)
    return Rendered(escape(text) if rich else text)


def card_text(card: Card, rich: bool) -> str:
    return card.symbol.replace("T", "10") if rich else str(card)


def cards_text(cards, rich: bool) -> str:
    return " ".join(card_text(card, rich) for card in cards)


def hand_text(view, rich: bool) -> str:
    """Melds grouped in brackets, then the deadwood and its count."""
    parts = [f"[{cards_text(meld, rich)}]" for meld in view.melds]
    parts += [cards_text(view.deadwood, rich)] if view.deadwood else []
    return " ".join(parts) + " " + _("(%(count)s)") % {"count": view.count}


def table_text(view, rich: bool) -> str:
    bold = (lambda s: f"<b>{escape(s)}</b>") if rich else (lambda s: s)
    lines = [bold(f"#{view.code}") + " " + _("hand %(number)s") % {"number": view.hand_number}]
    lines += [escape(move) if rich else move for move in view.last_moves]
    if view.cards is not None:
        owner = "" if view.viewer_role != "sitter" else view.cards.owner + ": "
        lines.append((escape(owner) if rich else owner) + hand_text(view.cards, rich))
    top = card_text(view.pile_top, rich) if view.pile_top is not None else "-"
    lines.append(_("Pile %(top)s, stock %(count)s") % {"top": top, "count": view.stock_count})
    if view.moves and view.viewer_role != "sitter":
        lines.append(bold(_("Your move:")) + " " + _moves_text(view))
    elif view.moves:
        lines.append(_("%(name)s to move. Advise: suggest MOVE") % {"name": view.to_move})
    else:
        lines.append(_("%(name)s to move.") % {"name": view.to_move})
    if view.suggestion:
        lines.append(_("Sitter suggests: %(move)s") % {"move": view.suggestion})
    scores = " ".join(f"{seat.name}({seat.role[:1].upper()}){seat.score}" for seat in view.seats)
    lines.append(escape(scores) if rich else scores)
    return "\n".join(lines)


def _moves_text(view) -> str:
    moves = [move for move in view.moves if not move.startswith(("discard ", "knock "))]
    if any(move.startswith("discard ") for move in view.moves):
        moves.append("d CARD")
    if view.knocks:
        knocks = ", ".join(f"{card}({count})" for card, count in sorted(view.knocks.items()))
        moves.append(_("knock %(cards)s") % {"cards": knocks})
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


def result_text(view, rich: bool) -> str:
    bold = (lambda s: f"<b>{escape(s)}</b>") if rich else (lambda s: s)
    lines = [bold(f"#{view.code}") + " " + _("hand %(number)s over.") % {"number": view.hand_number}]
    if view.kind == "draw":
        lines.append(_("Drawn: nobody scores."))
    else:
        lines.append(
            {
                "gin": _("%(knocker)s goes gin!"),
                "undercut": _("%(knocker)s knocks and is undercut!"),
                "knock": _("%(knocker)s knocks."),
            }[view.kind]
            % {"knocker": view.knocker}
        )
        for cards in (view.knocker_cards, view.defender_cards):
            lines.append(f"{escape(cards.owner) if rich else cards.owner}: {hand_text(cards, rich)}")
        if view.layoffs:
            lines.append(_("Laid off: %(cards)s") % {"cards": cards_text(view.layoffs, rich)})
        lines.append(_("%(winner)s scores %(points)s.") % {"winner": view.winner, "points": view.points})
    scores = ", ".join(f"{seat.name} {seat.score}" for seat in view.seats)
    lines.append(_("Scores: %(scores)s") % {"scores": escape(scores) if rich else scores})
    if view.game_winner:
        lines.append(bold(_("%(name)s wins the match!") % {"name": view.game_winner}))
    elif view.next_roles:
        roles = ", ".join(f"{name} {_(role)}" for name, role in view.next_roles.items())
        lines.append(_("Next: %(roles)s") % {"roles": escape(roles) if rich else roles})
    return "\n".join(lines)
