"""The ``make play`` command lines the terminal prints, with what he started with.

A hint that says how to come back must log him back in as himself: after
``make play ARGS='--name Bob'``, ``make play ARGS='--join 8M9B'`` logs in as his
login's player, another one, who can't join a match that has started. So every
command line printed keeps the ``--name`` and ``--lang`` he gave:
``Relaunch(name="Bob").command("--join", "8M9B")`` is
``make play ARGS='--name Bob --join 8M9B'``, and ``Relaunch().command()`` is
``make play``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

MAKE_PLAY = "make play"  # a command line, the same in every language
# A word the shell passes on as it is, and that argparse does not take for an option.
PLAIN = re.compile(r"[\w.][\w.-]*")


@dataclass(frozen=True)
class Relaunch:
    """What he gave on the command line that the next session needs to be him again."""

    name: str = ""  # --name as given; empty when it was his login's
    language: str = ""  # --lang as given

    def speaking(self, language: str) -> Relaunch:
        """The same, with the language he speaks now: after ``--lang he`` and then
        ``lang lt``, a hint with ``--lang he`` would switch him back."""
        return replace(self, language=language) if self.language else self

    def command(self, *args: str) -> str:
        """``make play`` with his options and ``args`` (already quoted for the shell)."""
        words = []
        if self.name:
            words.append(f"--name {self.name}" if PLAIN.fullmatch(self.name) else f'"--name={self.name}"')
        if self.language:
            words.append(f"--lang {self.language}")
        words.extend(args)
        return f"{MAKE_PLAY} ARGS='{' '.join(words)}'" if words else MAKE_PLAY
