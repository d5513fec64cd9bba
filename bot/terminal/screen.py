"""The player's screen: messages printed whole, above the line he is typing.

Two modes. At a real terminal (stdin and stdout both ttys) lines are read with
readline, and a message that arrives while he types is printed above his
prompt, which is drawn again with what he had typed so far. Anything else (a
pipe, a file, a test) reads plain lines and echoes each one after the prompt,
so that the output reads as a transcript.

Everything printed passes through ``printable``: a message may carry text
another player typed (a team message, a name), and an escape sequence in it
must not drive this terminal.
"""

from __future__ import annotations

import contextlib
import io
import re
import select
import sys
import threading
from collections.abc import Callable
from typing import TextIO

PROMPT = "> "
# C0 controls but tab and newline, DEL, C1 controls: what a terminal acts on instead of showing.
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# What a player can't mean to type: every control character, and lone surrogates (undecodable bytes).
UNTYPABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
# Back to the line's start and clear it: the prompt and what he typed are redrawn below the message.
CLEAR_LINE = "\r\x1b[K"


class OutputGone(Exception):
    """The terminal or pipe we print to is closed: nobody can read us any more."""


def printable(text: str) -> str:
    """``text`` with every control character shown as �, new lines and tabs kept."""
    return CONTROL.sub("\N{REPLACEMENT CHARACTER}", text)


def typed(line: str) -> str:
    """A typed line as a command: control characters (a NUL, an escape, a stray
    carriage return) become spaces, which the command parser ignores."""
    return UNTYPABLE.sub(" ", line)


def is_tty(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError, OSError):
        return False


def tolerate_bad_bytes(stream: object) -> None:
    """Undecodable input or unprintable output becomes �, not a UnicodeError."""
    if isinstance(stream, io.TextIOWrapper):
        stream.reconfigure(errors="replace")


class Screen:
    """Where one player reads and types. ``show`` may be called from any thread."""

    def __init__(self, out: TextIO, prompt: str = PROMPT) -> None:
        self.out = out
        self.prompt = prompt
        self.interactive = is_tty(sys.stdin) and is_tty(out)
        self.reading = False  # the main thread waits in read_line
        self.gone = False
        self._lock = threading.Lock()
        if self.interactive:
            with contextlib.suppress(ImportError):
                import readline  # noqa: F401  (input() edits lines with it once it is imported)

    def show(self, text: str) -> None:
        """Print a message and a blank line after it."""
        self._print(printable(text).rstrip("\n") + "\n\n")

    def say(self, line: str) -> None:
        """Print one line of the terminal's own (a hint, a farewell)."""
        self._print(printable(line).rstrip("\n") + "\n")

    def end_line(self) -> None:
        """After Ctrl-D or Ctrl-C at the prompt: go to a new line before saying goodbye."""
        if self.interactive:
            self._print("\n")

    def read_line(self, before_waiting: Callable[[], None] = lambda: None) -> str:
        """The next line he types. EOFError at the end of the input, or when there is no input
        to read (stdin closed, a terminal hung up); KeyboardInterrupt on Ctrl-C.

        ``before_waiting`` runs once this counts as reading, just before the wait: it may
        raise instead, for what was asked while nobody was reading."""
        self.reading = True
        try:
            before_waiting()
            line = input(self.prompt) if self.interactive else input()
        except (RuntimeError, OSError, ValueError):  # "lost sys.stdin", EIO, a closed file
            raise EOFError from None
        finally:
            self.reading = False
        if not self.interactive:
            self._print(f"{self.prompt}{printable(line)}\n")
        return line

    def typed_ahead(self) -> bool:
        """Whether a whole line he typed waits to be read (at a terminal, the line is
        readable once he pressed Enter); piped input is read as it comes, never ahead."""
        if not self.interactive:
            return False
        try:
            return bool(select.select([sys.stdin], [], [], 0)[0])
        except (OSError, ValueError):  # a closed or hung-up terminal: read_line will say so
            return False

    def abandon_line(self) -> None:
        """The wait for his line was cut short (``Wake``): take the prompt off the screen,
        so that what is printed next starts a line of its own and the next prompt is
        not drawn after this one ("> > "), and give him back what he had typed."""
        if not self.interactive:
            return
        with self._lock:
            typed_so_far = _typed_so_far()
            self._write(CLEAR_LINE)
        _retype(typed_so_far)

    def _print(self, text: str) -> None:
        with self._lock:
            if self.interactive and self.reading:
                text = CLEAR_LINE + text + self.prompt + _typed_so_far()
            self._write(text)

    def _write(self, text: str) -> None:
        if self.gone:
            raise OutputGone
        try:
            try:
                self.out.write(text)
            except UnicodeEncodeError:  # a terminal that can't show every letter: ? for what it can't
                self.out.write(text.encode("ascii", "replace").decode("ascii"))
            self.out.flush()
        except (OSError, ValueError):  # a broken pipe, a hung-up terminal, a closed file
            self.gone = True
            raise OutputGone from None


def _typed_so_far() -> str:
    try:
        import readline
    except ImportError:
        return ""
    return readline.get_line_buffer()


def _retype(text: str) -> None:
    """Put ``text`` back on the next line he edits (readline's pre-input hook, once)."""
    try:
        import readline
    except ImportError:
        return

    def hook() -> None:
        readline.set_pre_input_hook()
        if text:
            readline.insert_text(text)
            readline.redisplay()

    readline.set_pre_input_hook(hook)
