"""The ``arena`` command end to end: runs, leaderboards, tournament files, bad input, resuming.

Every run writes into ``tmp_path`` (``--db``) and the tests run in a temporary working directory,
so nothing touches the repository's ``leaderboard/``.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import (
    RANDOM_BOT,
    REPO,
    assert_one_line_error,
    bot_file,
    count_games,
    leaderboard_json,
    write_bots,
)

import arena
from arena.plugins.loading import load_registry
from arena.tournament import run as tournament_module
from arena.tournament.file import load_tournament_file
from arena.tournament.plan import build_tournament

pytestmark = pytest.mark.usefixtures("isolated")

GAMES = ("how-low-can-you-go", "twenty-down")


def run_args(bots_dir, db, *extra, games=8, seed="cli", jobs=1):
    options = {"--games": games, "--seed": seed, "--db": db, "--bots-dir": bots_dir, "-j": jobs}
    return ["run", *(part for pair in options.items() for part in pair), "-q", *extra]


def ok(result):
    assert result.exit_code == 0, (result.exit_code, result.output, result.exception)
    assert "Traceback" not in result.output
    return result


# --- the main job ---------------------------------------------------------------------------------


def test_run_prints_leaderboard_tables_and_leaderboard_prints_them_again(cli, bots_dir, db_path):
    run = ok(cli(*run_args(bots_dir, db_path)))
    out = run.stdout
    for game in GAMES:
        assert f"{game}\n" in out
    header_lines = [line for line in out.splitlines() if line.split()[:2] == ["#", "bot"]]
    assert len(header_lines) == 2
    assert (
        "μ−3σ" in header_lines[0] and "faults" in header_lines[0] and "forfeits" in header_lines[0]
    )
    assert "avg chips" in out and "avg points" in out
    body = [line.split() for line in out.splitlines() if line[:3].strip().isdigit()]
    # The folder's bots and the bundled fast ones (issue 16: they ship with arena).
    bundled = {"td-heuristic", "hl-heuristic"}
    assert {row[1] for row in body} == {"random", "first", "td-only"} | bundled
    assert sum(1 for row in body if row[1] == "td-only") == 1  # it plays twenty-down only
    assert "played 16 games" in run.stderr
    assert "seed cli" in run.stderr

    again = ok(cli("leaderboard", "--db", db_path))
    assert again.stdout == out


def test_leaderboard_json_is_per_game_list_of_bot_objects_with_figures(cli, bots_dir, db_path):
    ok(cli(*run_args(bots_dir, db_path, games=12)))
    board = leaderboard_json(cli, db_path)
    assert sorted(board) == list(GAMES)
    # (with the bundled fast bots, which ship with arena)
    twenty_down = sorted(row["bot"] for row in board["twenty-down"])
    assert twenty_down == ["first", "random", "td-heuristic", "td-only"]
    how_low = sorted(row["bot"] for row in board["how-low-can-you-go"])
    assert how_low == ["first", "hl-heuristic", "random"]
    keys = {
        "rank",
        "bot",
        "mu",
        "sigma",
        "conservative",
        "elo",
        "elo_ci",
        "games",
        "wins",
        "win_pct",
        "avg_rank",
        "avg_score",
        "faults",
        "forfeits",
    }
    for rows in board.values():
        assert [row["rank"] for row in rows] == list(range(1, len(rows) + 1))
        for row in rows:
            assert set(row) == keys
            assert row["games"] == 12  # no more bots than seats: everybody plays every game
            assert row["faults"] == 0 and row["forfeits"] == 0
            assert 0 <= row["wins"] <= 12
            assert row["win_pct"] == round(100 * row["wins"] / 12, 1)
            # (each of the three rounded to 3 decimals: up to 0.0005 + 3 × 0.0005 apart, and a hair)
            assert row["conservative"] == pytest.approx(row["mu"] - 3 * row["sigma"], abs=2.1e-3)
            assert 1 <= row["avg_rank"] <= 4
        assert sum(row["wins"] for row in rows) >= 12  # every game has a winner

    # --format json on the run itself prints the same document.
    run = ok(cli(*run_args(bots_dir, db_path.with_name("other.db"), "--format", "json", games=12)))
    assert json.loads(run.stdout) == board


def test_leaderboard_markdown_and_csv_formats(cli, bots_dir, db_path):
    ok(cli(*run_args(bots_dir, db_path)))
    board = leaderboard_json(cli, db_path)

    markdown = ok(cli("leaderboard", "--db", db_path, "--format", "markdown")).stdout
    assert "## twenty-down" in markdown and "## how-low-can-you-go" in markdown
    table_rows = [line for line in markdown.splitlines() if line.startswith("|")]
    assert len(table_rows) == 2 * 2 + 4 + 3  # header + rule per table, one row per bot
    assert all(line.endswith("|") for line in table_rows)

    rows = list(
        csv.DictReader(io.StringIO(ok(cli("leaderboard", "--db", db_path, "-f", "csv")).stdout))
    )
    assert len(rows) == 7
    for row in rows:
        (expected,) = [r for r in board[row["game"]] if r["bot"] == row["bot"]]
        assert float(row["mu"]) == expected["mu"]
        assert int(row["games"]) == expected["games"] == 8
        assert int(row["rank"]) == expected["rank"]


def test_leaderboard_for_one_game_by_name_or_alias(cli, bots_dir, db_path):
    ok(cli(*run_args(bots_dir, db_path)))
    by_alias = json.loads(
        ok(cli("leaderboard", "--db", db_path, "-f", "json", "--game", "td")).stdout
    )
    assert list(by_alias) == ["twenty-down"]
    by_name = json.loads(
        ok(cli("leaderboard", "--db", db_path, "-f", "json", "-g", "twenty-down")).stdout
    )
    assert by_alias == by_name
    h2h = json.loads(ok(cli("leaderboard", "--db", db_path, "-f", "json", "--head-to-head")).stdout)
    for game in GAMES:
        pairs = h2h[game]["head_to_head"]
        assert pairs and all(p["games"] == p["ahead"] + p["tied"] + p["behind"] == 8 for p in pairs)
        assert h2h[game]["leaderboard"] == leaderboard_json(cli, db_path)[game]


def test_reset_of_a_database_that_does_not_exist_is_an_error_and_makes_none(cli, tmp_path):
    """It made an empty database at the mistyped path and said 'every result and rating
    deleted'."""
    typo = tmp_path / "arnea.db"
    assert_one_line_error(cli("leaderboard", "--db", typo, "--reset"), "no database yet")
    assert not typo.exists()


def test_reset_empties_the_leaderboard(cli, bots_dir, db_path):
    ok(cli(*run_args(bots_dir, db_path)))
    assert count_games(db_path) == 16
    reset = ok(cli("leaderboard", "--db", db_path, "--reset"))
    assert "deleted" in reset.stderr
    with sqlite3.connect(db_path) as con:
        for table in ("games", "seats", "placings", "faults", "ratings", "runs"):
            assert con.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == 0, table
    after = ok(cli("leaderboard", "--db", db_path, "--format", "json"))
    assert after.stdout == ""
    assert "no games played yet" in after.stderr
    # A run after the reset starts from fresh ratings: the same as a run into a new database.
    ok(cli(*run_args(bots_dir, db_path)))
    fresh = db_path.with_name("fresh.db")
    ok(cli(*run_args(bots_dir, fresh)))
    assert leaderboard_json(cli, db_path) == leaderboard_json(cli, fresh)


@pytest.mark.parametrize("n", [1, 9, 20])
def test_games_option_plays_exactly_n_games_of_each_game(cli, bots_dir, db_path, n):
    ok(cli(*run_args(bots_dir, db_path, games=n)))
    for game in GAMES:
        assert count_games(db_path, game) == n
    board = leaderboard_json(cli, db_path)
    assert {row["games"] for rows in board.values() for row in rows} == {n}


def test_second_run_adds_games_and_ratings_carry_over(cli, bots_dir, db_path):
    ok(cli(*run_args(bots_dir, db_path, games=5, seed="one")))
    ok(cli(*run_args(bots_dir, db_path, games=7, seed="two")))
    assert count_games(db_path, "twenty-down") == 12
    assert {row["games"] for row in leaderboard_json(cli, db_path)["twenty-down"]} == {12}


def test_same_seed_same_leaderboard_and_jobs_do_not_change_results(cli, bots_dir, tmp_path):
    dbs = {jobs: tmp_path / f"jobs{jobs}.db" for jobs in (1, 2)}
    for jobs, db in dbs.items():
        ok(cli(*run_args(bots_dir, db, games=30, seed="jobs", jobs=jobs)))
    boards = {jobs: leaderboard_json(cli, db) for jobs, db in dbs.items()}
    assert boards[1] == boards[2]

    def games(db):
        with sqlite3.connect(db) as con:
            return con.execute(
                """SELECT g.game, g.idx, g.board, g.seed, s.seat, s.bot, s.score, s.rank
                   FROM games g JOIN seats s ON s.game_id = g.id ORDER BY g.game, g.idx, s.seat"""
            ).fetchall()

    assert games(dbs[1]) == games(dbs[2])
    assert len(games(dbs[1])) == 2 * 30 * 4

    ok(cli(*run_args(bots_dir, tmp_path / "other-seed.db", games=30, seed="other")))
    assert leaderboard_json(cli, tmp_path / "other-seed.db") != boards[1]


# --- faults end to end ----------------------------------------------------------------------------

CRASHER = bot_file("crasher", 'raise RuntimeError("always")')


def test_faulty_bot_is_counted_forfeits_and_is_ranked_last_while_the_run_goes_on(
    cli, bots_dir, db_path
):
    (bots_dir / "crasher.py").write_text(CRASHER, encoding="utf-8")
    extra = "--game twenty-down --bots crasher,random,first --max-faults 2 --format json"
    result = ok(cli(*run_args(bots_dir, db_path, *extra.split(), games=6)))
    rows = {row["bot"]: row for row in json.loads(result.stdout)["twenty-down"]}
    crasher = rows["crasher"]
    # 3 bots at 4 seats, 6 games: crasher holds 2 + 1 + 1 seats per rotation, twice.
    assert crasher["games"] == 6
    assert crasher["forfeits"] == 8
    assert crasher["faults"] == 16
    assert crasher["wins"] == 0
    assert crasher["rank"] == 3
    assert rows["random"]["faults"] == rows["first"]["faults"] == 0
    with sqlite3.connect(db_path) as con:
        by_game: dict[int, dict[str, float]] = {}
        for game_id, bot, place in con.execute("SELECT game_id, bot, place FROM placings"):
            by_game.setdefault(game_id, {})[bot] = place
        kinds = {k for (k,) in con.execute("SELECT DISTINCT kind FROM faults")}
    assert len(by_game) == 6
    for places in by_game.values():
        assert places["crasher"] > max(places["random"], places["first"])
    assert kinds == {"exception"}


SLEEPER = bot_file(
    "sleeper",
    """
    if not getattr(self, "slept", False):
        self.slept = True
        time.sleep(5)
    return observation.legal_actions[0]
    """,
    header="import time",
)


def test_move_time_option_interrupts_slow_decisions_as_timeout_faults(cli, bots_dir, db_path):
    (bots_dir / "sleeper.py").write_text(SLEEPER, encoding="utf-8")
    began = time.perf_counter()
    # No -q: the progress lines go to stderr and do not disturb the tables on stdout.
    options = "--games 2 --seed slow -j 1 --game twenty-down --bots sleeper,random --move-time 0.2"
    result = ok(
        cli("run", *options.split(), "--format", "json", "--db", db_path, "--bots-dir", bots_dir)
    )
    assert time.perf_counter() - began < 4.5  # 4 slow decisions, each stopped at 0.2 s
    rows = {row["bot"]: row for row in json.loads(result.stdout)["twenty-down"]}
    assert rows["sleeper"]["faults"] == 4  # one per seat: 2 seats in each of 2 games
    assert rows["sleeper"]["forfeits"] == 0
    assert rows["random"]["faults"] == 0
    with sqlite3.connect(db_path) as con:
        faults = con.execute("SELECT kind, message FROM faults").fetchall()
    assert [kind for kind, _ in faults] == ["timeout"] * 4
    assert all("0.2 s" in message for _, message in faults)


SUICIDE = bot_file("suicide", "os._exit(7)", header="import os")


@pytest.mark.parametrize("jobs", [1, 2])
def test_bot_that_kills_its_own_process_is_a_fault_not_the_end_of_the_run(bots_dir, tmp_path, jobs):
    (bots_dir / "suicide.py").write_text(SUICIDE, encoding="utf-8")
    db = tmp_path / "suicide.db"
    extra = "--game twenty-down --bots suicide,random --format json".split()
    proc = arena_process(*run_args(bots_dir, db, *extra, games=4, jobs=jobs))
    assert proc.returncode == 0, proc.stderr
    rows = {row["bot"]: row for row in json.loads(proc.stdout)["twenty-down"]}
    assert rows["suicide"]["forfeits"] > 0 and rows["suicide"]["rank"] == 2
    assert rows["random"]["games"] == 4


# --- tournament files -----------------------------------------------------------------------------


def test_tournament_file_runs_with_its_games_bots_tables_and_params(cli, bots_dir, tmp_path):
    toml = tmp_path / "cup.toml"
    toml.write_text(
        """
games = 6
seed = "cup"
max_faults = 2
db = "lb/cup.db"
jobs = 1

[game.how-low-can-you-go]
players = 3
bots = ["random", "first"]
params = { max_deals = 5 }

[game.twenty-down]
bots = ["random", "first", "td-only"]
""",
        encoding="utf-8",
    )
    result = ok(cli("run", toml, "--bots-dir", bots_dir, "-q", "--format", "json"))
    assert "how-low-can-you-go: 6 games, 3 seats, bots: random, first" in result.stderr
    assert "twenty-down: 6 games, 4 seats, bots: random, first, td-only" in result.stderr
    assert "seed cup, 1 job(s)" in result.stderr
    db = tmp_path / "lb" / "cup.db"  # relative to the tournament file (issue 16)
    assert db.exists()
    assert count_games(db, "how-low-can-you-go") == count_games(db, "twenty-down") == 6
    with sqlite3.connect(db) as con:
        players = dict(con.execute("SELECT DISTINCT game, players FROM games"))
        config = json.loads(con.execute("SELECT config FROM runs").fetchone()[0])
    assert players == {"how-low-can-you-go": 3, "twenty-down": 4}
    hl_plan = next(p for p in config["plans"] if p["game"] == "how-low-can-you-go")
    assert hl_plan["params"] == {"max_deals": 5} and config["max_faults"] == 2
    board = json.loads(result.stdout)
    assert sorted(r["bot"] for r in board["how-low-can-you-go"]) == ["first", "random"]
    assert board == leaderboard_json(cli, db)


def test_command_line_options_override_the_tournament_file(cli, bots_dir, tmp_path):
    toml = tmp_path / "override.toml"
    toml.write_text('games = 50\nseed = "file"\n[game.twenty-down]\nbots = ["random", "first"]\n')
    db = tmp_path / "override.db"
    options = "--games 3 --seed cmdline -j 1 -q".split()
    result = ok(cli("run", toml, *options, "--db", db, "--bots-dir", bots_dir))
    assert "seed cmdline" in result.stderr
    assert count_games(db, "twenty-down") == 3
    assert count_games(db) == 3


def test_players_option_overrides_the_tournament_file(cli, bots_dir, tmp_path):
    toml = tmp_path / "players.toml"
    toml.write_text(
        'games = 2\n[game.how-low-can-you-go]\nplayers = 5\nbots = ["random", "first"]\n'
    )
    result = ok(
        cli(
            "run",
            toml,
            "--players",
            3,
            "--db",
            tmp_path / "p.db",
            "--bots-dir",
            bots_dir,
            "--seed",
            1,
            "-j",
            1,
            "-q",
        )
    )
    assert "how-low-can-you-go: 2 games, 3 seats" in result.stderr


def test_a_missing_bots_dir_in_a_tournament_file_names_the_file_and_key(cli, tmp_path):
    """README: a bad value is one line naming the file and the key (it named --bots-dir, an
    option the user never gave)."""
    toml = tmp_path / "cup.toml"
    toml.write_text('games = 2\nbots_dir = ["contest"]\n')
    result = cli("run", toml, "--db", tmp_path / "a.db", "-q")
    line = assert_one_line_error(result, "cup.toml: bots_dir: ", "contest: no such folder")
    assert "--bots-dir" not in line


@pytest.mark.parametrize(
    "path", sorted((REPO / "tournaments").glob("*.toml")), ids=lambda p: p.name
)
def test_repository_tournament_files_parse_plan_and_run(cli, path, tmp_path):
    loaded = load_tournament_file(path)
    folders = loaded.settings.get("bots_dir", ["bots"])  # relative to the checkout
    folders = [REPO / f for f in ([folders] if isinstance(folders, str) else folders)]
    registry = load_registry(folders, entry_points=False)
    assert registry.errors == []
    tournament = build_tournament(
        registry,
        games_per_game=loaded.settings.get("games", 100),
        bots=loaded.settings.get("bots"),
        seed=loaded.settings.get("seed"),
        sections=loaded.sections,
    )
    assert tournament.plans
    for plan in tournament.plans:
        assert len(plan.bots) >= 2 and all(b in registry.bots for b in plan.bots)
    db = tmp_path / "repo-file.db"
    options = "--games 2 -j 1 -q --format json".split()
    bots_dirs = [arg for folder in folders for arg in ("--bots-dir", folder)]
    result = ok(cli("run", path, *options, "--db", db, *bots_dirs))
    assert set(json.loads(result.stdout)) == {p.game for p in tournament.plans}
    assert count_games(db) == 2 * len(tournament.plans)


# --- bad input: exit code 2, one line, no traceback -----------------------------------------------

BAD_RUNS = {
    "unknown-game": (
        ["--game", "twenty-dwn"],
        ["unknown game 'twenty-dwn'", "did you mean 'twenty-down'"],
    ),
    "unknown-bot": (["--bots", "rando"], ["unknown bot 'rando'", "did you mean 'random'"]),
    "games-0": (["--games", "0"], ["--games", "0"]),
    "games-negative": (["--games", "-5"], ["--games", "-5"]),
    "bot-does-not-play-game": (
        ["--game", "how-low", "--bots", "td-only,random"],
        ["'td-only' does not play how-low-can-you-go"],
    ),
    "players-11": (["--players", "11"], ["how-low-can-you-go", "11"]),
    "twenty-down-3-players": (["--game", "twenty-down", "--players", "3"], ["twenty-down", "3"]),
    "format-xml": (["--format", "xml"], ["--format", "'xml'"]),
    "move-time-0": (["--move-time", "0"], ["--move-time"]),
    "max-faults-0": (["--max-faults", "0"], ["--max-faults"]),
    "jobs-negative": (["--jobs", "-1"], ["--jobs"]),
    "one-bot-for-a-game": (
        ["--game", "td", "--bots", "td-only"],
        ["twenty-down", "at least 2 bots"],
    ),
    "missing-tournament-file": (["no-such-file.toml"], ["no-such-file.toml"]),
    # No --game: every game is left out for want of a second bot, and the message says so.
    "one-bot-for-every-game": (
        ["--bots", "random"],
        ["bot 'random' has nobody to play", "how-low-can-you-go or twenty-down"],
    ),
    "one-bot-for-its-game": (
        ["--bots", "td-only"],
        ["bot 'td-only' has nobody to play", "plays twenty-down"],
    ),
}


@pytest.mark.parametrize("case", list(BAD_RUNS))
def test_bad_run_input_is_exit_2_one_line_no_traceback(cli, bots_dir, db_path, case):
    args, fragments = BAD_RUNS[case]
    # The bad option comes last, so it overrides the defaults of run_args.
    result = cli(
        "run", "--games", 2, "--seed", 1, "--db", db_path, "--bots-dir", bots_dir, "-q", *args
    )
    assert_one_line_error(result, *fragments)
    if case != "format-xml" and db_path.exists():
        assert count_games(db_path) == 0


@pytest.mark.parametrize(
    "args", [["--games", "-5"], ["--move-time", "nan"], ["--max-faults", "0"], ["--bots", ""]]
)
def test_a_run_refused_for_its_settings_loads_no_bot_file_and_leaves_no_database(
    cli, tmp_path, db_path, args
):
    """The settings are checked before the bots are loaded and the database is opened."""
    bots = write_bots(
        tmp_path / "bots",
        {"marker.py": f"open({str(tmp_path / 'imported')!r}, 'w').close()\n" + RANDOM_BOT},
    )
    result = cli("run", "--db", db_path, "--bots-dir", bots, "-q", *args)
    assert_one_line_error(result, args[0])
    assert not db_path.exists()
    assert not (tmp_path / "imported").exists()


def test_jobs_zero_is_rejected(cli, bots_dir, db_path):
    result = cli(*run_args(bots_dir, db_path, jobs=0))
    assert_one_line_error(result, "--jobs")


@pytest.mark.parametrize("args", [["--games", "ten"], ["--no-such-option"]])
def test_malformed_options_are_usage_errors_without_traceback(cli, bots_dir, db_path, args):
    result = cli("run", "--db", db_path, "--bots-dir", bots_dir, *args)
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert "Error" in result.stderr
    assert not db_path.exists()


BAD_FILES = {
    "wrong-top-key": ("gamez = 3\n", ["unknown key 'gamez'"]),
    "wrong-top-type": ('games = "ten"\n', ["games must be a whole number"]),
    "bool-for-int": ("games = true\n", ["games must be a whole number"]),
    "wrong-game-key": (
        "[game.twenty-down]\nplayer = 4\n",
        ["unknown key game.twenty-down.'player'"],
    ),
    "wrong-game-type": (
        '[game.twenty-down]\nbots = "random"\n',
        ["game.twenty-down.bots must be a list"],
    ),
    "bots-not-names": ("[game.twenty-down]\nbots = [1, 2]\n", ["bots must be a list of bot names"]),
    "param-not-int": (
        '[game.twenty-down]\nparams = { max_deals = "x" }\n',
        ["params.max_deals must be a whole number"],
    ),
    "not-toml": ("this is not toml\n", ["not valid TOML"]),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_bad_tournament_file_is_exit_2_one_line_naming_the_file(cli, bots_dir, tmp_path, case):
    source, fragments = BAD_FILES[case]
    toml = tmp_path / f"{case}.toml"
    toml.write_text(source, encoding="utf-8")
    result = cli("run", toml, "--db", tmp_path / "x.db", "--bots-dir", bots_dir, "-q")
    line = assert_one_line_error(result, *fragments)
    assert str(toml) in line
    assert not (tmp_path / "x.db").exists()


BAD_PLANS = {
    "unknown-game-section": (
        '[game.twenty-dwn]\nbots = ["random", "first"]\n',
        ["unknown game 'twenty-dwn'", "did you mean 'twenty-down'"],
    ),
    "fixed-table-size": ("[game.twenty-down]\nplayers = 3\n", ["exactly 4 players, not 3"]),
    "unknown-param": ("[game.twenty-down]\nparams = { speed = 2 }\n", ["no parameter 'speed'"]),
    "bot-does-not-play": (
        '[game.how-low-can-you-go]\nbots = ["td-only", "random"]\n',
        ["'td-only' does not play how-low-can-you-go"],
    ),
    "bad-draw-probability": ("[game.twenty-down]\ndraw_probability = 1.5\n", ["draw_probability"]),
    "unknown-bot": ('[game.twenty-down]\nbots = ["rando", "first"]\n', ["unknown bot 'rando'"]),
}


@pytest.mark.parametrize("case", list(BAD_PLANS))
def test_impossible_tournament_file_is_exit_2_one_line(cli, bots_dir, tmp_path, case):
    source, fragments = BAD_PLANS[case]
    toml = tmp_path / f"{case}.toml"
    toml.write_text("games = 2\n" + source, encoding="utf-8")
    result = cli("run", toml, "--db", tmp_path / "x.db", "--bots-dir", bots_dir, "-q")
    assert_one_line_error(result, *fragments)


def test_unknown_bot_in_tournament_file_gets_a_suggestion(cli, bots_dir, tmp_path):
    toml = tmp_path / "typo.toml"
    toml.write_text('games = 2\n[game.twenty-down]\nbots = ["rando", "first"]\n')
    result = cli("run", toml, "--db", tmp_path / "x.db", "--bots-dir", bots_dir, "-q")
    assert_one_line_error(result, "unknown bot 'rando'", "did you mean 'random'")


def test_one_game_twice_in_a_tournament_file_is_an_error(cli, bots_dir, tmp_path):
    toml = tmp_path / "twice.toml"
    toml.write_text(
        'games = 2\n[game.td]\nbots = ["random", "first"]\n'
        '[game.twenty-down]\nbots = ["random", "td-only"]\n'
    )
    result = cli("run", toml, "--db", tmp_path / "x.db", "--bots-dir", bots_dir, "-q")
    assert_one_line_error(result, "twenty-down")


def test_bad_leaderboard_input_is_exit_2_one_line(cli, bots_dir, db_path, tmp_path):
    assert_one_line_error(cli("leaderboard", "--db", tmp_path / "none.db"), "no database yet")
    assert not (tmp_path / "none.db").exists()
    ok(cli(*run_args(bots_dir, db_path, "--game", "td", games=2)))
    assert_one_line_error(cli("leaderboard", "--db", db_path, "--format", "xml"), "'xml'")
    assert_one_line_error(
        cli("leaderboard", "--db", db_path, "--game", "hl"),
        "no results for game 'how-low-can-you-go'",
    )


# --- interrupted runs -----------------------------------------------------------------------------


def interrupt_after(monkeypatch, n_games):
    """A Ctrl-C reaches the run just as it is about to rate game n_games+1 (once only).

    Games are played in worker processes, so the interruption is made where Ctrl-C matters: in
    the parent, which rates and stores them.
    """
    calls = []

    class Interrupted(tournament_module.RatingTable):
        def update(self, placings):
            calls.append(placings)
            if len(calls) == n_games + 1:
                raise KeyboardInterrupt
            return super().update(placings)

    monkeypatch.setattr(tournament_module, "RatingTable", Interrupted)
    return calls


@pytest.mark.parametrize("with_seed", [True, False], ids=["seed", "no-seed"])
def test_rerunning_the_same_command_after_an_interruption_continues_it(
    cli, bots_dir, tmp_path, monkeypatch, with_seed
):
    db = tmp_path / "resume.db"
    args = ["run", *"--games 10 -j 1 -q --format json".split(), "--db", db, "--bots-dir", bots_dir]
    args += ["--seed", "resume"] if with_seed else []

    interrupt_after(monkeypatch, 13)  # all 10 how-low games, then 3 of twenty-down
    stopped = cli(*args)
    assert stopped.exit_code == 130, stopped.output
    assert "interrupted" in stopped.stderr and "arena run --resume" in stopped.stderr
    assert count_games(db, "how-low-can-you-go") == 10
    assert count_games(db, "twenty-down") == 3
    seed = (
        next(line for line in stopped.stderr.splitlines() if line.startswith("seed "))
        .split()[1]
        .rstrip(",")
    )

    resumed = ok(cli(*args))
    assert "resumed run 1: 13 games were already stored" in resumed.stderr
    assert "played 7 games" in resumed.stderr
    assert f"seed {seed}," in resumed.stderr
    assert count_games(db, "how-low-can-you-go") == count_games(db, "twenty-down") == 10
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT COUNT(*), MIN(status) FROM runs").fetchone() == (1, "finished")

    # The leaderboard is the one an uninterrupted run gives.
    reference = tmp_path / "reference.db"
    ok(
        cli(
            "run",
            *"--games 10 -j 1 -q".split(),
            "--seed",
            seed,
            "--db",
            reference,
            "--bots-dir",
            bots_dir,
        )
    )
    assert json.loads(resumed.stdout) == leaderboard_json(cli, reference)


def test_resume_option_continues_the_latest_interrupted_run(cli, bots_dir, tmp_path, monkeypatch):
    db = tmp_path / "resume.db"
    assert_one_line_error(
        cli("run", "--resume", "--db", db, "--bots-dir", bots_dir, "-q"), "no interrupted run"
    )
    interrupt_after(monkeypatch, 4)
    stopped = cli(*run_args(bots_dir, db, "--game", "twenty-down", games=9, seed="opt"))
    assert stopped.exit_code == 130
    resumed = ok(cli("run", "--resume", "--db", db, "--bots-dir", bots_dir, "-j", 1, "-q"))
    assert "4 games were already stored" in resumed.stderr
    assert count_games(db, "twenty-down") == 9
    reference = tmp_path / "reference.db"
    ok(cli(*run_args(bots_dir, reference, "--game", "twenty-down", games=9, seed="opt")))
    assert leaderboard_json(cli, db) == leaderboard_json(cli, reference)


def test_no_duplicate_gives_every_game_its_own_deal_and_still_resumes(
    cli, bots_dir, tmp_path, monkeypatch
):
    db = tmp_path / "fresh.db"
    args = run_args(bots_dir, db, "--game", "twenty-down", "--no-duplicate", games=8, seed="nd")
    interrupt_after(monkeypatch, 3)
    assert cli(*args).exit_code == 130
    monkeypatch.undo()
    resumed = ok(cli(*args))
    assert "3 games were already stored" in resumed.stderr
    with sqlite3.connect(db) as con:
        seeds = [seed for (seed,) in con.execute("SELECT seed FROM games ORDER BY idx")]
        (config,) = con.execute("SELECT config FROM runs").fetchone()
    assert len(seeds) == len(set(seeds)) == 8
    assert json.loads(config)["duplicate"] is False
    duplicate = tmp_path / "duplicate.db"
    ok(cli(*run_args(bots_dir, duplicate, "--game", "twenty-down", games=8, seed="nd")))
    with sqlite3.connect(duplicate) as con:
        assert len({seed for (seed,) in con.execute("SELECT seed FROM games")}) < 8
        (config,) = con.execute("SELECT config FROM runs").fetchone()
    assert "duplicate" not in json.loads(config)  # identities of older runs are unchanged


def test_tournament_file_can_switch_duplicate_off(cli, bots_dir, tmp_path):
    path = tmp_path / "fresh.toml"
    path.write_text('games = 4\nseed = "f"\nduplicate = false\n[game.twenty-down]\n')
    db = tmp_path / "f.db"
    ok(cli("run", path, "--db", db, "--bots-dir", bots_dir, "-j", 1, "-q"))
    with sqlite3.connect(db) as con:
        assert len({seed for (seed,) in con.execute("SELECT seed FROM games")}) == 4
    path.write_text('games = 4\nduplicate = "no"\n')
    assert_one_line_error(cli("run", path, "--db", db, "--bots-dir", bots_dir), "duplicate")


def test_a_finished_run_is_not_resumed_but_played_again_when_asked(cli, bots_dir, db_path):
    ok(cli(*run_args(bots_dir, db_path, "--game", "td", games=4)))
    refused = cli(*run_args(bots_dir, db_path, "--game", "td", games=4))
    assert_one_line_error(refused, "already played these very games", "--again")
    second = ok(cli(*run_args(bots_dir, db_path, "--game", "td", "--again", games=4)))
    assert "resumed" not in second.stderr
    assert count_games(db_path, "twenty-down") == 8


# --- a real process -------------------------------------------------------------------------------


def arena_process(*args, env_extra=None, cwd=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable, "-m", "arena", *[str(a) for a in args]],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd or os.getcwd(),
        timeout=120,
    )


def test_python_dash_m_arena_runs_end_to_end_in_a_real_process(cli, bots_dir, db_path):
    proc = arena_process(*run_args(bots_dir, db_path, games=6, seed="proc"))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    for game in GAMES:
        assert f"{game}\n" in proc.stdout
    assert "played 12 games" in proc.stderr
    board = arena_process("leaderboard", "--db", db_path, "--format", "json")
    assert board.returncode == 0, board.stderr
    data = json.loads(board.stdout)
    assert data == leaderboard_json(cli, db_path)
    assert {row["games"] for rows in data.values() for row in rows} == {6}
    table = arena_process("leaderboard", "--db", db_path)
    assert table.stdout == proc.stdout

    bad = arena_process("run", "--game", "twenty-dwn", "--db", db_path, "--bots-dir", bots_dir)
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr
    assert bad.stderr.startswith(
        "arena: error: unknown game 'twenty-dwn'; did you mean 'twenty-down'?"
    )


def test_arena_console_script_is_installed():
    script = shutil.which("arena")
    if script is None:
        pytest.skip("the arena console script is not on PATH")
    proc = subprocess.run([script, "--version"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"arena {arena.__version__}"


INTERRUPTER = '''
import os
import signal
import time

import arena

CALLS = [0]


class Interrupter(arena.Bot):
    """Presses Ctrl-C at its n-th decision of the run: a real SIGINT to the arena process (the
    parent of the worker process the bot plays in), as a terminal would send."""

    name = "interrupter"

    def act(self, observation):
        CALLS[0] += 1
        if CALLS[0] == int(os.environ.get("ARENA_TEST_SIGINT_AT", "0")):
            time.sleep(0.3)  # the parent has the earlier games' outcomes by then, even when busy
            os.kill(os.getppid(), signal.SIGINT)
        legal = observation.legal_actions
        return legal[self.rng.randrange(len(legal))]


@arena.hookimpl
def arena_register_bots(register):
    register(Interrupter)
'''


def test_ctrl_c_stops_a_real_run_cleanly_and_the_same_command_continues_it(cli, bots_dir, tmp_path):
    (bots_dir / "interrupter.py").write_text(INTERRUPTER, encoding="utf-8")
    db = tmp_path / "sigint.db"
    args = run_args(bots_dir, db, "--game", "twenty-down", "--format", "json", games=12, seed="sig")
    stopped = arena_process(*args, env_extra={"ARENA_TEST_SIGINT_AT": "150"})
    assert stopped.returncode == 130, stopped.stderr
    assert "Traceback" not in stopped.stderr
    assert "interrupted: finished games are stored and rated" in stopped.stderr
    done = count_games(db, "twenty-down")
    assert 0 < done < 12
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT status FROM runs").fetchall() == [("interrupted",)]

    resumed = arena_process(*args)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{done} games were already stored" in resumed.stderr
    assert count_games(db, "twenty-down") == 12

    reference = tmp_path / "reference.db"
    ok(cli(*run_args(bots_dir, reference, "--game", "twenty-down", games=12, seed="sig")))
    assert json.loads(resumed.stdout) == leaderboard_json(cli, reference)


def test_default_database_is_leaderboard_folder_of_the_working_directory(cli, bots_dir, tmp_path):
    work = Path.cwd()
    assert work != REPO and REPO not in work.parents
    ok(cli("run", "--games", 2, "--seed", 1, "--bots-dir", bots_dir, "-j", 1, "-q", "--game", "td"))
    assert (work / "leaderboard" / "arena.db").exists()
    assert count_games(work / "leaderboard" / "arena.db") == 2
    assert ok(cli("leaderboard")).stdout.startswith("twenty-down")


def test_default_bots_folder_is_bots_of_the_working_directory(cli, tmp_path):
    from conftest import STANDARD_BOTS

    write_bots(Path("bots"), STANDARD_BOTS)
    result = ok(
        cli(
            "run",
            "--games",
            2,
            "--seed",
            1,
            "-j",
            1,
            "-q",
            "--game",
            "td",
            "--format",
            "json",
            "--db",
            tmp_path / "d.db",
        )
    )
    assert {r["bot"] for r in json.loads(result.stdout)["twenty-down"]} == {
        "random",
        "first",
        "td-only",
        "td-heuristic",  # bundled
    }


def test_new_bot_writes_a_bot_that_loads_and_plays(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    made = cli("new-bot", "my-bot", "--game", "twenty-down")
    assert made.exit_code == 0, made.output
    assert (tmp_path / "bots" / "my_bot.py").exists()
    (tmp_path / "bots" / "random_bot.py").write_text(
        (REPO / "arena" / "plugins" / "baseline" / "random_bot.py").read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    played = cli("run", "--bots", "my-bot,random", "--games", 4, "-j", 1, "-q", "--format", "json")
    assert played.exit_code == 0, played.output
    rows = {r["bot"]: r for r in json.loads(played.stdout)["twenty-down"]}
    assert rows["my-bot"]["games"] == 4 and rows["my-bot"]["faults"] == 0
    again = cli("new-bot", "my-bot", "--game", "td")
    assert again.exit_code == 2 and "already exists" in again.stderr


# --- numbers that are not numbers, out of range, from the command line or a tournament file ------

BAD_NUMBERS = {
    # A NaN compares false with everything: a NaN move time never ran out, and Ctrl-C then waited
    # forever for a bot that slept.
    "move-time-nan": (["--move-time", "nan"], ["--move-time", "nan"]),
    "move-time-inf": (["--move-time", "inf"], ["--move-time", "inf"]),
    "move-time-minus-inf": (["--move-time", "-inf"], ["--move-time", "-inf"]),
    "move-time-overflow": (["--move-time", "1e400"], ["--move-time", "inf"]),
    "move-time-huge": (["--move-time", "1e300"], ["--move-time", "3600"]),
    "games-huge": (["--games", str(10**30)], ["--games", str(10**30)]),
    "jobs-huge": (["--jobs", "100000"], ["--jobs", "100000"]),
    "bot-memory-small": (["--bot-memory", "10"], ["--bot-memory", "10"]),
    # Bigger than an rlimit holds: every bot process failed to start, every seat forfeited.
    "bot-memory-huge": (["--bot-memory", str(10**15)], ["--bot-memory", str(10**15)]),
    "bot-cpu-0": (["--bot-cpu", "0"], ["--bot-cpu", "0"]),
    "bot-cpu-huge": (["--bot-cpu", str(10**20)], ["--bot-cpu", str(10**20)]),
    "isolation-unknown": (["--isolation", "container"], ["--isolation", "'container'"]),
}


@pytest.mark.parametrize("case", list(BAD_NUMBERS))
def test_a_number_option_that_is_not_finite_or_out_of_range_is_exit_2_one_line(
    cli, bots_dir, db_path, case
):
    args, fragments = BAD_NUMBERS[case]
    result = cli(
        "run", "--games", 2, "--seed", 1, "--db", db_path, "--bots-dir", bots_dir, "-q", *args
    )
    assert_one_line_error(result, *fragments)
    assert not db_path.exists() or count_games(db_path) == 0


BAD_FILE_VALUES = {
    "move-time-nan": ("move_time = nan\n", "move_time", "nan"),
    "move-time-inf": ("move_time = inf\n", "move_time", "inf"),
    "move-time-minus-inf": ("move_time = -inf\n", "move_time", "-inf"),
    "move-time-overflow": ("move_time = 1e400\n", "move_time", "inf"),
    "move-time-negative": ("move_time = -1\n", "move_time", "-1"),
    "move-time-zero": ("move_time = 0\n", "move_time", "0"),
    "move-time-huge-int": (f"move_time = {10**30}\n", "move_time", str(10**30)),
    "games-0": ("games = 0\n", "games", "0"),
    "games-huge": (f"games = {10**30}\n", "games", str(10**30)),
    "max-faults-0": ("max_faults = 0\n", "max_faults", "0"),
    "jobs-0": ("jobs = 0\n", "jobs", "0"),
    "jobs-huge": ("jobs = 100000\n", "jobs", "100000"),
    "bot-memory-small": ("bot_memory = 1\n", "bot_memory", "1"),
    "bot-memory-huge": (f"bot_memory = {10**15}\n", "bot_memory", str(10**15)),
    "bot-cpu-0": ("bot_cpu = 0\n", "bot_cpu", "0"),
    "bot-cpu-huge": (f"bot_cpu = {10**20}\n", "bot_cpu", str(10**20)),
    "isolation-unknown": ('isolation = "container"\n', "isolation", "'container'"),
    "players-12": (
        "[game.how-low-can-you-go]\nplayers = 12\n",
        "game.how-low-can-you-go.players",
        "not 12",
    ),
    "players-3-fixed-size": ("[game.td]\nplayers = 3\n", "game.td.players", "not 3"),
    "sigma-inf": ("[game.twenty-down]\nsigma = inf\n", "game.twenty-down.sigma", "inf"),
    "beta-nan": ("[game.twenty-down]\nbeta = nan\n", "game.twenty-down.beta", "nan"),
    "tau-negative": ("[game.twenty-down]\ntau = -1\n", "game.twenty-down.tau", "-1"),
    "beta-too-big-to-rate": ("[game.twenty-down]\nbeta = 1e200\n", "game.twenty-down", "1e+200"),
    "draw-probability": (
        "[game.twenty-down]\ndraw_probability = 1.5\n",
        "game.twenty-down.draw_probability",
        "1.5",
    ),
    "param-huge": (
        f"[game.how-low-can-you-go]\nparams = {{ starting_chips = {10**30} }}\n",
        "game.how-low-can-you-go.params.starting_chips",
        str(10**30),
    ),
    "param-unknown": (
        "[game.twenty-down]\nparams = { speed = 2 }\n",
        "game.twenty-down",
        "no parameter 'speed'",
    ),
    "bots-empty": ("bots = []\n", "bots", "no bot"),
    "game-bots-empty": ("[game.twenty-down]\nbots = []\n", "game.twenty-down.bots", "no bot"),
    "bots-dir-empty": ("bots_dir = []\n", "bots_dir", "no folder"),
    "bots-unknown": ('bots = ["rando", "first"]\n', "bots", "unknown bot 'rando'"),
    "game-bots-unknown": (
        '[game.twenty-down]\nbots = ["rando", "first"]\n',
        "game.twenty-down.bots",
        "unknown bot 'rando'",
    ),
}


@pytest.mark.parametrize("case", list(BAD_FILE_VALUES))
def test_a_bad_value_in_a_tournament_file_is_one_line_naming_the_file_and_key_not_an_option(
    cli, bots_dir, tmp_path, case
):
    source, key, value = BAD_FILE_VALUES[case]
    toml = tmp_path / "cup.toml"
    head = "" if source.startswith("games") else "games = 2\n"
    toml.write_text(head + source, encoding="utf-8")
    db = tmp_path / "x.db"
    result = cli("run", toml, "--db", db, "--bots-dir", bots_dir, "-q")
    line = assert_one_line_error(result, f"{toml}: {key}", value)
    # The user wrote move_time in the file, not --move-time on the command line.
    assert " --" not in line.replace(str(toml), "FILE"), line
    assert not db.exists() or count_games(db) == 0


def test_the_command_line_value_is_named_as_an_option_even_with_a_tournament_file(
    cli, bots_dir, tmp_path
):
    toml = tmp_path / "cup.toml"
    toml.write_text("games = 2\nmove_time = 0.5\n[game.how-low-can-you-go]\nplayers = 3\n")
    db = tmp_path / "x.db"
    options = ["--db", db, "--bots-dir", bots_dir, "-q"]
    line = assert_one_line_error(cli("run", toml, *options, "--move-time", "nan"), "--move-time")
    assert "move_time" not in line
    line = assert_one_line_error(cli("run", toml, *options, "--players", 12), "not 12")
    assert str(toml) not in line
    # A bad value in the file that the command line overrides is never used.
    toml.write_text("games = 2\nmove_time = nan\n[game.twenty-down]\n")
    ok(cli("run", toml, *options, "--move-time", 0.5, "-j", 1))


@pytest.mark.parametrize("value", ["", ",", " , ", ",,"])
def test_an_empty_bot_list_is_an_error_not_every_bot(cli, bots_dir, tmp_path, value):
    db = tmp_path / "x.db"
    result = cli("run", "--bots", value, "--games", 2, "--db", db, "--bots-dir", bots_dir, "-q")
    assert_one_line_error(result, "--bots", "no bot")
    assert not db.exists() or count_games(db) == 0
    # Nor does it fall back to the bots of a tournament file.
    toml = tmp_path / "cup.toml"
    toml.write_text('games = 2\nbots = ["random", "first"]\n')
    result = cli("run", toml, "--bots", value, "--db", db, "--bots-dir", bots_dir, "-q")
    assert_one_line_error(result, "--bots", "no bot")
    # arena play: the same.
    played = cli("play", "td", "--bots", value, "--bots-dir", bots_dir, input="q\n")
    assert_one_line_error(played, "--bots", "no bot")


def test_play_refuses_a_move_time_that_is_not_a_finite_positive_number(cli, bots_dir):
    for value in ("nan", "inf", "0", "-1"):
        played = cli(
            "play", "td", "--move-time", value, "--bots-dir", bots_dir, "--bots", "random",
            input="q\n",
        )  # fmt: skip
        assert_one_line_error(played, "--move-time", value)


def test_ratings_that_overflow_in_the_middle_of_a_run_stop_it_in_one_line_keeping_the_games_before(
    cli, bots_dir, db_path, monkeypatch
):
    """TrueSkill's floats can overflow with extreme environments (a tournament file sets them;
    the plan rates two trial games first, but not every game a run will see)."""
    calls = []

    class Overflowing(tournament_module.RatingTable):
        def update(self, placings):
            calls.append(placings)
            if len(calls) == 3:
                raise ZeroDivisionError("float division by zero")
            return super().update(placings)

    monkeypatch.setattr(tournament_module, "RatingTable", Overflowing)
    result = cli(*run_args(bots_dir, db_path, "--game", "td", games=6))
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert lines[-1].startswith("arena: error: twenty-down: TrueSkill cannot rate a game")
    assert "float division by zero" in lines[-1]
    assert [line for line in lines if "error" in line] == [lines[-1]]  # after the header lines
    assert count_games(db_path, "twenty-down") == 2


# --- what a resumed run keeps, and the hint that resumes it ---------------------------------------


def interrupted_hint(stderr: str) -> list[str]:
    """The command printed after Ctrl-C, split as a shell would split it."""
    import shlex

    (line,) = [line for line in stderr.splitlines() if "continue with: " in line]
    return shlex.split(line.split("continue with: ", 1)[1])


def test_the_ctrl_c_hint_names_the_database_and_bot_folders_of_a_tournament_file(
    cli, bots_dir, tmp_path, monkeypatch
):
    folder = tmp_path / "my bots"  # relative to the tournament file, with a space
    shutil.copytree(bots_dir, folder)
    toml = tmp_path / "cup.toml"
    toml.write_text('games = 6\nseed = "hint"\ndb = "lb/cup.db"\nbots_dir = "my bots"\n[game.td]\n')
    interrupt_after(monkeypatch, 2)
    stopped = cli("run", toml, "-j", 1, "-q")
    assert stopped.exit_code == 130, stopped.output
    hint = interrupted_hint(stopped.stderr)
    db = tmp_path / "lb" / "cup.db"
    assert hint == ["arena", "run", "--resume", "--db", str(db), "--bots-dir", str(folder)]
    resumed = ok(cli(*hint[1:], "-j", 1, "-q"))
    assert "resumed run 1: 2 games were already stored" in resumed.stderr
    assert count_games(db, "twenty-down") == 6


def test_a_run_stores_its_isolation_and_limits_outside_the_identity_of_the_run(
    cli, bots_dir, tmp_path
):
    db = tmp_path / "iso.db"
    extra = ["--game", "td", "--isolation", "process", "--bot-memory", 512, "--bot-cpu", 60]
    ok(cli(*run_args(bots_dir, db, *extra, games=2, seed="same")))
    ok(cli(*run_args(bots_dir, db, "--game", "td", "--again", games=2, seed="same")))
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT config, settings FROM runs ORDER BY id").fetchall()
    (process_config, process_settings), (shared_config, shared_settings) = rows
    # The same games and results in both modes: the same identity.
    assert process_config == shared_config
    assert json.loads(process_settings) == {
        "isolation": "process",
        "bot_memory": 512,
        "bot_cpu": 60,
    }
    assert json.loads(shared_settings) == {
        "isolation": "shared",
        "bot_memory": 1024,
        "bot_cpu": None,
    }


def test_an_interrupted_run_of_an_older_database_resumes_in_shared_mode(
    cli, bots_dir, tmp_path, monkeypatch
):
    """Before the isolation of a run was stored, its runs table had no settings column: a run
    begun in process isolation then (its settings lost below) resumes in the shared mode."""
    db = tmp_path / "old.db"
    interrupt_after(monkeypatch, 2)
    stopped = cli(
        *run_args(bots_dir, db, "--game", "td", "--isolation", "process", games=5, seed="old")
    )
    assert stopped.exit_code == 130
    with sqlite3.connect(db) as con:
        con.execute("ALTER TABLE runs DROP COLUMN settings")
    # An older database can still be shown.
    assert leaderboard_json(cli, db)["twenty-down"]
    resumed = ok(cli("run", "--resume", "--db", db, "--bots-dir", bots_dir, "-j", 1, "-q"))
    assert "isolation shared" in resumed.stderr
    assert "resumed run 1: 2 games were already stored" in resumed.stderr
    assert count_games(db, "twenty-down") == 5


def test_an_empty_seed_is_a_one_line_error(cli, bots_dir, tmp_path):
    """`--seed ''` was taken: the run began with "seed ," and a seed anybody could guess."""
    result = cli(*run_args(bots_dir, tmp_path / "empty.db", games=2, seed=""))
    assert_one_line_error(result, "the seed is empty")
    assert not (tmp_path / "empty.db").exists()


def test_a_mistyped_sandbox_variable_is_one_line_not_a_silent_auto(cli, tmp_path, monkeypatch):
    """ARENA_SANDBOX=bwarp (bwrap meant: the sandbox required) fell back to auto, which runs bots
    without a sandbox where bubblewrap does not work; --sandbox bwarp was an error already."""
    monkeypatch.setenv("ARENA_SANDBOX", "bwarp")
    result = cli("run", "--games", "2", "--isolation", "process", "--db", tmp_path / "a.db")
    assert_one_line_error(result, "$ARENA_SANDBOX must be one of auto, bwrap, none, not 'bwarp'")
    assert not (tmp_path / "a.db").exists()


def test_a_missing_folder_in_the_bots_dir_variable_is_one_line(cli, tmp_path, monkeypatch):
    """--bots-dir DIR of no folder is an error; $ARENA_BOTS_DIR of one was silently empty."""
    monkeypatch.setenv("ARENA_BOTS_DIR", str(tmp_path / "contest"))
    result = cli("run", "--games", "2", "--db", tmp_path / "a.db")
    assert_one_line_error(result, "$ARENA_BOTS_DIR: ", "contest: no such folder")
    assert_one_line_error(cli("bots"), "$ARENA_BOTS_DIR: ", "contest: no such folder")


def test_output_that_cannot_be_written_is_one_line_not_an_internal_error():
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "arena", "games"], stdout=full, stderr=subprocess.PIPE, text=True
        )
    assert done.returncode == 1
    assert done.stderr == "arena: error: No space left on device\n"


def test_a_reader_that_stops_early_ends_arena_quietly():
    """`arena bots | head -1`: the closed pipe is no error (exit 0, nothing on stderr)."""
    child = subprocess.Popen(
        [sys.executable, "-m", "arena", "games"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    child.stdout.close()
    stderr = child.stderr.read()
    assert child.wait() == 0
    assert stderr == b""
