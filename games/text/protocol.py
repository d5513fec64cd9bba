"""The text command language of docs/protocol.md, shared by every channel.

``parse`` turns what a player typed (or a button carried) into a ``Command``,
or raises ``ProtocolError`` with a short reply that says what is possible.

>>> parse("#K7Q2 d 10h")
Command(name='discard', code='K7Q2', version=None, card=Th, text='', number=None, options=None, suggestion=None)
>>> parse("/new 3d to 150 undercut 5 open").options
MatchOptions(move_seconds=259200, target=150, gin_bonus=25, undercut_bonus=5, may_discard_taken=False, is_open=True)
"""

from __future__ import annotations

import difflib
import functools
import re
import unicodedata
import zoneinfo
from dataclasses import dataclass

from django.utils.translation import gettext as _

from games.contract.options import BY_WORD, MOVE_TIMES, OPTION, MatchOptions, Option
from games.engine import Action, Card, CardError, parse_action

LANGUAGE_CODES = ("en", "mk", "he", "lt", "mr", "ms")
OPT_OUT_WORDS = frozenset({"stop", "quit", "end", "cancel", "unsubscribe", "stopall"})
OPT_IN_WORDS = frozenset({"start", "unstop", "yes"})
HELP_WORDS = frozenset({"help", "info"})  # by SMS the carriers' HELP keyword gets help and how to stop
NOTIFY_CHOICES = ("sms", "telegram", "auto")
PHONE_PATTERN = re.compile(r"^\+[1-9]\d{7,14}$")
LINK_CODE_PATTERN = re.compile(r"^\d{6}$")
CODE_PATTERN = re.compile(r"^[A-Z0-9]{4,8}$")
NAME_PATTERN = re.compile(r"^[^\W_]+(?: [^\W_]+)*$")  # letters and digits of any script, single spaces
MAX_NAME = 20
MAX_TEAM_TEXT = 300
MAX_REPORT_TEXT = 500
AWAY_PATTERN = re.compile(r"^(\d{1,4})([dh]?)$")  # away 3d, away 12h, away 3 (days)
MAX_AWAY = 366 * 86400
QUIET_PATTERN = re.compile(r"^(\d{1,2})(?::00)?-(\d{1,2})(?::00)?$")  # quiet 23-07, quiet 23:00-07:00
# Quiet hours hold a deadline until they end: at most half a day, so that a match goes on,
# and so that a day always has hours out of them, whatever a clock change skips.
MAX_QUIET_HOURS = 12
ANY = "any"  # join any
MAX_NUMBER_DIGITS = 6  # no option needs more; int() of thousands of digits is slow, and refused past 4,300

ALIASES = {
    "d": "discard",
    "h": "help",
    "?": "help",
    "k": "knock",
    "s": "status",
    "scores": "score",
    "start": "help",
    "timezone": "tz",
}
NO_ARGUMENT = (
    "help",
    "leave",
    "status",
    "pass",
    "take",
    "draw",
    "accept",
    "score",
    "open",
    "again",
    "back",
    "web",
    "hint",
)
CARD_ARGUMENT = ("discard", "knock")
PLAY_COMMANDS = ("pass", "take", "draw", "discard", "knock")
COMMANDS = (
    *NO_ARGUMENT,
    *CARD_ARGUMENT,
    "new",
    "bot",
    "join",
    "group",
    "suggest",
    "team",
    "lang",
    "phone",
    "link",
    "notify",
    "resign",
    "name",
    "advise",
    "away",
    "quiet",
    "tz",
    "report",
)
LEVELS = ("easy", "normal", "hard")  # a computer player's, weakest first (bot hard)
CONFIRM_WORDS = ("yes",)
SWITCH_WORDS = ("on", "off")


class ProtocolError(ValueError):
    """What was typed is not a command; the message is the reply."""


@dataclass(frozen=True)
class Command:
    """A parsed command. ``code`` and ``version`` come from a ``#CODE`` or
    ``#CODE@VERSION`` prefix; buttons carry the version so that an old button
    is refused instead of acting on a newer state."""

    name: str
    code: str | None = None
    version: int | None = None
    card: Card | None = None
    text: str = ""
    number: int | None = None
    options: MatchOptions | None = None
    suggestion: Command | None = None

    @property
    def is_play(self) -> bool:
        return self.name in PLAY_COMMANDS

    @property
    def named_top(self) -> Card | None:
        """The card ``take Qs`` names, which must be the pile's top for the take to be his."""
        return self.card if self.name == "take" else None

    def action(self) -> Action:
        """The move as the engine reads it: ``take Qs`` names the card to take, the
        engine's take needs no name (the service checks it is the pile's top)."""
        return parse_action(self.name if self.name == "take" else self.as_text())

    def as_text(self) -> str:
        """The command as a player would type it, without the match selector."""
        if self.card is not None:
            return f"{self.name} {self.card}"
        if self.suggestion is not None:
            return f"suggest {self.suggestion.as_text()}"
        return f"{self.name} {self.text}".strip()


def clean(text: str) -> str:
    """``text`` without the characters nobody types on purpose: control characters
    (NUL included), format characters (zero-width spaces, bidi overrides) and
    unassigned or private code points. Line breaks and tabs become spaces."""
    return "".join(
        " " if char in "\n\r\t" else char
        for char in text
        if char in "\n\r\t" or unicodedata.category(char) not in ("Cc", "Cf", "Cn", "Co", "Cs")
    )


def say_which_card(command: str, example: str = "7h") -> str:
    """A ``discard`` or ``knock`` without its card: suggested, or played at his discard.
    Where his hand is known, the example is a card he may play; else any card."""
    return _("Say which card, like: %(command)s %(card)s") % {"command": command, "card": example}


# What a phone's keyboard puts at the end of a sentence; dropped from a command that
# carries no message of its own, where it can mean nothing.
SENTENCE_END = ".!"
MESSAGE_COMMANDS = ("team", "report")


def parse(text: str) -> Command:
    """Read one command; raise ``ProtocolError`` with a friendly reply if it is not one."""
    text = clean(text)
    words = text.strip().split()
    code, version = None, None
    if words and words[0].startswith("#"):
        code, version = _selector(words.pop(0))
    if words and _name(words[0].rstrip(SENTENCE_END)) not in MESSAGE_COMMANDS:
        words[-1] = words[-1].rstrip(SENTENCE_END)  # "Draw." as a phone's keyboard ends it
        if not words[-1]:
            words.pop()
    if not words:
        raise ProtocolError(_("Type a command, for example: help"))
    name = _name(words[0])
    args = words[1:]
    if name in OPT_OUT_WORDS:
        raise ProtocolError(_("STOP and similar words are only for SMS opt-out. Type help for the commands."))
    if name not in COMMANDS:
        raise ProtocolError(_unknown(words[0]))
    command = _command(name, args, text)
    return Command(**{**command.__dict__, "code": code, "version": version})


def _unknown(word: str) -> str:
    """The reply to a word that is no command: a close command is offered ("drwa": draw)."""
    close = difflib.get_close_matches(_name(word), COMMANDS, n=1, cutoff=0.7)
    if close:
        return _("I don't know '%(word)s'. Did you mean %(command)s? Type help for the commands.") % {
            "word": _short(word),
            "command": close[0],
        }
    return _("I don't know '%(word)s'. Type help for the commands.") % {"word": _short(word)}


def _unknown_level(args: list[str]) -> str:
    """The reply to ``bot`` with a level it has not: a close one is offered (``bot hardd``)."""
    levels = ", ".join(f"bot {level}" for level in LEVELS)
    close = difflib.get_close_matches(args[0].lower(), LEVELS, n=1, cutoff=0.6) if len(args) == 1 else []
    if close:
        return _("There is no level '%(word)s'. Did you mean bot %(level)s? The levels: %(levels)s.") % {
            "word": _short(args[0]),
            "level": close[0],
            "levels": levels,
        }
    return _("bot adds a computer player; say how well it plays: %(levels)s.") % {"levels": levels}


def _one_card(name: str, args: list[str]) -> Card:
    """The one card after ``name``. Of several, each is read first, so that a word that
    is no card is named; then the form is shown, not his first card: "discard Ks Qd"
    may begin with one he does not hold."""
    if len(args) > 1:
        for arg in args:
            _card(arg)
        raise ProtocolError(_("One card at a time: %(command)s %(card)s") % {"command": name, "card": "CARD"})
    return _card(args[0])


def _name(word: str) -> str:
    """A command word without its ``/`` and ``@botname``, aliases resolved: ``/D@gin3bot`` -> ``discard``."""
    name = word.lstrip("/").split("@", 1)[0].lower()
    return ALIASES.get(name, name)


def _is_number(word: str) -> bool:
    """A few ASCII digits only: ``str.isdigit`` also takes ``²``, which ``int`` refuses,
    and a number of thousands of digits is no option of ours."""
    return word.isascii() and word.isdigit() and len(word) <= MAX_NUMBER_DIGITS


def _selector(word: str) -> tuple[str, int | None]:
    code, _at, version = word[1:].upper().partition("@")
    if not CODE_PATTERN.match(code):
        raise ProtocolError(_("'%(word)s' is not a match code. Codes look like #K7Q2.") % {"word": _short(word)})
    if version and not _is_number(version):
        raise ProtocolError(_("That button is broken. Type status to see the table."))
    return code, int(version) if version else None


def _command(name: str, args: list[str], text: str) -> Command:
    if name == "take" and args:
        return Command(name, card=_one_card(name, args))  # take Qs: the face-up card he sees, named
    if name in NO_ARGUMENT:
        if args:
            raise ProtocolError(_("'%(command)s' takes nothing after it.") % {"command": name})
        return Command(name)
    if name in CARD_ARGUMENT:
        if not args:
            return Command(name)  # which card: answered as his turn stands (he may have to take one first)
        return Command(name, card=_one_card(name, args))
    if name == "bot":
        if len(args) > 1 or (args and args[0].lower() not in LEVELS):
            raise ProtocolError(_unknown_level(args))
        return Command(name, text=args[0].lower() if args else "")
    if name == "resign":
        if args and [arg.lower() for arg in args] != ["yes"]:
            raise ProtocolError(_("To give the match up: resign, then resign yes to confirm."))
        return Command(name, text="yes" if args else "")
    if name == "name":
        given = " ".join(args)
        if not NAME_PATTERN.match(given) or len(given) > MAX_NAME:
            raise ProtocolError(
                _("A name is 1 to %(most)s letters, digits and spaces: name Alice") % {"most": MAX_NAME}
            )
        return Command(name, text=given)
    if name == "advise":
        if len(args) != 1 or args[0].lower() not in SWITCH_WORDS:
            raise ProtocolError(_("As the sitter, get the captain's cards to advise on: advise on, or advise off"))
        return Command(name, text=args[0].lower())
    if name == "join" and args and args[0].lower() == ANY:
        return _join_any(args[1:])
    if name in ("join", "group"):
        if len(args) != 1:
            raise ProtocolError(_("Say which match: %(command)s K7Q2") % {"command": name})
        code = args[0].lstrip("#").upper()
        if not CODE_PATTERN.match(code):
            raise ProtocolError(_("'%(word)s' is not a match code. Codes look like #K7Q2.") % {"word": _short(args[0])})
        return Command(name, text=code)
    if name == "new":
        return Command(name, options=_new_options(args))
    if name == "suggest":
        if not args:
            return Command(name)  # the service answers with a move the captain may play now
        # Checked before parsing, so that "suggest suggest ..." cannot recurse without end.
        if _name(args[0]) not in PLAY_COMMANDS:
            raise ProtocolError(_("You can suggest pass, take, draw, discard CARD or knock CARD."))
        suggestion = parse(" ".join(args))
        if suggestion.name in CARD_ARGUMENT and suggestion.card is None:
            raise ProtocolError(say_which_card(suggestion.name))
        return Command(name, suggestion=suggestion)
    if name == "team":
        message = _rest(text, args)
        if not message:
            raise ProtocolError(_("Say what to tell your partner: team take the 7"))
        if len(message) > MAX_TEAM_TEXT:
            # Cut, it would reach his partner other than he wrote it, and he would not know.
            raise ProtocolError(
                _("Too long: a team message has at most %(limit)d characters. Nothing was sent.")
                % {"limit": MAX_TEAM_TEXT}
            )
        return Command(name, text=message)
    if name == "report":
        message = _rest(text, args)
        if not message:
            raise ProtocolError(_("Say what happened, for the moderators: report TEXT"))
        if len(message) > MAX_REPORT_TEXT:
            raise ProtocolError(
                _("Too long: a report has at most %(limit)d characters. Nothing was sent.") % {"limit": MAX_REPORT_TEXT}
            )
        return Command(name, text=message)
    if name == "away":
        return Command(name, number=_away_seconds(args))
    if name == "quiet":
        return Command(name, text=_quiet_hours(args))
    if name == "tz":
        if len(args) > 1:
            raise ProtocolError(_zone_usage(" ".join(args)))
        return Command(name, text=time_zone(args[0]) if args else "")
    if name == "lang":
        if len(args) != 1 or args[0].lower() not in LANGUAGE_CODES:
            raise ProtocolError(_("Languages: %(codes)s. Example: lang en") % {"codes": " ".join(LANGUAGE_CODES)})
        return Command(name, text=args[0].lower())
    if name == "phone":
        return Command(name, text=phone_number("".join(args)))
    if name == "link":
        if len(args) != 1 or not LINK_CODE_PATTERN.match(args[0]):
            raise ProtocolError(_("Text the 6-digit code you got, from that phone: link 123456"))
        return Command(name, text=args[0])
    if name == "notify":
        if len(args) != 1 or args[0].lower() not in NOTIFY_CHOICES:
            raise ProtocolError(_("Where your turns go: notify sms, notify telegram or notify auto"))
        return Command(name, text=args[0].lower())
    raise ProtocolError(_("I don't know '%(word)s'. Type help for the commands.") % {"word": name})


def _rest(text: str, args: list[str]) -> str:
    """Everything after the command word (and the #CODE before it), spacing kept: a message."""
    return text.strip().split(None, 2 if text.lstrip().startswith("#") else 1)[-1] if args else ""


def _join_any(args: list[str]) -> Command:
    """``join any [TIME]``: a seat in the oldest open match (with that move time)."""
    if len(args) > 1 or (args and args[0].lower() not in MOVE_TIMES):
        raise ProtocolError(
            _(
                "join any seats you in any open match, join any TIME in one with that time a move "
                "(join any 1h). TIME is one of: %(times)s"
            )
            % {"times": " ".join(MOVE_TIMES)}
        )
    return Command("join", text=ANY, number=MOVE_TIMES[args[0].lower()] if args else None)


def _away_seconds(args: list[str]) -> int | None:
    """``away 3d`` (days), ``away 12h`` (hours), ``away 3`` (days): the seconds of time off;
    None for ``away`` alone, which shows what is left."""
    if not args:
        return None
    found = AWAY_PATTERN.match(args[0].lower()) if len(args) == 1 else None
    seconds = int(found[1]) * (3600 if found[2] == "h" else 86400) if found else 0
    if not 0 < seconds <= MAX_AWAY:
        raise ProtocolError(_("Time off in days or hours: away 3d, away 12h. away alone shows what you have left."))
    return seconds


def _quiet_hours(args: list[str]) -> str:
    """``quiet 23-07`` as ``23-07``, ``quiet off`` as ``off``, ``quiet`` alone as ""."""
    if not args:
        return ""
    if len(args) == 1 and args[0].lower() == "off":
        return "off"
    found = QUIET_PATTERN.match(args[0]) if len(args) == 1 else None
    hours = (int(found[1]) % 24, int(found[2]) % 24) if found and int(found[1]) <= 24 and int(found[2]) <= 24 else None
    if hours is None or hours[0] == hours[1]:
        raise ProtocolError(
            _("Quiet hours run from one hour of your day to another: quiet 23-07. quiet off ends them.")
        )
    length = (hours[1] - hours[0]) % 24
    if length > MAX_QUIET_HOURS:
        raise ProtocolError(quiet_hours_too_long(length))
    return f"{hours[0]:02d}-{hours[1]:02d}"


def quiet_hours_too_long(hours: int) -> str:
    """The refusal of quiet hours longer than ``MAX_QUIET_HOURS``: a turn's deadline moves
    out of them, so ``quiet 00-23`` made a 5 minute clock 23 hours a turn."""
    return _(
        "Quiet hours are %(most)s hours at most, so that your matches go on: those are %(hours)s. "
        "For example: quiet 23-07."
    ) % {"most": MAX_QUIET_HOURS, "hours": hours}


def time_zone(word: str) -> str:
    """A time zone by its IANA name, in any case: ``europe/skopje`` is ``Europe/Skopje``.

    >>> time_zone("europe/skopje")
    'Europe/Skopje'
    """
    name = _zone_names().get(word.lower())
    if name is None:
        raise ProtocolError(_zone_usage(word))
    return name


@functools.cache
def _zone_names() -> dict[str, str]:
    return {name.lower(): name for name in zoneinfo.available_timezones()}


def _zone_usage(word: str) -> str:
    return _("'%(zone)s' is not a time zone I know. Name one like this: tz Europe/Skopje (or tz UTC).") % {
        "zone": _short(word)
    }


def phone_number(text: str) -> str:
    """A phone number in E.164, the form Twilio sends and expects: ``+15551234567``.

    People write numbers with spaces, dashes, dots and brackets, and often
    ``00`` for ``+``; the country code itself cannot be guessed.

    >>> phone_number("+1 (555) 123-4567")
    '+15551234567'
    >>> phone_number("0044 20 7946 0958")
    '+442079460958'
    """
    number = re.sub(r"[\s().-]", "", text)
    if number.startswith("00"):
        number = "+" + number[2:]
    if not PHONE_PATTERN.match(number):
        raise ProtocolError(_("Give the number with its country code: phone +15551234567"))
    return number


def _card(word: str) -> Card:
    try:
        return Card.parse(word)
    except CardError:
        message = _("'%(word)s' is not a card. Cards look like 7h, 10d, Qs.") % {"word": _short(word)}
        raise ProtocolError(message) from None


def _new_options(args: list[str]) -> MatchOptions:
    """``new [TIME] [to N] [gin N] [undercut N] [anydiscard] [open]``, in any order,
    each once (``games.contract.options.OPTIONS``). A word it can't read is named, and
    a second time a move (or target, or bonus) is refused rather than one of the two
    chosen in silence."""
    chosen: dict[str, int | bool] = {}
    words = [word.lower() for word in args]
    given: dict[str, str] = {}  # option -> the words that gave it
    while words:
        word = words.pop(0)
        option = BY_WORD.get(word)
        if option is not None and option.is_switch:
            chosen[option.name] = True
            continue
        if option is not None and words and _is_number(words[0]):
            said = f"{word} {words[0]}"
            chosen[option.name] = _option_number(option, int(words.pop(0)))
        elif word in MOVE_TIMES:
            option, said = OPTION["move_seconds"], word
            chosen[option.name] = MOVE_TIMES[word]
        else:
            unread = f"{word} {words[0]}" if option is not None and words else word
            raise ProtocolError(_("new can't read '%(word)s'.") % {"word": _short(unread)} + " " + _new_usage())
        if option.name in given:
            raise ProtocolError(
                _("%(first)s or %(second)s? Give it once.") % {"first": given[option.name], "second": said}
            )
        given[option.name] = said
    return MatchOptions(**chosen)  # type: ignore[arg-type]


def _option_number(option: Option, value: int) -> int:
    """``value`` for ``option``, or the refusal that says what it may be."""
    if value in option.values:
        return value
    if option.name == "target":
        said = _("The target score is %(low)s to %(high)s: new to 150")
    elif option.name == "gin_bonus":
        said = _("The gin bonus is %(first)s or %(second)s: new gin 20")
    else:
        said = _("The undercut bonus is %(low)s to %(high)s: new undercut 15")
    first, second = option.values[0], option.values[-1]
    raise ProtocolError(said % {"low": option.low, "high": option.high, "first": first, "second": second})


def _new_usage() -> str:
    return _(
        "new [TIME] [to N] [gin 20] [undercut N] [anydiscard] [open]. TIME is one of: %(times)s. Example: new 3d to 150"
    ) % {"times": " ".join(MOVE_TIMES)}


def _short(word: str) -> str:
    """Echo a player's word back, but never a long one (``parse`` has cleaned it)."""
    return word if len(word) <= 12 else word[:12] + "…"
