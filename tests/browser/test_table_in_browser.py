"""The table's page in a real browser (chromium through Playwright) against a live server:
a whole hand played by tapping on three pages (the captain in Telegram's Mini App, the
box and the sitter in browsers signed in with ``web``), a move typed on another channel
followed within one poll, forged, altered and expired initData refused, the personal
link refused the second time, a lost connection survived without a move done twice,
the keyboard alone, 360 px and right to left, axe-core finding nothing, and over a
whole match no response to any page naming a card its seat may not see."""

from __future__ import annotations

import contextlib
import json
import random
import re
import time
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.conf import settings as django_settings

from games.engine import Role, Roles
from games.models import Event, Match, Player
from games.services import handle
from games.services.write import play
from games.services.write.players import telegram_player, terminal_player

from ..conftest import best_action, mover, player_in_role, refresh, rig, snapshot
from ..web_support import BOT_TOKEN, cards_in_json, hidden_from, init_data, mini_app_path, sign_in_path
from .conftest import Page

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.any_database]

TELEGRAM_SCRIPT = "https://telegram.org/js/telegram-web-app.js"
FAKE_SCRIPT = (Path(__file__).parent.parent / "fakes" / "telegram-web-app.js").read_text()
POLL_SECONDS = 0.5
CAPTAIN = "7s 7h 7d 2c 3c 4c 9h 9d 9s 5d"  # draws Th from the stock and knocks with it: 5 left
BOX = "Ks Qs Js 8c 6h 5h Ah 2s Jd Qh"  # takes the upcard Kd, discards 8c


@pytest.fixture(autouse=True)
def table_settings(settings):
    settings.TELEGRAM_BOT_TOKEN = BOT_TOKEN
    settings.GIN3_TABLE_POLL_SECONDS = POLL_SECONDS


def fixed_roles(monkeypatch, box: int, captain: int, sitter: int) -> None:
    """The cut gives these seats these roles: a cut drawn from the first seed that does."""
    cut = play.cut_for_roles
    wanted = Roles(box=box, captain=captain, sitter=sitter)
    seed = next(seed for seed in range(1000) if cut(random.Random(seed))[0] == wanted)
    monkeypatch.setattr(play, "cut_for_roles", lambda _rng: cut(random.Random(seed)))


class Table(Page):
    """A tab on a player's table, and what it shows."""

    def __init__(self, context, base_url: str, player: Player) -> None:
        super().__init__(context, base_url)
        self.player = player
        self.responses: list[tuple[str, int, str]] = []  # (url, status, body) of what the page fetched
        context.route(TELEGRAM_SCRIPT, lambda route: route.fulfill(body=FAKE_SCRIPT, content_type="text/javascript"))
        self.tab.on("response", self._keep)

    def _keep(self, response) -> None:
        if "/t/" in response.url and response.request.method == "GET" and response.status != 304:
            with contextlib.suppress(Exception):  # a page that moved on before the body was read
                self.responses.append((response.url, response.status, response.text()))

    def open_in_telegram(self, match: Match, data: str | None = None, language: str = "en") -> Table:
        self.open(mini_app_path(match.code, data or init_data(self.player), language))
        return self

    def open_signed_in(self, match: Match) -> Table:
        self.open(sign_in_path(self.player))
        self.tab.click("main button[type=submit]")
        self.tab.wait_for_url(f"**/t/{match.code}/")
        self.tab.wait_for_selector("[data-table][data-version]")
        return self

    def shows(self, match: Match) -> None:
        """Wait until the page shows the match as it stands now."""
        match = refresh(match)
        version = f"{self.player.pk}.{match.version}.{match.event_count}"
        self.tab.wait_for_selector(f'[data-table][data-version="{version}"]', timeout=15000)

    def tap(self, selector: str) -> None:
        """Tap what is not a move (a card to choose)."""
        self.tab.locator(selector).first.tap()

    def play(self, selector: str) -> None:
        """Tap a move, and wait for the server's answer."""
        with self.tab.expect_response(lambda response: response.url.endswith("/play")):
            self.tab.locator(selector).first.tap()

    def command(self, command: str) -> str:
        return f'[data-command="{command}"]'

    def text(self, selector: str) -> str:
        return self.tab.locator(selector).first.inner_text()

    def axe_violations(self) -> list[str]:
        results = Axe().run(self.tab)
        return [
            f"{v['id']}: {v['help']}: {[node['target'] for node in v['nodes']]}" for v in results.response["violations"]
        ]


@pytest.fixture
def open_table(browser, live_server):
    contexts = []

    def make(player: Player, width: int = 360, locale: str = "en", zone: str = "UTC", **options) -> Table:
        context = browser.new_context(
            viewport={"width": width, "height": 800}, locale=locale, timezone_id=zone, has_touch=True, **options
        )
        contexts.append(context)
        return Table(context, live_server.url, player)

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def people(monkeypatch) -> dict[str, Player]:
    """Ann plays on Telegram (the captain of hand 1), Bob in a browser (the box), Cy in
    another (the sitter); their match is running."""
    fixed_roles(monkeypatch, box=1, captain=0, sitter=2)
    ann = telegram_player(user_id=7001, chat_id=7001, name="Ann")
    bob, cy = terminal_player("bob", "Bob"), terminal_player("cy", "Cy")
    code = re.search(r"#([A-Z0-9]{4,8})", handle(ann, "new", "telegram"))[1]
    handle(bob, f"join {code}", "terminal")
    handle(cy, f"join {code}", "terminal")
    match = Match.objects.get(code=code)
    assert (player_in_role(match, "captain"), player_in_role(match, "box")) == (ann, bob)
    return {"captain": ann, "box": bob, "sitter": cy, "match": match}


# A hand played by tapping ---------------------------------------------------------------------------


def test_a_whole_hand_is_played_by_tapping_for_the_captain_the_box_and_the_sitter(open_table, people):
    match = people["match"]
    rig(match, captain=CAPTAIN, box=BOX, upcard="Kd", stock="Th")
    captain = open_table(people["captain"]).open_in_telegram(match)
    box = open_table(people["box"]).open_signed_in(match)
    sitter = open_table(people["sitter"]).open_signed_in(match)
    for page in (captain, box, sitter):
        page.shows(match)
    assert "take the upcard" in captain.text("[data-status]")
    assert captain.tab.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(35, 46, 60)", "the theme"

    sitter.play(sitter.command("suggest pass"))  # the sitter advises
    captain.shows(match)
    assert "pass" in captain.text("[data-suggestion]")
    captain.play("[data-suggestion] button")  # the captain accepts
    captain.tab.locator("[data-said]", has_text="You played the sitter's suggestion: pass").wait_for(timeout=5000)
    box.shows(match)
    assert "take the upcard" in box.text("[data-status]")
    box.play("[data-pile] button")  # the box takes the upcard by tapping the pile
    box.shows(match)
    box.tap('[data-cards] button[data-card="8c"]')
    assert box.tab.get_attribute('[data-cards] button[data-card="8c"]', "aria-pressed") == "true"
    box.play(box.command("discard 8c"))
    sitter.shows(match)
    sitter.play("[data-stock] button")  # the sitter suggests a draw by tapping the stock
    captain.shows(match)
    captain.play("[data-stock] button")  # the captain draws himself
    captain.shows(match)
    captain.tap('[data-cards] button[data-card="Th"]')
    assert ["BackButton.show"] in captain.tab.evaluate("window.telegramCalls"), "Telegram's back button undoes a choice"
    assert captain.text(captain.command("knock Th")).endswith("(5)"), "the count as the text table shows it"
    captain.play(captain.command("knock Th"))

    moves = [event.data["move"] for event in Event.objects.filter(match=match, kind="move").order_by("seq")]
    assert moves == ["pass", "take", "discard 8c", "draw", "knock Th"]
    for page in (captain, box, sitter):
        page.shows(match)
        assert page.tab.locator("[data-result-section]").get_attribute("open") is not None
        assert "Knock: Ann scores" in page.text("[data-result-title]")
        assert page.errors == []
    calls = [call[0] for call in captain.tab.evaluate("window.telegramCalls")]
    assert {"ready", "expand", "HapticFeedback.selectionChanged", "HapticFeedback.impactOccurred"} <= set(calls)


def test_a_move_typed_on_another_channel_shows_at_the_pages_next_poll(open_table, people):
    match = people["match"]
    page = open_table(people["box"]).open_signed_in(match)
    page.shows(match)
    polls_before = len([url for url, status, _body in page.responses if "state.json" in url])
    seen = []
    page.tab.on("request", lambda request: seen.append(request.url) if "state.json" in request.url else None)
    handle(people["captain"], "pass", "telegram")  # by text, on Telegram
    page.shows(match)
    assert "take the upcard" in page.text("[data-status]")
    fetched = [url for url, status, _body in page.responses if "state.json" in url][polls_before:]
    assert len(fetched) == 1, "the first poll after the move brought it"
    assert len(seen) <= 2, "within one polling interval: at most the poll under way and the next"


# Who may ask ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("flaw", ["forged", "altered", "expired"])
def test_forged_altered_and_expired_init_data_is_refused_and_nothing_is_done(open_table, people, flaw):
    match = people["match"]
    ann = people["captain"]
    data = {
        "forged": init_data(ann, token="654321:another-bot"),
        "altered": init_data(ann).replace("7001", "7002"),
        "expired": init_data(ann, auth_date=time.time() - 2 * django_settings.TELEGRAM_INIT_DATA_MAX_AGE),
    }[flaw]
    before = snapshot(match)
    page = open_table(ann).open_in_telegram(match, data)
    page.tab.wait_for_selector("[data-status]:not(:text('Loading'))")
    said = page.text("[data-status]")
    assert ("too long ago" if flaw == "expired" else "signature") in said and "Nothing was done" in said
    assert page.tab.locator("[data-cards] .card").count() == 0
    answer = page.tab.evaluate(
        """([url, data]) => fetch(url, {method: "POST", headers: {"Authorization": "tma " + data,
            "Content-Type": "application/json"}, body: JSON.stringify({command: "take", key: "forged-key-1"})})
            .then(r => r.status)""",
        [f"/t/{match.code}/play", data],
    )
    assert answer == 403
    assert snapshot(match) == before
    assert all(status == 403 for url, status, _body in page.responses if "state.json" in url)


def test_the_personal_link_used_twice_is_refused(open_table, people):
    match = people["match"]
    bob = people["box"]
    link = sign_in_path(bob)
    first = open_table(bob)
    first.open(link)
    first.tab.click("main button[type=submit]")
    first.tab.wait_for_url(f"**/t/{match.code}/")
    second = open_table(bob)
    second.open(link)
    assert "does not work" in second.text("main")
    assert second.tab.locator("main button[type=submit]").count() == 0
    second.open(f"/t/{match.code}/")
    second.tab.wait_for_selector("[data-status]:not(:text('Loading'))")
    assert "not signed in" in second.text("[data-status]")


# A lost connection -------------------------------------------------------------------------------------------


def test_a_move_whose_answer_is_lost_is_sent_again_and_done_once(open_table, people):
    match = people["match"]
    page = open_table(people["box"]).open_signed_in(match)
    handle(people["captain"], "pass", "telegram")
    page.shows(match)
    lost = []

    def lose_the_answer(route):  # the move reaches the server, its answer never comes back
        if not lost:
            lost.append(route.fetch().status)
            route.abort("connectionreset")
        else:
            route.continue_()

    page.context.route("**/play", lose_the_answer)
    sent = []
    page.tab.on("request", lambda request: sent.append(request.url) if request.url.endswith("/play") else None)
    page.tab.evaluate(
        """() => { const net = document.querySelector("[data-net]"); window.warned = "";
        new MutationObserver(() => { if (!net.hidden) window.warned = net.textContent; })
        .observe(net, {attributes: true, childList: true}); }"""
    )
    page.tap("[data-pile] button")
    # Polled here, not with wait_for_function: the page's policy refuses the eval that runs its predicate.
    settled = "() => Boolean(window.warned) && document.querySelector('[data-net]').hidden"
    deadline = time.monotonic() + 20
    while not page.tab.evaluate(settled):
        assert time.monotonic() < deadline, "the move was not sent again, or the warning stayed"
        page.tab.wait_for_timeout(100)
    page.shows(match)
    assert lost == [200] and len(sent) == 2, "the move reached the server, and was sent again with its key"
    assert "Connection lost" in page.tab.evaluate("window.warned"), "he was told while it was sent again"
    assert [e.data["move"] for e in Event.objects.filter(match=match, kind="move")] == ["pass", "take"]


def test_the_page_follows_the_match_again_after_the_network_comes_back(open_table, people):
    match = people["match"]
    page = open_table(people["box"]).open_signed_in(match)
    page.context.set_offline(True)
    page.tab.wait_for_selector("[data-net]:not([hidden])", timeout=15000)
    handle(people["captain"], "pass", "telegram")
    page.context.set_offline(False)
    page.shows(match)
    assert "take the upcard" in page.text("[data-status]")


# The keyboard alone, phones, Hebrew, axe-core ------------------------------------------------------------------


def test_a_move_is_played_with_the_keyboard_alone(open_table, people):
    match = people["match"]
    rig(match, captain=CAPTAIN, box=BOX, upcard="Kd", stock="Th")
    page = open_table(people["captain"], width=1280).open_in_telegram(match)
    page.shows(match)

    def tab_to(selector: str) -> None:
        for _press in range(40):
            page.tab.keyboard.press("Tab")
            if page.tab.evaluate(f"document.activeElement.matches({json.dumps(selector)})"):
                return
        raise AssertionError(f"Tab never reached {selector}")

    tab_to("[data-pile] button")
    with page.tab.expect_response(lambda response: response.url.endswith("/play")):
        page.tab.keyboard.press("Enter")  # take the upcard
    page.shows(match)
    tab_to('[data-cards] button[data-card="5d"]')
    page.tab.keyboard.press("Space")
    assert page.tab.get_attribute('[data-cards] button[data-card="5d"]', "aria-pressed") == "true"
    assert page.tab.locator('[data-cards] button[data-card="5d"]').inner_text().split("\n")[-1] == "5 of diamonds"
    tab_to('[data-command="discard 5d"]')
    with page.tab.expect_response(lambda response: response.url.endswith("/play")):
        page.tab.keyboard.press("Enter")
    page.shows(match)
    assert [e.data["move"] for e in Event.objects.filter(match=match, kind="move")] == ["take", "discard 5d"]


@pytest.mark.parametrize("language", ["en", "he"])
def test_the_table_fits_a_phone_reads_right_to_left_in_hebrew_and_axe_finds_nothing(open_table, people, language):
    match = people["match"]
    for player in (people["captain"], people["box"], people["sitter"]):
        player.language = language
        player.save(update_fields=["language"])
    rig(match, captain=CAPTAIN, box=BOX, upcard="Kd", stock="Th")
    handle(people["sitter"], "suggest take", "terminal")
    handle(people["sitter"], "team the Kd fits", "terminal")
    handle(people["captain"], "accept", "telegram")
    pages = {
        "captain": open_table(people["captain"], 1280).open_in_telegram(match, language=language),
        "box": open_table(people["box"], 1280).open_signed_in(match),
        "sitter": open_table(people["sitter"], 1280).open_signed_in(match),
    }
    pages["captain"].shows(match)
    pages["captain"].tap('[data-cards] button[data-card="5d"]')
    pages["captain"].tab.locator("[data-so-far-section] summary").click()
    for width in (1280, 360):
        for role, page in pages.items():
            page.tab.set_viewport_size({"width": width, "height": 800})
            page.shows(match)
            assert page.tab.get_attribute("html", "dir") == ("rtl" if language == "he" else "ltr")
            assert page.tab.get_attribute("html", "lang") == language
            assert page.overflow() <= 0, f"{role} scrolls sideways at {width} px"
            if width == 360:
                smallest = page.tab.evaluate(
                    "Math.min(...[...document.querySelectorAll('[data-table] button')].filter(b => b.offsetParent)"
                    ".map(b => Math.min(b.getBoundingClientRect().width, b.getBoundingClientRect().height)))"
                )
                assert smallest >= 44, f"{role}: a button of {smallest} px is too small to tap"
            assert page.axe_violations() == [], f"{role} at {width} px"
            page.screenshot(f"table-{role}-{language}")
            assert page.errors == []


# No hidden card, for any seat, at any step of a whole match ---------------------------------------------------


@pytest.mark.slow
def test_no_response_to_any_page_names_a_hidden_card_over_a_whole_match(open_table, people, monkeypatch):
    """Three pages, one a seat, follow a whole match to 50 played by text; after each move
    every page fetches the table, and each response (the page, its script, its JSON) is
    checked against the cards its seat may not see at that moment."""
    from ..telegram_harness import fixed_deals

    match = people["match"]
    handle(people["captain"], "resign yes", "telegram")  # a short match of its own instead
    fixed_deals(monkeypatch, seed=8)
    ann, bob, cy = people["captain"], people["box"], people["sitter"]
    code = re.search(r"#([A-Z0-9]{4,8})", handle(ann, "new 5m to 50", "telegram"))[1]
    handle(bob, f"join {code}", "terminal")
    handle(cy, f"join {code}", "terminal")
    match = Match.objects.get(code=code)
    pages = {ann.pk: open_table(ann).open_in_telegram(match)}
    for player in (bob, cy):
        pages[player.pk] = open_table(player)
        pages[player.pk].open(sign_in_path(player))
        pages[player.pk].tab.click("main button[type=submit]")
        pages[player.pk].open(f"/t/{code}/")
    hidden_at: dict[str, dict[int, set[str]]] = {}
    positions = {seat.player_id: seat.position for seat in match.seats.all()}
    steps = 0
    while refresh(match).status == Match.Status.RUNNING:
        match = refresh(match)
        hidden_at[f"{match.version}.{match.event_count}"] = hidden_from(match)
        for page in pages.values():
            page.shows(match)
        handle(mover(match), str(best_action(match)), "terminal")
        steps += 1
    for player_id, page in pages.items():
        page.shows(match)
        for url, status, body in page.responses:
            if url.endswith(f"/t/{code}/") or "?lang=" in url:
                assert cards_in_json({"page": body}) == set(), "the page itself holds no card"
                continue
            if status != 200 or "state.json" not in url:
                continue
            seen = json.loads(body)
            moment = seen["version"].split(".", 1)[1]
            if seen["status"] != Match.Status.RUNNING or moment not in hidden_at:
                continue
            leaked = cards_in_json(seen) & hidden_at[moment][positions[player_id]]
            assert not leaked, f"{Player.objects.get(pk=player_id)} was shown {leaked} at {moment}"
            if seen["table"]["role"] == Role.BOX.value:
                assert seen["team"] == [] and seen["table"]["suggestion"] == ""
    script = pages[ann.pk].tab.evaluate("fetch('/static/games/table.js').then(r => r.text())")
    assert not re.search(r"[\"'](?:10|[2-9TJQKA])[shdc][\"']", script), "the script names no card"
    checked = sum(len(page.responses) for page in pages.values())
    assert steps > 20 and checked > 3 * steps
