"""The report in a real browser (headless Chromium through Playwright): the leaderboard rows are
the database's, a replay steps through the record's cards, a one-seat view shows no other hand,
and no JavaScript error or network request happens."""

from __future__ import annotations

import pytest

from arena.cards import ASCII_NAMES
from arena.cli.common import game_classes
from arena.games.base import action_from_json, game_from_record
from arena.games.record import expand
from arena.store.database import Store
from tests.browser import browser_page
from tests.conftest import leaderboard_json
from tests.report_fixtures import make_database

pytestmark = pytest.mark.usefixtures("isolated")


@pytest.fixture
def report(cli, tmp_path):
    db = make_database(cli, tmp_path)
    out = tmp_path / "report.html"
    result = cli("report", "--db", db, "-o", out)
    assert result.exit_code == 0, result.output
    return db, out


def _open(page, out):
    page.goto(out.as_uri())
    page.wait_for_selector("body[data-ready=yes]", timeout=30_000)


_SHOWN = """() => ({
    step: document.getElementById("step").textContent,
    hands: [...document.querySelectorAll("#table .seat")].map(
        (seat) => [...seat.querySelectorAll(".card[data-card]")].map((c) => c.dataset.card)),
    trick: [...document.querySelectorAll("#piles .pile:first-child .card[data-card]")].map(
        (c) => c.dataset.card),
})"""


def _shown_hands(page, players: int) -> list[list[str]]:
    hands = page.evaluate(_SHOWN)["hands"]
    assert len(hands) == players
    return hands


def _states(record):
    classes, _ = game_classes()
    state = game_from_record(record, classes).replay_state(record["chance"])
    yield state
    for _, value in record["actions"]:
        state.apply_action(action_from_json(value, state.legal_actions()))
        yield state


def test_report_in_the_browser(cli, report):
    db, out = report
    expected = leaderboard_json(cli, db)
    store = Store(db, create=False)
    classes, _ = game_classes()
    faulty_game = store.game_ids(game="twenty-down", limit=1, with_faults=True)[0]
    record = expand(store.stored_game(faulty_game)["record"], classes)
    store.close()
    with browser_page() as page:
        _open(page, out)
        # The leaderboards: every row and column of `arena leaderboard --format json`.
        for game, rows in expected.items():
            table = page.locator(f"table.leaderboard[data-game='{game}'] tbody tr")
            assert table.count() == len(rows)
            for i, row in enumerate(rows):
                cells = table.nth(i).locator("td")
                shown = dict(zip(row, cells.all_inner_texts(), strict=True))
                assert shown == {k: "" if v is None else str(v) for k, v in row.items()}
        assert page.locator(".plot canvas").count() >= 2
        assert page.locator(".h2h td[title]").count() > 0

        # A fault links to its game; the replay shows the record's hands at every step.
        page.locator(f"#fault-list a[href='#game-{faulty_game}']").first.click()
        page.wait_for_selector("#viewer:not([hidden])")
        for number, state in enumerate(_states(record)):
            if number:
                page.keyboard.press("ArrowRight")
            shown = page.evaluate(_SHOWN)
            assert shown["step"].startswith(f"step {number} of")
            assert shown["hands"] == [[ASCII_NAMES[c] for c in h] for h in state.hands], number
            assert shown["trick"] == [ASCII_NAMES[c] for _, c in state.trick], number
            if number == 12:
                at_12 = [list(h) for h in state.hands]
        page.click("#first")
        page.click("#next-fault")
        assert "fault" in page.inner_text("#caption")
        assert page.locator("#caption.fault").count() == 1

        # One seat's view: its own cards face up, the others' face down and absent from the page.
        page.click("#first")
        for _ in range(12):
            page.click("#next")
        page.select_option("#view", "2")
        hands = _shown_hands(page, 4)
        assert hands[1] == [ASCII_NAMES[c] for c in at_12[1]]
        assert hands[0] == hands[2] == hands[3] == []
        table = page.inner_html("#table")
        for s in (0, 2, 3):
            for c in at_12[s]:
                assert f'data-card="{ASCII_NAMES[c]}"' not in table
            backs = page.locator(f"#table .seat[data-seat='{s}'] .card.back")
            assert backs.count() == len(at_12[s])

        # The game list filters by bot, game and run, and opens each variant's replay.
        page.select_option("#filter-game", "how-low-can-you-go")
        page.select_option("#filter-run", "2")
        rows = page.locator("#game-list tr[data-id]")
        assert rows.count() == 4
        rows.first.locator("a").click()
        # The replay opens on the link's hashchange, after click() returns: wait for its title.
        # (a locator, not wait_for_function: the report's Content-Security-Policy forbids eval)
        page.locator("#viewer-title", has_text="(whalen)").wait_for(timeout=10_000)
        page.keyboard.press("End")
        page.select_option("#filter-bot", "faulty")
        page.select_option("#filter-game", "")
        page.select_option("#filter-run", "")
        assert page.locator("#game-list tr[data-id]").count() == 6 + 6 + 4  # both games, then TD
        assert page.errors == []
