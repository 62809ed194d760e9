"""Headless Chromium (Debian's ``chromium``) driven by Playwright, for the report's tests and
its screenshots. No browser is downloaded: the system's is used. Without it or Playwright the
tests skip on a user's machine and FAIL under CI (``CI`` set)."""

from __future__ import annotations

import os
import shutil
from contextlib import contextmanager

import pytest

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


def require_browser():
    """The Playwright entry point, or a skip (a failure under CI) naming what is missing."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing = "Playwright (pip install -e '.[test]')"
    else:
        if chromium_path() is not None:
            return sync_playwright
        missing = "Chromium (apt-get install chromium)"
    if os.environ.get("CI"):
        pytest.fail(f"the browser tests need {missing}; CI must install it (.ci/run)")
    pytest.skip(f"needs {missing}")


@contextmanager
def browser_page(width: int = 1100, height: int = 900):
    """A page that records every JavaScript error and console error in ``page.errors``."""
    sync_playwright = require_browser()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.errors = []
            page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: page.errors.append(str(e)))
            page.on("request", lambda r: None if r.url.startswith(("file:", "data:")) else
                    page.errors.append(f"network request: {r.url}"))  # fmt: skip
            yield page
        finally:
            browser.close()
