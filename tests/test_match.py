"""``arena match A B --sprt`` on real bots: it decides, its games are stored and rated like any
run's, its result does not depend on --jobs, and a stored match replays to the same result."""

from __future__ import annotations

import json

import pytest
from conftest import assert_one_line_error, count_games, leaderboard_json

from arena.store.database import Store
from arena.tournament.match import MatchStopper
from arena.tournament.plan import tournament_from_identity

pytestmark = pytest.mark.usefixtures("isolated")


@pytest.fixture
def bundled(tmp_path):
    """A bots folder with no file: ``random`` and the heuristics ship with arena."""
    bots = tmp_path / "bots"
    bots.mkdir()
    return bots


def match(cli, bots, db, *args):
    result = cli(
        "match", *args, "--bots-dir", bots, "--db", db, "--seed", "7", "-q", "--format", "json"
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_sprt_decides_h1_for_the_stronger_bot_and_stores_its_games(cli, bundled, db_path):
    result = match(cli, bundled, db_path, "td-heuristic", "random", "--sprt", "--jobs", "1")
    assert result["sprt"]["decision"] == "H1"
    assert result["sprt"]["llr"] >= result["sprt"]["upper"]
    assert result["games"] == 2 * result["boards"] < 2000  # stopped early, on a whole board
    assert count_games(db_path) == result["games"]
    rows = {r["bot"]: r for r in leaderboard_json(cli, db_path)["twenty-down"]}
    assert rows["td-heuristic"]["games"] == rows["random"]["games"] == result["games"]
    assert rows["td-heuristic"]["mu"] > rows["random"]["mu"]

    # Stored: the same match is not played twice without --again, and the stored games replay
    # to the very same result (what a resumed match does).
    again = cli("match", "td-heuristic", "random", "--sprt", "--bots-dir", bundled, "--db",
                db_path, "--seed", "7", "-q")  # fmt: skip
    assert_one_line_error(again, "already played", "--again")
    store = Store(db_path, create=False)
    run = store._runs("status='finished'")[0]
    replayed = MatchStopper.of(tournament_from_identity(run.config))
    replayed.replay(store.run_placings(run.id, "twenty-down"))
    assert {"game": "twenty-down", "run": run.id, **replayed.result()} == result
    assert store.note(f"match/{run.id}") == replayed.result()
    store.close()


def test_sprt_decides_h0_for_the_weaker_bot_whatever_the_jobs(cli, bundled, tmp_path):
    one = match(cli, bundled, tmp_path / "one.db", "random", "td-heuristic", "--sprt", "-j", "1")
    two = match(cli, bundled, tmp_path / "two.db", "random", "td-heuristic", "--sprt", "-j", "2")
    assert one["sprt"]["decision"] == "H0"
    assert one == two


def test_without_sprt_or_at_the_cap_the_match_plays_every_game(cli, bundled, db_path):
    result = match(cli, bundled, db_path, "td-heuristic", "random", "--games", "12", "--sprt")
    assert result["games"] == 12 and result["boards"] == 6
    assert result["sprt"]["decision"].startswith("none")
    plain = match(cli, bundled, db_path, "random", "td-heuristic", "--games", "8")
    assert plain["boards"] == 4 and "sprt" not in plain
    assert sum(plain["pentanomial"].values()) == 4


@pytest.mark.parametrize(
    "args,fragments",
    [
        (("random", "random", "--sprt"), ("two different bots",)),
        (("random", "nobody", "--sprt"), ("unknown bot 'nobody'",)),
        (("random", "td-heuristic", "--sprt", "--elo0", "5", "--elo1", "1"), ("--elo0",)),
        (("random", "td-heuristic", "--sprt", "--alpha", "2"), ("--alpha must be between",)),
        (("random", "td-heuristic", "--sprt", "--model", "x"), ("--model must be",)),
        # The test's settings without the test: a fixed-length match would ignore them.
        (("random", "td-heuristic", "--elo1", "5"), ("--elo1", "add --sprt")),
        (("random", "td-heuristic", "--alpha", "0.01"), ("--alpha", "add --sprt")),
    ],
)
def test_bad_matches_are_one_line_errors(cli, bundled, db_path, args, fragments):
    result = cli("match", *args, "--bots-dir", bundled, "--db", db_path)
    assert_one_line_error(result, *fragments)


@pytest.mark.parametrize("how", ["same command", "run --resume"])
def test_an_interrupted_match_continues_to_the_same_result(
    cli, bundled, tmp_path, monkeypatch, how
):
    whole = match(cli, bundled, tmp_path / "whole.db", "random", "td-heuristic", "--sprt")
    import arena.tournament.run as run_module
    from arena.views.progress import Progress

    def interrupt(self, game, done, total, note=""):
        if done >= 20:
            raise KeyboardInterrupt

    db = tmp_path / "cut.db"
    with monkeypatch.context() as patch:
        patch.setattr(run_module, "FLUSH_SECONDS", -1.0)  # store (and report) after every game
        patch.setattr(Progress, "update", interrupt)
        cut = cli("match", "random", "td-heuristic", "--sprt", "--bots-dir", bundled, "--db", db,
                  "--seed", "7", "-j", "1")  # fmt: skip
    assert cut.exit_code == 130, cut.output
    assert 20 <= count_games(db) < whole["games"]
    if how == "run --resume":
        resumed = cli("run", "--resume", "--bots-dir", bundled, "--db", db, "-q")
        assert resumed.exit_code == 0, resumed.output
        assert count_games(db) == whole["games"]
    else:
        assert match(cli, bundled, db, "random", "td-heuristic", "--sprt") == whole
