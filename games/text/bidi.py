"""Left-to-right tokens in right-to-left lines: cards, match codes, commands.

Why: a Hebrew line of gin3 mixes right-to-left words with left-to-right tokens
(``#K7Q2``, ``7h``, ``10♦``, ``suggest discard 7h``, ``in 3h (16:30 UTC)``).
The Unicode bidirectional algorithm gives a line the direction of its first
strong letter, so a line that starts with ``#K7Q2`` or a card is laid out left to
right and its Hebrew words come out in the wrong order; and the spaces and
punctuation between two tokens take the direction around them, so that
``16:30 UTC (3h)`` or ``knock 6s(6), 9h(8)`` come out shuffled.

``isolate`` wraps each run of left-to-right tokens in a left-to-right isolate
(LRI U+2066 ... PDI U+2069): inside, the run is laid out as written; outside,
it counts as one neutral character, skipped when the line's direction is
chosen. A line with no right-to-left letter at all gets a right-to-left mark
(RLM U+200F) in front, so that every line of a Hebrew message runs the same
way. This is done when a message is rendered, for the channels that allow it
(Telegram, the terminal), never in the catalogues (their strings carry no
control characters) and never by SMS, where each added character is paid for.
A terminal that implements no bidirectional layout at all shows the characters
in their stored order whatever is added: the isolates help every renderer that
implements the algorithm (Telegram's apps, browsers, VTE and Konsole).
"""

from __future__ import annotations

import re
import unicodedata

from django.utils.translation import get_language_info

LRI, PDI, RLM = "\u2066", "\u2069", "\u200f"
# Every explicit bidi control: stripped from a right-to-left reader's line before
# it is isolated anew, so that isolating twice changes nothing and a player name
# carrying an override (U+202E) cannot turn the rest of a line around.
CONTROLS = re.compile("[\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# A line splits into HTML tags (Telegram's <b>: not shown, so neutral), character
# references (``&amp;`` in a name: one character, neutral, never cut by an isolate),
# spaces and words.
TAG = re.compile(r"</?[a-z]+>|&#?\w+;")
PIECES = re.compile(r"</?[a-z]+>|&#?\w+;|\s+|[^\s<&]+|[<&]")
HYPHENS = "-\u05be"  # a Hebrew prefix is joined to what follows by a hyphen or maqaf
CLOSING_PUNCTUATION = ".,:;!?…"
# What stands at either end of a run of tokens and belongs to the sentence around it.
EDGE = rf"(?:\s|[{CLOSING_PUNCTUATION}]|</?[a-z]+>)*"
EDGE_START, EDGE_END = re.compile("^" + EDGE), re.compile(EDGE + "$")
BRACKETS = {")": "(", "]": "[", "}": "{"}  # closing: opening
OPENING = {opening: closing for closing, opening in BRACKETS.items()}


def is_rtl(language: str | None) -> bool:
    """Whether ``language`` (a Django language code) is written right to left."""
    if not language:
        return False
    try:
        return bool(get_language_info(language)["bidi"])
    except KeyError:
        return False


def isolate(text: str, language: str | None) -> str:
    """``text`` for a reader of ``language``: unchanged for a left-to-right
    language; otherwise each run of left-to-right tokens of each line isolated."""
    if not is_rtl(language):
        return text
    return "\n".join(_isolate_line(line) for line in CONTROLS.sub("", text).split("\n"))


def isolate_label(label: str, language: str | None) -> str:
    """A button's label for a reader of ``language``: isolated as a line is when it
    mixes the two directions (``כן, פרוש מ-#GQLD`` showed ``GQLD#``); a label of
    left-to-right tokens alone (``9♣``) is laid out as written and is left as it is."""
    if not any(unicodedata.bidirectional(char) in ("R", "AL") for char in label):
        return label
    return isolate(label, language)


def _isolate_line(line: str) -> str:
    out: list[str] = []
    run: list[str] = []  # the current left-to-right run, with what stands between its tokens
    between: list[str] = []  # neutral pieces after the run's last token: inside only if a token follows
    segments = _segments(line)
    for kind, piece in segments:
        if kind == "L":
            run += [*between, piece]
            between = []
        elif kind == "N" and run:
            between.append(piece)
        else:
            out += [_wrapped("".join(run)) if run else "", *between, piece]
            run, between = [], []
    out += [_wrapped("".join(run)) if run else "", *between]
    isolated = "".join(out)
    if any(kind == "R" for kind, _piece in segments) or not line.strip():
        return isolated
    return RLM + isolated


def _segments(line: str) -> list[tuple[str, str]]:
    """The line's pieces, each marked R (holds a right-to-left letter), L (holds a
    left-to-right letter or a digit) or N (spaces, punctuation, tags). A word is
    cut only where it changes direction (``ל-alice``), so the ``#`` of ``#K7Q2``,
    the ``♠`` of ``Q♠`` and the brackets of ``(7)`` stay with their token."""
    segments: list[tuple[str, str]] = []
    for piece in PIECES.findall(line):
        if piece.isspace() or TAG.fullmatch(piece):
            segments.append(("N", piece))
            continue
        parts: list[tuple[bool, str]] = []  # (is right-to-left, text)
        for char in piece:
            rtl = unicodedata.bidirectional(char) in ("R", "AL") or (
                bool(parts) and parts[-1][0] and unicodedata.bidirectional(char) == "NSM"
            )
            if parts and parts[-1][0] == rtl:
                parts[-1] = (rtl, parts[-1][1] + char)
            elif parts and parts[-1][0] and char in HYPHENS:
                parts[-1] = (True, parts[-1][1] + char)  # the hyphen of a Hebrew prefix stays with it: ב-#K7Q2
            else:
                parts.append((rtl, char))
        segments += [("R" if rtl else _weak_or_strong(text), text) for rtl, text in parts]
    return segments


def _weak_or_strong(text: str) -> str:
    """L if ``text`` holds a left-to-right letter or a digit, else N."""
    return "L" if any(unicodedata.bidirectional(char) in ("L", "EN", "AN") for char in text) else "N"


def _wrapped(run: str) -> str:
    """The run in isolates. A bracket without its pair in the run (``(1d`` of
    ``(1d לתור``) belongs to the right-to-left sentence around it: the run is cut
    there, the bracket left outside; so are the spaces and the sentence
    punctuation at the ends of each piece."""
    out, start = [], 0
    for position in _unmatched_brackets(run):
        out += [_isolated(run[start:position]), run[position]]
        start = position + 1
    out.append(_isolated(run[start:]))
    return "".join(out)


def _unmatched_brackets(run: str) -> list[int]:
    openers: list[int] = []
    unmatched: list[int] = []
    for position, char in enumerate(run):
        if char in OPENING:
            openers.append(position)
        elif char in BRACKETS:
            if openers and run[openers[-1]] == BRACKETS[char]:
                openers.pop()
            else:
                unmatched.append(position)
    return sorted(unmatched + openers)


def _isolated(piece: str) -> str:
    """The piece's core in an isolate; at either end its spaces, sentence punctuation
    and Telegram's tags stay outside. The colon of ``(נותרו 5m): take`` is the Hebrew
    sentence's, cut from its bracket by ``_wrapped``: inside the isolate it would
    stand on the far side of the moves, and a ``</b>`` inside would cut the bold
    text's isolate in two."""
    after_start = EDGE_START.sub("", piece, count=1)
    core = EDGE_END.sub("", after_start, count=1)
    lead = len(piece) - len(after_start)
    end = lead + len(core)
    if _weak_or_strong(core) == "N":
        return piece
    return f"{piece[:lead]}{LRI}{core}{PDI}{piece[end:]}"
