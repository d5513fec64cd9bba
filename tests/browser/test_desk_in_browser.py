"""The moderation desk in a real browser: what a moderator opens fits the window,
in English and in Hebrew, at 1280 px and on a 360 px phone, and the action
buttons of a match's page leave its code readable.

Why: a moderator's trial found the buttons covering the match's code, the
reason box wider than a phone and the hands' commitments pushing a Hebrew page
to 1,514 px in a 1,280 px window."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from games.models import Match, Player
from games.services.write import moderation
from games.services.write.players import terminal_player

from ..pages_support import running_match, step

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.any_database]


@pytest.fixture
def match() -> Match:
    """A running match of Ann and two computer players, one hand over, one in play."""
    ann = terminal_player("ann", "Ann")
    match = running_match(ann, "to 500")
    while not match.hands.filter(ended_at__isnull=False).exists():
        step(match, ann)
    return Match.objects.get(pk=match.pk)


def desk_page(open_page, width: int, locale: str):
    """A tab logged in as a superuser, in ``locale``."""
    user = get_user_model().objects.create_superuser(f"root{width}{locale}", "root@example.com", "pw")
    client = Client()
    client.force_login(user)
    page = open_page(width, locale=locale)
    host = page.base_url.split("//")[1].split(":")[0]
    cookies = [{"name": settings.SESSION_COOKIE_NAME, "value": client.cookies[settings.SESSION_COOKIE_NAME].value}]
    cookies.append({"name": settings.LANGUAGE_COOKIE_NAME, "value": locale})
    page.context.add_cookies([{**cookie, "domain": host, "path": "/"} for cookie in cookies])
    return page


def uncovered(page, selector: str) -> bool:
    """Whether the element is the topmost thing at its own centre: nothing lies over it."""
    return page.tab.evaluate(
        """selector => {
            const element = document.querySelector(selector);
            const box = element.getBoundingClientRect();
            const top = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
            return element === top || element.contains(top);
        }""",
        selector,
    )


@pytest.mark.parametrize("locale", ["en", "he"])
@pytest.mark.parametrize("width", [1280, 360])
def test_the_desks_pages_fit_the_window_and_the_buttons_leave_the_code_readable(open_page, match, width, locale):
    page = desk_page(open_page, width, locale)
    player = Player.objects.get(display_name="Ann")
    pages = {
        "desk-matches": reverse("admin:games_match_changelist"),
        "desk-match": reverse("admin:games_match_change", args=[match.pk]),
        "desk-player": reverse("admin:games_player_change", args=[player.pk]),
        "desk-messages": reverse("admin:games_outbox_changelist"),
        "desk-events": reverse("admin:games_event_changelist"),
    }
    for name, path in pages.items():
        page.open(path)
        page.screenshot(f"{name}-{locale}")
        assert page.overflow() <= 0, f"{name} scrolls sideways at {width} px in {locale}"
    page.open(pages["desk-match"])
    assert uncovered(page, "#content h2"), "the match's code is under the action buttons"
    page.tab.click(".object-tools button[type=submit] >> nth=0")  # the first action: its form
    page.tab.wait_for_load_state("load")
    assert page.tab.locator("textarea[name=reason]").count() == 1
    page.screenshot(f"desk-action-{locale}")
    assert page.overflow() <= 0, f"the action's form scrolls sideways at {width} px in {locale}"
    assert page.errors == []
    moderation.abort(match, "root", "test")
    page.open(pages["desk-match"])
    page.screenshot(f"desk-match-aborted-{locale}")
    assert page.overflow() <= 0, f"a match whose deck is shown scrolls sideways at {width} px in {locale}"


@pytest.mark.parametrize("locale", ["en", "he"])
def test_the_desks_match_list_shows_every_column_at_1280_px_with_times_in_their_zone(open_page, match, locale):
    """Its Deadline column was cut off at 1280 px (the list scrolled inside its box),
    and its times said no zone ("Dec. 2, 2026, 7:48 a.m.")."""
    moderation.pause(match, "root")  # every time of the row filled in: paused, last move, deadline
    Match.objects.filter(pk=match.pk).update(deadline=match.last_move_at)
    page = desk_page(open_page, 1280, locale)
    page.open(reverse("admin:games_match_changelist"))
    page.screenshot(f"desk-match-list-{locale}")
    clipped = page.tab.evaluate("(list => list.scrollWidth - list.clientWidth)(document.querySelector('.results'))")
    assert clipped <= 0, f"the list is {clipped} px wider than its box"
    for column in ("paused", "last_move", "deadline_at"):
        said = page.tab.inner_text(f"#result_list td.field-{column}")
        assert said.endswith("UTC") and said.count(":") == 1, said
    assert page.errors == []
