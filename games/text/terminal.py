"""The terminal session's own lines (``bot.terminal``): how it starts, what it follows,
how it ends and what it says when the database or gin3 itself fails. The commands it
suggests (``make play ...``, ``python manage.py play ...``) are given, as typed."""

from __future__ import annotations

from django.utils.translation import gettext as _


def greeting(name: str) -> str:
    return _("gin3 in the terminal, as %(name)s. Type help, or quit to leave.") % {"name": name}


def bad_name() -> str:
    return _("A name is 1 to 20 letters, digits or spaces, like: make play ARGS='--name Ann'")


def no_database(reason: str) -> str:
    return _("The database can't be used (%(reason)s). Set it up with: python manage.py migrate") % {"reason": reason}


def playing_elsewhere(name: str, other_name: str) -> str:
    return _(
        "%(name)s is playing in another terminal of this machine, which gets his messages: "
        "quit there first, or play under another name: %(command)s"
    ) % {"name": name, "command": other_name}


def nothing_joined(join: str, start: str) -> str:
    return _("Nothing to follow. Join another match: %(join)s — or start one: %(start)s") % {
        "join": join,
        "start": start,
    }


def nothing_started(command: str) -> str:
    return _("Nothing was started. Options are those of new, like: %(command)s") % {"command": command}


def no_match_left(start: str, join: str) -> str:
    return _("No match of yours is running or waiting. Start one: %(start)s — or join one: %(join)s") % {
        "start": start,
        "join": join,
    }


def your_matches(codes: list[str]) -> str:
    """His open matches, and how to choose one: the newest is the example."""
    return _("Your matches: %(codes)s. Put the code first to choose one, like: #%(code)s status") % {
        "codes": " ".join(f"#{code}" for code in codes),
        "code": codes[-1],
    }


def came_back(codes: list[str]) -> str:
    """``make play`` again: back to the matches he left, not a new one; with several, how
    to choose one (the newest is the example)."""
    if len(codes) == 1:
        return _("Back to #%(code)s. Type new for another match.") % {"code": codes[0]}
    return _(
        "Back to your matches: %(codes)s. Put the code first to choose one, like: #%(code)s status. "
        "Type new for another match."
    ) % {"codes": " ".join(f"#{code}" for code in codes), "code": codes[-1]}


def what_now(code: str, said: bool) -> str:
    """What he may do once his last match is over; "again" only if its result did not
    (``said``) just say how to play it again."""
    if said:
        return _("Type new for another match, or quit.")
    return _("Type again to play #%(code)s again with the same players, new for another match, or quit.") % {
        "code": code
    }


def match_over(code: str, url: str, local: bool) -> str:
    """The end of a match he followed: its hands with ``score``, here, and its page; a
    ``local`` site (this machine's) answers only while ``make run`` serves it."""
    said = {"code": code, "url": url}
    if local:
        return (
            _(
                "#%(code)s is over. To list its hands, type #%(code)s score; %(url)s shows them move by move "
                "while make run serves the site."
            )
            % said
        )
    return _("#%(code)s is over. To list its hands, type #%(code)s score; %(url)s shows them move by move.") % said


def waits_for_you(code: str, command: str) -> str:
    return _("#%(code)s waits for you: %(command)s") % {"code": code, "command": command}


def bye() -> str:
    return _("Bye.")


def database_did_not_answer(reason: str) -> str:
    return _("The database did not answer (%(reason)s). Try again in a moment; status shows the table.") % {
        "reason": reason
    }


def bug_written(path: str) -> str:
    return _("Something went wrong inside gin3 (a bug, written down in %(path)s). Type status to go on.") % {
        "path": path
    }
