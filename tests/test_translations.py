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
import html
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.utils import translation
from django.utils.dates import MONTHS_3

from games.models import Match, Outbox
from games.services import handle
from games.services.write.players import phone_player, telegram_player, terminal_player
from games.text.sms import compact
from tests.conftest import player_in_role, rig

ROOT = Path(settings.BASE_DIR)
LANGUAGES = [code for code, _name in settings.LANGUAGES if code != "en"]
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|%[sd%]")
# What players type stays ASCII and untranslated: the words in capitals that stand for
# what to type, card notation, a command word before its argument, after "type",
# "text" or "use", or in a list of commands, and the options of new with their number.
_COMMAND = (
    "(?:help|new|join|bot|leave|status|pass|take|draw|discard|d|knock|suggest|accept|team|score|resign"
    "|lang|phone|link|notify|group|name|advise|open|any|again|away|back|quiet|tz|report)"
)
TYPED = [
    re.compile(r"\b(?:STOP|START|CODE|MOVE|CARD|TEXT|TIME|NAME|ZONE)\b"),
    re.compile(r"(?<![\w#])(?!A[sh] [a-z])(?:10|[2-9TJQKA])[shdc](?!\w)"),  # not "As the sitter"
    re.compile(rf"\b{_COMMAND} (?:[A-Z]{{3,}}\b|%\(\w+\)s|[+#]?\d+\w*|\[[^\]]*\]|(?:10|[2-9TJQKA])[shdc]\b)"),
    re.compile(rf"(?<=\b[Tt]ype ){_COMMAND}\b|(?<=\b[Tt]ext ){_COMMAND}\b|(?<=\buse ){_COMMAND}\b"),
    re.compile(rf"\b{_COMMAND}(?:, {_COMMAND}\b)+"),
    re.compile(r"\b(?:gin|undercut) (?:N\b|\d+)"),  # the options of new: "new undercut 15"
]
# Labels of Telegram buttons, which carry the command itself: a label may be translated.
BUTTON_LABELS = {"take", "draw", "pass", "accept %(move)s", "knock %(card)s (%(count)s)"}
# Where a msgid uses a command word as the English verb, not as what to type: the
# translation says the verb in its own language.
AS_PROSE = {
    "you may not discard %(card)s, the card you just took from the pile.": {"discard %(card)s"},
    "he may not discard %(card)s, the card he just took from the pile.": {"discard %(card)s"},
    "How to read it: [brackets] hold a meld; the other cards are deadwood, (N) their count. knock CARD(N): "
    "discard CARD and knock with N left. %(box)s box, %(captain)s captain, %(sitter)s sitter.": {"discard CARD"},
    # "back" as in coming back, "advise" as the sitter's part, "text back" as reply.
    "You are away, back %(when)s: your clocks wait in every match, and nobody plays for you. "
    "Time off left this year: %(left)s. back ends it early.": {"away, back", "back %(when)s"},
    "You are away, back %(when)s: back ends it now.": {"away, back", "back %(when)s"},
    "%(name)s is away, back %(when)s.": {"away, back", "back %(when)s"},
    "%(name)s is away, back %(when)s: the clock waits for them in %(codes)s.": {"away, back", "back %(when)s"},
    "gin3 code %(code)s. To play as %(name)s on this phone, text back: link %(code)s (%(minutes)s min). "
    "Not you? Ignore it.": {"back"},
    "advise %(name)s.": {"advise %(name)s"},
    "%(code)s: you sit this hand out and advise %(to_move)s: suggest %(moves)s. team TEXT talks to %(to_move)s only.": {
        "advise %(to_move)s"
    },
}
BIDI_CONTROLS = re.compile("[\u200e\u200f\u202a-\u202e\u2066-\u2069]")


# Reading a .po file ------------------------------------------------------------------


@dataclass
class Entry:
    msgid: str
    msgctxt: str = ""  # pgettext's context: the same msgid in two contexts is two entries
    msgid_plural: str = ""
    msgstr: list[str] = field(default_factory=list)  # one string, or one per plural form
    flags: set[str] = field(default_factory=set)

    @property
    def key(self) -> tuple[str, str]:
        return (self.msgctxt, self.msgid)


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
        elif line.startswith("msgctxt "):
            current = Entry(msgid="", flags=flags)
            entries.append(current)
            flags, target = set(), ("msgctxt", 0)
            append(ast.literal_eval(line[8:]))
        elif line.startswith("msgid "):
            if target is None or target[0] != "msgctxt":  # else the entry began with its context
                current = Entry(msgid="", flags=flags)
                entries.append(current)
                flags = set()
            target = ("msgid", 0)
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


def test_a_msgid_in_two_contexts_is_two_entries(tmp_path):
    """pgettext: "C" as a role mark and "C" as a card dealt to the captain are two
    entries, each with its own translation (and its own context in the .mo)."""
    path = tmp_path / "django.po"
    path.write_text(
        'msgid ""\nmsgstr "Language: mk\\n"\n\n'
        'msgctxt "role mark"\nmsgid "C"\nmsgstr "кап."\n\n'
        '#, fuzzy\nmsgctxt ""\n"a card dealt"\nmsgid "C"\nmsgstr "Кп"\n\n'
        'msgid "C"\nmsgstr "Ц"\n',
        encoding="utf-8",
    )
    _header, entries = read_po(path)
    assert [(e.key, e.msgstr, e.flags) for e in entries] == [
        (("role mark", "C"), ["кап."], set()),
        (("a card dealt", "C"), ["Кп"], {"fuzzy"}),
        (("", "C"), ["Ц"], set()),
    ]


@pytest.mark.parametrize(
    ("msgid", "typed"),
    [
        ("As the sitter you get the captain's cards.", set()),
        ("Cards: As Kd 7h", {"As", "Kd", "7h"}),
        ("new [TIME] [undercut N]. Example: new undercut 15", {"new [TIME]", "TIME", "undercut N", "undercut 15"}),
        ("The gin bonus is 25 or 20: new gin 20", {"gin 20"}),
    ],
)
def test_what_players_type_is_told_from_english_words(msgid, typed):
    assert {match for pattern in TYPED for match in pattern.findall(msgid)} == typed


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
    msgids = {language: {entry.key for entry in catalogue(language)[1]} for language in LANGUAGES}
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
        typed -= AS_PROSE.get(entry.msgid, set())
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
        elif entry.msgctxt:
            said = compiled.pgettext(entry.msgctxt, entry.msgid)
            assert said == entry.msgstr[0], f"{language}: stale .mo for {entry.key!r}"
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
    in_code = {entry.key for entry in read_po(po_path(LANGUAGES[0], copy))[1]}
    in_catalogue = {entry.key for entry in catalogue(LANGUAGES[0])[1]}
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


# Every string a player can see is translated ----------------------------------------------
#
# Two nets. The source net reads the code: English prose written straight into an
# f-string, a dict, a player's error or the terminal client's output, and template
# text or a {% translate variable %} that makemessages cannot see. The reading net
# plays a hand in each language, on the terminal, Telegram and SMS at once, and reads
# everything the three players got for English that came from data (a hand's kind, a
# role mark, the engine's reason: all worded in the catalogues). English is the
# source language: its strings are the msgids, so for English the source net is the
# check. Each net starts from an explicit list of today's offenders, which only
# shrinks: an offender that is fixed must leave its list (the test says so), and a
# new one fails.

PLAYER_SOURCES = ("games/text", "games/services", "bot")
OPERATOR_COMMANDS = "bot/management/commands"  # what they print, the operator reads
PLAYER_CONSOLE = "bot/terminal"  # the terminal client (`make play`): what it says, a player reads
CONSOLE_CALLS = {"write", "say"}
PLAYER_ERRORS = {"ServiceError", "StaleError", "ProtocolError"}  # their message is the player's reply
LOG_METHODS = {"debug", "info", "warning", "error", "exception", "critical"}
# Fields that keep a backend's own words for the operators and the desk, as logs do.
OPERATOR_FIELDS = {"last_error"}
PAGE_TEMPLATES = ("templates/base.html", "templates/games")  # templates/admin is the admins' only
NAMES = {"gin3", "telegram", "sms", "twilio", "utc", "bot", "easy", "sha256", "sha", "html"}

# Source strings in English that a player reads: (file, text, where {} stands for a value).
UNTRANSLATED_SOURCE = {
    # An SMS player's name until he chooses one, stored once in English ("Player 1234"):
    # every reader, in every language, reads "Player". A stored name cannot follow the
    # reader's language; a default without a word ("…1234") would read in all of them.
    ("games/services/write/players.py", "Player {}"),
}
# What players read that is English in every language, found by the reading net:
# a pattern and where it comes from. None: the hand's kind in score
# (style.HAND_KINDS), the role marks of the scores line (style.ROLE_MARKS) and the
# engine's reasons (text/reasons.py) are all words of the catalogues.
UNTRANSLATED_DATA: dict[str, str] = {}
# Command words and the words in capitals that stand for what to type.
COMMAND_WORDS = set(_COMMAND.removeprefix("(?:").removesuffix(")").split("|")) | {
    "quit",
    "code",
    "move",
    "card",
    "text",
    "time",
}


def _english_words() -> set[str]:
    """The words of the English msgids: the game's own English, three letters or more,
    without the words players type."""
    words: set[str] = set()
    for entry in catalogue(LANGUAGES[0])[1]:
        text = _without_typed(entry.msgid)
        words |= {word.lower() for word in re.findall(r"[A-Za-z]{3,}", text)}
    return words - COMMAND_WORDS - NAMES


def _without_typed(text: str) -> str:
    """``text`` without what players type and without placeholders: the words left are
    the ones a translation must translate."""
    return PLACEHOLDER.sub(" ", _blanked(text, TYPED))


def _blanked(text: str, patterns: list[re.Pattern]) -> str:
    """``text`` with every match of ``patterns`` in it blanked out; all are found in the
    text as it is, so that one pattern's match cannot hide another's (``knock CARD``)."""
    spans = [match.span() for pattern in patterns for match in pattern.finditer(text)]
    return "".join(" " if any(start <= i < end for start, end in spans) else char for i, char in enumerate(text))


@dataclass(frozen=True)
class SourceString:
    path: str
    text: str
    line: int

    @property
    def key(self) -> tuple[str, str]:
        return (self.path, self.text)


def _is_prose(text: str, english: set[str]) -> bool:
    """English words a person reads, not a key, an address or a command."""
    if not re.search(r"[A-Za-z] +\S", text):
        return False  # one word, a key ("table:{}"), an address: nothing to read
    text = re.sub(r"\{\}|https?://\S+|\S*[_@/=]\S*", " ", _without_typed(text))
    # Words in capitals are keys or SQL ("ON CONFLICT ... DO NOTHING"), not a sentence.
    return any(word.lower() in english for word in re.findall(r"\b(?![A-Z]+\b)[A-Za-z]{3,}", text))


def _literal(node: ast.AST) -> str | None:
    if isinstance(node, ast.JoinedStr):
        return "".join(part.value if isinstance(part, ast.Constant) else "{}" for part in node.values)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _is_exception(base: ast.AST) -> bool:
    return getattr(base, "id", getattr(base, "attr", "")).endswith(("Error", "Exception"))


def _called(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _player_strings(tree: ast.AST, console: bool) -> list[tuple[ast.AST, str]]:
    """The literals of a module that would reach a player: f-strings, dict values, the
    messages of player errors and, in the terminal client, what it writes; not what is
    logged, nor the message of an error that is not a player's, nor a delivery error
    recorded for the operators (``OPERATOR_FIELDS``)."""
    found: list[tuple[ast.AST, str]] = []

    def visit(node: ast.AST, quiet: bool) -> None:
        if isinstance(node, ast.Call) and _called(node) in LOG_METHODS:
            quiet = True
        if isinstance(node, ast.keyword) and node.arg in OPERATOR_FIELDS:
            quiet = True
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and _called(node.exc) not in PLAYER_ERRORS:
            quiet = True
        if isinstance(node, ast.ClassDef) and any(_is_exception(base) for base in node.bases):
            quiet = node.name not in PLAYER_ERRORS  # an error class's own messages are for logs
        if not quiet:
            if isinstance(node, ast.JoinedStr):
                found.append((node, _literal(node)))
                return
            if isinstance(node, ast.Dict):
                found.extend((value, _literal(value)) for value in node.values if value is not None and _literal(value))
            if isinstance(node, ast.Call) and (
                _called(node) in PLAYER_ERRORS or (console and _called(node) in CONSOLE_CALLS)
            ):
                found.extend(
                    (arg, _literal(arg)) for arg in node.args if isinstance(arg, ast.Constant) and _literal(arg)
                )
        for child in ast.iter_child_nodes(node):
            visit(child, quiet)

    visit(tree, False)
    return found


def _source_offenders(root: Path = ROOT) -> list[SourceString]:
    english = _english_words()
    offenders: list[SourceString] = []
    for folder in PLAYER_SOURCES:
        for path in sorted((root / folder).rglob("*.py")):
            relative = path.relative_to(root).as_posix()
            if relative.startswith(OPERATOR_COMMANDS):
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node, text in _player_strings(tree, console=relative.startswith(PLAYER_CONSOLE)):
                if _is_prose(text, english):
                    offenders.append(SourceString(relative, text, node.lineno))
    for folder in PAGE_TEMPLATES:
        target = root / folder
        for path in sorted([target] if target.is_file() else target.rglob("*.html")):
            offenders += _template_offenders(
                path.relative_to(root).as_posix(), path.read_text(encoding="utf-8"), english
            )
    return offenders


TRANSLATE_VARIABLE = re.compile(r"\{%\s*(?:translate|trans)\s+(?![\"'])[^%]*?%\}")
TEMPLATE_MARKUP = re.compile(
    r"<(style|script)\b.*?</\1>|\{%\s*blocktranslate.*?\{%\s*endblocktranslate\s*%\}|\{%.*?%\}|\{\{.*?\}\}|\{#.*?#\}"
    r"|<[^>]*>|&\w+;",
    re.DOTALL,
)


def _template_offenders(path: str, source: str, english: set[str]) -> list[SourceString]:
    """A {% translate variable %} (its msgid is not in the catalogue: makemessages cannot
    see it), and words written into the page outside the translation tags."""
    offenders = [
        SourceString(path, " ".join(match.group().split()), source.count("\n", 0, match.start()) + 1)
        for match in TRANSLATE_VARIABLE.finditer(source)
    ]
    text = TEMPLATE_MARKUP.sub(lambda markup: "\n" * markup.group().count("\n") or " ", source)
    for match in re.finditer(r"[^\n]+", text):
        if _is_prose(match.group().strip() + " x", english):  # a lone word on a page is prose too
            offenders.append(SourceString(path, match.group().strip(), text.count("\n", 0, match.start()) + 1))
    return offenders


def test_no_english_reaches_a_player_around_gettext_in_the_code():
    """Every new English string a player can read must go through gettext; one on
    UNTRANSLATED_SOURCE is a known bug, to translate and then take off that list."""
    found = {offender.key: offender for offender in _source_offenders()}
    new = [f"{o.path}:{o.line}: {o.text!r}" for key, o in found.items() if key not in UNTRANSLATED_SOURCE]
    assert not new, "English a player reads, not marked for translation:\n" + "\n".join(new)
    fixed = sorted(UNTRANSLATED_SOURCE - set(found))
    assert not fixed, f"fixed: take these off UNTRANSLATED_SOURCE: {fixed}"


def test_the_source_net_catches_what_it_is_for(tmp_path):
    """A net that catches nothing proves nothing: planted offenders of each kind are found,
    and what players never read is let through."""
    (tmp_path / "games" / "services").mkdir(parents=True)
    (tmp_path / "bot" / "terminal").mkdir(parents=True)
    (tmp_path / "templates" / "games").mkdir(parents=True)
    (tmp_path / "games" / "text").mkdir(parents=True)
    (tmp_path / "games" / "services" / "planted.py").write_text(
        "def f(match, log, ServiceError, card):\n"
        "    log.info(f'the match {match} was shuffled')\n"
        "    if card:\n"
        "        raise ValueError(f'you may not discard {card}')\n"
        "    key = f'table:{match}'\n"
        "    kinds = {'gin': 'goes gin', 'knock': 'knock'}\n"
        "    notice = f'The match {match} is over.'\n"
        "    sql = f'INSERT INTO {match} VALUES (%s) ON CONFLICT DO NOTHING'\n"
        "    match.outbox.update(last_error=f'recipient unreachable: {card}')\n"
        "    raise ServiceError('Take a card first.')\n",
        encoding="utf-8",
    )
    (tmp_path / "bot" / "terminal" / "planted.py").write_text(
        "def bye(screen, log):\n    log.write('the session is over')\n    screen.say('See you soon.')\n",
        encoding="utf-8",
    )
    (tmp_path / "templates" / "base.html").write_text("<p>{% translate 'Hands' %}</p>", encoding="utf-8")
    (tmp_path / "templates" / "games" / "page.html").write_text(
        "{% load i18n %}<h1>{% translate hand.kind %}</h1>\n<p>Waiting for players: {{ names }}</p>\n"
        "<p>{% blocktranslate %}Waiting for players: {{ names }}{% endblocktranslate %}</p>\n",
        encoding="utf-8",
    )
    found = {(o.path, o.text) for o in _source_offenders(tmp_path)}
    assert found == {
        ("games/services/planted.py", "goes gin"),
        ("games/services/planted.py", "The match {} is over."),
        ("games/services/planted.py", "Take a card first."),
        ("bot/terminal/planted.py", "the session is over"),
        ("bot/terminal/planted.py", "See you soon."),
        ("templates/games/page.html", "{% translate hand.kind %}"),
        ("templates/games/page.html", "Waiting for players:"),
    }


CAPTAIN_KNOCKS = "7s 7h 7d 2c 3c 4c 9h 9d 9s 5d"  # takes the upcard Kd, knocks with 5d: a count of 10
BOX_HOLDS = "Ks Qs Js 8c 6h 5h Ah 2s Jd Qh"  # a count of 42 and nothing to lay off: a plain knock
CARD = re.compile(r"(?<![\w#@])(?:10|[2-9TJQKA])[shdc♠♥♦♣](?!\w)")
SHOWN_TYPED = [  # what players type, as messages show it besides the catalogues' own ways
    re.compile(rf"\b{_COMMAND} #?[A-Z0-9]{{4,8}}\b"),  # join K7Q2
    re.compile(rf"(?<=: ){_COMMAND}\b"),  # the moves of a turn: "Bob: pass"
]


def _vocabulary(language: str) -> set[str]:
    """The Latin-letter words the catalogue of ``language`` itself writes (loanwords,
    names, what players type), also as SMS writes them (without diacritics), and the
    months' short names of Django's own catalogue, which dates are written with."""
    with translation.override(language):
        words = {str(month).lower() for month in MONTHS_3.values()}
    for entry in catalogue(language)[1]:
        for text in entry.msgstr:
            text = _without_typed(re.sub(r"<code>.*?</code>|\w+\(\"[^\"]*\"\)", " ", text))
            words |= {word.lower() for word in re.findall(r"[A-Za-z]+", text + " " + compact(text))}
    return words


def _foreign_words(text: str, names: set[str], vocabulary: set[str]) -> tuple[list[str], set[str]]:
    """The words of ``text`` in no language but English, and the known offenders it shows."""
    text = html.unescape(re.sub(r"</?[a-z]+>", "", text))
    known = {pattern for pattern in UNTRANSLATED_DATA if re.search(pattern, text, re.MULTILINE)}
    for pattern in [*UNTRANSLATED_DATA, *sorted(names, key=len, reverse=True)]:
        text = re.sub(pattern if pattern in UNTRANSLATED_DATA else re.escape(pattern), " ", text, flags=re.MULTILINE)
    text = _blanked(text, [*TYPED, *SHOWN_TYPED])
    text = re.sub(r"https?://\S+|#[A-Z0-9]{4,8}(?:@\d+)?|\d+\w*", " ", CARD.sub(" ", text))
    words = re.findall(r"[A-Za-z]+", text)
    return [word for word in words if word.lower() not in vocabulary | NAMES], known


def _play_a_hand(language: str) -> tuple[list[str], set[str]]:
    """Three players of ``language``, on the terminal, on Telegram and by SMS, play a
    hand with refusals among the moves, then look at the score: what they were sent,
    and their names."""
    alice = terminal_player("alice", "Alice")
    bob = telegram_player(user_id=9001, chat_id=9001, name="Bob")
    carol, _created = phone_player("+15550009876")
    players = (alice, bob, carol)
    for player in players:
        player.language = language
        player.save(update_fields=["language"])
    channels = {alice.pk: "terminal", bob.pk: "telegram", carol.pk: "sms"}
    code = re.search(r"#([A-Z0-9]{4,8})", handle(alice, "new", "terminal"))[1]
    for player in (bob, carol):
        handle(player, f"join {code}", channels[player.pk])
    match = Match.objects.get(code=code)
    rig(match, captain=CAPTAIN_KNOCKS, box=BOX_HOLDS, upcard="Kd")
    captain, box, sitter = (player_in_role(match, role) for role in ("captain", "box", "sitter"))
    script = [
        (sitter, "help"),
        (sitter, "suggest take"),
        (box, "draw"),  # not his turn
        (captain, "discard 5d"),  # the engine refuses: the upcard first
        (captain, "help"),
        (captain, "accept"),
        (captain, "knock 5d"),
        (alice, "score"),
        (bob, "status"),
        (carol, "help"),
        (alice, "discard 7x"),  # the parser refuses
        (bob, "team 7"),
    ]
    for player, text in script:
        handle(player, text, channels[player.pk])
    assert Match.objects.get(pk=match.pk).hands.exclude(ended_at=None).exists(), "the scripted hand ended"
    texts = list(Outbox.objects.filter(recipient__in=players).values_list("text", flat=True))
    return texts, {player.display_name for player in players}


@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
def test_everything_players_read_of_a_hand_is_in_their_language(language):
    """No English in what a hand sends its players, on any channel, but what they type,
    names, cards, codes, and the known offenders of UNTRANSLATED_DATA (each to fix, then
    to take off that list)."""
    texts, names = _play_a_hand(language)
    vocabulary = _vocabulary(language)
    foreign: list[tuple[str, str]] = []
    seen: set[str] = set()
    for text in texts:
        words, known = _foreign_words(text, names, vocabulary)
        foreign += [(word, text) for word in words]
        seen |= known
    assert not foreign, f"{language}: English words in what players read: " + "; ".join(
        f"{word!r} in {text!r}" for word, text in foreign[:5]
    )
    fixed = sorted(set(UNTRANSLATED_DATA) - seen)
    assert not fixed, f"{language}: fixed, take off UNTRANSLATED_DATA: {[UNTRANSLATED_DATA[p] for p in fixed]}"


@pytest.mark.parametrize(
    "text",
    [
        "Рака 1: Alice +32 (удар)",  # a hand's kind, translated: not English
        "#K7Q2 рака 1\nAlice: pass\nКуп Kd, талон 30\nТвој потег: draw, take, d CARD, knock 6s(6)",
        "Пријателите влегуваат со: join K7Q2. https://t.me/gin3_bot?start=join_K7Q2",
    ],
)
def test_the_reading_net_lets_through_what_is_not_english(text):
    assert _foreign_words(text, {"Alice"}, _vocabulary("mk")) == ([], set())


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("Рака 1: Alice +32 (knocked)", "knocked"),
        ("Следна рака: Alice box, Bob капетан", "box"),
        ("#K7Q2 hand 1", "hand"),
        ("Time runs out in 3h", "Time"),
    ],
)
def test_the_reading_net_catches_english_it_was_not_told_of(text, word):
    assert word in _foreign_words(text, {"Alice", "Bob"}, _vocabulary("mk"))[0]
