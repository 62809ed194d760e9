"""arena.ratings.fast_trueskill against the trueskill package it transcribes: equal to the bit.

``rate_free_for_all`` performs the package's floating-point operations in the package's order,
so every comparison here is exact (``==``), never approximate; where the package raises, the
same exception with the same message must come out.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
import trueskill
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from arena.plugins.builtin import BUILTIN_GAMES
from arena.ratings.fast_trueskill import rate_free_for_all, rate_ratings
from arena.ratings.trueskill import environment_for

SIGMA = trueskill.SIGMA

ENVIRONMENTS = {
    "default": trueskill.TrueSkill(),
    "beta=sigma": trueskill.TrueSkill(beta=SIGMA),
    "draw 0.0": trueskill.TrueSkill(draw_probability=0.0),
    "draw 0.01": trueskill.TrueSkill(draw_probability=0.01),
    "draw 0.02": trueskill.TrueSkill(draw_probability=0.02),
    "draw 0.06": trueskill.TrueSkill(draw_probability=0.06),
    "draw 0.11": trueskill.TrueSkill(draw_probability=0.11),
    "draw 0.3": trueskill.TrueSkill(draw_probability=0.3),
    "beta=sigma, draw 0.06": trueskill.TrueSkill(beta=SIGMA, draw_probability=0.06),
    "tau 0": trueskill.TrueSkill(tau=0),
    **{game.name: environment_for(game).trueskill() for game in BUILTIN_GAMES},
}

PROPERTY = settings(
    max_examples=600, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)


def outcome(rate, *args):
    """What ``rate(*args)`` returns, or the arithmetic error it raises."""
    try:
        return rate(*args)
    except (ArithmeticError, ValueError) as error:
        return error


def package_pairs(env, ratings, ranks):
    groups = env.rate([(trueskill.Rating(mu, sigma),) for mu, sigma in ratings], ranks=ranks)
    return [(group[0].mu, group[0].sigma) for group in groups]


def package_ratings(env, ratings, ranks):
    return [group[0] for group in env.rate([(r,) for r in ratings], ranks=ranks)]


def state(ratings):
    """A list of Ratings as the exact numbers they hold."""
    return [(r.pi, r.tau) for r in ratings]


def assert_same(expected, got):
    if isinstance(expected, Exception):
        assert type(got) is type(expected), (expected, got)
        assert str(got) == str(expected)
    else:
        assert not isinstance(got, Exception), (expected, got)
        assert got == expected  # exact: the same operations in the same order


@st.composite
def games(draw, mu=st.floats(0, 50), sigma=st.floats(0.5, 9)):
    """Two to ten players; ranks from a small range, so ties are common (all tie when top is 0)."""
    n = draw(st.integers(2, 10))
    ratings = draw(st.lists(st.tuples(mu, sigma), min_size=n, max_size=n))
    top = draw(st.integers(0, n - 1))
    rank = st.integers(0, top)
    if draw(st.booleans()):  # places as the harness gives them: means of seats, e.g. 1.5
        rank = st.integers(0, 2 * top).map(lambda r: r / 2)
    ranks = draw(st.lists(rank, min_size=n, max_size=n))
    return ratings, ranks


@PROPERTY
@given(env_name=st.sampled_from(sorted(ENVIRONMENTS)), game=games())
def test_equal_to_the_package(env_name, game):
    env = ENVIRONMENTS[env_name]
    ratings, ranks = game
    expected = outcome(package_pairs, env, ratings, ranks)
    assert_same(expected, outcome(rate_free_for_all, env, ratings, ranks))

    objects = [trueskill.Rating(mu, sigma) for mu, sigma in ratings]
    expected = outcome(package_ratings, env, objects, ranks)
    got = outcome(rate_ratings, env, objects, ranks)
    if isinstance(expected, Exception):
        assert_same(expected, got)
    else:
        assert all(type(r) is trueskill.Rating for r in got)
        assert state(got) == state(expected)


@settings(max_examples=300, deadline=None, database=None)
@given(
    env_name=st.sampled_from(sorted(ENVIRONMENTS)),
    game=games(mu=st.floats(-500, 500), sigma=st.floats(0.01, 100)),
)
def test_same_errors_as_the_package_far_from_usual_ratings(env_name, game):
    """Huge upsets make the truncation fail: FloatingPointError in both, with one message."""
    env = ENVIRONMENTS[env_name]
    ratings, ranks = game
    expected = outcome(package_pairs, env, ratings, ranks)
    assert_same(expected, outcome(rate_free_for_all, env, ratings, ranks))


@pytest.mark.parametrize("ranks", [[0, 1], [0, 0], [1, 0, 2]])
def test_floating_point_error_like_the_package(ranks):
    env = trueskill.TrueSkill()
    ratings = [(0.0, 1.0), (1000.0, 1.0), (500.0, 1.0)][: len(ranks)]
    with pytest.raises(FloatingPointError) as expected:
        package_pairs(env, ratings, ranks)
    with pytest.raises(FloatingPointError) as got:
        rate_free_for_all(env, ratings, ranks)
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize("env_name", ["default", "twenty-down", "how-low-can-you-go"])
def test_three_hundred_games_in_a_row(env_name):
    """A pool of five rated game after game both ways ends (and stays) exactly the same.

    As pairs: the package fed Rating(mu, sigma) and read back (mu, sigma), against
    rate_free_for_all. As Rating objects: env.rate on the returned Ratings, against rate_ratings.
    """
    env = ENVIRONMENTS[env_name]
    rng = random.Random(f"fast-trueskill-{env_name}")
    package_pool = [(env.mu, env.sigma)] * 5
    fast_pool = list(package_pool)
    package_objects = [env.create_rating() for _ in range(5)]
    fast_objects = list(package_objects)
    for _ in range(300):
        players = rng.sample(range(5), rng.randint(2, 5))
        ranks = [rng.randint(0, len(players) - 1) for _ in players]

        new = package_pairs(env, [package_pool[p] for p in players], ranks)
        for p, rating in zip(players, new, strict=True):
            package_pool[p] = rating
        new = rate_free_for_all(env, [fast_pool[p] for p in players], ranks)
        for p, rating in zip(players, new, strict=True):
            fast_pool[p] = rating
        assert fast_pool == package_pool

        new = package_ratings(env, [package_objects[p] for p in players], ranks)
        for p, rating in zip(players, new, strict=True):
            package_objects[p] = rating
        new = rate_ratings(env, [fast_objects[p] for p in players], ranks)
        for p, rating in zip(players, new, strict=True):
            fast_objects[p] = rating
        assert state(fast_objects) == state(package_objects)

    # The games moved the ratings: the pool is not still at its start.
    assert len(set(fast_pool)) == 5
    assert all(sigma < env.sigma / 2 for _, sigma in fast_pool)


def test_results_follow_the_input_order_not_the_rank_order():
    env = trueskill.TrueSkill()
    ratings = [(20.0, 5.0), (30.0, 4.0), (25.0, 8.0), (24.0, 7.0)]
    ranks = [3, 0, 1.5, 1.5]
    new = rate_free_for_all(env, ratings, ranks)
    assert new == package_pairs(env, ratings, ranks)
    assert new[1][0] > ratings[1][0]  # the winner gains
    assert new[0][0] < ratings[0][0]  # the last loses
    assert all(sigma < old for (_, sigma), (_, old) in zip(new, ratings, strict=True))


def test_ranks_default_to_the_input_order_and_are_checked():
    env = trueskill.TrueSkill()
    ratings = [(25.0, 8.0), (27.0, 6.0), (22.0, 7.0)]
    assert rate_free_for_all(env, ratings, None) == package_pairs(env, ratings, None)
    with pytest.raises(ValueError, match="Wrong ranks"):
        rate_free_for_all(env, ratings, [0, 1])
    with pytest.raises(ValueError, match="Need multiple rating groups"):
        rate_free_for_all(env, ratings[:1], [0])
    with pytest.raises(ValueError, match="sigma"):
        rate_free_for_all(env, [(25.0, 0.0), (25.0, 8.0)], [0, 1])


def test_a_changed_environment_is_not_served_from_the_cache():
    env = trueskill.TrueSkill()
    ratings = [(25.0, 8.0), (27.0, 6.0), (22.0, 7.0)]
    ranks = [0, 1, 1]
    before = rate_free_for_all(env, ratings, ranks)
    for name, value in [("beta", SIGMA), ("tau", 0.5), ("draw_probability", 0.3)]:
        setattr(env, name, value)
        after = rate_free_for_all(env, ratings, ranks)
        assert after == package_pairs(env, ratings, ranks)
        assert after != before
        before = after


def test_what_it_does_not_transcribe_goes_to_the_package():
    """A callable draw probability (and any other backend) is rated by env.rate itself."""
    env = trueskill.TrueSkill(draw_probability=lambda rating1, rating2, env: 0.2)
    ratings = [(25.0, 8.0), (27.0, 6.0), (22.0, 7.0), (30.0, 3.0)]
    ranks = [1, 0, 1, 2]
    assert rate_free_for_all(env, ratings, ranks) == package_pairs(env, ratings, ranks)
    objects = [trueskill.Rating(mu, sigma) for mu, sigma in ratings]
    assert state(rate_ratings(env, objects, ranks)) == state(package_ratings(env, objects, ranks))


# --- unusual input ------------------------------------------------------------------------------


class Place(int):
    """An int that compares like one but is not exactly int."""


@pytest.mark.parametrize(
    "ranks",
    [
        [True, False, True],
        [2**60, 0, 2**60 + 1],
        [Fraction(1, 3), Fraction(1, 2), Fraction(1, 3)],
        [Place(2), Place(0), Place(1)],
        (2, 0, 2),
        [float("inf"), 0.0, 1.0],
    ],
    ids=["bools", "big ints", "fractions", "int subclass", "tuple", "inf"],
)
def test_unusual_ranks_rate_as_in_the_package(ranks):
    env = trueskill.TrueSkill()
    ratings = [(25.0, 8.0), (27.0, 6.0), (22.0, 7.0)]
    assert rate_free_for_all(env, ratings, ranks) == package_pairs(env, ratings, ranks)


def test_many_players():
    env = trueskill.TrueSkill()
    rng = random.Random(33)
    ratings = [(rng.uniform(20, 30), rng.uniform(3, 8)) for _ in range(33)]
    ranks = [rng.randint(0, 20) for _ in range(33)]
    assert rate_free_for_all(env, ratings, ranks) == package_pairs(env, ratings, ranks)


# Ratings anywhere: huge and tiny means and deviations, and the values at the edges, for every
# player of a game or for a few among ordinary ones.
extreme_mu = st.one_of(
    st.floats(-50, 100),
    st.floats(-1e6, 1e6),
    st.floats(-1e300, 1e300),
    st.sampled_from([0.0, -0.0]),
)
extreme_sigma = st.one_of(
    st.floats(0.5, 9),
    st.floats(1e-3, 1e3),
    st.floats(1e-160, 1e160),
    st.sampled_from([0.0, 5e-324, 1e-154, 1e154, 1.5e308]),
)
any_games = st.one_of(
    games(mu=st.floats(-1e3, 1e3), sigma=st.floats(1e-2, 1e2)),
    games(mu=st.floats(-1e300, 1e300), sigma=st.floats(1e-160, 1e160)),
    games(mu=extreme_mu, sigma=extreme_sigma),
    games(
        mu=st.one_of(st.floats(0, 50), st.floats(0, 50), st.floats(0, 50), extreme_mu),
        sigma=st.one_of(st.floats(0.5, 9), st.floats(0.5, 9), st.floats(0.5, 9), extreme_sigma),
    ),
)


@settings(max_examples=1000, deadline=None, database=None)
@given(
    env_name=st.sampled_from(sorted(ENVIRONMENTS)),
    game=any_games,
    as_objects=st.booleans(),
)
def test_equal_to_the_package_on_any_ratings(env_name, game, as_objects):
    """Equal results, or the same exception, from this code and the package."""
    env = ENVIRONMENTS[env_name]
    ratings, ranks = game
    if as_objects:
        try:
            objects = [trueskill.Rating(mu, sigma) for mu, sigma in ratings]
        except (ArithmeticError, ValueError):
            assume(False)
        expected = outcome(package_ratings, env, objects, ranks)
        got = outcome(rate_ratings, env, objects, ranks)
        if not isinstance(expected, Exception):
            expected = state(expected)
            got = got if isinstance(got, Exception) else state(got)
    else:
        expected = outcome(package_pairs, env, ratings, ranks)
        got = outcome(rate_free_for_all, env, ratings, ranks)
    if isinstance(expected, Exception) or isinstance(got, Exception):
        assert_same(expected, got)
    else:
        # repr tells -0.0 from 0.0 and, unlike ==, finds a nan equal to a nan
        assert repr(got) == repr(expected)
