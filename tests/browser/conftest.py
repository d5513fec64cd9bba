"""A real browser for the page tests: Playwright driving Debian's chromium.

Playwright's own browser download cannot work on this project's machines, so
the tests use the system's ``chromium`` (``.ci/run`` installs it with apt).
Without chromium or Playwright the browser tests are skipped, except under
``GIN3_REQUIRE_SERVICES=1`` (CI), where they fail. Screenshots go to
``var/screenshots/`` (git-ignored), for a person to look at; with
``GIN3_SCREENSHOTS=0`` none is taken (``.ci/run``, whose clone nobody looks
at: they cost a fifth of the page tests' time).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from django.conf import settings

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCREENSHOTS = Path(settings.BASE_DIR) / "var" / "screenshots"


def _missing(what: str) -> None:
    if os.environ.get("GIN3_REQUIRE_SERVICES") == "1":
        pytest.fail(f"GIN3_REQUIRE_SERVICES=1 but {what}")
    pytest.skip(what)


@pytest.fixture(scope="module")
def browser():
    """Chromium for one module's tests. Playwright's sync API keeps an event loop
    running in the test thread while it lives: Django refuses database calls
    there unless told it is deliberate, and the other tests' ``asyncio.run``
    would fail, so both last only as long as this fixture."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed (pip install -r requirements.txt)")
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        _missing("chromium is not installed (apt-get install -y chromium)")
    allowed = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
            yield browser
            browser.close()
    finally:
        if allowed is None:
            del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = allowed


@pytest.fixture(autouse=True)
def background_off(settings):
    settings.GIN3_BACKGROUND = "off"


# Every Content-Security-Policy violation on the page, reported to the test as it happens
# (the script runs before the page's own, injected by the browser: the policy does not
# apply to it).
REPORT_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (event) => {
  const where = `${event.sourceFile}:${event.lineNumber}`;
  window.gin3CspViolation(`${event.violatedDirective} blocked ${event.blockedURI || "inline"} at ${where}`);
});
"""


class Page:
    """A browser tab that remembers every console error, failed request and
    Content-Security-Policy violation."""

    def __init__(self, context, base_url: str) -> None:
        self.context = context
        self.base_url = base_url
        self.tab = context.new_page()
        self.errors: list[str] = []
        self.tab.on("console", lambda message: self.errors.append(message.text) if message.type == "error" else None)
        self.tab.on("pageerror", lambda error: self.errors.append(str(error)))
        self.tab.on("response", lambda r: self.errors.append(f"{r.status} {r.url}") if r.status >= 400 else None)
        self.tab.expose_function("gin3CspViolation", lambda text: self.errors.append(f"CSP violation: {text}"))
        self.tab.add_init_script(REPORT_VIOLATIONS)

    def open(self, path: str) -> None:
        self.tab.goto(self.base_url + path)
        self.tab.wait_for_load_state("load")

    def overflow(self) -> int:
        """How far the page is wider than the window: 0 when nothing scrolls sideways."""
        return self.tab.evaluate("document.documentElement.scrollWidth - window.innerWidth")

    def screenshot(self, name: str) -> None:
        if os.environ.get("GIN3_SCREENSHOTS") == "0":
            return
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        width = self.tab.viewport_size["width"]
        self.tab.screenshot(path=str(SCREENSHOTS / f"{name}-{width}.png"), full_page=True)


@pytest.fixture
def open_page(browser, live_server):
    """``open_page(width=360, locale="he", zone="Asia/Kolkata")``: a fresh tab on the live server."""
    contexts = []

    def make(width: int = 1280, locale: str = "en", zone: str = "UTC") -> Page:
        context = browser.new_context(viewport={"width": width, "height": 900}, locale=locale, timezone_id=zone)
        contexts.append(context)
        return Page(context, live_server.url)

    yield make
    for context in contexts:
        context.close()
