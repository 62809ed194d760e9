"""arena.ratings.fast_trueskill against the trueskill package it transcribes: equal to the bit.

``rate_free_for_all`` performs the package's floating-point operations in the package's order,
so every comparison here is exact (``==``), never approximate; where the package raises, the
same exception with the same message must come out.

Every comparison runs twice: with the pure-Python code and with the C extension
(``arena.ratings._trueskill_c``), which is skipped if it is not built. ``ARENA_REQUIRE_C_EXTENSION=1``
turns a missing extension into a failure (see test_the_c_extension_is_built_when_required).
"""

from __future__ import annotations

import os
import random
from contextlib import contextmanager
from fractions import Fraction

import pytest
import trueskill
from conftest import require_c_extension
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from arena.plugins.builtin import BUILTIN_GAMES
from arena.ratings import fast_trueskill
from arena.ratings.fast_trueskill import rate_free_for_all, rate_ratings
from arena.ratings.trueskill import environment_for

C_MISSING = "arena.ratings._trueskill_c is not built (no C compiler at install time?) or out of date"
IMPLEMENTATIONS = [
    "python",
    pytest.param(
        "c", marks=pytest.mark.skipif(fast_trueskill._trueskill_c is None, reason=C_MISSING)
    ),
]


@contextmanager
def implementation(name):
    """Rate with the pure-Python code (``"python"``) or the C extension (``"c"``) inside."""
    was_c = fast_trueskill._rate_c is not None
    assert fast_trueskill.use_c_extension(name == "c") == (name == "c")
    try:
        yield
    finally:
        fast_trueskill.use_c_extension(was_c)


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


@pytest.mark.parametrize("code", IMPLEMENTATIONS)
@PROPERTY
@given(env_name=st.sampled_from(sorted(ENVIRONMENTS)), game=games())
def test_equal_to_the_package(code, env_name, game):
    env = ENVIRONMENTS[env_name]
    ratings, ranks = game
    expected = outcome(package_pairs, env, ratings, ranks)
    with implementation(code):
        assert_same(expected, outcome(rate_free_for_all, env, ratings, ranks))

    objects = [trueskill.Rating(mu, sigma) for mu, sigma in ratings]
    expected = outcome(package_ratings, env, objects, ranks)
    with implementation(code):
        got = outcome(rate_ratings, env, objects, ranks)
    if isinstance(expected, Exception):
        assert_same(expected, got)
    else:
        assert all(type(r) is trueskill.Rating for r in got)
        assert state(got) == state(expected)


@pytest.mark.parametrize("code", IMPLEMENTATIONS)
@settings(max_examples=300, deadline=None, database=None)
@given(
    env_name=st.sampled_from(sorted(ENVIRONMENTS)),
    game=games(mu=st.floats(-500, 500), sigma=st.floats(0.01, 100)),
)
def test_same_errors_as_the_package_far_from_usual_ratings(code, env_name, game):
    """Huge upsets make the truncation fail: FloatingPointError in both, with one message."""
    env = ENVIRONMENTS[env_name]
    ratings, ranks = game
    expected = outcome(package_pairs, env, ratings, ranks)
    with implementation(code):
        assert_same(expected, outcome(rate_free_for_all, env, ratings, ranks))


@pytest.mark.parametrize("code", IMPLEMENTATIONS)
@pytest.mark.parametrize("ranks", [[0, 1], [0, 0], [1, 0, 2]])
def test_floating_point_error_like_the_package(code, ranks):
    env = trueskill.TrueSkill()
    ratings = [(0.0, 1.0), (1000.0, 1.0), (500.0, 1.0)][: len(ranks)]
    with pytest.raises(FloatingPointError) as expected:
        package_pairs(env, ratings, ranks)
    with implementation(code), pytest.raises(FloatingPointError) as got:
        rate_free_for_all(env, ratings, ranks)
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize("code", IMPLEMENTATIONS)
@pytest.mark.parametrize("env_name", ["default", "twenty-down", "how-low-can-you-go"])
def test_three_hundred_games_in_a_row(code, env_name):
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
        with implementation(code):
            new = rate_free_for_all(env, [fast_pool[p] for p in players], ranks)
        for p, rating in zip(players, new, strict=True):
            fast_pool[p] = rating
        assert fast_pool == package_pool

        new = package_ratings(env, [package_objects[p] for p in players], ranks)
        for p, rating in zip(players, new, strict=True):
            package_objects[p] = rating
        with implementation(code):
            new = rate_ratings(env, [fast_objects[p] for p in players], ranks)
        for p, rating in zip(players, new, strict=True):
            fast_objects[p] = rating
        assert state(fast_objects) == state(package_objects)

    # The games moved the ratings: the pool is not still at its start.
    assert len(set(fast_pool)) == 5
    assert all(sigma < env.sigma / 2 for _, sigma in fast_pool)


@pytest.mark.parametrize("code", IMPLEMENTATIONS)
def test_results_follow_the_input_order_not_the_rank_order(code):
    env = trueskill.TrueSkill()
    ratings = [(20.0, 5.0), (30.0, 4.0), (25.0, 8.0), (24.0, 7.0)]
    ranks = [3, 0, 1.5, 1.5]
    with implementation(code):
        new = rate_free_for_all(env, ratings, ranks)
    assert new == package_pairs(env, ratings, ranks)
    assert new[1][0] > ratings[1][0]  # the winner gains
    assert new[0][0] < ratings[0][0]  # the last loses
    assert all(sigma < old for (_, sigma), (_, old) in zip(new, ratings, strict=True))


@pytest.mark.parametrize("code", IMPLEMENTATIONS)
def test_ranks_default_to_the_input_order_and_are_checked(code):
    env = trueskill.TrueSkill()
    ratings = [(25.0, 8.0), (27.0, 6.0), (22.0, 7.0)]
    with implementation(code):
        assert rate_free_for_all(env, ratings, None) == package_pairs(env, ratings, None)
        with pytest.raises(ValueError, match="Wrong ranks"):
            rate_free_for_all(env, ratings, [0, 1])
        with pytest.raises(ValueError, match="Need multiple rating groups"):
            rate_free_for_all(env, ratings[:1], [0])
        with pytest.raises(ValueError, match="sigma"):
            rate_free_for_all(env, [(25.0, 0.0), (25.0, 8.0)], [0, 1])


@pytest.mark.parametrize("code", IMPLEMENTATIONS)
def test_a_changed_environment_is_not_served_from_the_cache(code):
    env = trueskill.TrueSkill()
    ratings = [(25.0, 8.0), (27.0, 6.0), (22.0, 7.0)]
    ranks = [0, 1, 1]
    with implementation(code):
        before = rate_free_for_all(env, ratings, ranks)
    for name, value in [("beta", SIGMA), ("tau", 0.5), ("draw_probability", 0.3)]:
        setattr(env, name, value)
        with implementation(code):
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


# --- the C extension -----------------------------------------------------------------------------

needs_c = pytest.mark.skipif(fast_trueskill._trueskill_c is None, reason=C_MISSING)


def test_the_c_extension_is_built_when_required():
    """ARENA_REQUIRE_C_EXTENSION=1 (where a compiler exists): fail if the C code is not built."""
    require_c_extension(fast_trueskill._trueskill_c, C_MISSING)
    if os.environ.get(fast_trueskill.PURE_PYTHON_VARIABLE, "0") in ("", "0"):
        assert fast_trueskill.implementation().startswith("C extension")


@needs_c
def test_the_switch_and_what_it_reports():
    with implementation("python"):
        assert fast_trueskill.implementation() == "pure Python"
    with implementation("c"):
        assert fast_trueskill.implementation() == "C extension (arena.ratings._trueskill_c)"


@needs_c
def test_the_c_constants_are_the_python_ones():
    assert fast_trueskill._trueskill_c.SQRT2 == fast_trueskill._SQRT2
    assert fast_trueskill._trueskill_c.PDF_SCALE == fast_trueskill._PDF_SCALE


def c_rate(env, ratings, ranks):
    """The C function alone on (mu, sigma) pairs: its result, or None where it hands over."""
    pis = [sigma**-2 for _, sigma in ratings]
    taus = [pi * mu for pi, (mu, _) in zip(pis, ratings, strict=True)]
    settings = fast_trueskill._settings(env)
    return fast_trueskill._trueskill_c.rate(pis, taus, ranks, *settings, fast_trueskill._MIN_DELTA)


@needs_c
@pytest.mark.parametrize("env_name", ["default", "twenty-down", "how-low-can-you-go", "tau 0"])
def test_the_c_code_rates_ordinary_games_itself(env_name):
    """No silent hand-over: ordinary games are rated in C, and equal the Python code's results."""
    env = ENVIRONMENTS[env_name]
    rng = random.Random(env_name)
    for n in range(2, 11):
        for _ in range(20):
            ratings = [(rng.uniform(0, 50), rng.uniform(0.5, 9)) for _ in range(n)]
            ranks = [rng.randint(0, n - 1) for _ in range(n)]
            got = c_rate(env, ratings, ranks)
            assert got is not None
            pis = [sigma**-2 for _, sigma in ratings]
            taus = [pi * mu for pi, (mu, _) in zip(pis, ratings, strict=True)]
            settings = fast_trueskill._settings(env)
            assert got == fast_trueskill._rate_python(settings, pis, taus, ranks, env)


@needs_c
@pytest.mark.parametrize(
    "ratings, ranks",
    [
        ([(0.0, 1.0), (1000.0, 1.0)], [0, 1]),  # a win that cannot be computed
        ([(0.0, 1.0), (1000.0, 1.0)], [0, 0]),  # a draw that cannot be computed
        ([(0.0, 1.0), (1000.0, 1.0), (500.0, 1.0)], [1, 0, 2]),
    ],
)
def test_where_python_raises_the_c_code_hands_over(ratings, ranks):
    env = trueskill.TrueSkill()
    assert c_rate(env, ratings, ranks) is None
    expected = outcome(package_pairs, env, ratings, ranks)
    assert isinstance(expected, FloatingPointError)
    with implementation("c"):
        assert_same(expected, outcome(rate_free_for_all, env, ratings, ranks))


class Place(int):
    """An int that compares like one but is not exactly int: the C code leaves it to Python."""


@needs_c
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
    with implementation("c"):
        assert rate_free_for_all(env, ratings, ranks) == package_pairs(env, ratings, ranks)


@needs_c
def test_more_players_than_the_c_code_takes():
    env = trueskill.TrueSkill()
    n = fast_trueskill._trueskill_c.MAX_PLAYERS + 1
    rng = random.Random(n)
    ratings = [(rng.uniform(20, 30), rng.uniform(3, 8)) for _ in range(n)]
    ranks = [rng.randint(0, 20) for _ in range(n)]
    assert c_rate(env, ratings, ranks) is None
    with implementation("c"):
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


@needs_c
@settings(max_examples=1000, deadline=None, database=None)
@given(
    env_name=st.sampled_from(sorted(ENVIRONMENTS)),
    game=any_games,
    as_objects=st.booleans(),
)
def test_c_equals_python_and_the_package_on_any_ratings(env_name, game, as_objects):
    """Equal results, or the same exception, from the C path, the Python path and the package."""
    env = ENVIRONMENTS[env_name]
    ratings, ranks = game
    if as_objects:
        try:
            objects = [trueskill.Rating(mu, sigma) for mu, sigma in ratings]
        except (ArithmeticError, ValueError):
            assume(False)
        expected = outcome(package_ratings, env, objects, ranks)
        results = []
        for code in ("python", "c"):
            with implementation(code):
                results.append(outcome(rate_ratings, env, objects, ranks))
        if not isinstance(expected, Exception):
            expected = state(expected)
            results = [r if isinstance(r, Exception) else state(r) for r in results]
    else:
        expected = outcome(package_pairs, env, ratings, ranks)
        results = []
        for code in ("python", "c"):
            with implementation(code):
                results.append(outcome(rate_free_for_all, env, ratings, ranks))
    for got in results:
        if isinstance(expected, Exception) or isinstance(got, Exception):
            assert_same(expected, got)
        else:
            # repr tells -0.0 from 0.0 and, unlike ==, finds a nan equal to a nan
            assert repr(got) == repr(expected)


def test_the_environment_variable_forces_pure_python():
    import subprocess
    import sys

    code = "from arena.ratings import fast_trueskill; print(fast_trueskill.implementation())"
    env = {**os.environ, fast_trueskill.PURE_PYTHON_VARIABLE: "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "pure Python", out.stderr
