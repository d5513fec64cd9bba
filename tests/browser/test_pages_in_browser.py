"""The pages in a real browser (chromium through Playwright) against a live
server: they render without a console error and fit a 360 px phone, a replay
steps through the right cards, the deck check computes SHA-256 in the page,
the live table follows a move made through ``handle``, Hebrew reads right to
left, and at no point of a live hand does a page or the JSON show a hidden card."""

from __future__ import annotations

from datetime import UTC, datetime
from itertools import pairwise

import pytest
from django.urls import reverse

from games.models import Match, Player
from games.services.read.public import public_match_view
from games.services.write import moderation
from games.services.write.players import terminal_player
from games.text.card_names import card_name

from ..pages_support import cards_on, finished_match, running_match, secret_cards, step

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.any_database]
WIDTHS = (1280, 360)


@pytest.fixture
def ann(transactional_db) -> Player:
    return terminal_player("ann", "Ann")


def ranked_people() -> list[Player]:
    """Players with enough finished matches to be ranked, and a computer."""
    people = [Player.objects.create(display_name=name) for name in ("Rūta", "Dmitri", "Eitan", "Amira")]
    bot = Player.objects.create(display_name="Bot 1", is_computer=True, strength="normal")
    for round_ in range(6):
        a, b, c = people[round_ % 4], people[(round_ + 1) % 4], people[(round_ + 2) % 4]
        finished_match([a, b, c], [100, 40 + round_, 10], a, days_ago=round_ * 9)
        finished_match([a, b, bot], [30, 60, 100], bot)
    return people


def with_finished_hands(player: Player, hands: int = 2) -> Match:
    """A running match (to 500) of ``player`` and two computers with ``hands`` hands over."""
    match = running_match(player, "to 500")
    while match.hands.filter(ended_at__isnull=False).count() < hands:
        step(match, player)
    return Match.objects.get(pk=match.pk)


def cards_in(page, selector: str) -> list[str]:
    return page.tab.eval_on_selector_all(f"{selector} [data-card]", "cards => cards.map(c => c.dataset.card)")


# Every page ----------------------------------------------------------------------------


@pytest.mark.slow
def test_every_page_renders_without_console_errors_and_fits_360_px(open_page, ann):
    people = ranked_people()
    finished = with_finished_hands(ann, 2)
    moderation.adjudicate(finished, 0, "root", "test")
    running = with_finished_hands(terminal_player("bea", "Bea"), 1)
    lobby = running_match(terminal_player("cy", "Cy"))  # its seats fill at once: make a waiting one too
    moderation.abort(lobby, "root", "test")
    from games.services import handle

    handle(terminal_player("dee", "Dee"), "new to 150", "terminal")
    Match.objects.filter(status=Match.Status.LOBBY).update(is_open=True)
    pages = {
        "scoreboard": reverse("games:scoreboard"),
        "scoreboard-30-days": reverse("games:scoreboard") + "?period=30d",
        "player": reverse("games:player", args=[people[0].pk]),
        "player-computer": reverse("games:player", args=[Player.objects.get(display_name="Bot 1").pk]),
        "match-finished": reverse("games:match", args=[finished.code]),
        "match-running": reverse("games:match", args=[running.code]),
        "lobby": reverse("games:lobby"),
    }
    # Lithuanian's words are long and its table headings too (PRALAIMĖJIMAI): at 360 px as well.
    for width, locale in [*((width, "en") for width in WIDTHS), (360, "lt")]:
        page = open_page(width, locale=locale)
        for name, path in pages.items():
            page.open(path)
            page.screenshot(f"{name}-{locale}")
            assert page.overflow() <= 0, f"{name} scrolls sideways at {width} px in {locale}"
        assert page.errors == []


def test_hebrew_pages_are_laid_out_right_to_left(open_page, ann):
    ranked_people()
    match = with_finished_hands(ann, 1)
    for width in WIDTHS:
        page = open_page(width, locale="he")
        for name, path in (
            ("scoreboard-he", reverse("games:scoreboard")),
            ("match-he", reverse("games:match", args=[match.code])),
        ):
            page.open(path)
            assert page.tab.get_attribute("html", "dir") == "rtl"
            assert page.tab.evaluate("getComputedStyle(document.body).direction") == "rtl"
            brand = page.tab.locator(".brand").bounding_box()
            assert brand["x"] > width / 2, "the header starts on the right"
            assert page.overflow() <= 0
            page.screenshot(name)
        assert page.errors == []


def test_the_language_switcher_changes_the_language_without_script(open_page, ann):
    page = open_page()
    page.context.route("**/*.js", lambda route: route.abort())  # the form needs no script
    page.open(reverse("games:scoreboard"))
    page.tab.select_option("#language", "he")
    page.tab.click(".language button")
    page.tab.wait_for_load_state("load")
    assert page.tab.get_attribute("html", "lang") == "he"


# Replays and the deck check ---------------------------------------------------------------


def test_stepping_through_a_replay_shows_the_right_cards_at_each_step(open_page, ann):
    match = with_finished_hands(ann, 1)
    hand = public_match_view(match, 1).hands[0]
    page = open_page()
    page.open(reverse("games:match", args=[match.code]) + "?hand=1")
    replay = "[data-replay]"
    steps = len(hand.steps) + (1 if hand.summary.get("knocker_cards") else 0)
    for index in range(steps):
        step_ = hand.steps[min(index, len(hand.steps) - 1)]
        assert page.tab.get_attribute(replay, "data-step") == str(index)
        assert cards_in(page, '[data-hand="box"]') == [str(card) for card in step_.box]
        assert cards_in(page, '[data-hand="captain"]') == [str(card) for card in step_.captain]
        assert cards_in(page, "[data-top]") == ([str(step_.pile_top)] if step_.pile_top is not None else [])
        if index % 2:
            page.tab.click('[data-go="next"]')
        else:
            page.tab.focus(replay)
            page.tab.keyboard.press("ArrowRight")
    page.tab.keyboard.press("Home")
    assert page.tab.get_attribute(replay, "data-step") == "0"
    first = hand.steps[0].box[0]
    named = page.tab.get_attribute(f'[data-hand="box"] [data-card="{first}"]', "title")
    assert named == card_name(first), "a card the replay draws is named as the page's own cards are"
    page.tab.keyboard.press("End")
    assert page.tab.get_attribute(replay, "data-step") == str(steps - 1)
    if hand.summary.get("knocker_cards"):
        assert "deadwood" in page.tab.inner_text("[data-said]")
    assert page.errors == []


def test_the_page_checks_the_deck_against_its_commitment_and_catches_an_altered_deck(open_page, ann):
    match = with_finished_hands(ann, 1)
    row = match.hands.get(number=1)
    page = open_page()
    page.open(reverse("games:match", args=[match.code]) + "?hand=1")
    page.tab.wait_for_selector("[data-verify][data-result]")
    assert page.tab.get_attribute("[data-verify]", "data-result") == "match"
    assert "match the commitment" in page.tab.inner_text("[data-verify]")
    # The fallback for pages without crypto.subtle computes the same hash.
    assert page.tab.evaluate("gin3Sha256Fallback('abc')") == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )
    assert page.tab.evaluate(f"gin3Sha256Fallback('{row.salt}:{row.deck}')") == row.commitment

    cards = row.deck.split()
    altered = " ".join([cards[1], cards[0], *cards[2:]])
    page.tab.evaluate(f"document.querySelector('[data-deck]').textContent = '{altered}'")
    page.tab.click("[data-check]")
    page.tab.wait_for_selector('[data-verify][data-result="mismatch"]')
    assert "Does not match" in page.tab.inner_text("[data-verify]")


# The live table --------------------------------------------------------------------------------


def test_the_live_table_follows_a_move_made_through_handle_without_a_reload(open_page, ann):
    match = running_match(ann, "to 500")
    while not any(move.automatic for move in public_match_view(Match.objects.get(pk=match.pk)).table.moves):
        step(match, ann)  # until a computer's move carries its note, "(computer)"
    page = open_page()
    page.open(reverse("games:match", args=[match.code]))
    page.tab.evaluate("window.stillTheSamePage = true")
    version = page.tab.get_attribute("[data-live]", "data-version")
    step(match, ann)
    # A selector, not wait_for_function: the page's policy refuses the eval that runs its predicate.
    page.tab.locator(f"[data-live]:not([data-version='{version}'])").wait_for(timeout=15000)
    assert page.tab.evaluate("window.stillTheSamePage") is True
    view = public_match_view(Match.objects.get(pk=match.pk))
    assert page.tab.inner_text("[data-to-move]") == view.table.to_move
    assert page.tab.inner_text("[data-stock]") == str(view.table.stock_count)
    assert page.tab.locator("[data-moves] li").count() == len(view.table.moves) >= 1
    followed = page.tab.inner_text("[data-moves]")
    page.open(reverse("games:match", args=[match.code]))
    assert page.tab.inner_text("[data-moves]") == followed  # helper-36: the notes went with the update
    assert page.errors == []


def test_a_time_on_a_page_is_said_in_the_readers_own_zone(open_page, ann):
    match = running_match(ann)
    until = datetime(2031, 3, 4, 22, 30, tzinfo=UTC)  # 04:00 on the 5th in Kolkata (+5:30)
    Player.objects.filter(pk=ann.pk).update(away_until=until)
    page = open_page(zone="Asia/Kolkata")
    page.open(reverse("games:match", args=[match.code]))
    said = page.tab.inner_text("[data-away] time")
    assert "UTC" not in said and "4:00" in said and "5" in said, said
    assert page.errors == []


@pytest.mark.slow
def test_r4_4_no_page_or_json_shows_a_hidden_card_at_any_point_of_a_live_hand(open_page, ann):
    """An exhaustive walk of one live hand: after every move, the match page as
    the browser shows it (scripts run) and the live JSON."""
    match = running_match(ann, "to 500")
    page = open_page()
    live = reverse("games:live", args=[match.code])
    checked = 0
    while not match.hands.filter(ended_at__isnull=False).exists():
        secret = secret_cards(match)
        page.open(reverse("games:match", args=[match.code]))
        shown = page.tab.content()
        answer = page.tab.request.get(page.base_url + live).text()
        assert not cards_on(shown) & secret, f"a hidden card on the page after {checked} moves"
        assert not cards_on(answer) & secret, f"a hidden card in the JSON after {checked} moves"
        assert match.hands.get(number=1).salt not in shown + answer
        step(match, ann)
        checked += 1
    assert checked >= 3
    assert page.errors == []


# What a person reported, checked as he saw it ------------------------------------------------

# The text of ``selector`` where one of ``tokens`` is laid out over more than one line.
BROKEN_TOKENS = """([selector, tokens]) => {
  const broken = [];
  document.querySelectorAll(selector).forEach((root) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const token of tokens) {
        for (let at = node.data.indexOf(token); at >= 0; at = node.data.indexOf(token, at + 1)) {
          const range = document.createRange();
          range.setStart(node, at);
          range.setEnd(node, at + token.length);
          const rects = [...range.getClientRects()].filter((rect) => rect.width > 0);
          if (rects.some((rect) => Math.abs(rect.top - rects[0].top) > rects[0].height / 2)) broken.push(token);
        }
      }
    }
  });
  return broken;
}"""


def test_cards_names_and_the_hashs_name_never_break_across_lines(open_page, ann):
    match = with_finished_hands(ann, 1)
    Player.objects.filter(pk=ann.pk).update(display_name="Ann Maria Cruz")
    names = ["Ann Maria Cruz", "Bot 1", "Bot 2"]
    deck = match.hands.get(number=1).deck.split()
    path = reverse("games:match", args=[match.code]) + "?hand=1"
    for locale, hash_name in (("en", "SHA-256"), ("he", "ה-SHA-256")):
        for width in WIDTHS:
            page = open_page(width, locale=locale)
            page.open(path)
            page.tab.wait_for_selector("[data-verify][data-result]")
            page.screenshot(f"match-replay-{locale}")
            for narrower in range(width, width - 48, -4):  # wherever the lines happen to end
                page.tab.set_viewport_size({"width": narrower, "height": 900})
                where = f"{locale} {narrower} px"
                assert page.tab.evaluate(BROKEN_TOKENS, ["[data-deck]", deck]) == [], where
                assert page.tab.evaluate(BROKEN_TOKENS, [".verify-box", [hash_name]]) == [], where
                assert page.tab.evaluate(BROKEN_TOKENS, [".hand", names]) == [], where
            assert page.errors == []


def test_a_rating_change_reads_from_before_to_after_in_hebrew_too(open_page):
    people = ranked_people()
    page = open_page(360, locale="he")
    page.open(reverse("games:player", args=[people[0].pk]))
    changes = page.tab.evaluate(
        """() => {
          const found = [];
          const walker = document.createTreeWalker(document.querySelector("main"), NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const run = /(\\d+) → (\\d+)/.exec(node.data);
            if (!run) continue;
            const place = (start, length) => {
              const range = document.createRange();
              range.setStart(node, start);
              range.setEnd(node, start + length);
              return range.getBoundingClientRect().left;
            };
            const before = place(run.index, run[1].length);
            const after = place(run.index + run[0].length - run[2].length, run[2].length);
            found.push(before < after);
          }
          return found;
        }"""
    )
    assert changes and all(changes), "a rating change must read 1006 → 938, left to right"
    page.screenshot("player-he")
    assert page.errors == []


# Which way the icon of a replay's button points on the screen: a scan across its upper
# half finds the filled part of a triangle on the side of its base, away from its tip.
POINTING = """(selector) => {
  const icon = document.querySelector(selector + " svg");
  if (!icon) return "no icon";
  icon.scrollIntoView({ block: "center" });
  const box = icon.getBoundingClientRect();
  if (box.width < 4 || box.height < 4) return "not drawn";
  const y = box.top + box.height * 0.35;
  let filled = 0, sum = 0;
  for (let x = box.left + 0.5; x < box.right; x += 0.5) {
    const hit = document.elementFromPoint(x, y);
    if (hit && icon.contains(hit) && hit !== icon) { filled += 1; sum += x; }
  }
  if (!filled) return "empty";
  return sum / filled < box.left + box.width / 2 ? "right" : "left";
}"""


@pytest.mark.parametrize("locale", ["en", "he"])
def test_a_replays_buttons_point_the_way_they_move(open_page, ann, locale):
    match = with_finished_hands(ann, 1)
    page = open_page(360, locale=locale)
    page.open(reverse("games:match", args=[match.code]) + "?hand=1")
    forward, back = ("left", "right") if locale == "he" else ("right", "left")
    assert page.tab.evaluate(POINTING, '[data-go="next"]') == forward
    assert page.tab.evaluate(POINTING, '[data-go="prev"]') == back
    go = {name: page.tab.locator(f'[data-go="{name}"]').bounding_box() for name in ("first", "prev", "next", "last")}
    order = sorted(go, key=lambda name: go[name]["x"])
    assert order == (["last", "next", "prev", "first"] if locale == "he" else ["first", "prev", "next", "last"])
    transform = "getComputedStyle(document.querySelector('[data-go=\"{}\"] svg')).transform"
    for end, beside in (("first", "prev"), ("last", "next")):  # drawn as its neighbour is, with a bar
        assert page.tab.evaluate(transform.format(end)) == page.tab.evaluate(transform.format(beside))
        assert page.tab.locator(f'[data-go="{end}"] svg').bounding_box()["width"] >= 8
        assert page.tab.get_attribute(f'[data-go="{end}"]', "aria-label")
    assert "⏮" not in page.tab.inner_text("[data-replay]") and "⏭" not in page.tab.inner_text("[data-replay]")
    page.tab.click('[data-go="next"]')
    assert page.tab.get_attribute("[data-replay]", "data-step") == "1"
    page.tab.focus("[data-replay]")
    page.tab.keyboard.press("ArrowLeft" if locale == "he" else "ArrowRight")  # the key the arrow shows
    assert page.tab.get_attribute("[data-replay]", "data-step") == "2"
    page.screenshot(f"replay-buttons-{locale}")
    assert page.errors == []


# Where each end label of a chart lies against its dot and the other labels.
CHART_LABELS = """() => [...document.querySelectorAll("svg.chart text.label")].map((label) => {
  const dot = label.previousElementSibling.getBoundingClientRect();
  const box = label.getBoundingClientRect();
  return { left: box.left, right: box.right, top: box.top, bottom: box.bottom, dotRight: dot.right };
})"""


@pytest.mark.parametrize("locale", ["en", "he"])
def test_a_charts_end_labels_sit_beside_their_dots_and_apart(open_page, ann, locale):
    people = ranked_people()
    match = with_finished_hands(ann, 1)
    for width in WIDTHS:
        page = open_page(width, locale=locale)
        for path in (reverse("games:player", args=[people[0].pk]), reverse("games:match", args=[match.code])):
            page.open(path)
            labels = page.tab.evaluate(CHART_LABELS)
            assert labels, path
            for label in labels:
                assert label["left"] >= label["dotRight"], f"{locale} {width}: a label on its dot"
            for index, one in enumerate(labels):
                for other in labels[index + 1 :]:
                    apart = one["bottom"] <= other["top"] + 1 or other["bottom"] <= one["top"] + 1
                    assert apart or one["right"] <= other["left"] or other["right"] <= one["left"], f"{locale} {width}"
            ticks = page.tab.eval_on_selector_all(
                "svg.chart text:not(.label)[text-anchor=end]", "ticks => ticks.map(t => t.textContent)"
            )
            step = {int(b) - int(a) for a, b in pairwise(ticks)}
            assert len(step) == 1 and str(step.pop()).lstrip("0").rstrip("0") in ("1", "2", "5"), ticks
        page.screenshot(f"charts-{locale}")
        assert page.errors == []


@pytest.mark.parametrize("locale", ["en", "he"])
def test_the_lobby_says_the_time_a_move_and_its_rows_stand_off_the_border(open_page, ann, locale):
    from games.services import handle

    handle(ann, "new 1h to 150", "terminal")
    Match.objects.update(is_open=True)
    for width in WIDTHS:
        page = open_page(width, locale=locale)
        page.open(reverse("games:lobby"))
        if locale == "en":
            assert "1h a move" in page.tab.inner_text("main")
        else:
            assert "1h" in page.tab.inner_text("main .list")
        row = page.tab.locator(".list li .code").first.bounding_box()
        panel = page.tab.locator(".list").first.evaluate(
            "list => { const box = list.closest('.panel').getBoundingClientRect(); return [box.left, box.right]; }"
        )
        gap = row["x"] - panel[0] if locale == "en" else panel[1] - (row["x"] + row["width"])
        assert gap >= 8, f"{locale} {width}: the row touches the border"
        page.screenshot(f"lobby-{locale}")
        assert page.errors == []


# The Content-Security-Policy ------------------------------------------------------------


def test_the_policy_refuses_a_script_written_into_a_page_and_the_test_hears_of_it(open_page, ann):
    """Every test above also fails on any violation: here one is made on purpose, as an
    injected script would be, to show the policy holds and the tests would hear of it."""
    page = open_page()
    page.open(reverse("games:scoreboard"))
    inject = "const s = document.createElement('script'); s.textContent = 'window.ran = 1'; document.head.append(s);"
    page.tab.evaluate(f"() => {{ {inject} }}")
    page.tab.wait_for_timeout(200)
    assert page.tab.evaluate("window.ran") is None
    assert any(error.startswith("CSP violation: script-src") for error in page.errors), page.errors


# What a newcomer met: keys, labels, a missing page ---------------------------------------------


@pytest.mark.parametrize("locale", ["en", "he"])
def test_the_replay_keys_work_without_a_button_having_the_focus(open_page, ann, locale):
    """The page said "Keys: ← and →" and they did nothing until a replay button had the focus."""
    match = with_finished_hands(ann, 1)
    page = open_page(locale=locale)
    page.open(reverse("games:match", args=[match.code]) + "?hand=1")
    replay = "[data-replay]"
    forward, back = ("ArrowLeft", "ArrowRight") if locale == "he" else ("ArrowRight", "ArrowLeft")
    assert page.tab.evaluate("document.activeElement === document.body")
    page.tab.keyboard.press(forward)
    page.tab.keyboard.press(forward)
    assert page.tab.get_attribute(replay, "data-step") == "2"
    page.tab.keyboard.press(back)
    assert page.tab.get_attribute(replay, "data-step") == "1"
    page.tab.keyboard.press("End")  # the page's own: it scrolls, the replay stays
    assert page.tab.get_attribute(replay, "data-step") == "1"
    page.tab.focus("#language")
    page.tab.keyboard.press(forward)  # in a field, a key is the field's
    assert page.tab.get_attribute(replay, "data-step") == "1"
    page.tab.click("[data-said]")  # the replay has the focus: Home and End jump, as the hint says
    page.tab.keyboard.press("End")
    steps = page.tab.inner_text("[data-where]").split("/")[1].strip()
    assert page.tab.get_attribute(replay, "data-step") == str(int(steps) - 1)
    page.tab.keyboard.press("Home")
    assert page.tab.get_attribute(replay, "data-step") == "0"
    if locale == "en":
        assert page.tab.inner_text(f"{replay} p.muted") == (
            "Keys: ← and → step; Home and End jump once the replay has the focus (click it)."
        )
    assert page.errors == []


def test_the_replays_stock_count_and_a_finished_matchs_roles_are_labelled(open_page, ann):
    """ "Pile 5♣ · 31": 31 what? And the role column was empty once the match was over."""
    match = with_finished_hands(ann, 1)
    moderation.adjudicate(match, 0, "root", "test")
    page = open_page()
    page.open(reverse("games:match", args=[match.code]) + "?hand=1")
    pile = page.tab.locator("[data-replay] .row", has=page.tab.locator("[data-stock-count]"))
    assert pile.inner_text().endswith("· Cards in the stock: 31")
    page.tab.keyboard.press("ArrowRight")
    stock = public_match_view(match, 1).hands[0].steps[1].stock_count
    assert pile.inner_text().endswith(f"· Cards in the stock: {stock}")
    assert page.tab.text_content("[data-seats] thead th:nth-child(2)") == "Role in the last hand"
    roles = page.tab.eval_on_selector_all("[data-seats] [data-role]", "cells => cells.map(c => c.textContent)")
    assert sorted(roles) == ["box", "captain", "sitter"]
    assert page.errors == []


@pytest.mark.parametrize("locale", ["en", "he"])
def test_a_missing_page_is_the_sites_own_page_in_the_readers_language(open_page, locale):
    """It was Django's bare "Not Found", unstyled and in English."""
    page = open_page(360, locale=locale)
    response = page.tab.goto(page.base_url + "/m/ZZZZ/")
    assert response.status == 404
    assert page.tab.locator("header.top .brand").is_visible()
    assert page.tab.evaluate("getComputedStyle(document.querySelector('header.top')).display") != "inline"
    assert page.tab.get_attribute("html", "lang") == locale
    heading = page.tab.inner_text("h1")
    assert (heading == "Page not found") is (locale == "en")
    page.tab.click(f"main a[href='{reverse('games:lobby')}']")
    page.tab.wait_for_load_state("load")
    assert page.tab.url.endswith(reverse("games:lobby"))
    assert page.overflow() <= 0
    page.screenshot(f"not-found-{locale}")
    assert [error for error in page.errors if "404" not in error] == []


# The review of a finished hand (issue 19) ----------------------------------------------------------


def test_the_match_page_marks_a_persons_move_the_hard_level_would_have_played_otherwise(open_page, ann, monkeypatch):
    """The review, computed after the hand and stored once, shows beside the move it is
    about, with what the hard level would have played, what that was worth, and why."""
    from games.engine.advice import Appraisal, Reason
    from games.models import Event, Hand
    from games.services.write import review

    def prefers_a_draw(view, level="hard", rng=None, budget=None, weigh=()):
        choice = next((action for action in view.legal_actions if str(action) == "draw"), view.legal_actions[-1])
        return Appraisal(
            choice, {action: 1.5 if action == choice else 0.0 for action in view.legal_actions}, Reason.GIN
        )

    monkeypatch.setattr(review, "appraise", prefers_a_draw)
    match = running_match(ann, "to 500")
    while not Hand.objects.filter(match=match, ended_at__isnull=False, events__actor=ann).exists():
        step(match, ann)
    row = Hand.objects.filter(match=match, ended_at__isnull=False, events__actor=ann).first()
    assert review.review_hand(row.pk) and not review.review_hand(row.pk)
    row.refresh_from_db()
    assert row.review["marks"], "a safe move is never what this reviewer prefers every time"
    moves = list(row.events.filter(kind=Event.Kind.MOVE).order_by("seq"))
    page = open_page(360)
    page.open(reverse("games:match", args=[match.code]) + f"?hand={row.number}")
    first = row.review["marks"][0]
    assert moves[first["index"]].actor == ann
    for _step in range(first["index"] + 1):  # the replay, stepped to that move, says it too
        page.tab.click('[data-go="next"]')
    said = page.tab.locator("p[data-said]").inner_text()
    assert "— the hard level would have " in said, said
    worth = f"worth {first['points']:.1f} points more on average"
    assert said.endswith(f": by its estimate, {worth}, because it goes gin"), said
    assert page.tab.locator("details.all-moves").get_attribute("open") is not None, "marks are not folded away"
    marked = page.tab.locator("[data-steps] li:has([data-review])")
    assert marked.count() == len(row.review["marks"])
    assert marked.nth(0).is_visible() and page.tab.locator("[data-review-note]").is_visible()
    assert page.overflow() <= 0
    page.screenshot("match-review")
    assert page.errors == []
