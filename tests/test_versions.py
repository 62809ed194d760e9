"""Bot versions and ``--again``: a changed bot file is a new version with a fresh rating, the old
one keeps its games and can be fielded again from its stored source; a finished run's very games
are not added twice unless asked; a database from before versions upgrades in place."""

from __future__ import annotations

import hashlib
import sqlite3

import pytest
from conftest import FIRST_BOT, assert_one_line_error, bot_file, count_games, leaderboard_json
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.usefixtures("isolated")

RUN = ("run", "--game", "td", "--games", "16", "--jobs", "1", "-q")


def run(cli, bots_dir, db, *args):
    result = cli(*RUN, "--bots-dir", bots_dir, "--db", db, *args)
    assert result.exit_code == 0, result.output
    return result


def board(cli, db, *args) -> dict:
    result = cli("leaderboard", "--db", db, "--format", "json", *args)
    assert result.exit_code == 0, result.output
    return {row["bot"]: row for row in __import__("json").loads(result.stdout)["twenty-down"]}


def seat_names(db) -> dict[str, int]:
    with sqlite3.connect(db) as con:
        return dict(con.execute("SELECT bot, COUNT(*) FROM seats GROUP BY bot").fetchall())


FAULTY = bot_file("first", "raise RuntimeError('version 2 is broken')")


def test_a_changed_bot_file_is_a_new_version_with_a_fresh_rating(cli, bots_dir, db_path):
    run(cli, bots_dir, db_path, "--bots", "first,random", "--seed", "1")
    before = board(cli, db_path)["first"]
    (bots_dir / "first_bot.py").write_text(FIRST_BOT + "\n# a change\n")
    run(cli, bots_dir, db_path, "--bots", "first,random", "--seed", "2")

    latest = board(cli, db_path)
    assert set(latest) == {"first@2", "random"}  # the latest version only
    assert latest["first@2"]["games"] == 16  # its own games only: a fresh rating
    assert latest["random"]["games"] == 32
    every = board(cli, db_path, "--all-versions")
    assert set(every) == {"first@1", "first@2", "random"}
    # Its rating and figures stay as they were (the batch Elo is one fit of every game, so it moves
    # with the new games of the others: not part of this).
    batch = ("rank", "elo", "elo_ci")
    old = {k: v for k, v in every["first@1"].items() if k not in batch}
    assert old == {**{k: v for k, v in before.items() if k not in batch}, "bot": "first@1"}
    assert seat_names(db_path)["first"] == seat_names(db_path)["first@2"]

    # The same file again is the same version: no third one.
    run(cli, bots_dir, db_path, "--bots", "first,random", "--seed", "3")
    assert set(board(cli, db_path, "--all-versions")) == {"first@1", "first@2", "random"}


@pytest.mark.parametrize("isolation", ["shared", "process"])
def test_an_old_version_is_fielded_from_its_stored_source(cli, bots_dir, db_path, isolation):
    run(cli, bots_dir, db_path, "--bots", "first,random", "--seed", "1")
    (bots_dir / "first_bot.py").write_text(FAULTY)
    run(
        cli, bots_dir, db_path, "--bots", "first@1,first,random", "--seed", "2",
        "--isolation", isolation,
    )  # fmt: skip
    every = board(cli, db_path, "--all-versions")
    assert every["first@1"]["games"] > 16 and every["first@1"]["faults"] == 0  # the old code
    assert every["first@2"]["faults"] > 0  # the file as it is now
    assert (db_path.parent / "arena-versions" / "first@1" / "first.py").read_text() == FIRST_BOT


def test_unknown_version_and_unstorable_version_are_one_line_errors(cli, bots_dir, db_path):
    run(cli, bots_dir, db_path, "--bots", "first,random", "--seed", "1")
    result = cli(*RUN, "--bots-dir", bots_dir, "--db", db_path, "--bots", "first@7,random")
    assert_one_line_error(result, "unknown version first@7", "first@1")
    with sqlite3.connect(db_path) as con:  # a bot of an installed package, seen before
        con.execute(
            "INSERT INTO bot_versions VALUES ('packaged', 1, 'f', 0, 0, 'entry-point', NULL)"
        )
    result = cli(*RUN, "--bots-dir", bots_dir, "--db", db_path, "--bots", "packaged@1,random")
    assert_one_line_error(result, "packaged@1", "entry point", "cannot be fielded again")


def test_an_unknown_bot_lists_each_current_version_once(cli, bots_dir, db_path):
    """Every bot was listed twice, as 'random' and 'random@1', in every unknown-bot message."""
    run(cli, bots_dir, db_path, "--bots", "first,random", "--seed", "1")
    result = cli(*RUN, "--bots-dir", bots_dir, "--db", db_path, "--bots", "rando,first")
    assert_one_line_error(result, "unknown bot 'rando'; did you mean 'random'?", "random")
    assert "random@1" not in result.stderr and "first@1" not in result.stderr


def test_a_bot_name_with_an_at_sign_is_a_load_warning(cli, bots_dir, db_path):
    (bots_dir / "odd.py").write_text(bot_file("odd@2", "return observation.legal_actions[0]"))
    result = run(cli, bots_dir, db_path, "--bots", "first,random")
    assert "may not contain '@'" in result.stderr


def test_a_finished_runs_very_games_need_again(cli, bots_dir, db_path):
    run(cli, bots_dir, db_path, "--bots", "first,random", "--seed", "5")
    result = cli(*RUN, "--bots-dir", bots_dir, "--db", db_path, "--bots", "first,random",
                 "--seed", "5")  # fmt: skip
    assert_one_line_error(result, "already played these very games", "--again", "seed 5")
    assert count_games(db_path) == 16
    run(cli, bots_dir, db_path, "--bots", "first,random", "--seed", "5", "--again")
    assert count_games(db_path) == 32
    # another seed, or a changed bot, is another run
    run(cli, bots_dir, db_path, "--bots", "first,random", "--seed", "6")
    (bots_dir / "first_bot.py").write_text(FIRST_BOT + "\n# changed\n")
    run(cli, bots_dir, db_path, "--bots", "first,random", "--seed", "5")
    assert count_games(db_path) == 64


def test_a_database_from_before_versions_upgrades_in_place(cli, bots_dir, db_path):
    run(cli, bots_dir, db_path, "--bots", "first,random", "--seed", "1")
    with sqlite3.connect(db_path) as con:
        con.execute("DROP TABLE bot_versions")
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    old = hashlib.sha256(db_path.read_bytes()).hexdigest()
    shown = leaderboard_json(cli, db_path)["twenty-down"]
    assert {r["bot"] for r in shown} == {"first", "random"}
    assert hashlib.sha256(db_path.read_bytes()).hexdigest() == old  # read, not written

    run(cli, bots_dir, db_path, "--bots", "first,random", "--seed", "2")
    rows = board(cli, db_path)
    assert rows["first"]["games"] == rows["random"]["games"] == 32  # version 1: the same rating
    (bots_dir / "first_bot.py").write_text(FIRST_BOT + "\n# changed\n")
    run(cli, bots_dir, db_path, "--bots", "first,random", "--seed", "3")
    every = board(cli, db_path, "--all-versions")
    assert every["first@1"]["games"] == 32 and every["first@2"]["games"] == 16


# --- the numbering, as a property ----------------------------------------------------------------

VARIANTS = [FIRST_BOT + f"\n# variant {i}\n" for i in range(3)]


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(edits=st.lists(st.sampled_from(range(3)), min_size=1, max_size=8))
def test_a_version_is_its_content_numbered_by_first_appearance(tmp_path_factory, edits):
    """Whatever the order of edits, each distinct content of a bot file is one version, numbered
    in the order the contents first appeared; version 1 keeps the plain name."""
    from arena.plugins.loading import Loader, Registry, load_file
    from arena.store.database import Store
    from arena.tournament.versions import apply_versions

    folder = tmp_path_factory.mktemp("edits")
    store = Store(folder / "v.db")
    first_seen: list[int] = []
    for step, variant in enumerate(edits):
        path = folder / f"step{step}" / "first_bot.py"  # (a fresh module each time)
        path.parent.mkdir()
        path.write_text(VARIANTS[variant])
        registry = Registry()
        load_file(Loader(registry), path)
        versions = apply_versions(registry, store)
        if variant not in first_seen:
            first_seen.append(variant)
        number = first_seen.index(variant) + 1
        expected = "first" if number == 1 else f"first@{number}"
        assert list(registry.bots) == [expected]
        assert registry.bot("first").name == registry.bot(f"first@{number}").name == expected
        versions.record(store, registry.bots)
    assert [v.version for v in store.bot_versions()] == list(range(1, len(first_seen) + 1))
    store.close()


def test_a_new_version_with_no_game_stored_yet_leaves_the_rated_one_on_the_leaderboard():
    """A run stopped before its first batch was stored has recorded the new version (fielded
    last) but rated nothing: the bot must not vanish from the default leaderboard."""
    from arena.store.versions import BotVersion
    from arena.views.versions import version_view

    first = BotVersion("mine", 1, "aaa", 1.0, 1.0, "file", True)
    edited = BotVersion("mine", 2, "bbb", 2.0, 2.0, "file", True)
    view = version_view([first, edited], rated={"mine", "random"})
    assert view.show("mine") and not view.show("mine@2")
    assert view.label("mine") == "mine@1"
    once_rated = version_view([first, edited], rated={"mine", "mine@2"})
    assert once_rated.show("mine@2") and not once_rated.show("mine")
