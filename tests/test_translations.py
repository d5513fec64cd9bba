"""The translation catalogues: complete, faithful to their placeholders and to the
words players type, compiled, up to date with the code, and used.

Why: a player who chose ``lang mk`` must never get half a message in English, a
translation that drops ``%(code)s`` crashes the reply it belongs to, and a
command word translated into the reader's language is a command nobody can type.
The .mo files are committed so that no machine needs GNU gettext to run gin3;
these tests read the .po files with a small parser of their own (no polib) and
check the .mo against them.
"""

from __future__ import annotations

import ast
import gettext
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from games.services import handle

ROOT = Path(settings.BASE_DIR)
LANGUAGES = [code for code, _name in settings.LANGUAGES if code != "en"]
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|%[sd%]")
# What players type stays ASCII and untranslated: the words in capitals that stand for
# what to type, card notation, and a command word before its argument, after "type",
# "text" or "use", or in a list of commands.
_COMMAND = (
    "(?:help|new|join|bot|leave|status|pass|take|draw|discard|d|knock|suggest|accept|team|score|resign"
    "|lang|phone|link|notify|group)"
)
TYPED = [
    re.compile(r"\b(?:STOP|START|CODE|MOVE|CARD|TEXT|TIME)\b"),
    re.compile(r"(?<![\w#])(?:10|[2-9TJQKA])[shdc](?!\w)"),
    re.compile(rf"\b{_COMMAND} (?:[A-Z]{{3,}}\b|%\(\w+\)s|[+#]?\d+\w*|\[[^\]]*\]|(?:10|[2-9TJQKA])[shdc]\b)"),
    re.compile(rf"(?<=\b[Tt]ype ){_COMMAND}\b|(?<=\b[Tt]ext ){_COMMAND}\b|(?<=\buse ){_COMMAND}\b"),
    re.compile(rf"\b{_COMMAND}(?:, {_COMMAND}\b)+"),
]
# Labels of Telegram buttons, which carry the command itself: a label may be translated.
BUTTON_LABELS = {"take", "draw", "pass", "accept %(move)s"}
BIDI_CONTROLS = re.compile("[\u200e\u200f\u202a-\u202e\u2066-\u2069]")


# Reading a .po file ------------------------------------------------------------------


@dataclass
class Entry:
    msgid: str
    msgid_plural: str = ""
    msgstr: list[str] = field(default_factory=list)  # one string, or one per plural form
    flags: set[str] = field(default_factory=set)


def read_po(path: Path) -> tuple[dict[str, str], list[Entry]]:
    """The header's fields and the entries of a .po file (obsolete ``#~`` entries skipped)."""
    entries: list[Entry] = []
    flags: set[str] = set()
    current: Entry | None = None
    target: tuple[str, int] | None = None  # which field a continuation line extends

    def append(text: str) -> None:
        kind, index = target
        if kind == "msgstr":
            current.msgstr[index] += text
        else:
            setattr(current, kind, getattr(current, kind) + text)

    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line.startswith("#,"):
            flags |= {flag.strip() for flag in line[2:].split(",")}
        elif line.startswith("msgid "):
            current = Entry(msgid="", flags=flags)
            entries.append(current)
            flags, target = set(), ("msgid", 0)
            append(ast.literal_eval(line[6:]))
        elif line.startswith("msgid_plural "):
            target = ("msgid_plural", 0)
            append(ast.literal_eval(line[13:]))
        elif line.startswith("msgstr"):
            key, _space, text = line.partition(" ")
            index = int(key[7:-1]) if key.startswith("msgstr[") else 0
            current.msgstr.append("")
            assert len(current.msgstr) == index + 1, f"{path}: msgstr forms out of order for {current.msgid!r}"
            target = ("msgstr", index)
            append(ast.literal_eval(text))
        elif line.startswith('"'):
            append(ast.literal_eval(line))
    header = dict(
        line.split(": ", 1) for line in (entries[0].msgstr[0] if entries else "").splitlines() if ": " in line
    )
    return header, [entry for entry in entries if entry.msgid]


def po_path(language: str, root: Path = ROOT) -> Path:
    return root / "locale" / language / "LC_MESSAGES" / "django.po"


def catalogue(language: str) -> tuple[dict[str, str], list[Entry]]:
    return read_po(po_path(language))


def nplurals(header: dict[str, str]) -> int:
    return int(re.search(r"nplurals\s*=\s*(\d+)", header["Plural-Forms"]).group(1))


# The catalogues -------------------------------------------------------------------------


def test_every_language_but_english_has_a_catalogue():
    assert LANGUAGES, "settings.LANGUAGES lists no language to translate into"
    for language in LANGUAGES:
        assert po_path(language).is_file(), f"no catalogue for {language}: run makemessages -l {language}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_msgid_is_translated_and_none_is_fuzzy(language):
    header, entries = catalogue(language)
    assert header.get("Language") == language
    assert not re.search(r"^#,.*\bfuzzy\b", po_path(language).read_text(encoding="utf-8"), re.MULTILINE)
    forms = nplurals(header)
    untranslated = []
    for entry in entries:
        assert "fuzzy" not in entry.flags, f"{language}: fuzzy entry {entry.msgid!r}"
        if entry.msgid_plural:
            assert len(entry.msgstr) == forms, f"{language}: {entry.msgid!r} needs {forms} plural forms"
        if not all(text.strip() for text in entry.msgstr):
            untranslated.append(entry.msgid)
    assert not untranslated, f"{language}: {len(untranslated)} untranslated: {untranslated[:5]}"


def test_every_catalogue_has_the_same_msgids():
    msgids = {language: {entry.msgid for entry in catalogue(language)[1]} for language in LANGUAGES}
    first = LANGUAGES[0]
    for language in LANGUAGES[1:]:
        assert msgids[language] == msgids[first], (language, msgids[language] ^ msgids[first])


@pytest.mark.parametrize("language", LANGUAGES)
def test_translations_keep_the_placeholders_of_their_msgid(language):
    for entry in catalogue(language)[1]:
        wanted = set(PLACEHOLDER.findall(entry.msgid)) | set(PLACEHOLDER.findall(entry.msgid_plural))
        for text in entry.msgstr:
            assert set(PLACEHOLDER.findall(text)) == wanted, f"{language}: {entry.msgid!r} -> {text!r}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_translations_keep_what_players_type(language):
    for entry in catalogue(language)[1]:
        typed = set() if entry.msgid in BUTTON_LABELS else {m for p in TYPED for m in p.findall(entry.msgid)}
        for text in entry.msgstr:
            missing = [words for words in typed if words not in text]
            assert not missing, f"{language}: {entry.msgid!r} -> {text!r} lost {missing}"
            assert not BIDI_CONTROLS.search(text), f"{language}: bidi control character in {text!r}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_committed_mo_is_compiled_from_the_po(language):
    """The .mo is what Django reads: it must say what the .po says (run compilemessages)."""
    path = po_path(language).with_suffix(".mo")
    assert path.is_file(), f"{path} is missing: run compilemessages and commit it"
    with path.open("rb") as file:
        compiled = gettext.GNUTranslations(file)
    for entry in catalogue(language)[1]:
        if entry.msgid_plural:
            for count in range(0, 30):
                said = compiled.ngettext(entry.msgid, entry.msgid_plural, count)
                assert said in entry.msgstr, f"{language}: stale .mo for {entry.msgid!r}"
        else:
            assert compiled.gettext(entry.msgid) == entry.msgstr[0], f"{language}: stale .mo for {entry.msgid!r}"


@pytest.mark.skipif(not (shutil.which("xgettext") and shutil.which("msguniq")), reason="GNU gettext not installed")
def test_the_catalogues_are_up_to_date_with_the_code(tmp_path, settings, monkeypatch):
    """makemessages, run as the project runs it on a copy of the code, finds exactly the
    msgids the catalogues have: no string the code marks is missing, none is left over."""
    copy = tmp_path / "src"
    skipped = (".venv", ".git", "tests", "bench", "var", "locale", "__pycache__", ".*_cache", ".hypothesis")
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(*skipped, "*.pyc", "*.sqlite3", "staticfiles"))
    (copy / "locale").mkdir()
    monkeypatch.chdir(copy)
    settings.LOCALE_PATHS = [copy / "locale"]
    call_command(
        "makemessages",
        locale=[LANGUAGES[0]],
        extensions=["html", "py", "txt"],
        ignore_patterns=[".venv", "tests", "bench", "var"],
        no_obsolete=True,
        verbosity=0,
    )
    in_code = {entry.msgid for entry in read_po(po_path(LANGUAGES[0], copy))[1]}
    in_catalogue = {entry.msgid for entry in catalogue(LANGUAGES[0])[1]}
    assert in_code - in_catalogue == set(), "new strings in the code: run makemessages and translate them"
    assert in_catalogue - in_code == set(), "strings no longer in the code: run makemessages --no-obsolete"


# In use ------------------------------------------------------------------------------------


@pytest.fixture
def english_help(make_player) -> str:
    return handle(make_player("Edith"), "help", "terminal")


@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
def test_help_comes_in_the_players_language(language, make_player, english_help):
    player = make_player("Zora")
    player.language = language
    player.save(update_fields=["language"])
    reply = handle(player, "help", "terminal")
    assert reply and reply != english_help
    lines = english_help.splitlines()
    assert reply.splitlines()[0] != lines[0]
    for line in lines:
        assert line not in reply, f"{language}: untranslated help line {line!r}"
    assert "join CODE" in reply and "lang CODE" in reply  # what to type stays as typed


@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_parser_refusal_comes_in_the_players_language(language, make_player):
    english = handle(make_player("Edith"), "discard 7x", "terminal")
    player = make_player("Zora")
    player.language = language
    player.save(update_fields=["language"])
    reply = handle(player, "discard 7x", "terminal")
    assert reply != english and "'7x'" in reply and "7h" in reply
