"""The plan of ``arena run``, decided before any bot file is loaded, and the game ``arena play``
sets up: both without the command line.

``plan_run`` decides how the bot files are loaded (here, or only in sandboxed loading processes)
from the options, the tournament file and the database's unfinished runs. With ``--isolation
process`` no bot file may run in arena's own process, so that decision cannot wait for the registry.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import STANDARD_BOTS, write_bots

from arena.plugins.loading import load_registry
from arena.store.database import RunInfo
from arena.tournament.file import load_tournament_file
from arena.tournament.plan import PlanError, build_tournament, tournament_from_identity
from arena.tournament.run_plan import RunOptions, chosen_settings, plan_run
from arena.views.human_game import HumanGameError, set_up_game
from arena.views.human_seat import choose_seat

DEFAULT_DB = Path("leaderboard/arena.db")


def never_read(db):
    raise AssertionError("the stored runs were read although nothing depended on them")


def stored(*runs: RunInfo):
    """``unfinished_runs`` of a database holding ``runs`` (newest first)."""
    return lambda db: list(runs)


def run_info(run_id: int, isolation: str | None, **config) -> RunInfo:
    identity = {"games": 100, "seed": "s", "move_time": 1.0, "max_faults": 3, "records": True}
    settings = {} if isolation is None else {"isolation": isolation, "bot_memory": 512}
    return RunInfo(run_id, "s", {**identity, **config, "plans": []}, "running", settings)


def tournament_file(tmp_path, text: str):
    path = tmp_path / "cup.toml"
    path.write_text(text)
    return load_tournament_file(path)


# --- how the bot files are loaded -----------------------------------------------------------------


@pytest.mark.parametrize("isolation", ["shared", "process"])
def test_isolation_given_on_the_command_line_decides_without_reading_the_database(isolation):
    plan = plan_run(RunOptions(isolation=isolation), None, never_read, DEFAULT_DB)
    assert plan.load_isolated == (isolation == "process")
    assert not plan.loading_is_a_guess


def test_a_tournament_file_asking_for_process_isolation_loads_isolated(tmp_path):
    loaded = tournament_file(tmp_path, 'isolation = "process"\nbot_memory = 256\n')
    plan = plan_run(RunOptions(), loaded, never_read, DEFAULT_DB)
    assert plan.load_isolated and not plan.loading_is_a_guess
    assert plan.loading_memory == 256


@pytest.mark.parametrize("latest", ["process", "shared", None])
def test_resume_loads_as_the_continued_run_was_played(latest):
    older = run_info(1, "process")
    runs = stored(run_info(2, latest), older) if latest else stored(run_info(2, None), older)
    plan = plan_run(RunOptions(resume=True), None, runs, DEFAULT_DB)
    assert plan.load_isolated == (latest == "process")
    assert not plan.loading_is_a_guess


def test_resume_with_nothing_to_resume_loads_here():
    plan = plan_run(RunOptions(resume=True), None, stored(), DEFAULT_DB)
    assert not plan.load_isolated and not plan.loading_is_a_guess


def test_a_rerun_that_may_continue_a_process_run_loads_isolated_as_a_guess():
    runs = stored(run_info(1, "process", games=8))
    plan = plan_run(RunOptions(games_per_game=8), None, runs, DEFAULT_DB)
    assert plan.load_isolated and plan.loading_is_a_guess


@pytest.mark.parametrize(
    "options",
    [
        RunOptions(games_per_game=9),
        RunOptions(games_per_game=8, seed="other"),
        RunOptions(games_per_game=8, move_time=0.5),
        RunOptions(games_per_game=8, records=False),
        RunOptions(games_per_game=8, duplicate=False),
    ],
)
def test_a_run_that_cannot_continue_a_process_run_loads_here_for_sure(options):
    runs = stored(run_info(1, "process", games=8), run_info(2, "shared", games=9))
    plan = plan_run(options, None, runs, DEFAULT_DB)
    assert not plan.load_isolated and not plan.loading_is_a_guess


def test_chosen_settings_command_line_then_continued_run_then_file_then_default():
    kept = {"isolation": "process", "bot_memory": 10**12, "bot_cpu": 5}  # 1 TiB+: unusable
    chosen = chosen_settings({"bot_cpu": 7}, kept, {"bot_memory": 300})
    assert chosen == {"isolation": "process", "bot_memory": 300, "bot_cpu": 7}
    defaults = {"isolation": "shared", "bot_memory": 1024, "bot_cpu": None}
    assert chosen_settings({}, {}, {}) == defaults


# --- what the plan holds --------------------------------------------------------------------------


def test_the_file_gives_what_the_command_line_does_not(tmp_path):
    loaded = tournament_file(
        tmp_path,
        'games = 7\nseed = 42\njobs = 3\ndb = "x/cup.db"\nbots_dir = ["a", "b"]\nmove_time = 2\n'
        "records = false\n",
    )
    plan = plan_run(RunOptions(move_time=0.5), loaded, stored(), DEFAULT_DB)
    assert (plan.db, plan.bots_dirs, plan.jobs) == (Path("x/cup.db"), [Path("a"), Path("b")], 3)
    request = plan.request
    assert (request.games_per_game, request.seed, request.move_time) == (7, 42, 0.5)
    assert request.records is False and request.from_file == {"games"}
    assert plan_run(RunOptions(records=False), None, stored(), DEFAULT_DB).request.records is False


def test_defaults_without_options_or_file():
    plan = plan_run(RunOptions(), None, stored(), DEFAULT_DB)
    assert (plan.db, plan.bots_dirs, plan.jobs, plan.resume) == (DEFAULT_DB, [], None, False)
    request = plan.request
    assert (request.games_per_game, request.move_time, request.max_faults) == (100, 1.0, 3)
    assert request.seed is None and request.duplicate is True


@pytest.mark.parametrize(
    ("options", "file_text", "message"),
    [
        (RunOptions(isolation="docker"), "", "--isolation must be shared or process, not 'docker'"),
        (RunOptions(), 'isolation = "docker"\n', "cup.toml: isolation must be shared or process"),
        (RunOptions(jobs=0), "jobs = 2\n", "--jobs must be a whole number from 1 to 256, not 0"),
        (RunOptions(), "jobs = 0\n", "cup.toml: jobs must be a whole number from 1 to 256"),
        (RunOptions(bot_memory=1), "", "--bot-memory must be a whole number from 64"),
        (RunOptions(bots=[]), "", "--bots names no bot; leave it out to play every bot"),
    ],
)
def test_bad_settings_are_named_where_they_came_from(tmp_path, options, file_text, message):
    loaded = tournament_file(tmp_path, file_text)
    with pytest.raises(PlanError) as error:
        plan_run(options, loaded, never_read, DEFAULT_DB)
    assert message in str(error.value)


def test_the_stored_identity_keeps_the_key_games(tmp_path):
    registry = load_registry(write_bots(tmp_path / "bots", STANDARD_BOTS), entry_points=False)
    tournament = build_tournament(registry, games_per_game=12, seed="id")
    identity = tournament.identity()
    assert identity["games"] == 12 and "games_per_game" not in identity
    again = tournament_from_identity(identity)
    assert again.games_per_game == 12 and again.identity() == identity


# --- the game of arena play -----------------------------------------------------------------------


@pytest.fixture
def registry(tmp_path):
    return load_registry(write_bots(tmp_path / "bots", STANDARD_BOTS), entry_points=False)


def test_play_seats_the_person_and_every_bot_of_the_game(registry):
    game = set_up_game(registry, "td", None, None, None, "abc", 1.0)
    assert game.table.name == "twenty-down" and game.table.players == 4
    assert game.seed == "abc" and game.seat == choose_seat("abc", 4)
    assert game.bots == ["first", "random", "td-only"]
    hl = set_up_game(registry, "hl", ["random", "first"], None, 0, None, 1.0)
    assert hl.table.players == 3 and hl.seat == 0 and len(hl.seed) == 8


@pytest.mark.parametrize(
    ("game", "bots", "players", "seat", "move_time", "message"),
    [
        ("twenty-dwn", None, None, None, 1.0, "unknown game 'twenty-dwn'"),
        ("td", [], None, None, 1.0, "--bots names no bot"),
        ("td", ["human"], None, None, 1.0, "`human` is you"),
        ("hl", ["td-only"], None, None, 1.0, "bot 'td-only' does not play how-low-can-you-go"),
        ("hl", ["random", "first"], 2, None, 1.0, "room for you and 1 bot, not 2 (use --players)"),
        ("hl", ["random"], 11, None, 1.0, "11"),
        ("td", ["random"], None, 4, 1.0, "--seat must be 0 to 3, not 4"),
        ("td", ["random", "first", "td-only", "random"], None, 0, 1.0, "room for you and 3 bots"),
        ("td", ["random"], None, None, 0.0, "--move-time must be a number of seconds above 0"),
    ],
)
def test_play_set_up_errors_are_one_line(registry, game, bots, players, seat, move_time, message):
    with pytest.raises(HumanGameError) as error:
        set_up_game(registry, game, bots, players, seat, None, move_time)
    assert message in str(error.value)
