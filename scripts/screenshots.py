"""Make the README's screenshots of the HTML report (docs/images/) with the browser the tests use.

    python scripts/screenshots.py

Plays a small run of the bundled bots into a temporary database (fixed seed), writes its report,
opens it in headless Chromium and saves the leaderboard page and the replay viewer.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.browser import browser_page  # noqa: E402


def main() -> None:
    images = ROOT / "docs" / "images"
    images.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        shutil.copytree(ROOT / "bots", work / "bots")
        arena = [sys.executable, "-m", "arena"]
        subprocess.run(
            [*arena, "run", "--games", "60", "--seed", "screenshots", "-q", "--db", "s.db"],
            cwd=work, check=True, stdout=subprocess.DEVNULL,
        )  # fmt: skip
        subprocess.run([*arena, "report", "--db", "s.db", "-o", "r.html"], cwd=work, check=True)
        with browser_page(width=1100, height=1000) as page:
            page.goto((work / "r.html").as_uri())
            page.wait_for_selector("body[data-ready=yes]")
            page.screenshot(path=str(images / "report.png"))
            page.locator("#game-list tr[data-id] a").nth(1).click()
            for _ in range(17):
                page.keyboard.press("ArrowRight")
            page.select_option("#view", "2")  # seat 1 only: the other hands face down
            page.locator("#viewer").screenshot(path=str(images / "replay.png"))
            if page.errors:
                raise SystemExit(f"JavaScript errors: {page.errors}")
    print(f"wrote {images / 'report.png'} and {images / 'replay.png'}")


if __name__ == "__main__":
    main()
