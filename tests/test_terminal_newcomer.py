"""A newcomer's first ``make play``: a whole match against two computer players,
typed the way a person new to the game types it.

Why: a newcomer's first match must go through whatever he types. He reads help, makes
typos, tries a card he does not hold and moves that are not his now, opens a
second match and leaves it, asks for the status and the score, and otherwise
plays well; the session must answer every line, play the match to its end,
and never show a traceback.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable

import pytest

from games.engine import DECK, Discard, Draw, Knock, Pass, Take
from games.engine.hand import Phase
from games.models import Match
from tests.conftest import best_action, engine_hand, mover, refresh
from tests.terminal_harness import assert_clean, play

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.any_database]

NAME = "newbie"


class Newcomer:
    """Answers each prompt: first what a newcomer tries, then on each of his turns
    a mistake or a question now and then before the move he means."""

    def __init__(self) -> None:
        self.since = Match.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
        self.asked = 0
        self.lines: deque[str | Callable[[], str]] = deque(["help", "", "status", "drow", "discard 7x", "score"])
        self.turns = 0
        self.second = ""

    def __call__(self, prompt: str = "") -> str:
        self.asked += 1
        if self.mine().first().status == Match.Status.FINISHED:
            return "quit"  # offered to play it again, he has had enough
        if not self.lines:
            self.plan_turn()
        line = self.lines.popleft()
        return line() if callable(line) else line

    def main_match(self) -> Match:
        match = self.mine().first()
        assert match.status == Match.Status.RUNNING, "asked for a line after his last match ended"
        assert mover(match).display_name == NAME, "asked for a line while a computer was to move"
        return match

    def mine(self):
        """The matches he started in this session, oldest first."""
        return Match.objects.filter(created_by__display_name=NAME, pk__gt=self.since).order_by("pk")

    def plan_turn(self) -> None:
        match = self.main_match()
        hand = engine_hand(match)
        self.turns += 1
        held = hand.cards_of(hand.to_move)
        not_held = next(card for card in DECK if card not in held)
        mistakes = {
            2: [f"discard {not_held}"],  # a card he does not hold
            3: ["draw" if hand.phase is Phase.DISCARD else f"knock {held[0]}"],  # not at this point of the turn
            4: ["new 5m to 50", "status", self.second_match_move, self.leave_second_match],
            5: ["SCORE", "/status", "h"],
            6: ["dicsard 7h", "knock", "d"],
            7: ["pass" if hand.phase is not Phase.UPCARD else "take 7h", "suggest draw"],
            8: ["#ZZZZ status", "team hello?", "accept"],
        }
        self.lines.extend(mistakes.get(self.turns, []))
        self.lines.append(lambda: self.move(self.main_match()))

    def second_match_move(self) -> str:
        self.second = self.mine().last().code
        return f"#{self.second} draw"

    def leave_second_match(self) -> str:
        return f"#{self.second} leave"

    def move(self, match: Match) -> str:
        """The move he means, typed in one of the ways docs/protocol.md allows."""
        action = best_action(match)
        style = self.turns % 3
        if isinstance(action, Knock):
            return f"knock {action.card}"
        if isinstance(action, Discard):
            return [f"d {action.card}", f"DISCARD {str(action.card).upper()}", f"/discard {action.card}"][style]
        if isinstance(action, Draw):
            return ["draw", "/draw", "DRAW"][style]
        assert isinstance(action, Take | Pass)
        return str(action)


@pytest.mark.slow
def test_a_newcomer_plays_a_whole_match_with_mistakes_and_no_traceback():
    for _attempt in range(5):
        newcomer = Newcomer()
        session = play("--name", NAME, "--options", "5m to 50", typist=newcomer)
        if newcomer.asked:
            break  # else the computers won the match in a hand he sat out, before he could type: again
    text = session.text
    match = newcomer.mine().first()
    assert refresh(match).status == Match.Status.FINISHED
    assert_clean(text)
    assert session.status == 0
    assert re.search(r"\w+ wins the match", text)
    assert "To play again with the same players: again" in text and "Bye." in text
    assert "Type new for another match, or quit." in text
    assert "Always: status, score" in text  # help
    assert "Type a command, for example: help" in text
    assert "I don't know 'drow'" in text
    assert "'7x' is not a card" in text
    if newcomer.turns >= 2:
        assert "Not allowed: you do not hold" in text or "Not allowed: take a card first" in text
    if newcomer.turns >= 4:
        assert "Your matches:" in text  # status with two matches lists them
        assert f"You left #{newcomer.second}." in text
        assert Match.objects.get(code=newcomer.second).status == Match.Status.ABORTED
