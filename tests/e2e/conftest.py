"""Browser tests: Debian's Chromium driven by Playwright against pytest-django's live
server. Nothing downloads a browser: ``make test-e2e`` installs the distribution
package (asking apt as root), and Playwright is launched with its ``executable_path``.

Without the browser, ``make test`` leaves these tests out with one line saying so; when
they are asked for (``KGSITE_E2E=1``: ``make test-e2e``, CI) a missing browser fails the
run instead of passing it quietly.

Each test saves a full-page screenshot when it fails (its path is printed in the report).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import curators_group

CHROMIUM = os.environ.get("KGSITE_CHROMIUM", "/usr/bin/chromium")
PASSWORD = "e2e-curator-pass"
ASKED = os.environ.get("KGSITE_E2E", "") == "1"
_LEFT_OUT = pytest.StashKey[str]()


def _no_browser() -> str:
    """Why the browser tests cannot run here, or "" when they can."""
    if Path(CHROMIUM).exists() or shutil.which(CHROMIUM):
        return ""
    return f"no browser at {CHROMIUM} (Debian's chromium package; `make test-e2e` installs it)"


def pytest_collection_modifyitems(config, items):
    missing = _no_browser()
    browser_tests = [item for item in items if item.get_closest_marker("e2e")]
    if not missing or not browser_tests:
        return
    if ASKED:
        raise pytest.UsageError(f"KGSITE_E2E=1 asks for the browser tests, but {missing}")
    # One line for all of them rather than a SKIPPED line per test.
    items[:] = [item for item in items if not item.get_closest_marker("e2e")]
    config.hook.pytest_deselected(items=browser_tests)
    config.stash[_LEFT_OUT] = f"{len(browser_tests)} browser tests: {missing}"


def pytest_terminal_summary(terminalreporter, config):
    left_out = config.stash.get(_LEFT_OUT, "")
    if left_out:
        terminalreporter.write_line(f"SKIPPED {left_out}", yellow=True)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)


@pytest.fixture(scope="module")
def browser():
    """One browser per module. Playwright's sync API keeps an event loop running in the
    test thread while it is open, so it closes with the module: later tests (asyncio,
    Django's async-safety checks) must not find a loop or the flag below left behind."""
    missing = _no_browser()
    if missing:
        pytest.skip(missing)
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[dev]'")
    # The ORM calls the tests make to set up data are synchronous and safe in this thread.
    before = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_api.sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=CHROMIUM, args=["--no-sandbox", "--disable-dev-shm-usage"]
            )
            yield browser
            browser.close()
    finally:
        if before is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = before


@pytest.fixture
def page(browser, request, tmp_path):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(15_000)
    page = context.new_page()
    yield page
    failed = getattr(request.node, "rep_call", None)
    if failed is not None and failed.failed:
        shot = tmp_path / f"{request.node.name}.png"
        page.screenshot(path=str(shot), full_page=True)
        print(f"\nscreenshot of the failure: {shot}")
    context.close()


@pytest.fixture
def e2e_curator(transactional_db, django_user_model):
    user = django_user_model.objects.create_user("ada", password=PASSWORD)
    user.groups.add(curators_group())
    return user


def log_in(page, live_server, user, *, path: str = "/") -> None:
    """Log in through the login page as a new curator would."""
    page.goto(f"{live_server.url}{path}")
    page.get_by_label("Username").fill(user.username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_load_state("networkidle")
