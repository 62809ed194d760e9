"""The batch rating: the Plackett–Luce fit against known answers and against choix, ties, the
board bootstrap's interval coverage, the likelihood of superiority, and the cache."""

from __future__ import annotations

import math

import choix
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.ratings.batch import BatchRatings, fit_tally, likelihood_of_superiority
from arena.ratings.bootstrap import Tally, board_weights
from arena.ratings.plackett_luce import ELO_PER_UNIT, expand, fit, tie_orders


def simulate(theta: np.ndarray, games: int, rng: np.random.Generator, size: int | None = None):
    """Finishing orders (best first) drawn from Plackett–Luce with strengths ``theta``: sorting
    by θ plus Gumbel noise draws exactly the model's orders."""
    n = len(theta)
    size = size or n
    out = []
    for _ in range(games):
        table = rng.choice(n, size=size, replace=False)
        noisy = theta[table] + rng.gumbel(size=size)
        out.append(tuple(int(b) for b in table[np.argsort(-noisy)]))
    return out


def rows_of(orders, boards_of=None) -> list[tuple[int, int, str, int]]:
    """Store-like rows (run, board, key, games) for a list of strict orders (bot ``b{i}``)."""
    rows = []
    for g, order in enumerate(orders):
        key = "\x1e".join(f"b{bot}\x1f{place + 1}.0" for place, bot in enumerate(order))
        rows.append((1, g if boards_of is None else boards_of[g], key, 1))
    return rows


TRUE_THETA = np.array([-0.9, -0.3, 0.2, 1.0])


def test_fit_recovers_known_strengths():
    orders = simulate(TRUE_THETA, 4000, np.random.default_rng(7))
    tally = Tally(replicates=0)
    tally.add(rows_of(orders))
    bots, theta = fit_tally(tally)
    assert bots == ("b0", "b1", "b2", "b3")
    expected = TRUE_THETA - TRUE_THETA.mean()
    # 4,000 games of four: the standard error of each strength is about 0.025
    assert np.abs(theta[0] - expected).max() < 0.1
    assert list(np.argsort(theta[0])) == [0, 1, 2, 3]


def test_fit_equals_choix_on_plain_data():
    theta = np.array([0.0, 0.4, -0.7, 1.1, 0.3, -0.2])
    orders = simulate(theta, 200, np.random.default_rng(3), size=4)
    finishings = [[(bot, place) for place, bot in enumerate(order)] for order in orders]
    # choix's maximum likelihood (ILSR, no regularisation) and ours with a vanishing ridge
    ours = fit(6, expand(finishings), np.ones(len(orders)), alpha=1e-10)[0]
    theirs = choix.ilsr_rankings(6, orders, tol=1e-12)
    assert ours == pytest.approx(theirs - theirs.mean(), abs=1e-7)


def test_grouped_counts_give_the_same_fit_as_one_row_per_game():
    orders = simulate(TRUE_THETA, 500, np.random.default_rng(5))
    plain = fit(4, expand([[(b, p) for p, b in enumerate(o)] for o in orders]), np.ones(500))
    distinct = sorted(set(orders))
    counts = np.array([orders.count(o) for o in distinct], dtype=float)
    grouped = fit(4, expand([[(b, p) for p, b in enumerate(o)] for o in distinct]), counts)
    assert grouped == pytest.approx(plain, abs=1e-9)


def test_ties_count_half_a_win_each_way():
    assert sorted(tie_orders([1, 2, 3])) == sorted(
        [(1, 2, 3), (1, 3, 2), (2, 1, 3), (2, 3, 1), (3, 1, 2), (3, 2, 1)]
    )
    four = tie_orders([0, 1, 2, 3])
    for a in range(4):
        for b in range(a + 1, 4):
            ahead = sum(o.index(a) < o.index(b) for o in four)
            assert ahead * 2 == len(four)  # each pair ordered both ways equally often
    # Two bots that always tie for first, ahead of a third: equal, and well above it.
    theta = fit(3, expand([[(0, 1.0), (1, 1.0), (2, 3.0)]]), np.array([50.0]))[0]
    assert theta[0] == pytest.approx(theta[1], abs=1e-9)
    assert theta[0] > theta[2] + 1


def test_elo_scale_is_400_over_ln10_and_centred():
    assert ELO_PER_UNIT == pytest.approx(400 / math.log(10))
    tally = Tally(replicates=0)
    tally.add(rows_of(simulate(TRUE_THETA, 300, np.random.default_rng(1))))
    _, theta = fit_tally(tally)
    assert theta[0].mean() == pytest.approx(0.0, abs=1e-9)


def test_board_weights_are_poisson_one_and_the_same_every_time():
    runs, boards = np.ones(20000, dtype=int), np.arange(20000)
    w = board_weights(runs, boards, 10)
    assert w.mean() == pytest.approx(1.0, abs=0.02) and w.var() == pytest.approx(1.0, abs=0.05)
    assert (board_weights(runs[5:9], boards[5:9], 10) == w[5:9]).all()
    assert not (board_weights(runs * 2, boards, 10) == w).all()


def test_counting_in_two_parts_equals_counting_at_once():
    """The cache adds new games to old counts: even a board split between the two parts gets
    the same replicate weights."""
    orders = simulate(TRUE_THETA, 400, np.random.default_rng(2))
    boards = [g // 4 for g in range(400)]
    rows = rows_of(orders, boards)
    once = Tally(replicates=30)
    once.add(rows)
    parts = Tally(replicates=30)
    parts.add(rows[:202])  # board 50 split
    parts.add(rows[202:])
    order = {f: i for i, f in enumerate(once.finishings)}
    perm = [order[f] for f in parts.finishings]
    assert np.array_equal(parts.counts, once.counts[perm])


def test_interval_covers_the_true_elo_about_95_percent_of_the_time():
    """40 simulated fields of four bots, 240 games each in boards of four: 160 intervals. With
    95 % coverage the count inside is 152 ± 2.8 (sd, if independent); accept 140..160."""
    rng = np.random.default_rng(11)
    inside = total = 0
    for _ in range(40):
        orders = simulate(TRUE_THETA, 240, rng)
        tally = Tally(replicates=100)
        tally.add(rows_of(orders, [g // 4 for g in range(240)]))
        bots, theta = fit_tally(tally)
        elo = theta * ELO_PER_UNIT
        ratings = BatchRatings(bots, elo[0], elo[1:], 240)
        truth = (TRUE_THETA - TRUE_THETA.mean()) * ELO_PER_UNIT
        for i, bot in enumerate(bots):
            value, half = ratings.of(bot)
            inside += abs(value - truth[i]) <= half
            total += 1
    assert 140 <= inside <= 160, inside


@settings(max_examples=30, deadline=None)
@given(st.floats(-500, 500), st.floats(0.01, 300))
def test_los_is_a_probability_symmetric_and_follows_the_difference(diff, sd):
    p = likelihood_of_superiority(diff, sd)
    assert 0 <= p <= 1
    assert p + likelihood_of_superiority(-diff, sd) == pytest.approx(1.0)
    assert p >= 0.5 if diff >= 0 else p <= 0.5
    assert likelihood_of_superiority(diff + 10, sd) >= p


def test_los_of_a_clear_gap_is_near_one_and_of_equal_bots_near_a_half():
    tally = Tally(replicates=100)
    theta = np.array([0.0, 0.0, 1.0])
    tally.add(rows_of(simulate(theta, 600, np.random.default_rng(4))))
    bots, fitted = fit_tally(tally)
    elo = fitted * ELO_PER_UNIT
    ratings = BatchRatings(bots, elo[0], elo[1:], 600)
    assert ratings.difference("b2", "b0")[2] > 0.99
    assert ratings.difference("b0", "b2")[2] < 0.01
    assert 0.02 < ratings.difference("b0", "b1")[2] < 0.98
    matrix = ratings.los_matrix()
    assert matrix["b0"]["b1"] + matrix["b1"]["b0"] == pytest.approx(1.0)
