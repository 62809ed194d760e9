"""Round-robin schedules in duplicate format; TrueSkill ratings equal to the trueskill package's."""

from __future__ import annotations

import itertools
import json
import math
import sqlite3
from collections import Counter, defaultdict

import pytest
import trueskill
from conftest import bot_file
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.how_low import HowLowCanYouGo
from arena.games.twenty_down import TwentyDown
from arena.ratings.trueskill import Environment, RatingTable, environment_for
from arena.tournament.schedule import round_robin

pytestmark = pytest.mark.usefixtures("isolated")

NAMES = [f"bot{i}" for i in range(10)]


def full_round(bots: int, seats: int) -> int:
    """Games in one round: every group once per seat rotation."""
    if bots >= seats:
        return math.comb(bots, seats) * seats
    return bots


def schedule(bots, seats, games, seed="s", game="g"):
    return list(round_robin(game, list(bots), seats, games, seed))


# --- schedules ------------------------------------------------------------------------------------


def assert_balanced(games, bots, seats):
    per_seat = [Counter(g.seats[s] for g in games) for s in range(seats)]
    for seat, counts in enumerate(per_seat):
        assert set(counts) == set(bots), (seat, counts)
        assert len(set(counts.values())) == 1, (seat, counts)  # every bot equally often
    totals = Counter(b for g in games for b in g.seats)
    assert len(set(totals.values())) == 1, totals  # seats filled equally


@pytest.mark.parametrize(
    "n_bots, seats",
    [(2, 4), (3, 4), (4, 4), (5, 4), (6, 4), (2, 2), (3, 2), (5, 3), (7, 5), (3, 10), (10, 10)],
)
def test_every_bot_sits_in_every_seat_equally_often_over_full_rounds(n_bots, seats):
    bots = NAMES[:n_bots]
    per_round = full_round(n_bots, seats)
    for rounds in (1, 2, 3):
        games = schedule(bots, seats, rounds * per_round)
        assert len(games) == rounds * per_round
        assert_balanced(games, bots, seats)
        for g in games:
            assert len(g.seats) == seats
            if n_bots >= seats:
                assert len(set(g.seats)) == seats  # a group of distinct bots


@settings(max_examples=40, deadline=None)
@given(
    n_bots=st.integers(min_value=1, max_value=7),
    seats=st.integers(min_value=2, max_value=6),
    rounds=st.integers(min_value=1, max_value=2),
    seed=st.text(max_size=8),
)
def test_balance_holds_for_any_bots_seats_and_seed(n_bots, seats, rounds, seed):
    bots = NAMES[:n_bots]
    games = schedule(bots, seats, rounds * full_round(n_bots, seats), seed=seed)
    assert_balanced(games, bots, seats)


def test_two_bots_at_four_seats_sit_abab_then_baba():
    games = schedule(["b", "a"], 4, 4)
    assert [g.seats for g in games[:2]] == [("a", "b", "a", "b"), ("b", "a", "b", "a")]
    assert games[0].seed == games[1].seed and games[2].seed == games[3].seed
    assert games[0].seed != games[2].seed


@pytest.mark.parametrize("n_bots, seats", [(2, 4), (3, 4), (5, 4), (4, 2), (6, 3)])
def test_seat_rotations_of_one_group_share_one_seed_duplicate_format(n_bots, seats):
    games = schedule(NAMES[:n_bots], seats, 3 * full_round(n_bots, seats))
    boards = defaultdict(list)
    for g in games:
        boards[g.board].append(g)
    group_size = min(n_bots, seats)
    seeds = set()
    for members in boards.values():
        assert len(members) == group_size  # one game per seat rotation
        assert len({g.seed for g in members}) == 1
        assert len({frozenset(g.seats) for g in members}) == 1  # one group
        assert len({g.seats for g in members}) == group_size  # every rotation once
        for seat in range(seats):  # the group's bots take turns at every seat
            assert len({g.seats[seat] for g in members}) == group_size
        # consecutive games, board by board
        indices = sorted(g.index for g in members)
        assert indices == list(range(indices[0], indices[0] + group_size))
        seeds.add(members[0].seed)
    assert len(seeds) == len(boards)  # every board its own deal


@pytest.mark.parametrize("n_bots, seats", [(2, 4), (4, 4), (5, 4), (3, 10), (6, 3)])
def test_without_duplicate_no_deal_comes_back_and_seats_stay_balanced(n_bots, seats):
    """--no-duplicate: the same seat rotations, but a deal of its own for every game, so a bot
    remembering the hands it held never meets one of them again."""
    bots = NAMES[:n_bots]
    games = 2 * full_round(n_bots, seats)
    fresh = list(round_robin("g", bots, seats, games, "s", duplicate=False))
    assert len({g.seed for g in fresh}) == games
    assert len({g.board for g in fresh}) == games
    assert [g.seats for g in fresh] == [g.seats for g in schedule(bots, seats, games)]
    assert_balanced(fresh, bots, seats)
    longer = list(round_robin("g", bots, seats, games + 5, "s", duplicate=False))
    assert longer[:games] == fresh  # a shorter run is a prefix of a longer one


@pytest.mark.parametrize("n", [1, 7, 8, 9, 40, 1001])
def test_games_n_gives_exactly_n_games_indexed_in_order(n):
    games = schedule(NAMES[:3], 4, n)
    assert len(games) == n
    assert [g.index for g in games] == list(range(n))


def test_a_shorter_schedule_is_a_prefix_of_a_longer_one():
    assert schedule(NAMES[:5], 4, 37) == schedule(NAMES[:5], 4, 100)[:37]


def test_schedule_depends_on_seed_and_game_but_not_on_bot_order():
    base = schedule(NAMES[:5], 4, 40, seed="x", game="g")
    assert schedule(list(reversed(NAMES[:5])), 4, 40, seed="x", game="g") == base
    assert schedule(NAMES[:5], 4, 40, seed="x", game="g") == base
    assert {g.seed for g in schedule(NAMES[:5], 4, 40, seed="y", game="g")}.isdisjoint(
        {g.seed for g in base}
    )
    assert {g.seed for g in schedule(NAMES[:5], 4, 40, seed="x", game="h")}.isdisjoint(
        {g.seed for g in base}
    )


def test_a_short_run_spreads_games_over_the_groups():
    games = schedule(NAMES[:6], 4, 15 * 4)  # one full round: 15 groups of 4
    assert len({frozenset(g.seats) for g in games}) == 15


def test_no_bots_no_games():
    assert schedule([], 4, 10) == []


# --- ratings --------------------------------------------------------------------------------------


def ts_env(environment: Environment) -> trueskill.TrueSkill:
    return trueskill.TrueSkill(
        mu=environment.mu,
        sigma=environment.sigma,
        beta=environment.beta,
        tau=environment.tau,
        draw_probability=environment.draw_probability,
        backend=None,
    )


def test_environments_of_the_bundled_games(tally):
    assert environment_for(TwentyDown) == Environment(beta=25 / 3 / 2, draw_probability=0.02)
    assert environment_for(HowLowCanYouGo) == Environment(beta=25 / 3, draw_probability=0.01)
    assert environment_for(HowLowCanYouGo).beta == pytest.approx(25 / 3)
    assert environment_for(TwentyDown).beta == pytest.approx(25 / 6)
    for env in (environment_for(TwentyDown), environment_for(HowLowCanYouGo)):
        assert (env.mu, env.sigma) == (25.0, 25 / 3)
        assert 0 < env.draw_probability < 1
    custom = environment_for(TwentyDown, {"beta": 3.0, "draw_probability": 0.2})
    assert (custom.beta, custom.draw_probability) == (3.0, 0.2)
    assert custom.mu == 25.0
    assert environment_for(tally) == Environment()  # a game without rating defaults


def test_rating_table_equals_trueskill_package_with_ties_and_shared_seats():
    environment = environment_for(HowLowCanYouGo)
    table = RatingTable(environment)
    env = ts_env(environment)
    expected = {b: env.create_rating() for b in "abcd"}
    games = [
        {"a": 1.0, "b": 2.0, "c": 3.0, "d": 4.0},
        {"b": 1.0, "a": 1.0, "d": 3.0},  # a tie
        {"c": 1.5, "a": 3.5},  # shared seats: mean ranks
        {"d": 1.0, "c": 2.0, "b": 2.0, "a": 4.0},
        {"a": 2.0},  # one distinct bot: not rated
    ]
    for placings in games:
        rated = table.update(placings)
        assert rated == (len(placings) >= 2)
        if not rated:
            continue
        bots = list(placings)
        new = env.rate([(expected[b],) for b in bots], ranks=[placings[b] for b in bots])
        for b, (r,) in zip(bots, new, strict=True):
            expected[b] = r
    result = table.states()
    assert result == {b: (r.pi, r.tau, r.mu, r.sigma) for b, r in expected.items()}


def test_rating_table_starts_from_stored_ratings():
    environment = environment_for(TwentyDown)
    env = ts_env(environment)
    start_a, start_b = env.create_rating(30.0, 2.0), env.create_rating(20.0, 3.0)
    table = RatingTable(
        environment, {"a": (start_a.pi, start_a.tau), "b": (start_b.pi, start_b.tau)}
    )
    table.update({"a": 2.0, "b": 1.0})
    (a,), (b,) = env.rate([(start_a,), (start_b,)], ranks=[2.0, 1.0])
    assert table.states() == {"a": (a.pi, a.tau, a.mu, a.sigma), "b": (b.pi, b.tau, b.mu, b.sigma)}


LAST_BOT = bot_file("last", "return observation.legal_actions[-1]")


def stored_placings(db, game):
    """(run, index, [(bot, place), ...]) in schedule order, read with plain sqlite3."""
    with sqlite3.connect(db) as con:
        rows = con.execute(
            """SELECT g.run_id, g.idx, p.bot, p.place
               FROM placings p JOIN games g ON g.id = p.game_id
               WHERE g.game = ? ORDER BY g.run_id, g.idx, p.rowid""",
            (game,),
        ).fetchall()
    out = []
    for (run, idx), group in itertools.groupby(rows, key=lambda r: (r[0], r[1])):
        out.append((run, idx, [(bot, place) for _, _, bot, place in group]))
    return out


def test_trueskill_after_runs_equals_trueskill_package_on_stored_results(cli, bots_dir, tmp_path):
    (bots_dir / "last_bot.py").write_text(LAST_BOT, encoding="utf-8")
    db = tmp_path / "ratings.db"
    for seed in ("first-run", "second-run"):  # ratings carry over from run to run
        result = cli(
            "run",
            "--games",
            10,
            "--seed",
            seed,
            "--db",
            db,
            "--bots-dir",
            bots_dir,
            "-j",
            1,
            "-q",
            "--format",
            "json",
        )
        assert result.exit_code == 0, result.output
    board = json.loads(result.stdout)
    assert set(board) == {"twenty-down", "how-low-can-you-go"}

    with sqlite3.connect(db) as con:
        stored = defaultdict(dict)
        for game, bot, mu, sigma in con.execute("SELECT game, bot, mu, sigma FROM ratings"):
            stored[game][bot] = (mu, sigma)

    for game_class in (TwentyDown, HowLowCanYouGo):
        game = game_class.name
        env = ts_env(environment_for(game_class))
        ratings = {}
        history = stored_placings(db, game)
        assert len(history) == 20
        assert len({run for run, _, _ in history}) == 2
        for _, _, placings in history:
            if len(placings) < 2:
                continue
            bots = [b for b, _ in placings]
            teams = [(ratings.get(b) or env.create_rating(),) for b in bots]
            new = env.rate(teams, ranks=[p for _, p in placings])
            for b, (r,) in zip(bots, new, strict=True):
                ratings[b] = r
        assert stored[game] == {b: (r.mu, r.sigma) for b, r in ratings.items()}, game
        # ...and the leaderboard shows those numbers.
        for row in board[game]:
            r = ratings[row["bot"]]
            assert row["mu"] == round(r.mu, 3)
            assert row["sigma"] == round(r.sigma, 3)
            assert row["conservative"] == round(r.mu - 3 * r.sigma, 3)
        conservative = [row["conservative"] for row in board[game]]
        assert conservative == sorted(conservative, reverse=True)
        assert [row["rank"] for row in board[game]] == list(range(1, len(board[game]) + 1))


def test_stored_placing_is_the_mean_rank_of_the_bots_seats(cli, bots_dir, tmp_path):
    db = tmp_path / "placings.db"
    result = cli(
        "run",
        "--games",
        6,
        "--seed",
        "p",
        "--db",
        db,
        "--bots-dir",
        bots_dir,
        "-j",
        1,
        "-q",
        "--game",
        "twenty-down",
        "--bots",
        "random,first,td-only",
    )
    assert result.exit_code == 0, result.output
    with sqlite3.connect(db) as con:
        seats = con.execute("SELECT game_id, bot, rank FROM seats").fetchall()
        placings = {
            (g, b): p for g, b, p in con.execute("SELECT game_id, bot, place FROM placings")
        }
    ranks = defaultdict(list)
    for game_id, bot, rank in seats:
        ranks[(game_id, bot)].append(rank)
    assert len(ranks) == len(placings) > 0
    for key, values in ranks.items():
        assert placings[key] == sum(values) / len(values)
    assert any(len(v) == 2 for v in ranks.values())  # 3 bots at 4 seats: one holds two


def test_tournament_file_environment_is_used_for_ratings(cli, bots_dir, tmp_path):
    toml = tmp_path / "env.toml"
    toml.write_text(
        'games = 8\nseed = "env"\n[game.twenty-down]\nbots = ["random", "first"]\n'
        "beta = 2.5\ndraw_probability = 0.3\nmu = 30\nsigma = 5\ntau = 0.1\n",
        encoding="utf-8",
    )
    db = tmp_path / "env.db"
    result = cli("run", toml, "--db", db, "--bots-dir", bots_dir, "-j", 1, "-q")
    assert result.exit_code == 0, result.output
    environment = Environment(mu=30.0, sigma=5.0, beta=2.5, tau=0.1, draw_probability=0.3)
    env = ts_env(environment)
    ratings = {}
    for _, _, placings in stored_placings(db, "twenty-down"):
        bots = [b for b, _ in placings]
        new = env.rate(
            [(ratings.get(b) or env.create_rating(),) for b in bots], ranks=[p for _, p in placings]
        )
        ratings.update({b: r for b, (r,) in zip(bots, new, strict=True)})
    with sqlite3.connect(db) as con:
        stored = {b: (mu, s) for b, mu, s in con.execute("SELECT bot, mu, sigma FROM ratings")}
    assert stored == {b: (r.mu, r.sigma) for b, r in ratings.items()}
