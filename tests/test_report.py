"""``arena report`` without a browser: the data it embeds, the tables' drawings, bad input."""

from __future__ import annotations

import json
import re

import pytest

from arena.cards import ASCII_NAMES
from arena.cli.common import game_classes
from arena.games.base import action_from_json, game_from_record
from arena.games.how_low.rules import HowLowCanYouGo
from arena.games.record import expand
from arena.games.twenty_down.rules import TwentyDown
from arena.report.gather import Selection, gather
from arena.report.replays import drawing_at, game_frames
from arena.store.database import Store
from arena.views.leaderboard import leaderboard_rows
from tests.conftest import assert_one_line_error, leaderboard_json
from tests.report_fixtures import make_database

pytestmark = pytest.mark.usefixtures("isolated")


@pytest.fixture
def db(cli, tmp_path):
    return make_database(cli, tmp_path)


def _page_data(html: str) -> dict:
    found = re.search(r'id="report-data">(.*?)</script>', html, re.S)
    return json.loads(found.group(1))


def test_report_command_writes_one_offline_file(cli, db, tmp_path):
    out = tmp_path / "r.html"
    result = cli("report", "--db", db, "-o", out)
    assert result.exit_code == 0, result.output
    html = out.read_text()
    # Nothing is fetched: no src/href to another file or host, and the page forbids it.
    assert not re.search(r'(src|href)="(?!#)', html)
    assert "default-src 'none'" in html
    data = _page_data(html)
    assert data["games"]["twenty-down"]["leaderboard"] == leaderboard_json(cli, db)["twenty-down"]
    assert {f["bot"] for f in data["faults"]} == {"faulty"}


def test_run_report_option_writes_the_report(cli, tmp_path, bots_dir):
    out = tmp_path / "run.html"
    result = cli(
        "run", "--games", 3, "--seed", 1, "--db", tmp_path / "x.db", "--bots-dir", bots_dir,
        "--jobs", 1, "-q", "--report", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "report written" in result.output
    assert _page_data(out.read_text())["stored_games"] == 6


def test_games_stored_without_records_are_not_counted_as_replays(cli, tmp_path, bots_dir):
    """The report embeds such games with a note and no moves: the line said "(6 games to
    replay)" of a run played with --no-records."""
    db = tmp_path / "x.db"
    common = ["--seed", 1, "--db", db, "--bots-dir", bots_dir, "--jobs", 1, "-q"]
    assert cli("run", "--games", 3, "--no-records", *common).exit_code == 0
    result = cli("report", "--db", db, "-o", tmp_path / "r.html")
    assert result.exit_code == 0, result.output
    assert "(0 games to replay)" in result.stderr
    assert cli("run", "--games", 1, "--game", "td", "--seed", 2, *common[2:]).exit_code == 0
    result = cli("report", "--db", db, "-o", tmp_path / "r.html")
    assert "(1 games to replay)" in result.stderr


def test_bad_input_is_one_line(cli, db, tmp_path):
    assert_one_line_error(cli("report", "--db", tmp_path / "none.db"), "none.db")
    assert_one_line_error(cli("report", "--db", db, "--game", "chess"), "unknown game")
    assert_one_line_error(cli("report", "--db", db, "--run", "99"), "no run 99")
    (tmp_path / "junk.db").write_text("not a database" * 100)
    assert_one_line_error(cli("report", "--db", tmp_path / "junk.db"), "not a valid")
    result = cli("report", "--db", db, "-o", tmp_path / "no" / "such" / "r.html")
    assert_one_line_error(result, "cannot write", code=1)


def test_embedded_games_are_bounded_and_keep_every_faulty_game(db):
    classes, _ = game_classes()
    store = Store(db, create=False)
    try:
        data = gather(store, classes, Selection(max_games=2, max_fault_games=50))
        faulty = set(store.game_ids(limit=1000, with_faults=True))
        latest = store.game_ids(limit=2)
    finally:
        store.close()
    ids = {g["id"] for g in data["replays"]}
    assert faulty and faulty <= ids
    assert ids == faulty | set(latest)
    assert data["stored_games"] == 6 * 2 + 4 * 2


def test_rating_history_ends_at_the_stored_ratings(db):
    classes, _ = game_classes()
    store = Store(db, create=False)
    try:
        data = gather(store, classes, Selection())
        for game in ("twenty-down", "how-low-can-you-go"):
            history = data["games"][game]["ratings"]
            final = {bot: values[-1] for bot, values in history["bots"].items()}
            stored = {row["bot"]: row["mu"] for row in leaderboard_rows(store, game)}
            assert final == pytest.approx(stored, abs=1e-3)
            assert history["games"][-1] == store.count_games(game)
    finally:
        store.close()


def _replayed_states(record, classes):
    game = game_from_record(record, classes)
    state = game.replay_state(record["chance"])
    yield game, state
    for _, value in record["actions"]:
        state.apply_action(action_from_json(value, state.legal_actions()))
        yield game, state


def test_frames_show_the_hands_of_the_record_and_hide_the_others(db):
    """Frame n of every view, rebuilt as the page does, holds the hands the engine has after
    action n of the record; a seat view holds no card of another seat's hand."""
    classes, _ = game_classes()
    store = Store(db, create=False)
    try:
        data = gather(store, classes, Selection())
        records = {g["id"]: expand(store.stored_game(g["id"])["record"], classes) for g in
                   data["replays"]}  # fmt: skip
    finally:
        store.close()
    seen_variants = set()
    for entry in data["replays"]:
        record = records[entry["id"]]
        kind = (record["game"], record.get("variant"))
        if kind in seen_variants:
            continue  # one game of each game and variant: every step of every view
        seen_variants.add(kind)
        frames = entry["frames"]
        players = record["players"]
        assert len(frames["views"]) == players + 1
        assert len(frames["views"][0]) == len(record["actions"]) + 1
        for n, (game, state) in enumerate(_replayed_states(record, classes)):
            for view in range(players + 1):
                seat = None if view == 0 else view - 1
                # what the page rebuilds is what the game drew for that view at that moment
                drawn = drawing_at(frames, players, view, n)
                expected = game.table_drawing(state, seat)
                assert {k: drawn[k] for k in expected} == expected, (entry["id"], n, view)
                for other in range(players):
                    hand = [ASCII_NAMES[c] for c in state.hands[other]]
                    if seat in (None, other):
                        assert drawn["seats"][other]["cards"] == hand
                    else:
                        assert drawn["seats"][other]["cards"] is None
    assert seen_variants == {
        ("twenty-down", None),
        ("twenty-down", "brostedt"),
        ("how-low-can-you-go", None),
        ("how-low-can-you-go", "whalen"),
    }


@pytest.mark.parametrize("game_class", [TwentyDown, HowLowCanYouGo])
def test_a_seat_drawing_holds_no_card_of_another_hand(game_class):
    game = game_class()
    state = game.new_state(11)
    for _ in range(40):
        if state.is_terminal():
            break
        for seat in range(game.players):
            text = json.dumps(game.table_drawing(state, seat)["seats"])
            for other in range(game.players):
                if other != seat and state.hands[other]:
                    drawn = game.table_drawing(state, seat)["seats"][other]
                    assert drawn["cards"] is None and drawn["hidden"] == len(state.hands[other])
            assert isinstance(text, str)
        state.apply_legal(0)


def test_a_game_without_a_drawing_of_its_own_gets_the_default(tally):
    """A plugin game that does not override ``Game.table_drawing`` is replayed all the same."""
    game = tally(players=3)
    state = game.new_state(4)
    while not state.is_terminal():
        state.apply_legal(state.current_player() % 3)
    record = {**state.record(), "bots": ["a", "b", "c"]}
    frames = game_frames(record, {"tally": tally}, ["a", "b", "c"])
    assert len(frames["views"]) == 4
    last = drawing_at(frames, 3, 2, len(record["actions"]))
    assert last["status"] == f"scores {list(state.scores)} · turn 9"
    assert "seat 2 (c): 2" in drawing_at(frames, 3, 0, 3)["say"]
    assert "seat 0 (a) moves" in drawing_at(frames, 3, 2, 1)["say"]  # seat 1 sees no number
