"""The contract between the services and the words (``games.contract``, ``games.text``).

Every value a reader may get has words in every language and on every channel,
and the services write no sentence of their own: they hand on values.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import pkgutil
import typing
from collections.abc import Mapping
from datetime import UTC, datetime
from importlib import import_module
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import translation

import games.contract
from games.contract import Notice
from games.contract.options import MatchOptions
from games.contract.tables import Automatic
from games.engine import Card, Role
from games.text.render import render

ROOT = Path(__file__).resolve().parent.parent
CHANNELS = ("terminal", "telegram", "sms")
SAMPLES: dict[object, object] = {
    str: "Ann",
    int: 3,
    float: 5400.0,
    bool: True,
    datetime: datetime(2026, 3, 29, 1, 30, tzinfo=UTC),
    MatchOptions: MatchOptions(target=150),
    Card: Card.parse("7h"),
    Automatic: Automatic.TIMEOUT,
    Role: Role.BOX,
}


def notice_types() -> list[type[Notice]]:
    """Every notice and refusal the contract defines (the views with words of their own too)."""
    found = []
    for module in pkgutil.iter_modules(games.contract.__path__):
        for _name, value in inspect.getmembers(import_module(f"games.contract.{module.name}"), inspect.isclass):
            if issubclass(value, Notice) and dataclasses.is_dataclass(value) and value.__module__.startswith("games."):
                found.append(value)
    leaves = [kind for kind in set(found) if not any(other is not kind and issubclass(other, kind) for other in found)]
    return sorted(leaves, key=lambda kind: kind.__qualname__)


def sample(kind: object) -> object:
    """A value of type ``kind`` to fill a notice with: a word, a number, a moment, a card."""
    origin = typing.get_origin(kind)
    if origin is typing.Literal:
        return typing.get_args(kind)[0]
    if origin is tuple:
        items = typing.get_args(kind)
        if items[-1] is Ellipsis:
            return (sample(items[0]), sample(items[0]))
        return tuple(sample(item) for item in items)  # a pair such as (name, card)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        return sample(next(arg for arg in typing.get_args(kind) if arg is not type(None)))
    if origin in (dict, Mapping) or kind is Mapping:
        return {}
    if dataclasses.is_dataclass(kind):
        return filled(kind)
    return SAMPLES[kind]


def filled(kind: type) -> object:
    hints = typing.get_type_hints(kind)
    return kind(**{field.name: sample(hints[field.name]) for field in dataclasses.fields(kind)})


@pytest.mark.parametrize("kind", notice_types(), ids=lambda kind: kind.__name__)
def test_every_notice_has_words_in_every_language_and_channel(kind):
    notice = filled(kind)
    for language, _name in settings.LANGUAGES:
        with translation.override(language):
            for channel in CHANNELS:
                assert render(notice, channel).text.strip(), f"{kind.__name__} says nothing in {language}"


def test_the_contract_is_found():
    assert len(notice_types()) > 100


TRANSLATING = {"_", "gettext", "ngettext", "pgettext", "npgettext", "gettext_lazy", "ngettext_lazy", "pgettext_lazy"}


def translation_calls(path: Path) -> list[str]:
    """Where a file marks a sentence for translation: a call of gettext by any of its names."""
    tree = ast.parse(path.read_text())
    return [
        f"{path.name}:{node.lineno}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and (
            (isinstance(node.func, ast.Name) and node.func.id in TRANSLATING)
            or (isinstance(node.func, ast.Attribute) and node.func.attr in TRANSLATING)
        )
    ]


def test_the_services_write_no_sentence():
    """Refusals and notices are values; ``games.text`` words them (a sentence made in a
    service would be worded once, in whatever language was active then)."""
    found = [call for path in sorted((ROOT / "games" / "services").rglob("*.py")) for call in translation_calls(path)]
    assert found == []


def test_the_channels_write_no_sentence():
    """What a player reads on any channel is worded in ``games.text``, in one place for
    every channel and language: the terminal's own lines (``games.text.terminal``) and
    Telegram's menu (``games.text.offers.MENU``) too."""
    found = [call for path in sorted((ROOT / "bot").rglob("*.py")) for call in translation_calls(path)]
    assert found == []


def test_the_net_for_sentences_catches_one(tmp_path):
    source = tmp_path / "example.py"
    source.write_text("from django.utils.translation import gettext as _\nx = _('Hello')\ny = ngettext('a', 'b', 2)\n")
    assert len(translation_calls(source)) == 2
