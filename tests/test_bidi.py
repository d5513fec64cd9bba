"""Left-to-right tokens in Hebrew lines (games.text.bidi): cards, match codes, commands
and deadlines isolated, every line laid out right to left, other languages untouched.

The checks follow the Unicode bidirectional algorithm where it decides what a
reader sees: a paragraph takes the direction of its first strong letter, letters
inside an isolate not counted (rules P2, P3); inside an isolate a run is laid out
as written.
"""

from __future__ import annotations

import re
import unicodedata

import pytest
from django.conf import settings
from django.utils import translation

from games.contract.tables import SeatView
from games.models import Outbox
from games.text.bidi import LRI, PDI, RLM, is_rtl, isolate, isolate_label
from games.text.style import RICH, scores_line
from tests.conftest import play_move, refresh
from tests.fakes.telegram_api import _render as telegram_renders
from tests.telegram_harness import CARD

CODE = re.compile(r"#[A-Z0-9]{4,8}")
ISOLATES = ("\u2066", "\u2067", "\u2068")  # LRI, RLI, FSI


def paragraph_direction(line: str) -> str:
    """P2 and P3: the first strong letter outside isolates decides; none means left to right."""
    depth = 0
    for char in line:
        if char in ISOLATES:
            depth += 1
        elif char == PDI:
            depth = max(depth - 1, 0)
        elif not depth and unicodedata.bidirectional(char) in ("L", "R", "AL"):
            return "L" if unicodedata.bidirectional(char) == "L" else "R"
    return "L"


def isolated_runs(line: str) -> list[str]:
    return re.findall(f"{LRI}([^{PDI}]*){PDI}", line)


def outside_isolates(line: str) -> str:
    return re.sub(f"{LRI}[^{PDI}]*{PDI}", "", line)


def shown(text: str) -> str:
    """The text with its controls made visible, for readable failures."""
    return text.replace(LRI, "⟦").replace(PDI, "⟧").replace(RLM, "‹RLM›")


# Which languages ----------------------------------------------------------------------


def test_hebrew_is_the_only_right_to_left_language_gin3_speaks():
    assert {code for code, _name in settings.LANGUAGES if is_rtl(code)} == {"he"}


@pytest.mark.parametrize("code", ["he-il", "ar", "fa"])
def test_other_right_to_left_languages_and_regional_codes_are_known(code):
    assert is_rtl(code)


@pytest.mark.parametrize("code", ["", None, "xx", "en-gb"])
def test_unknown_or_left_to_right_codes_are_not_right_to_left(code):
    assert not is_rtl(code)


@pytest.mark.parametrize("language", ["en", "mk", "lt", "mr", "ms"])
def test_left_to_right_languages_are_left_untouched(language):
    text = "#K7Q2 hand 3\nalice: [7h 8h 9h] 2c 5d (7)\nYour move: draw, take, d CARD in 3h (29.11 16:30 UTC)"
    assert isolate(text, language) is text


# Real Hebrew lines -----------------------------------------------------------------------


def test_a_table_header_that_starts_with_the_match_code_reads_right_to_left():
    line = "#K7Q2 סיבוב 3"
    assert paragraph_direction(line) == "L", "without isolates the code turns the line around"
    isolated = isolate(line, "he")
    assert shown(isolated) == "⟦#K7Q2⟧ סיבוב ⟦3⟧"
    assert paragraph_direction(isolated) == "R"


def test_cards_and_counts_are_isolated_without_the_punctuation_of_the_sentence():
    assert shown(isolate("ערימה 7h, קופה 23", "he")) == "ערימה ⟦7h⟧, קופה ⟦23⟧"
    assert shown(isolate("התור של alice.", "he")) == "התור של ⟦alice⟧."
    assert shown(isolate("'7x' אינו קלף. קלפים נכתבים כך: 7h, 10d, Qs.", "he")) == (
        "⟦'7x'⟧ אינו קלף. קלפים נכתבים כך: ⟦7h, 10d, Qs⟧."
    )


def test_the_moves_and_the_deadline_each_stay_in_one_piece():
    line = "תורך עד 29.11 16:30 UTC (נותרו 3h): draw, take, d CARD, knock 6s(6), 9h(8)"
    assert isolated_runs(isolate(line, "he")) == ["29.11 16:30 UTC", "3h", "draw, take, d CARD, knock 6s(6), 9h(8)"]
    assert shown(isolate(line, "he")).endswith("(נותרו ⟦3h⟧): ⟦draw, take, d CARD, knock 6s(6), 9h(8)⟧")
    bold = "<b>תורך עד 16:30 UTC (נותרו 3h):</b> draw"
    assert shown(isolate(bold, "he")).endswith("(נותרו ⟦3h⟧):</b> ⟦draw⟧"), "the bold ends outside the isolate"


def test_a_command_with_its_arguments_is_one_run():
    line = "משחק חדש #K7Q2 (1d לתור, עד 100). חברים מצטרפים עם: join K7Q2. או הקלד bot להוספת שחקן מחשב."
    assert isolated_runs(isolate(line, "he")) == ["#K7Q2", "1d", "100", "join K7Q2", "bot"]


def test_a_hebrew_prefix_keeps_its_hyphen_outside_the_isolate():
    assert shown(isolate("הצטרפת ל-#K7Q2. המשחק מתחיל.", "he")) == "הצטרפת ל-⟦#K7Q2⟧. המשחק מתחיל."


def test_a_button_label_that_mixes_directions_is_isolated_and_a_lone_card_is_left_as_it_is():
    assert isolate_label("כן, פרוש מ-#GQLD", "he") == f"כן, פרוש מ-{LRI}#GQLD{PDI}"
    assert isolate_label("דפוק 9♣ (5)", "he") == f"דפוק {LRI}9♣ (5){PDI}"
    assert isolate_label("9♣", "he") == "9♣"
    assert isolate_label("Yes, resign #GQLD", "en") == "Yes, resign #GQLD"


def test_unmatched_brackets_belong_to_the_hebrew_around_them():
    assert shown(isolate("(אוטומטי: time ran out)", "he")) == "(אוטומטי: ⟦time ran out⟧)"
    assert shown(isolate("alice: [7h 8h 9h] 2c 5d (7) שלך", "he")) == "⟦alice: [7h 8h 9h] 2c 5d (7)⟧ שלך"


def test_a_line_of_left_to_right_tokens_alone_is_marked_right_to_left():
    isolated = isolate("alice: [7h 8h 9h] 2c 5d (7)\nalice(B)12 bob(C)3 carol(S)0", "he")
    assert shown(isolated) == "‹RLM›⟦alice: [7h 8h 9h] 2c 5d (7)⟧\n‹RLM›⟦alice(B)12 bob(C)3 carol(S)0⟧"
    assert all(paragraph_direction(line) == "R" for line in isolated.splitlines())


def test_suit_symbols_stay_with_their_cards():
    assert isolated_runs(isolate("Q♠ 10♦ [J♥ Q♥ K♥] בידך", "he")) == ["Q♠ 10♦ [J♥ Q♥ K♥]"]


def test_telegram_html_stays_valid_and_its_tags_are_not_isolated():
    html = isolate("<b>#K7Q2</b> סיבוב 3\n<b>תורך:</b> draw, take", "he")
    plain, entities = telegram_renders(html, "HTML")
    assert shown(plain) == "⟦#K7Q2⟧ סיבוב ⟦3⟧\nתורך: ⟦draw, take⟧"
    assert [entity["type"] for entity in entities] == ["bold", "bold"]


def test_a_character_reference_is_never_cut_by_an_isolate():
    html = isolate("בונוס ג&#x27;ין 25, Tom &amp; Jerry הצטרף", "he")
    plain, _entities = telegram_renders(html, "HTML")
    assert shown(plain) == "בונוס ג'ין ⟦25, Tom & Jerry⟧ הצטרף"


def test_isolating_twice_changes_nothing():
    text = "#K7Q2 סיבוב 3\nalice: [7h 8h 9h] 2c 5d (7)\nהתור של alice."
    once = isolate(text, "he")
    assert isolate(once, "he") == once


def test_a_name_with_a_bidi_override_cannot_turn_the_line_around():
    line = "התור של \u202eecila."
    isolated = isolate(line, "he")
    assert "\u202e" not in isolated
    assert shown(isolated) == "התור של ⟦ecila⟧."


@pytest.mark.django_db
def test_a_hebrew_scores_line_keeps_each_latin_name_with_its_own_score():
    """Hebrew's role marks are words between the entries: with the score after the
    mark, 'Dana (בחוץ) 0 Hard 1 (קופסה) 0' isolated '0 Hard 1' as one run, Dana's
    score read as Hard 1's."""
    seats = [SeatView("Dana", 0, "sitter", 12), SeatView("Hard 1", 1, "box", 0), SeatView("Hard 2", 2, "captain", 40)]
    with translation.override("he"):
        line = isolate(scores_line(seats, RICH), "he")
    runs = re.findall(f"{LRI}(.*?){PDI}", line)
    assert runs == ["Dana 12", "Hard 1 0", "Hard 2 40"], line


def test_every_card_and_code_a_hebrew_player_reads_is_isolated_and_every_line_runs_right_to_left(match3):
    """The renderer's own Hebrew tables, notices and results, on the terminal and on
    Telegram: after ``isolate``, no card or match code stands outside an isolate."""
    seats = list(match3.seats.select_related("player"))
    for seat in seats:
        seat.player.language = "he"
        seat.player.save(update_fields=["language"])
    first = Outbox.objects.order_by("-pk").first().pk
    while refresh(match3).hands.exclude(ended_at=None).count() == 0:
        play_move(match3)
    messages = list(Outbox.objects.filter(pk__gt=first, recipient__language="he"))
    assert {message.kind for message in messages} >= {"result"}, "a hand ended: its result was read"
    for message in messages:
        for line in isolate(message.text, "he").splitlines():
            if not line.strip():
                continue
            assert paragraph_direction(line) == "R", shown(line)
            loose = outside_isolates(line)
            assert not CARD.search(loose) and not CODE.search(loose), shown(line)
