"""SMS text: GSM-7 or UCS-2, how many segments a message costs, and text that stays GSM-7.

Why: a message that fits one 160-character GSM-7 segment is one SMS on the
player's bill and arrives whole. One character outside GSM-7 (a curly quote,
an ellipsis, a suit symbol, a Cyrillic letter) makes the whole message UCS-2,
70 characters a segment. Longer messages are sent as one Twilio message that
Twilio splits and the phone joins again; each part loses room to the
concatenation header (153 GSM-7 characters, 67 UCS-2 units), so we count.

>>> segments("7h Td Qs")
Segments(encoding='GSM-7', units=8, count=1)
>>> segments("x" * 161).count
2
>>> segments("Пиле 7h").encoding
'UCS-2'
>>> compact("You are in no match — start one… “new”")
'You are in no match - start one... "new"'
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

# GSM 03.38: the basic set (one septet each) and the extension table (an escape and a septet).
GSM7_BASIC = frozenset(
    "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?"
    "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà"
)
GSM7_EXTENSION = frozenset("^{}\\[~]|€\f")
GSM7 = GSM7_BASIC | GSM7_EXTENSION

GSM7_SINGLE, GSM7_PART = 160, 153
UCS2_SINGLE, UCS2_PART = 70, 67

# What Twilio's "smart encoding" would also do: typography that has a plain twin.
PLAIN = str.maketrans(
    {
        "…": "...",
        "—": "-",
        "–": "-",
        "‒": "-",
        "−": "-",
        "‘": "'",
        "’": "'",
        "‚": "'",
        "′": "'",
        "“": '"',
        "”": '"',
        "„": '"',
        "«": '"',
        "»": '"',
        "″": '"',
        "•": "*",
        "\u00a0": " ",
        "\u2009": " ",
        "\u202f": " ",
        "\u200b": "",
        "\u2060": "",
        "\ufeff": "",
        "♠": "s",
        "♥": "h",
        "♦": "d",
        "♣": "c",
        "✊": "",
    }
)


@dataclass(frozen=True)
class Segments:
    """What a text costs as SMS: its encoding, its length in septets or UTF-16 units, its parts."""

    encoding: str
    units: int
    count: int


def is_gsm7(text: str) -> bool:
    return GSM7.issuperset(text)


def segments(text: str) -> Segments:
    """The segments ``text`` is sent in.

    A part never splits an escape sequence or a surrogate pair, so a text that
    holds either is packed character by character; any other is cut in equal
    parts. Every SMS table is measured in each of its variants
    (``tables.sms_table``), so the common case is counted without a loop.
    """
    if is_gsm7(text):
        escapes = sum(map(text.count, GSM7_EXTENSION))
        units, wide = len(text) + escapes, escapes
        single, part, encoding = GSM7_SINGLE, GSM7_PART, "GSM-7"
    else:
        units = len(text.encode("utf-16-le")) // 2
        wide = units - len(text)  # the characters outside the BMP, two units each
        single, part, encoding = UCS2_SINGLE, UCS2_PART, "UCS-2"
    if units <= single:
        return Segments(encoding, units, 1 if text else 0)
    if not wide:
        return Segments(encoding, units, -(-units // part))
    count, used = 1, 0
    for size in _sizes(text, encoding):
        if used + size > part:
            count, used = count + 1, 0
        used += size
    return Segments(encoding, units, count)


def _sizes(text: str, encoding: str) -> Iterator[int]:
    """Each character's units: an escaped GSM-7 character or a UTF-16 surrogate pair takes two."""
    if encoding == "GSM-7":
        return (2 if char in GSM7_EXTENSION else 1 for char in text)
    return (2 if ord(char) > 0xFFFF else 1 for char in text)


def fits(text: str, parts: int = 1) -> bool:
    """Whether ``text`` goes in at most ``parts`` segments."""
    return segments(text).count <= parts


def compact(text: str) -> str:
    """``text`` with every character that has a GSM-7 twin replaced by it.

    Typography becomes ASCII, and a Latin letter with a diacritic outside
    GSM-7 loses the diacritic (Lithuanian ``ų`` becomes ``u``, as phones do in
    their "no diacritics" mode) so that a whole message does not turn UCS-2
    for one letter. Scripts with no GSM-7 twin (Cyrillic, Hebrew, Devanagari)
    and emoji are kept: the message is then UCS-2, and counted as such.
    """
    text = text.translate(PLAIN)
    if is_gsm7(text):
        return text
    return "".join(char if char in GSM7 else _twin(char) for char in text)


@functools.lru_cache(maxsize=4096)
def _twin(char: str) -> str:
    """The GSM-7 letter under ``char``'s diacritics, or ``char`` itself."""
    base = "".join(part for part in unicodedata.normalize("NFKD", char) if not unicodedata.combining(part))
    return base if base and is_gsm7(base) else char
