"""bench/headroom.py: the seer that bounds what inference about hidden cards can add."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType

import pytest

from games.engine import Role, deal
from games.engine.bots import StrongBot, bot_view
from games.engine.cards import Card, parse_cards
from games.engine.hand import Discard, Knock, Take, stacked_deck


@pytest.fixture(scope="module")
def headroom() -> ModuleType:
    path = Path(__file__).resolve().parent.parent / "bench" / "headroom.py"
    spec = importlib.util.spec_from_file_location("headroom", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["headroom"] = module
    spec.loader.exec_module(module)
    return module


def test_r8_4_the_seer_plays_on_where_the_normal_level_knocks_into_an_undercut(headroom: ModuleType) -> None:
    """The captain would knock with 10 (Kd); the box holds 1 (As), which undercuts him."""
    captain = parse_cards("Ah 2h 3h 4s 5s 6s 7c 8c 9c 8d")
    box = parse_cards("2c 3c 4c 5d 6d 7d 9h Th Jh As")
    hand, log = deal(stacked_deck(captain, box, Card.parse("Kd"))).apply(Take())
    view = bot_view(hand, Role.CAPTAIN, log)

    assert StrongBot(random.Random(0)).choose(view) == Knock(Card.parse("8d"))
    choice = headroom.Seer.new(random.Random(0)).choose(view, hand.cards_of(Role.BOX))
    assert type(choice) is Discard


def test_the_seer_knocks_where_it_sees_no_undercut(headroom: ModuleType) -> None:
    captain = parse_cards("Ah 2h 3h 4s 5s 6s 7c 8c 9c 8d")
    box = parse_cards("2c 5c 8s Jc Qd 3d 6h 9d Ks Js")
    hand, log = deal(stacked_deck(captain, box, Card.parse("Kd"))).apply(Take())

    choice = headroom.Seer.new(random.Random(0)).choose(bot_view(hand, Role.CAPTAIN, log), hand.cards_of(Role.BOX))
    assert choice == Knock(Card.parse("8d"))


def test_the_run_prints_each_pair_with_its_interval(headroom: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    assert headroom.main(["--deals", "3", "--workers", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == ["normal vs easy", "seer vs easy", "seer vs normal"]
    assert all("points a hand (95%), 3 deals" in line for line in lines)
