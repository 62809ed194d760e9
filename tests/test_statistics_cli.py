"""The batch rating on the command line: the leaderboard's elo and ± columns in every format,
--sort elo, --los, `arena compare` on a real duplicate run, the cache, and older databases."""

from __future__ import annotations

import csv
import gc
import io
import json
import math
import sqlite3

import pytest
from conftest import assert_one_line_error, leaderboard_json, write_bots

pytestmark = pytest.mark.usefixtures("isolated")


def ok(result):
    assert result.exit_code == 0, (result.exit_code, result.output, result.exception)
    assert "Traceback" not in result.output
    return result


@pytest.fixture
def field(tmp_path):
    """Twenty Down's bundled bots (``random``, ``td-heuristic``: they ship with arena) plus two
    simple ones: four bots, one table, duplicate boards."""
    files = {}
    files["simple.py"] = """
import arena


class First(arena.Bot):
    def act(self, observation):
        return observation.legal_actions[0]


@arena.hookimpl
def arena_register_bots(register):
    register(First, name="first")
    register(First, name="first-too")
"""
    return write_bots(tmp_path / "bots", files)


@pytest.fixture
def played(cli, field, tmp_path):
    db = tmp_path / "stats.db"
    ok(cli("run", "--game", "td", "--games", 48, "--seed", "stats", "--db", db,
           "--bots-dir", field, "-j", 1, "-q"))  # fmt: skip
    gc.collect()
    return db


def test_leaderboard_has_elo_and_interval_in_every_format(cli, played):
    board = leaderboard_json(cli, played)["twenty-down"]
    assert {row["bot"] for row in board} == {"random", "td-heuristic", "first", "first-too"}
    for row in board:
        assert isinstance(row["elo"], float) and row["elo_ci"] > 0
    assert sum(row["elo"] for row in board) == pytest.approx(0.0, abs=0.5)  # anchored at mean 0
    by_bot = {row["bot"]: row for row in board}
    assert by_bot["td-heuristic"]["elo"] > by_bot["random"]["elo"]

    table = ok(cli("leaderboard", "--db", played)).stdout
    assert " elo " in table and " ± " in table
    markdown = ok(cli("leaderboard", "--db", played, "-f", "markdown")).stdout
    assert "   elo |" in markdown and "   ± |" in markdown
    rows = list(
        csv.DictReader(io.StringIO(ok(cli("leaderboard", "--db", played, "-f", "csv")).stdout))
    )
    assert {r["bot"]: float(r["elo"]) for r in rows} == {r["bot"]: r["elo"] for r in board}
    assert all(float(r["elo_ci"]) > 0 for r in rows)


def test_sort_elo_orders_rows_by_elo_and_a_bad_sort_is_one_line(cli, played):
    rows = json.loads(ok(cli("leaderboard", "--db", played, "-f", "json", "--sort", "elo")).stdout)
    elos = [row["elo"] for row in rows["twenty-down"]]
    assert elos == sorted(elos, reverse=True)
    assert [row["rank"] for row in rows["twenty-down"]] == [1, 2, 3, 4]
    assert_one_line_error(cli("leaderboard", "--db", played, "--sort", "luck"), "--sort")


def test_los_matrix_is_complementary_and_agrees_with_the_order(cli, played):
    out = json.loads(ok(cli("leaderboard", "--db", played, "-f", "json", "--los")).stdout)
    los = out["twenty-down"]["los"]
    board = {row["bot"]: row["elo"] for row in out["twenty-down"]["leaderboard"]}
    for a, row in los.items():
        for b, p in row.items():
            assert p + los[b][a] == pytest.approx(100.0, abs=0.11)
            assert (p >= 50) == (board[a] >= board[b])
    text = ok(cli("leaderboard", "--db", played, "--los")).stdout
    assert "likelihood of superiority" in text
    lines = ok(cli("leaderboard", "--db", played, "-f", "csv", "--los")).stdout.splitlines()
    assert "game,bot,opponent,los_pct" in lines


def _direct_board_differences(db, a, b):
    """Per board, the mean over its games of (score a − score b), straight from the seats."""
    con = sqlite3.connect(db)
    rows = con.execute(
        "SELECT g.run_id, g.board, g.id, s.bot, AVG(s.score) FROM games g "
        "JOIN seats s ON s.game_id = g.id WHERE s.bot IN (?, ?) GROUP BY g.id, s.bot",
        (a, b),
    ).fetchall()
    con.close()
    games: dict = {}
    for run_id, board, game_id, bot, score in rows:
        games.setdefault((run_id, board), {}).setdefault(game_id, {})[bot] = score
    return [
        sum(g[a] - g[b] for g in per_game.values()) / len(per_game) for per_game in games.values()
    ]


def test_compare_on_a_real_duplicate_run(cli, played):
    out = json.loads(
        ok(cli("compare", "td-heuristic", "random", "--db", played, "-f", "json")).stdout
    )
    c = out["twenty-down"]
    diffs = _direct_board_differences(played, "td-heuristic", "random")
    assert c["boards"] == len(diffs) == 12 and c["games"] == 48  # 48 games, 4 rotations a board
    assert c["score"]["mean"] == pytest.approx(sum(diffs) / len(diffs))
    sd = math.sqrt(sum((d - c["score"]["mean"]) ** 2 for d in diffs) / (len(diffs) - 1))
    assert c["score"]["paired"] == pytest.approx(1.959964 * sd / math.sqrt(len(diffs)), rel=1e-5)
    assert c["score"]["narrower"] == pytest.approx(c["score"]["unpaired"] / c["score"]["paired"])
    assert c["score"]["mean"] < 0 and c["rank"]["mean"] < 0  # fewer points, better places
    board = {row["bot"]: row["elo"] for row in leaderboard_json(cli, played)["twenty-down"]}
    assert c["elo"] == pytest.approx(board["td-heuristic"] - board["random"], abs=0.11)
    assert c["elo_ci"] > 0 and c["los"] > 0.9

    text = ok(cli("compare", "td-heuristic", "random", "--db", played, "--game", "td")).stdout
    assert "on 12 boards (48 games)" in text and "paired is narrower" in text


def test_compare_errors_are_one_line(cli, played):
    assert_one_line_error(cli("compare", "nobody", "random", "--db", played), "nobody")
    assert_one_line_error(cli("compare", "random", "random", "--db", played), "itself")
    assert_one_line_error(cli("compare", "random", "first", "--db", played, "-g", "hl"), "game")
    assert_one_line_error(cli("compare", "random", "first", "--db", played, "-g", "nope"), "nope")


def test_cache_is_topped_up_and_equals_a_fit_from_scratch(cli, field, played):
    first = leaderboard_json(cli, played)
    con = sqlite3.connect(played)
    assert con.execute("SELECT games FROM batch_ratings").fetchall() == [(48,)]
    con.close()
    ok(cli("run", "--game", "td", "--games", 24, "--seed", "more", "--db", played,
           "--bots-dir", field, "-j", 1, "-q"))  # fmt: skip
    topped = leaderboard_json(cli, played)
    assert topped != first
    gc.collect()
    con = sqlite3.connect(played)
    assert con.execute("SELECT games FROM batch_ratings").fetchall() == [(72,)]
    con.execute("DELETE FROM batch_ratings")
    con.commit()
    con.close()
    fresh = leaderboard_json(cli, played)["twenty-down"]
    for mine, theirs in zip(topped["twenty-down"], fresh, strict=True):
        assert mine["elo"] == pytest.approx(theirs["elo"], abs=0.11)
        assert mine["elo_ci"] == pytest.approx(theirs["elo_ci"], abs=0.11)
        assert {k: v for k, v in mine.items() if not k.startswith("elo")} == {
            k: v for k, v in theirs.items() if not k.startswith("elo")
        }


def test_database_from_before_the_cache_upgrades_in_place_and_loses_nothing(cli, played):
    con = sqlite3.connect(played)
    con.execute("DROP TABLE batch_ratings")
    con.execute("DROP INDEX games_by_game")
    con.commit()
    counts = {t: con.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
              for t in ("games", "seats", "placings", "ratings", "runs")}  # fmt: skip
    con.close()
    board = leaderboard_json(cli, played)["twenty-down"]
    assert all(row["elo"] is not None for row in board)
    gc.collect()
    con = sqlite3.connect(played)
    names = {r[0] for r in con.execute("SELECT name FROM sqlite_master")}
    assert {"batch_ratings", "games_by_game"} <= names
    assert counts == {t: con.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in counts}
    assert con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone() == ("1",)
    con.close()


def test_reset_clears_the_cache(cli, played):
    leaderboard_json(cli, played)
    ok(cli("leaderboard", "--db", played, "--reset"))
    gc.collect()
    con = sqlite3.connect(played)
    assert con.execute("SELECT COUNT(*) FROM batch_ratings").fetchone() == (0,)
    con.close()
