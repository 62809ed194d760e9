"""``arena export``: every stored record as JSON lines, the very records `arena replay ID --format
json` prints, filtered by game, run and bot; in order whatever --jobs is."""

from __future__ import annotations

import json
import os
import sqlite3

import pytest
from conftest import assert_one_line_error
from test_records_cli import ok, record_json, stored  # noqa: F401 (the shared database fixture)


def export(cli, stored, *options) -> list[dict]:  # noqa: F811
    result = ok(cli("export", "--db", stored["db"], *options))
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_export_writes_each_recorded_game_as_its_replay_record(cli, stored):  # noqa: F811
    lines = export(cli, stored)
    ids = [line["arena"]["id"] for line in lines]
    recorded = sorted(i for game_ids in stored["ids"].values() for i in game_ids)
    assert ids == recorded  # oldest first; the --no-records game is not among them
    for line in lines:
        assert line["format"] == "arena-record/1"
        assert line == record_json(cli, stored, line["arena"]["id"])


def test_export_tells_how_many_games_have_no_record(cli, stored):  # noqa: F811
    result = ok(cli("export", "--db", stored["db"], "--run", "2"))
    assert result.stdout == ""
    assert "1 game(s) played with --no-records" in result.stderr


def test_export_filters_by_game_run_and_bot(cli, stored):  # noqa: F811
    td = export(cli, stored, "--game", "td")
    assert {line["game"] for line in td} == {"twenty-down"}
    assert [line["arena"]["id"] for line in td] == sorted(stored["ids"]["twenty-down"])
    assert export(cli, stored, "--run", "1", "--game", "how-low-can-you-go") == export(
        cli, stored, "--game", "hl"
    )
    with_oops = export(cli, stored, "--bot", "oops")
    assert with_oops and all("oops" in line["bots"] for line in with_oops)
    assert export(cli, stored, "--bot", "oops", "--game", "td") == [
        line for line in with_oops if line["game"] == "twenty-down"
    ]


def test_export_in_several_processes_gives_the_same_lines(cli, stored, monkeypatch):  # noqa: F811
    """The processes read their chunks of games themselves; the lines come out in order, the
    same bytes as in one process, by default (a process a core) and with -j."""
    one = ok(cli("export", "--db", stored["db"], "-j", "1")).stdout
    monkeypatch.setattr("arena.views.export._CHUNK", 2)  # many chunks, so several processes
    assert ok(cli("export", "--db", stored["db"], "-j", "3")).stdout == one
    assert ok(cli("export", "--db", stored["db"])).stdout == one
    filtered = ok(cli("export", "--db", stored["db"], "-j", "2", "--bot", "oops")).stdout
    assert filtered.splitlines() == [line for line in one.splitlines() if "oops" in line]


def test_processes_write_their_blocks_to_the_file_in_order(stored, tmp_path, monkeypatch):  # noqa: F811
    """With a real file, each process writes its own blocks to it, in turn: the same bytes as
    one process. A process that fails stops the others after the blocks before its own, and
    its error is the caller's."""
    import io

    from arena.games import HowLowCanYouGo, TwentyDown
    from arena.store.database import Store, StoreError
    from arena.views import export as view

    games = {cls.name: cls for cls in (TwentyDown, HowLowCanYouGo)}
    monkeypatch.setattr(view, "_CHUNK", 2)
    store = Store(stored["db"], create=False)
    one = io.BytesIO()
    view.write_export(store, games, view.ExportCounts(), one)
    assert one.getvalue().count(b"\n") == 8
    path = tmp_path / "out.jsonl"
    for jobs in (2, 3):
        counts = view.ExportCounts()
        with open(path, "wb") as out:
            view.write_export(store, games, counts, out, jobs=jobs)
        assert path.read_bytes() == one.getvalue()
        assert counts.written == 8

    block = view._block
    third = list(store.game_id_ranges(size=2))[2]

    def failing(store, games, select, ids, keep, writer):
        if ids == third:
            raise StoreError("disk gone")
        return block(store, games, select, ids, keep, writer)

    monkeypatch.setattr(view, "_block", failing)
    with open(path, "wb") as out, pytest.raises(StoreError, match="disk gone"):
        view.write_export(store, games, view.ExportCounts(), out, jobs=2)
    assert path.read_bytes().splitlines() == one.getvalue().splitlines()[:4]

    def dying(store, games, select, ids, keep, writer):
        if ids == third:
            os._exit(3)  # (killed, say: no report, no turn passed on)
        return block(store, games, select, ids, keep, writer)

    monkeypatch.setattr(view, "_block", dying)
    with open(path, "wb") as out, pytest.raises(RuntimeError, match="ended unexpectedly"):
        view.write_export(store, games, view.ExportCounts(), out, jobs=2)
    store.close()


@pytest.fixture
def in_chunks(stored, tmp_path, monkeypatch):  # noqa: F811
    """The stored games in 4 chunks of 2 (a copy of the database, to keep rows in), the bytes
    one process writes, and a function exporting them with 2 processes to a file."""
    import io

    from arena.games import HowLowCanYouGo, TwentyDown
    from arena.store.database import Store
    from arena.views import export as view

    games = {cls.name: cls for cls in (TwentyDown, HowLowCanYouGo)}
    db = tmp_path / "copy.db"
    db.write_bytes(stored["db"].read_bytes())
    monkeypatch.setattr(view, "_CHUNK", 2)
    store = Store(db, create=False)
    one = io.BytesIO()
    view.write_export(store, games, view.ExportCounts(), one)
    path = tmp_path / "out.jsonl"

    def export_in_two(counts, keep=False) -> bytes:
        with open(path, "wb") as out:
            view.write_export(store, games, counts, out, jobs=2, keep=keep)
        return path.read_bytes()

    export_in_two.path = path
    yield list(store.game_id_ranges(size=2)), one.getvalue(), export_in_two
    store.close()


def _whole_lines_of(written: bytes, one: bytes) -> int:
    assert one.startswith(written) and (not written or written.endswith(b"\n"))
    return written.count(b"\n")


@pytest.mark.parametrize("how", [KeyboardInterrupt, SystemExit])
def test_a_process_stopped_by_an_interrupt_fails_the_export(in_chunks, monkeypatch, how):
    """`kill -INT` of one process (or any exception, not only an Exception) is an error, and
    the processes after it stop, leaving whole lines, each counted; it was a success (here in
    the last chunk, the game with no record)."""
    from arena.views import export as view

    ranges, one, export_in_two = in_chunks
    block = view._block

    def interrupted(store, games, select, ids, keep, writer):
        if ids == ranges[-1]:
            raise how
        return block(store, games, select, ids, keep, writer)

    monkeypatch.setattr(view, "_block", interrupted)
    counts = view.ExportCounts()
    with pytest.raises(view.ExportProcessError, match="interrupted|stopped"):
        export_in_two(counts)
    assert _whole_lines_of(export_in_two.path.read_bytes(), one) == counts.written


def test_an_interrupt_while_writing_waits_for_the_whole_block_and_its_report(
    in_chunks, monkeypatch
):
    """SIGINT to a process in the middle of writing its block: the block is finished (no line
    cut in two) and reported (its rows kept, its lines counted), then the export fails."""
    import signal

    from arena.views import export as view

    ranges, one, export_in_two = in_chunks
    write_all = view._write_all
    third = one.split(b"\n")[4]

    def interrupted_midway(fd, data):
        if data.startswith(third):
            write_all(fd, data[:10])
            os.kill(os.getpid(), signal.SIGINT)
            sum(range(1000))  # (the interrupt is raised here, between bytecodes, if not held)
            data = data[10:]
        write_all(fd, data)

    monkeypatch.setattr(view, "_write_all", interrupted_midway)
    counts = view.ExportCounts()
    with pytest.raises(view.ExportProcessError, match="interrupted"):
        export_in_two(counts, keep=True)
    written = _whole_lines_of(export_in_two.path.read_bytes(), one)
    assert written >= 6 and counts.written == counts.kept == written


def test_a_process_that_ends_owing_reports_is_an_error_at_once(in_chunks, monkeypatch):
    """A process that ends as if done but has not written its blocks (nor passed its turn on)
    fails the export at once; the others, waiting for their turn, are stopped: no hang."""
    from arena.views import export as view

    _, _, export_in_two = in_chunks
    monkeypatch.setattr(view, "_write_in_turn", lambda *args: True)
    with pytest.raises(view.ExportProcessError, match="stopped early"):
        export_in_two(view.ExportCounts())


def test_the_first_damage_named_is_the_oldest_games_whatever_order_the_chunks_come_in():
    from arena.views.export import ExportCounts

    total = ExportCounts()
    for game_id in (7, 3, 5):
        chunk = ExportCounts(damaged=1, first_damage=f"game {game_id}: bad")
        chunk.first_damaged_id = game_id
        total.add(chunk)
    total.add(ExportCounts(written=2))
    assert (total.damaged, total.first_damage) == (3, "game 3: bad")


def test_export_errors_are_one_line(cli, stored, tmp_path):  # noqa: F811
    assert_one_line_error(cli("export", "--db", tmp_path / "none.db"), "no database")
    assert_one_line_error(cli("export", "--db", stored["db"], "--game", "chess"), "chess")
    # A bot or run the database does not hold is a mistake, not an empty data set.
    assert_one_line_error(
        cli("export", "--db", stored["db"], "--bot", "opps"), "did you mean 'oops'"
    )
    assert_one_line_error(cli("export", "--db", stored["db"], "--run", "99"), "no run 99")
    damaged = tmp_path / "damaged.db"
    damaged.write_bytes(stored["db"].read_bytes())
    with sqlite3.connect(damaged) as con:
        con.execute(
            "UPDATE games SET record = x'00ff' WHERE id = ?", (stored["ids"]["twenty-down"][0],)
        )
    result = cli("export", "--db", damaged)
    assert result.exit_code == 1
    assert len(result.stdout.splitlines()) == sum(len(v) for v in stored["ids"].values()) - 1
    assert "1 damaged record(s) skipped" in result.stderr


def test_kept_records_are_streamed_as_the_very_lines_a_plain_export_writes(  # noqa: F811
    cli,
    stored,  # noqa: F811
    tmp_path,
    monkeypatch,
):
    """--keep stores each record's JSON; later exports stream it (no engine) and write the same
    bytes, in one process or several."""
    monkeypatch.setattr("arena.views.export._CHUNK", 3)
    db = tmp_path / "kept.db"
    db.write_bytes(stored["db"].read_bytes())
    plain = ok(cli("export", "--db", db)).stdout
    assert ok(cli("export", "--db", db, "--keep")).stdout == plain
    with sqlite3.connect(db) as con:
        kept = con.execute("SELECT COUNT(*) FROM kept_records").fetchone()[0]
    assert kept == len(plain.splitlines())
    assert ok(cli("export", "--db", db)).stdout == plain
    assert (
        ok(cli("export", "--db", db, "-j", "2", "--game", "td")).stdout
        == ok(cli("export", "--db", stored["db"], "--game", "td")).stdout
    )


def test_a_kept_record_is_not_served_for_another_compact_record(cli, stored, tmp_path):  # noqa: F811
    """A kept text belongs to the compact record it was made from (its checksum): a game whose
    record differs (an id reused after a reset, say) is expanded again."""
    db = tmp_path / "kept.db"
    db.write_bytes(stored["db"].read_bytes())
    ok(cli("export", "--db", db, "--keep", "-j", "2"))
    first, second = stored["ids"]["twenty-down"][:2]
    with sqlite3.connect(db) as con:
        con.execute(
            "UPDATE games SET record = (SELECT record FROM games WHERE id = ?) WHERE id = ?",
            (second, first),
        )
    lines = {line["arena"]["id"]: line for line in export(cli, {"db": db})}
    assert lines[first]["chance"] == lines[second]["chance"]  # the record stored now, expanded
    assert lines[first]["arena"] == record_json(cli, stored, first)["arena"]


def test_a_bots_plain_name_selects_its_versions_though_only_later_ones_are_stored(
    cli,
    stored,
    tmp_path,  # noqa: F811
):
    """`--bot oops` is every version of oops; with only `oops@2` stored it was 'unknown bot'."""
    renamed = tmp_path / "versions.db"
    renamed.write_bytes(stored["db"].read_bytes())
    with sqlite3.connect(renamed) as con:
        con.execute("UPDATE seats SET bot = 'oops@2' WHERE bot = 'oops'")
    lines = ok(cli("export", "--db", renamed, "--bot", "oops")).stdout.splitlines()
    assert (
        lines and lines == ok(cli("export", "--db", renamed, "--bot", "oops@2")).stdout.splitlines()
    )
    assert_one_line_error(cli("export", "--db", renamed, "--bot", "oops@3"), "oops@3")
