"""Pairings for fields of any size: every bot plays about as often as any other, sits in every seat
equally often, plays complete duplicate boards, never twice at one table; the same schedule for a
seed whatever ``--jobs`` is; a resumed run plays exactly the games an uninterrupted one would."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections import Counter, defaultdict

import pytest
from conftest import RANDOM_BOT, assert_one_line_error, plugin_bots, write_bots
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.plugins.loading import load_registry
from arena.ratings.trueskill import environment_for
from arena.store.database import Store
from arena.tournament import run as run_module
from arena.tournament.plan import GamePlan, Tournament
from arena.tournament.run import run_tournament
from arena.tournament.schedule import Schedule

pytestmark = pytest.mark.usefixtures("isolated")

DRAWN = ("random", "gauntlet", "swiss", "matchmaking")


def fake_placings(seed: str, item) -> dict[str, float]:
    """Deterministic results that favour some bots: the places of a game as a function of it."""
    bots = list(dict.fromkeys(item.seats))
    key = {b: hashlib.sha256(f"{seed}/{item.seed}/{b}".encode()).digest()[0] + int(b[1:]) * 20
           for b in bots}  # fmt: skip
    return {b: float(place) for place, b in enumerate(sorted(bots, key=lambda b: key[b]), 1)}


def drawn(pairing, n_bots, seats, games, seed="s", gauntlet=("b0",), duplicate=True):
    """Every game of a schedule, its results fed back as a run would."""
    bots = [f"b{i}" for i in range(n_bots)]
    schedule = Schedule("g", bots, seats, games, seed, duplicate, pairing, list(gauntlet))
    played = []
    for item in schedule:
        played.append(item)
        schedule.record(item, fake_placings(seed, item))
    return played


def table_games(n_bots: int, seats: int) -> int:
    return min(n_bots, seats)


fields = st.tuples(
    st.sampled_from(DRAWN),
    st.integers(min_value=2, max_value=40),  # bots
    st.integers(min_value=2, max_value=10),  # seats
    st.integers(min_value=1, max_value=30),  # tables
    st.text(max_size=6),  # seed
)


@settings(max_examples=60, deadline=None)
@given(fields)
def test_every_pairing_keeps_boards_seats_and_game_counts_fair(field):
    pairing, n_bots, seats, tables, seed = field
    if pairing == "gauntlet" and n_bots < 2:
        return
    per_table = table_games(n_bots, seats)
    games = drawn(pairing, n_bots, seats, tables * per_table, seed)
    assert [g.index for g in games] == list(range(tables * per_table))
    boards = defaultdict(list)
    for g in games:
        boards[g.board].append(g)
        if n_bots >= seats:
            assert len(set(g.seats)) == seats, g  # no bot twice at a table
    for members in boards.values():  # complete duplicate boards
        assert len(members) == per_table
        assert len({g.seed for g in members}) == 1
        assert len({g.seats for g in members}) == per_table  # every rotation once
    seat_counts = Counter((b, s) for g in games for s, b in enumerate(g.seats))
    per_bot = Counter(b for g in games for b in set(g.seats))
    for bot in per_bot:  # every bot in every seat equally often
        assert len({seat_counts[bot, s] for s in range(seats)}) == 1, bot
    tested = {"b0"} if pairing == "gauntlet" else set()
    others = [per_bot[f"b{i}"] for i in range(n_bots) if f"b{i}" not in tested]
    # Within one table of each other; two for the sorted draws cut within a round.
    slack = 2 if pairing in ("swiss", "matchmaking") else 1
    assert max(others) - min(others) <= slack * per_table
    if tested:
        assert per_bot["b0"] == len(games)  # the bot under test plays every game


@settings(max_examples=30, deadline=None)
@given(fields, st.integers(min_value=1, max_value=50))
def test_a_pairing_is_a_function_of_its_seed_and_a_shorter_run_a_prefix(field, cut):
    pairing, n_bots, seats, tables, seed = field
    games = tables * table_games(n_bots, seats)
    full = drawn(pairing, n_bots, seats, games, seed)
    assert drawn(pairing, n_bots, seats, games, seed) == full
    assert drawn(pairing, n_bots, seats, min(cut, games), seed) == full[:cut]
    if n_bots > seats and games >= 4 * seats:
        assert drawn(pairing, n_bots, seats, games, seed + "x") != full


def test_several_bots_under_test_take_turns_and_never_meet():
    games = drawn("gauntlet", 12, 4, 4 * 30, gauntlet=("b0", "b1"))
    counts = Counter(b for g in games for b in set(g.seats))
    assert counts["b0"] == counts["b1"] == 60
    assert not any({"b0", "b1"} <= set(g.seats) for g in games)


def test_swiss_and_matchmaking_seat_the_strong_with_the_strong():
    """With results that always favour the lower-numbered bot, later rounds pair neighbours."""
    for pairing in ("swiss", "matchmaking"):
        games = drawn(pairing, 40, 4, 4 * 400)
        late = games[-4 * 10 :]
        spread = [max(int(b[1:]) for b in g.seats) - min(int(b[1:]) for b in g.seats) for g in late]
        early = games[: 4 * 10]
        first = [max(int(b[1:]) for b in g.seats) - min(int(b[1:]) for b in g.seats) for g in early]
        assert sum(spread) < sum(first) / 2, pairing


def test_sitting_out_goes_round_the_field():
    """7 bots at tables of 3: one sits out each round, never the same twice in 7 rounds."""
    for pairing in ("random", "swiss", "matchmaking"):
        games = drawn(pairing, 7, 3, 2 * 3 * 7)  # 7 rounds of 2 tables of 3 games
        counts = Counter(b for g in games for b in set(g.seats))
        assert sorted(counts.values()) == [18] * 7, (pairing, counts)


def test_a_large_field_costs_only_the_games_played():
    start = time.perf_counter()
    bots = [f"bot{i:05d}" for i in range(20000)]
    first = next(iter(Schedule("g", bots, 10, 100, "s", pairing="random")))
    assert len(set(first.seats)) == 10
    assert time.perf_counter() - start < 5  # (an enumeration of C(20000, 10) never ends)


# --- runs -------------------------------------------------------------------------------------

MANY = """
import arena


class Many(arena.Bot):
    def act(self, observation):
        legal = observation.legal_actions
        return legal[self.rng.randrange(len(legal))]


@arena.hookimpl
def arena_register_bots(register):
    for i in range(9):
        register(Many, name=f"m{i}")
"""


@pytest.fixture
def registry(tmp_path):
    return load_registry(write_bots(tmp_path / "many", {"many.py": MANY}), entry_points=False)


def tournament(registry, pairing, games=40):
    game_class = registry.games["twenty-down"].cls
    bots = sorted(plugin_bots(registry))  # (the bundled search bots play by the clock)
    plan = GamePlan(
        "twenty-down", 4, bots, environment=environment_for(game_class), pairing=pairing,
        gauntlet=["m0"] if pairing == "gauntlet" else [],
    )  # fmt: skip
    return Tournament([plan], games_per_game=games, seed="pairing-run")


def stored(db) -> list:
    with sqlite3.connect(db) as con:
        games = con.execute("SELECT idx, seed, board FROM games ORDER BY idx").fetchall()
        seats = con.execute(
            "SELECT g.idx, s.seat, s.bot, s.rank FROM seats s JOIN games g ON g.id = s.game_id "
            "ORDER BY g.idx, s.seat"
        ).fetchall()
        ratings = con.execute("SELECT bot, pi, tau FROM ratings ORDER BY bot").fetchall()
    return [games, seats, ratings]


@pytest.mark.parametrize("pairing", ["random", "gauntlet", "swiss", "matchmaking"])
def test_a_run_is_the_same_whatever_jobs_and_resumes_to_the_same_games(
    pairing, registry, tmp_path, monkeypatch
):
    whole = {}
    for jobs in (0, 2):
        store = Store(tmp_path / f"j{jobs}.db")
        run_tournament(tournament(registry, pairing), registry, store, jobs=jobs)
        store.close()
        whole[jobs] = stored(tmp_path / f"j{jobs}.db")
    assert whole[0] == whole[2]
    # Interrupted after 13 games (mid-round for swiss and matchmaking: 2 tables a round), then
    # resumed: exactly the games and ratings of the run never interrupted.
    monkeypatch.setattr(run_module, "FLUSH_GAMES", 13)

    def stop(game, done, total):
        if 0 < done < total:
            raise KeyboardInterrupt

    store = Store(tmp_path / "resumed.db")
    first = run_tournament(tournament(registry, pairing), registry, store, jobs=0, progress=stop)
    assert first.interrupted and first.games_played == 13
    again = run_tournament(tournament(registry, pairing), registry, store, jobs=2)
    assert again.resumed and again.games_played == 27
    store.close()
    assert stored(tmp_path / "resumed.db") == whole[0]


def test_cli_prints_the_pairing_and_games_per_bot(cli, tmp_path):
    bots = write_bots(tmp_path / "bots", {"many.py": MANY.replace("range(9)", "range(30)")})
    result = cli(
        "run", "--game", "td", "--games", "120", "--pairing", "swiss", "--bots-dir", bots,
        "--db", tmp_path / "a.db", "--seed", "1", "-q", "-j", "1",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    # 30 bots of the file, and the two bundled ones that play Twenty Down by default
    assert (
        "twenty-down: 120 games, 4 seats, bots: 32 (random, td-heuristic, m0, …); pairing swiss"
        in (result.stderr)
    )
    # 120 games × 4 seats / 32 bots: 15 on average, in whole tables of rotations
    assert "twenty-down: games per bot 12 min, 16 median, 16 max" in result.stderr


def test_cli_defaults_to_random_when_a_round_robin_does_not_fit(cli, tmp_path):
    # 9 bots and the 2 bundled ones of Twenty Down: 330 tables of 4, 4 rotations each
    bots = write_bots(tmp_path / "bots", {"many.py": MANY})
    result = cli(
        "run", "--game", "td", "--games", "40", "--bots-dir", bots, "--db", tmp_path / "a.db",
        "-q", "-j", "1",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "pairing random (a full round robin is 1,320 games)" in result.stderr


def test_a_gauntlet_on_the_command_line(cli, tmp_path):
    bots = write_bots(tmp_path / "bots", {"many.py": MANY, "random_bot.py": RANDOM_BOT})
    db = tmp_path / "a.db"
    result = cli(
        "run", "--game", "td", "--games", "24", "--gauntlet", "random", "--bots-dir", bots,
        "--db", db, "-q", "-j", "1", "--format", "json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "pairing gauntlet of random" in result.stderr
    board = {row["bot"]: row for row in json.loads(result.stdout)["twenty-down"]}
    assert board["random"]["games"] == 24


@pytest.mark.parametrize(
    "args, fragments",
    [
        (["--pairing", "ladder"], ["--pairing must be one of", "'ladder'"]),
        (["--pairing", "gauntlet"], ["--pairing gauntlet needs the bots under test"]),
        (["--pairing", "swiss", "--gauntlet", "m1"], ["--gauntlet is for --pairing gauntlet"]),
        (["--gauntlet", "nobody"], ["nobody"]),
        (["--pairing", "round-robin", "--players", "10", "--game", "hl"], ["tables a round"]),
    ],
)
def test_a_bad_pairing_is_one_line(cli, tmp_path, args, fragments):
    bots = write_bots(tmp_path / "bots", {"many.py": MANY.replace("range(9)", "range(60)")})
    result = cli("run", "--games", "10", "--bots-dir", bots, "--db", tmp_path / "a.db", *args)
    assert_one_line_error(result, *fragments)


def test_the_pairing_in_a_tournament_file(cli, tmp_path):
    bots = write_bots(tmp_path / "bots", {"many.py": MANY})
    file = tmp_path / "cup.toml"
    file.write_text(
        f'games = 12\nseed = "cup"\nbots_dir = "{bots}"\npairing = "matchmaking"\n'
        '[game.twenty-down]\n[game.hl]\npairing = "gauntlet"\ngauntlet = ["m3"]\n'
    )
    result = cli("run", file, "--db", tmp_path / "a.db", "-q", "-j", "1")
    assert result.exit_code == 0, result.output
    assert "twenty-down: 12 games, 4 seats, bots: random, td-heuristic, m0" in result.stderr
    assert "; pairing matchmaking" in result.stderr
    assert "pairing gauntlet of m3" in result.stderr
    file.write_text('games = 12\npairing = "knockout"\n')
    result = cli("run", file, "--db", tmp_path / "a.db", "-q")
    assert_one_line_error(result, "cup.toml: pairing must be one of")


def test_a_game_section_gauntlet_alone_makes_that_game_a_gauntlet(cli, tmp_path):
    """README: `game.NAME.gauntlet` is this game's bots under test, as `--gauntlet` implies
    `--pairing gauntlet` (the section's gauntlet was ignored: a plain round robin was played)."""
    bots = write_bots(tmp_path / "bots", {"many.py": MANY})
    file = tmp_path / "cup.toml"
    file.write_text(f'games = 12\nbots_dir = "{bots}"\n[game.hl]\ngauntlet = ["m3"]\n')
    result = cli("run", file, "--db", tmp_path / "a.db", "-q", "-j", "1")
    assert result.exit_code == 0, result.output
    assert "pairing gauntlet of m3" in result.stderr


@pytest.mark.parametrize(
    "section, fragments",
    [
        ('gauntlet = ["nobody"]', ["cup.toml: game.hl.gauntlet: unknown bot 'nobody'"]),
        (
            'pairing = "swiss"\ngauntlet = ["m3"]',
            ["cup.toml: game.hl.gauntlet is for game.hl.pairing gauntlet, not swiss"],
        ),
    ],
)
def test_a_bad_game_section_gauntlet_is_one_line(cli, tmp_path, section, fragments):
    bots = write_bots(tmp_path / "bots", {"many.py": MANY})
    file = tmp_path / "cup.toml"
    file.write_text(f'games = 12\nbots_dir = "{bots}"\n[game.hl]\n{section}\n')
    result = cli("run", file, "--db", tmp_path / "a.db", "-q", "-j", "1")
    assert_one_line_error(result, *fragments)


def test_rerunning_the_command_of_a_round_robin_stored_before_pairings_continues_it(cli, tmp_path):
    """A run stored by an older arena has no pairing in its identity: it was a round robin. The
    same command continues it, though a new run of 9 bots and 40 games would now be random."""
    bots = write_bots(tmp_path / "bots", {"many.py": MANY})
    db = tmp_path / "a.db"
    command = ["run", "--game", "td", "--games", "40", "--seed", "old", "--bots-dir", bots,
               "--db", db, "-q", "-j", "1"]  # fmt: skip
    assert cli(*command, "--pairing", "round-robin").exit_code == 0
    with sqlite3.connect(db) as con:  # as if it had been interrupted after 20 games
        (config,) = con.execute("SELECT config FROM runs").fetchone()
        assert "pairing" not in config
        con.execute("UPDATE runs SET status='interrupted'")
        late = "(SELECT id FROM games WHERE idx >= 20)"
        for table in ("seats", "placings", "faults"):
            con.execute(f"DELETE FROM {table} WHERE game_id IN {late}")
        con.execute("DELETE FROM games WHERE idx >= 20")
    result = cli(*command)
    assert result.exit_code == 0, result.output
    assert "resumed run 1: 20 games were already stored" in result.stderr
    assert "pairing round-robin" in result.stderr
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT COUNT(*), MAX(run_id) FROM games").fetchone() == (40, 1)


def test_the_large_field_benchmark_fields_only_its_own_bots():
    """The registry also holds the bundled bots (search bots among them): the benchmark's field
    is the one class registered N times, every bot playing equally often."""
    from arena.bench.fields import large_field

    figures = large_field("twenty-down", 4, bots=8, games=8, jobs=0, echo=lambda *_: None)
    assert figures["games_per_bot"] == (4, 4, 4)
    figures = large_field("how-low-can-you-go", 10, bots=30, games=30, jobs=0, echo=lambda *_: None)
    assert figures["games_per_bot"] == (10, 10, 10)


def test_a_run_starts_no_more_workers_than_it_has_games_left(registry, tmp_path, monkeypatch):
    """`-j 256` for a few games started 256 worker processes (5.8 s before the first game)."""
    asked = []
    real = run_module.make_backend

    def counting(context, isolation, jobs):
        asked.append(jobs)
        return real(context, isolation, jobs)

    monkeypatch.setattr(run_module, "make_backend", counting)
    store = Store(tmp_path / "few.db")
    summary = run_tournament(tournament(registry, "random", games=3), registry, store, jobs=64)
    store.close()
    assert summary.games_played == 3
    assert asked == [3]
