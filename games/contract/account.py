"""A player's own settings: name, language, advice, and his phone (linking, where turns go, STOP and START)."""

from __future__ import annotations

from dataclasses import dataclass

from .base import Notice, Refusal


@dataclass(frozen=True)
class LanguageSet(Notice):
    """``lang``: said in the language he chose."""


@dataclass(frozen=True)
class NameSet(Notice):
    name: str


@dataclass(frozen=True)
class NameTaken(Refusal):
    name: str


@dataclass(frozen=True)
class NameReadsAsYou(Refusal):
    """A name that is the word for "you" in a language we speak: others would read
    "You goes gin!" as news of themselves."""

    name: str


@dataclass(frozen=True)
class AdviseSet(Notice):
    """``advise on|off``: whether the sitter gets the captain's cards at the captain's turns."""

    on: bool


@dataclass(frozen=True)
class CodeSent(Notice):
    """``phone NUMBER``: a code went to ``number`` (masked), to be texted back within ``minutes``."""

    number: str
    minutes: int


@dataclass(frozen=True)
class LinkCode(Notice):
    """The text that carries the one-time code to the phone being linked."""

    code: str
    name: str
    minutes: int


@dataclass(frozen=True)
class NoCodeWaiting(Notice):
    number: str


@dataclass(frozen=True)
class WrongCode(Notice):
    pass


@dataclass(frozen=True)
class PhoneAlreadyYours(Notice):
    pass


@dataclass(frozen=True)
class PhoneNowPlays(Notice):
    """From the phone just linked: it now plays as ``name``."""

    name: str


@dataclass(frozen=True)
class PhoneLinked(Notice):
    """To the player, where he last wrote from: ``number`` (masked) is linked to him."""

    number: str


@dataclass(frozen=True)
class TurnsGoTo(Notice):
    """``notify``: where his turns go now; ``number`` (masked) for SMS."""

    choice: str
    number: str = ""


@dataclass(frozen=True)
class TextsAgain(Notice):
    """START: the number may be texted again."""


@dataclass(frozen=True)
class SmsOff(Refusal):
    pass


@dataclass(frozen=True)
class AlreadyYourNumber(Refusal):
    number: str


@dataclass(frozen=True)
class NumberStopped(Refusal):
    number: str


@dataclass(frozen=True)
class EnoughCodes(Refusal):
    pass


@dataclass(frozen=True)
class LinkFromThePhone(Refusal):
    pass


@dataclass(frozen=True)
class PhoneBusy(Refusal):
    """The bare SMS player being merged still plays in ``code``."""

    code: str


@dataclass(frozen=True)
class LinkAPhoneFirst(Refusal):
    pass


@dataclass(frozen=True)
class YourPhoneStopped(Refusal):
    pass


@dataclass(frozen=True)
class TelegramFirst(Refusal):
    pass


@dataclass(frozen=True)
class SmsWelcome(Notice):
    """A number's first text: what gin3 is and how to start, by SMS."""


@dataclass(frozen=True)
class HowToStop(Notice):
    """Under the help by SMS: how to stop the texts, as the carriers require."""


@dataclass(frozen=True)
class SendItAgain(Notice):
    """A text that could not be recorded (the database was out of reach): send it again."""


@dataclass(frozen=True)
class SignInLinkView(Notice):
    """The reply to ``web``: his link's token (for the words to make its address of) and how long it works."""

    token: str
    minutes: int


@dataclass(frozen=True)
class TextNotDelivered(Notice):
    """The carrier says a text to his phone did not arrive; ``code``: the match it was about, if any."""

    code: str = ""
