"""The table, the moves that led to it and the end of a hand, as each reader reads them.

The views carry only what their reader may see (``games.services.read``
fills them), so nothing here can show a hidden card.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from html import escape

from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from games.contract.moves import Accepted
from games.contract.public import PublicTableView
from games.contract.tables import Automatic, MoveView, ResultView, TableView
from games.engine import Card

from .bidi import isolate
from .links import mini_app_link
from .sentences import sentence
from .sms import compact, fits, segments
from .style import (
    RICH,
    ROLE_MARKS,
    SMS,
    SMS_KNOCKS,
    SMS_STYLE,
    TELEGRAM,
    Style,
    hand_text,
    moves_text,
    scores_line,
    totals_text,
    wait_text,
    your_move,
)
from .web import open_table_label


def sms_table(view: TableView) -> str:
    """The table in as few segments as it can take, and in them as much as fits:
    everything; else without the scores line (``score`` has them); else one knock
    listed, not two; else without the line naming the card he drew or took (it is in
    his hand all the same), and without the cards of the captain's draws in the
    sitter's moves (the same cards); else fewer of the moves before, oldest first. The
    deadline goes last of all: the player to move must know when his time runs out.

    A table in Devanagari or Cyrillic takes two UCS-2 segments however much is
    left out, so it keeps the moves and the deadline that a table in one GSM-7
    segment would have had to drop."""
    bare = tuple(replace(move, drawn="") for move in view.last_moves)
    plain = replace(view, drawn=None, taken=None, last_moves=bare)
    variants: list[tuple[TableView, int, bool, bool]] = [
        (view, SMS_KNOCKS, True, True),
        (view, SMS_KNOCKS, True, False),
        (view, 1, True, False),
        (plain, 1, True, False),
    ]
    skips = range(1, len(view.last_moves) + 1)
    variants += [(replace(plain, last_moves=bare[skip:]), 1, True, False) for skip in skips]
    variants.append((replace(plain, last_moves=()), 1, False, False))
    return _fewest_segments(
        compact(table_text(shown, SMS_STYLE, knocks, deadline, scores)) for shown, knocks, deadline, scores in variants
    )


def sms_result(view: ResultView) -> str:
    """The hand's result by SMS, without the next hand's roles when leaving them out
    saves a segment: two layoffs and a long name took a result to 307 characters, one
    more than two segments hold. Each player's next table shows his part all the same
    (his move, his advice, or whose move it is)."""
    shown = (view, replace(view, next_roles={})) if view.next_roles else (view,)
    return _fewest_segments(compact(result_text(each, SMS_STYLE)) for each in shown)


def _fewest_segments(texts: Iterable[str]) -> str:
    """The first of ``texts`` (the most complete first) that takes the fewest SMS
    segments; they are rendered only until one fits a single segment."""
    seen = []
    for text in texts:
        if fits(text, 1):
            return text  # no later text can take fewer
        seen.append(text)
    fewest = min(segments(text).count for text in seen)
    return next(text for text in seen if fits(text, fewest))


def turns_text(moves: Iterable[MoveView], style: Style) -> list[str]:
    """A player's moves in a row share a line, a discard in the short form players
    type, and how the moves were made is said once: ``Bo: draw, d 7h (automatic: time ran out)``."""
    turns: list[tuple[str, list[str], list[str]]] = []
    for move in moves:
        words = _move_words(move, style)
        note = _move_note(move.automatic)
        if turns and turns[-1][0] == move.name:
            turns[-1][1].append(words)
            turns[-1][2].append(note)
        else:
            turns.append((move.name, [words], [note]))
    lines = []
    for name, turn, notes in turns:
        if len(set(notes)) == 1:
            said = ", ".join(turn) + notes[0]
        else:
            said = ", ".join(word + note for word, note in zip(turn, notes, strict=True))
        lines.append(f"{style.name(name)}: {style.text(said)}")
    return lines


def _move_words(move: MoveView, style: Style) -> str:
    """``d 7h``, ``take 2c``, ``knock 5s``: the words of the command, its card written
    as the style writes the cards of the table above it (``d 7♥`` on Telegram)."""
    word, _space, card = move.move.partition(" ")
    words = ["d" if word == "discard" else word]
    words += [style.card(Card.parse(shown)) for shown in (card, move.taken, move.drawn) if shown]
    return " ".join(words)


def _move_note(automatic: Automatic) -> str:
    """How a move was made, when its player did not type it (``play.apply_move``), in
    one pair of brackets: ``(automatic: time ran out; the sitter's suggestion)``."""
    notes = []
    if automatic.timed_out:
        notes.append(_("automatic: time ran out"))
    if automatic is Automatic.AUTOPILOT:
        notes.append(_("played in their place by a computer"))
    if automatic.advised:
        notes.append(_("the sitter's suggestion"))
    return " (" + "; ".join(notes) + ")" if notes else ""


def table_text(view: TableView, style: Style, knocks: int = 0, deadline: bool = True, scores: bool = True) -> str:
    """The table as its reader may see it; ``knocks`` caps the knocks listed, the
    player to move is told when his time runs out unless ``deadline`` is off, and
    the scores line is left out when ``scores`` is off (SMS, to fit)."""
    lines = [style.bold(f"#{view.code}") + " " + _("hand %(number)s") % {"number": view.hand_number}]
    note = style.text(sentence(view.note)) if view.note is not None else ""
    # "You played the sitter's suggestion: draw" is his move: after the others' before it.
    his_move = isinstance(view.note, Accepted)
    if note and not his_move:
        lines.append(note)
    moves = view.last_moves
    if view.drawn is not None:
        moves = _without_the_draw(moves, view)
    lines += turns_text(moves, style)
    if note and his_move:
        lines.append(note)
    if view.drawn is not None:
        lines.append(_drawn_line(view, view.drawn, style))
    if view.taken is not None:
        lines.append(_("You took %(card)s.") % {"card": style.card(view.taken)})
    if view.cards is not None:
        owner = style.name(view.cards.owner) + ": " if view.viewer_role == "sitter" else ""
        lines.append(owner + hand_text(view.cards, style))
    lines.append(_pile_line(view.pile_top, view.stock_count, style))
    lines.append(_turn_line(view, style, knocks or style.knock_limit, deadline))
    if view.suggestion and not view.paused:
        lines.append(_("Sitter suggests: %(move)s (accept plays it)") % {"move": view.suggestion})
    if scores:
        lines.append(scores_line(view.seats, style))
    return "\n".join(lines)


def _without_the_draw(moves: tuple[MoveView, ...], view: TableView) -> tuple[MoveView, ...]:
    """The moves before the sitter's table without his captain's draw, which the line
    naming the card says better (the mover's own moves are not listed to him)."""
    if moves and moves[-1].move == "draw" and view.cards is not None and moves[-1].name == view.cards.owner:
        return moves[:-1]
    return moves


def _drawn_line(view: TableView, card: Card, style: Style) -> str:
    """The card the reader (or, for the sitter, his captain) just drew: sorted into
    the hand it would pass unnoticed, and it is what his discard is weighed against."""
    if view.viewer_role == "sitter" and view.cards is not None:
        return _("%(name)s drew %(card)s.") % {"name": style.name(view.cards.owner), "card": style.card(card)}
    return _("You drew %(card)s.") % {"card": style.card(card)}


def _turn_line(view: TableView, style: Style, knocks: int, deadline: bool) -> str:
    """Whose move it is: the reader's own (with his moves and his time), the captain's
    he advises (with the suggestions he may make), or someone else's."""
    if view.paused:
        return _("Paused by an admin: nobody moves until it is resumed.")
    if view.moves and view.viewer_role != "sitter":
        heading = your_move(view.deadline if deadline else None, short=not style.time_left, heading=True)
        return style.bold(heading) + " " + moves_text(view, knocks)
    if view.moves:
        said = {"name": style.name(view.to_move), "moves": moves_text(view, knocks)}
        wait = _computer_wait(view) if deadline else 0
        if wait > 0:
            said["left"] = wait_text(wait)
            return _("Advise %(name)s, who waits %(left)s for you: suggest %(moves)s") % said
        return _("Advise %(name)s: suggest %(moves)s") % said
    return _("%(name)s to move.") % {"name": style.name(view.to_move)}


def _computer_wait(view: TableView) -> float:
    """The seconds a computer captain still waits for the sitter's advice, or 0 where a
    person captains (his advice counts until that person moves, whenever that is)."""
    captain = next((seat for seat in view.seats if seat.role == "captain"), None)
    if captain is None or not (captain.is_computer or captain.autopilot) or view.deadline is None:
        return 0
    return (view.deadline - timezone.now()).total_seconds()


def legend(channel: str) -> str:
    """How to read a table, told once to each player with his first table. It names no
    card: an example card would read as one of his. By SMS a meld is written with dashes."""
    marks = {"box": ROLE_MARKS["box"], "captain": ROLE_MARKS["captain"], "sitter": ROLE_MARKS["sitter"]}
    if channel == SMS:
        return compact(
            _(
                "How to read it: cards joined by - are a meld; the others are deadwood, (N) their count. "
                "knock CARD(N): discard CARD and knock with N left. %(box)s box, %(captain)s captain, "
                "%(sitter)s sitter."
            )
            % marks
        )
    text = (
        _(
            "How to read it: [brackets] hold a meld; the other cards are deadwood, (N) their count. "
            "knock CARD(N): discard CARD and knock with N left. %(box)s box, %(captain)s captain, %(sitter)s sitter."
        )
        % marks
    )
    return isolate(escape(text, quote=False) if channel == TELEGRAM else text, get_language())


def _pile_line(top: Card | None, stock_count: int, style: Style) -> str:
    """The pile's top card and the stock's count; the pile is empty while the upcard's taker
    has not discarded yet (R5.3)."""
    if top is None and style.empty_pile_word:
        return _("Pile empty, stock %(count)s") % {"count": stock_count}
    shown = style.card(top) if top is not None else "-"
    return _("Pile %(top)s, stock %(count)s") % {"top": shown, "count": stock_count}


def public_table_text(view: PublicTableView, style: Style) -> str:
    """The table for someone who holds no seat (a group): what lies face up and the counts."""
    lines = [style.bold(f"#{view.code}") + " " + _("hand %(number)s") % {"number": view.hand_number}]
    lines += turns_text(view.last_moves, style)
    lines.append(_pile_line(view.pile_top, view.stock_count, style))
    lines.append(_("%(name)s to move.") % {"name": style.name(view.to_move)})
    lines.append(scores_line(view.seats, style))
    return "\n".join(lines)


def table_buttons(view: TableView) -> list[list[dict[str, str]]]:
    """The moves as buttons, and under them the button that opens the table as a page."""
    return _move_buttons(view) + _open_table(view)


def _open_table(view: TableView) -> list[list[dict[str, str]]]:
    """ "Open table": the table as a page inside Telegram (a Mini App, ``bot.web``), on
    every table of the reader's, while the Mini App is on (``links.mini_app_link``)."""
    link = mini_app_link(view.code, get_language())
    return [[{"text": open_table_label(), "web_app": link}]] if link else []


def _move_buttons(view: TableView) -> list[list[dict[str, str]]]:
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
    place = _places(view)
    discards = sorted((m for m in view.moves if m.startswith("discard ")), key=lambda m: place(_card_of(m)))
    for start in range(0, len(discards), 6):
        rows.append([{"text": _card_label(m), "data": prefix + m} for m in discards[start : start + 6]])
    knock_moves = sorted(
        (m for m in view.moves if m.startswith("knock ")),
        key=lambda m: (view.knocks.get(_card_of(m), 0), place(_card_of(m))),  # the lowest count first
    )
    knocks = [{"text": _knock_label(view, m), "data": prefix + m} for m in knock_moves]
    rows += [knocks[start : start + 3] for start in range(0, len(knocks), 3)]
    if view.suggestion and view.viewer_role == "captain":
        rows.append([{"text": _("accept %(move)s") % {"move": view.suggestion}, "data": prefix + "accept"}])
    return rows


def _places(view: TableView) -> Callable[[Card], int]:
    """Where each card stands in the hand above the buttons (its melds, then its
    deadwood), so that a card's button is found where the eye found the card; the
    engine lists the moves in the order the cards came."""
    hand = view.cards
    shown = [] if hand is None else [*(card for meld in hand.melds for card in meld), *hand.deadwood]
    places = {card: place for place, card in enumerate(shown)}
    return lambda card: places.get(card, len(places))


def _card_of(move: str) -> Card:
    return Card.parse(move.split()[1])


def _card_label(move: str) -> str:
    """A card as the table above writes it: ``9♣``, ``10♥``."""
    return RICH.card(_card_of(move))


def _knock_label(view: TableView, move: str) -> str:
    """``knock 9♣ (3)``: the card to discard and the count he knocks with."""
    card = _card_of(move)
    return _("knock %(card)s (%(count)s)") % {"card": RICH.card(card), "count": view.knocks.get(card, "?")}


def _label(move: str) -> str:
    return {"take": _("take"), "draw": _("draw"), "pass": _("pass")}.get(move, move)


def layoff_text(view: ResultView, style: Style) -> list[str]:
    """Each layoff of a knocked hand (``LayoffView``), saying whose meld the cards joined."""
    if view.defender_cards is None:
        return []
    defender = view.defender_cards.owner
    said = (
        _("%(defender)s laid off %(cards)s on %(knocker)s's meld %(meld)s.")
        if style.layoff_owner
        else _("%(defender)s laid off %(cards)s on %(meld)s.")
    )
    return [
        said
        % {
            "defender": style.name(defender),
            "cards": style.cards(layoff.cards),
            "knocker": style.name(view.knocker),
            "meld": style.meld(layoff.meld),
        }
        for layoff in view.layoffs
    ]


def points_text(view: ResultView, style: Style) -> str:
    """Who scores, and how the points add up from the counts shown above them (R8.2-R8.4):
    a player learns the scoring from his results. By SMS only who scores, and how much."""
    winner = style.name(view.winner)
    if view.knocker_cards is None or view.defender_cards is None or not style.points_sum:
        return _("%(winner)s scores %(points)s.") % {"winner": winner, "points": view.points}
    knocker, defender = view.knocker_cards.count, view.defender_cards.count
    if view.kind == "gin":
        said = _("%(winner)s scores %(points)s (gin %(bonus)s + %(count)s).")
        return said % {"winner": winner, "points": view.points, "bonus": view.points - defender, "count": defender}
    if view.kind == "undercut":
        said = _("%(winner)s scores %(points)s (undercut %(bonus)s + %(difference)s).")
        difference = knocker - defender
        return said % {
            "winner": winner,
            "points": view.points,
            "bonus": view.points - difference,
            "difference": difference,
        }
    said = _("%(winner)s scores %(points)s (%(count)s less %(own)s).")
    return said % {"winner": winner, "points": view.points, "count": defender, "own": knocker}


def result_text(view: ResultView, style: Style) -> str:
    """The end of a hand, public to all: both hands, the layoffs, the points, what comes next."""
    lines = [style.bold(f"#{view.code}") + " " + _("hand %(number)s over.") % {"number": view.hand_number}]
    lines += turns_text(view.last_turn, style)
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
            if cards is not None:
                lines.append(f"{style.name(cards.owner)}: {hand_text(cards, style)}")
        lines.extend(layoff_text(view, style))
        lines.append(points_text(view, style))
    lines.append(totals_text((style.name(seat.name), seat.score) for seat in view.seats))
    if view.game_winner:
        lines.append(style.bold(_("%(name)s wins the match!") % {"name": view.game_winner}))
    elif view.next_roles:
        by_role = {role: style.name(name) for name, role in view.next_roles.items()}
        lines.append(_("Next hand: box %(box)s, captain %(captain)s, sitter %(sitter)s.") % by_role)
    return "\n".join(lines)
