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

from arena.limits import PlanError
from arena.plugins.loading import load_registry
from arena.store.database import RunInfo, Store
from arena.tournament.file import load_tournament_file
from arena.tournament.plan import build_tournament, tournament_from_identity
from arena.tournament.run import default_jobs
from arena.tournament.run_plan import RunOptions, chosen_settings, plan_run
from arena.tournament.settle import settle
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
    return RunInfo(run_id, "s", {**identity, "plans": [], **config}, "running", settings)


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
        RunOptions(games_per_game=8, bots=["random", "first"]),  # the run's games have no bots
    ],
)
def test_a_run_that_cannot_continue_a_process_run_loads_here_for_sure(options):
    runs = stored(run_info(1, "process", games=8), run_info(2, "shared", games=9))
    plan = plan_run(options, None, runs, DEFAULT_DB)
    assert not plan.load_isolated and not plan.loading_is_a_guess


def test_a_rerun_naming_the_bots_of_a_process_run_loads_isolated_as_a_guess():
    plans = [{"game": "twenty-down", "bots": ["first", "random"]}, {"game": "x", "bots": ["first"]}]
    runs = stored(run_info(1, "process", games=8, plans=plans))
    plan = plan_run(RunOptions(games_per_game=8, bots=["random", "first"]), None, runs, DEFAULT_DB)
    assert plan.load_isolated and plan.loading_is_a_guess


@pytest.mark.parametrize("named", [["random", "first"], ["random@1", "first@2"]])
def test_a_rerun_naming_the_bots_of_a_process_run_by_name_or_version_loads_isolated(named):
    """The run stores its bots' versions (first@2); the command names them by name."""
    plans = [{"game": "twenty-down", "bots": ["first@2", "random"]}]
    runs = stored(run_info(1, "process", games=8, plans=plans))
    plan = plan_run(RunOptions(games_per_game=8, bots=named), None, runs, DEFAULT_DB)
    assert plan.load_isolated and plan.loading_is_a_guess


def test_chosen_settings_command_line_then_continued_run_then_file_then_default():
    kept = {"isolation": "process", "bot_memory": 10**12, "bot_cpu": 5}  # 1 TiB+: unusable
    chosen = chosen_settings({"bot_cpu": 7}, kept, {"bot_memory": 300})
    assert chosen == {"isolation": "process", "bot_memory": 300, "bot_cpu": 7}
    defaults = {"isolation": "shared", "bot_memory": 1024, "bot_cpu": None}
    assert chosen_settings({}, {}, {}) == defaults


# --- settling the run: the bot files loaded once, a second time only when the guess was wrong -----


class Loads:
    """A ``load_registry`` that loads the bots here, and remembers how it was asked to."""

    def __init__(self, bots_dir: Path):
        self.bots_dir = bots_dir
        self.calls: list[tuple[bool, bool]] = []  # (quiet, isolated)

    def __call__(self, bots_dirs, quiet=False, isolated=False, memory_mib=1024):
        self.calls.append((quiet, isolated))
        return load_registry(self.bots_dir, entry_points=False)


def stored_process_run(tmp_path, bots_dir: Path, bots: list[str]) -> tuple[Path, int]:
    """A database with one interrupted run of 4 games of every game, played isolated."""
    db = tmp_path / "arena.db"
    registry = load_registry(bots_dir, entry_points=False)
    tournament = build_tournament(registry, games_per_game=4, bots=bots, seed="s1")
    store = Store(db)
    settings = {"isolation": "process", "bot_memory": 512, "bot_cpu": None}
    run_id = store.start_run(tournament.seed, tournament.identity(), settings)
    store.close()
    return db, run_id


def unfinished_in(db: Path):
    store = Store(db, create=False)
    try:
        return store.unfinished_runs()
    finally:
        store.close()


def test_settling_a_confirmed_guess_loads_once_and_keeps_the_runs_settings(tmp_path):
    bots_dir = write_bots(tmp_path / "bots", STANDARD_BOTS)
    db, run_id = stored_process_run(tmp_path, bots_dir, ["random", "first"])
    options = RunOptions(games_per_game=4, bots=["random", "first"], db=db)
    plan = plan_run(options, None, unfinished_in, DEFAULT_DB)
    assert plan.loading_is_a_guess
    loads, warned = Loads(bots_dir), []
    registry, store, settled = settle(plan, loads, Store, warned.append)
    store.close()
    assert loads.calls == [(True, True)] and warned == [registry]
    assert settled.previous.id == run_id and settled.tournament.seed == "s1"
    how = settled.tournament
    assert (how.isolation, how.bot_memory, how.bot_cpu) == ("process", 512, None)
    assert settled.jobs == default_jobs("process")


def test_settling_a_wrong_guess_loads_a_second_time_here(tmp_path):
    bots_dir = write_bots(tmp_path / "bots", STANDARD_BOTS)
    db, _ = stored_process_run(tmp_path, bots_dir, ["random", "first"])
    plan = plan_run(RunOptions(games_per_game=4, db=db, jobs=3), None, unfinished_in, DEFAULT_DB)
    assert plan.loading_is_a_guess  # the stored run might be this one: every bot is not known yet
    loads, warned = Loads(bots_dir), []
    _, store, settled = settle(plan, loads, Store, warned.append)
    store.close()
    assert loads.calls == [(True, True), (False, False)] and warned == []
    assert settled.previous is None and settled.tournament.isolation == "shared"
    assert settled.jobs == 3


def test_settling_without_a_guess_loads_once_as_planned(tmp_path):
    bots_dir = write_bots(tmp_path / "bots", STANDARD_BOTS)
    options = RunOptions(games_per_game=4, db=tmp_path / "new.db")
    plan = plan_run(options, None, stored(), DEFAULT_DB)
    loads = Loads(bots_dir)
    _, store, settled = settle(plan, loads, Store, never_read)
    store.close()
    assert loads.calls == [(False, False)] and settled.tournament.isolation == "shared"


def test_settling_an_impossible_resume_is_one_error_and_closes_the_store(tmp_path):
    bots_dir = write_bots(tmp_path / "bots", STANDARD_BOTS)
    plan = plan_run(RunOptions(resume=True, db=tmp_path / "new.db"), None, stored(), DEFAULT_DB)
    opened = []

    def open_store(db):
        opened.append(Store(db))
        return opened[-1]

    with pytest.raises(PlanError, match="no interrupted run to resume"):
        settle(plan, Loads(bots_dir), open_store, never_read)
    assert len(opened) == 1 and opened[0].db is None  # closed


# --- what the plan holds --------------------------------------------------------------------------


def test_the_file_gives_what_the_command_line_does_not(tmp_path):
    loaded = tournament_file(
        tmp_path,
        'games = 7\nseed = 42\njobs = 3\ndb = "x/cup.db"\nbots_dir = ["a", "b"]\nmove_time = 2\n'
        "records = false\n",
    )
    plan = plan_run(RunOptions(move_time=0.5), loaded, stored(), DEFAULT_DB)
    # (paths in the file are relative to the file: issue 16)
    expected = (tmp_path / "x/cup.db", [tmp_path / "a", tmp_path / "b"], 3)
    assert (plan.db, plan.bots_dirs, plan.jobs) == expected
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
