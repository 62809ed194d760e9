"""Issue 16, a bot author's day: fast feedback and no traps. One test (at least) per point.

1. baseline bots ship in the package · 2. search bots known by name, not fielded by default ·
3. fault tracebacks, `arena faults`, the fault summary, --fail-fast · 4. --variant/--param ·
5. set answers in any order · 6. bot packages · 7. a bot name registered twice ·
8. tournament-file paths relative to the file · 9. unknown names everywhere alike ·
10. `arena play` (forced moves, changes only, colour, the winning card, rules on `?`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import RANDOM_BOT, assert_one_line_error, bot_file, write_bots

from arena.plugins.loading import BUNDLED, load_registry

pytestmark = pytest.mark.usefixtures("isolated")


# --- 1. the baseline bots ship inside the package ---------------------------------------------


def test_new_bot_then_the_suggested_run_works_in_an_empty_folder(cli):
    made = cli("new-bot", "foo", "--game", "td")
    assert made.exit_code == 0, made.output
    assert "arena run --bots foo,random" in made.stdout
    ran = cli("run", "--bots", "foo,random", "--games", 4, "-j", 1, "-q", "--format", "json")
    assert ran.exit_code == 0, ran.output
    assert {r["bot"] for r in json.loads(ran.stdout)["twenty-down"]} == {"foo", "random"}


def test_bundled_bots_are_registered_through_the_hook_and_run_in_their_own_process(cli):
    registry = load_registry([], entry_points=False)
    for name in ("random", "td-heuristic", "hl-heuristic"):
        assert registry.bot(name).source == BUNDLED
        assert registry.bot(name).origin == ("module", "arena.plugins.builtin")
    ran = cli("run", "--game", "td", "--bots", "random,td-heuristic", "--games", 2, "-j", 1,
              "--isolation", "process", "-q", "--format", "json")  # fmt: skip
    assert ran.exit_code == 0, ran.output
    rows = json.loads(ran.stdout)["twenty-down"]
    assert all(r["faults"] == 0 for r in rows) and len(rows) == 2


def test_a_run_that_cannot_be_built_leaves_no_database_behind(cli):
    failed = cli("run", "--game", "td", "--bots", "td-search-small", "--games", 2)
    assert failed.exit_code == 2
    assert not Path("leaderboard").exists()


def test_a_bot_file_may_replace_a_bundled_bot(tmp_path):
    mine = RANDOM_BOT.replace("class RandomBot", "class MyRandom")
    folder = write_bots(tmp_path / "bots", {"my_random.py": mine.replace("RandomBot", "MyRandom")})
    registry = load_registry(folder, entry_points=False)
    assert registry.errors == []
    assert registry.bot("random").source == str(folder / "my_random.py")


# --- 2. the search bots: known by name everywhere, fielded only when named ---------------------


def test_search_bots_are_known_by_name_but_not_fielded_by_default(cli):
    listing = cli("bots")
    assert listing.exit_code == 0, listing.output
    assert "td-search-small" in listing.stdout and "hl-search-large" in listing.stdout
    assert "fielded only when named (--bots, a tournament file): hl-search-large" in listing.stdout
    plain = cli(
        "run", "--game", "td", "--games", 2, "-j", 1, "-q", "--format", "json", "--db", "a.db"
    )
    assert plain.exit_code == 0, plain.output
    assert not [r for r in json.loads(plain.stdout)["twenty-down"] if "search" in r["bot"]]
    named = cli("run", "--game", "td", "--bots", "td-search-small,random", "--games", 2, "-j", 1,
                "-q", "--format", "json", "--db", "b.db", "--move-time", "5")  # fmt: skip
    assert named.exit_code == 0, named.output
    assert {r["bot"] for r in json.loads(named.stdout)["twenty-down"]} == {
        "td-search-small",
        "random",
    }


# --- 6. a bot may be a package ----------------------------------------------------------------

HELPER_PACKAGE = {
    "__init__.py": "import arena\n\nfrom .choice import pick\n\n\n"
    "class Pkg(arena.Bot):\n    name = 'pkg'\n\n    def act(self, obs):\n"
    "        return pick(obs.legal_actions)\n\n\n"
    "@arena.hookimpl\ndef arena_register_bots(register):\n    register(Pkg)\n",
    "choice.py": "def pick(actions):\n    return actions[-1]\n",
}


@pytest.mark.parametrize("isolation", ["shared", "process"])
def test_a_bot_package_imports_its_own_modules(tmp_path, cli, isolation):
    write_bots(tmp_path / "bots" / "pkg_bot", HELPER_PACKAGE)
    registry = load_registry(tmp_path / "bots", entry_points=False)
    assert registry.errors == []
    assert registry.bot("pkg").origin == ("file", str((tmp_path / "bots" / "pkg_bot").resolve()))
    ran = cli("run", "--bots-dir", tmp_path / "bots", "--game", "td", "--bots", "pkg,random",
              "--games", 2, "-j", 1, "-q", "--format", "json", "--isolation", isolation)  # fmt: skip
    assert ran.exit_code == 0, ran.output
    assert all(r["faults"] == 0 for r in json.loads(ran.stdout)["twenty-down"])


def test_new_bot_package_writes_a_package_that_loads_and_plays(cli):
    made = cli("new-bot", "mine", "--game", "hl", "--package")
    assert made.exit_code == 0, made.output
    assert Path("bots/mine/__init__.py").is_file() and Path("bots/mine/helpers.py").is_file()
    ran = cli("run", "--bots", "mine,random", "--games", 2, "-j", 1, "-q", "--format", "json")
    assert ran.exit_code == 0, ran.output
    assert cli("new-bot", "mine", "--game", "hl").exit_code == 2  # bots/mine/ is taken


# --- 7. a bot name registered twice ------------------------------------------------------------


def test_a_bot_name_registered_by_two_files_is_an_error_naming_both_and_neither_plays(
    tmp_path, cli
):
    folder = write_bots(
        tmp_path / "bots",
        {
            "a_twin.py": bot_file("twin", "return observation.legal_actions[0]"),
            "b_twin.py": bot_file("twin", "return observation.legal_actions[-1]"),
        },
    )
    registry = load_registry(folder, entry_points=False)
    assert "twin" not in registry.bots
    (error,) = registry.errors
    assert str(folder / "a_twin.py") in str(error) and str(folder / "b_twin.py") in str(error)
    ran = cli("run", "--bots-dir", folder, "--bots", "twin,random", "--games", 2)
    assert ran.exit_code == 2
    warning, error_line = ran.stderr.strip().splitlines()
    assert "a_twin.py" in warning and "b_twin.py" in warning and "neither" in warning
    assert error_line.startswith("arena: error: unknown bot 'twin'")


# --- 8. paths in a tournament file are relative to the file -----------------------------------


def test_tournament_file_paths_are_relative_to_the_file(tmp_path, cli):
    cup = tmp_path / "cups"
    write_bots(cup / "mybots", {"mine.py": bot_file("mine", "return observation.legal_actions[0]")})
    (cup / "cup.toml").write_text(
        'games = 2\nseed = "rel"\ndb = "results/cup.db"\nbots_dir = "mybots"\n'
        '[game.td]\nbots = ["mine", "random"]\n'
    )
    ran = cli("run", cup / "cup.toml", "-j", 1, "-q")  # run from elsewhere
    assert ran.exit_code == 0, ran.output
    assert (cup / "results" / "cup.db").exists() and not Path("results").exists()


def test_the_repository_example_runs_from_inside_tournaments(tmp_path, cli, monkeypatch):
    from conftest import REPO

    (tmp_path / "tournaments").mkdir()
    example = (REPO / "tournaments" / "example.toml").read_text(encoding="utf-8")
    (tmp_path / "tournaments" / "example.toml").write_text(
        example.replace("games = 200", "games = 2")
    )
    monkeypatch.chdir(tmp_path / "tournaments")
    ran = cli("run", "example.toml", "-j", 1, "-q")
    assert ran.exit_code == 0, ran.output
    assert (tmp_path / "leaderboard" / "example.db").exists()
    assert not (tmp_path / "tournaments" / "leaderboard").exists()
