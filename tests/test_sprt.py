"""The SPRT of ``arena match --sprt``: fastchess's published LLRs, and its error rates on simulated
duplicate boards (drawn directly from a pentanomial distribution, no game played)."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.ratings.sprt import (
    PENTANOMIAL_SCORES,
    SequentialTest,
    Sprt,
    SprtError,
    board_outcome,
    elo_to_score,
    score_to_elo,
)


def penta(ll, ld, wl, dd, wd, ww):  # fastchess's Stats(ll, ld, wl, dd, wd, ww)
    return [ll, ld, wl + dd, wd, ww]


def tri(wins, losses, draws):  # fastchess's Stats(wins, losses, draws)
    return [losses, draws, wins]


# app/tests/sprt_test.cpp of Disservin/fastchess: the counts, the bounds, the LLR it expects.
FASTCHESS = [
    (tri(36433, 36027, 68692), 0, 2, "normalized", 0.92),
    (tri(10871, 10650, 20431), -1.75, 0.25, "normalized", 2.30),
    (tri(4250, 0, 0), 0, 10, "normalized", 120.56),
    (tri(21404, 21184, 40708), 0.5, 2.5, "logistic", -1.57),
    (tri(57433, 57030, 106593), 0, 2, "logistic", -2.59),
    (penta(365, 16618, 36029, 200, 16974, 390), 0, 2, "normalized", 2.25),
    (penta(127, 4883, 10311, 401, 5150, 104), -1.75, 0.25, "normalized", 3.01),
    (penta(0, 0, 0, 0, 0, 5550), 0, 5, "normalized", 111.82),
    (penta(223, 9863, 20279, 1000, 10037, 246), 0.5, 2.5, "logistic", -3.07),
    (penta(871, 26175, 55003, 980, 26678, 821), 0, 2, "logistic", -4.98),
]


@pytest.mark.parametrize("counts,elo0,elo1,model,expected", FASTCHESS)
def test_llr_matches_fastchess(counts, elo0, elo1, model, expected):
    llr = Sprt(elo0, elo1, 0.05, 0.05, model).llr(counts)
    assert llr == pytest.approx(expected, rel=0.01)


def test_bounds_are_walds():
    sprt = Sprt(0, 5, alpha=0.05, beta=0.05)
    assert sprt.lower == pytest.approx(-2.944, abs=1e-3)
    assert sprt.upper == pytest.approx(2.944, abs=1e-3)
    assert sprt.decision(3.0) == "H1" and sprt.decision(-3.0) == "H0" and sprt.decision(0) is None


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"elo0": 5, "elo1": 5}, "--elo0 must be less than --elo1"),
        ({"alpha": 0}, "--alpha must be between 0 and 1"),
        ({"beta": 1.5}, "--beta must be between 0 and 1"),
        ({"alpha": 0.6, "beta": 0.5}, "--alpha plus --beta must be less than 1"),
        ({"model": "bayesian"}, "--model must be logistic or normalized"),
        ({"elo1": math.nan}, "--elo1 must be a finite number"),
    ],
)
def test_bad_settings_are_one_line(kwargs, message):
    with pytest.raises(SprtError, match=message):
        Sprt(**kwargs)


def test_board_outcome_is_the_mean_result_in_quarters():
    assert board_outcome([1, 1]) == 4
    assert board_outcome([1, 0.5]) == 3
    assert board_outcome([1, 0]) == 2 == board_outcome([0.5, 0.5])
    assert board_outcome([0, 0.5]) == 1
    assert board_outcome([0, 0]) == 0


def test_elo_and_score_are_inverse():
    for elo in (-300, -10, 0, 7.5, 400):
        assert score_to_elo(elo_to_score(elo)) == pytest.approx(elo)
    assert score_to_elo(1.0) == math.inf and score_to_elo(0.0) == -math.inf


@settings(max_examples=60, deadline=None)
@given(
    counts=st.lists(st.integers(0, 500), min_size=5, max_size=5),
    elo0=st.floats(-50, 50),
    width=st.floats(0.5, 50),
    model=st.sampled_from(["logistic", "normalized"]),
)
def test_llr_of_the_mirrored_match_is_the_opposite(counts, elo0, width, model):
    """B against A, with the hypotheses mirrored, is the same test with the sign turned."""
    elo1 = elo0 + width
    forward = Sprt(elo0, elo1, model=model).llr(counts)
    mirrored = Sprt(-elo1, -elo0, model=model).llr(list(reversed(counts)))
    assert mirrored == pytest.approx(-forward, rel=1e-6, abs=1e-6)


# --- error rates on simulated boards ------------------------------------------------------------

BASE = [0.06, 0.2, 0.48, 0.2, 0.06]  # a board distribution of equal bots: mostly split boards


def tilted(score: float) -> list[float]:
    """BASE tilted exponentially to the expected board score ``score``."""
    low, high = -50.0, 50.0
    for _ in range(100):
        lam = (low + high) / 2
        weights = [p * math.exp(lam * a) for p, a in zip(BASE, PENTANOMIAL_SCORES, strict=True)]
        mean = sum(w * a for w, a in zip(weights, PENTANOMIAL_SCORES, strict=True)) / sum(weights)
        low, high = (lam, high) if mean < score else (low, lam)
    total = sum(weights)
    return [w / total for w in weights]


def decisions(true_elo: float, sprt: Sprt, tests: int, seed: int, cap: int = 5000) -> dict:
    probs = tilted(elo_to_score(true_elo))
    rng = random.Random(seed)
    found = {"H0": 0, "H1": 0, None: 0}
    for _ in range(tests):
        test = SequentialTest(sprt)
        while test.decided is None and test.boards < cap:
            test.add(rng.choices(range(5), probs)[0])
        found[test.decided] += 1
    return found


def test_error_rates_within_sampling_error():
    """At elo0 the test accepts H1 about α of the time, at elo1 H0 about β of the time (Wald's
    bounds, which the generalized LLR keeps to within sampling error)."""
    sprt = Sprt(0, 30, alpha=0.05, beta=0.1)
    tests = 300
    at_elo0 = decisions(0, sprt, tests, seed=1)
    at_elo1 = decisions(30, sprt, tests, seed=2)
    assert at_elo0[None] == at_elo1[None] == 0  # every test decided
    for found, rate in ((at_elo0["H1"], 0.05), (at_elo1["H0"], 0.1)):
        sd = math.sqrt(rate * (1 - rate) / tests)
        assert found / tests <= rate + 3 * sd
    # and it is a test, not a coin: it mostly decides the right way
    assert at_elo0["H0"] / tests >= 0.85 and at_elo1["H1"] / tests >= 0.8


def test_a_much_stronger_bot_is_found_in_few_boards():
    sprt = Sprt(0, 10)
    found = decisions(200, sprt, 50, seed=3)
    assert found["H1"] == 50
