"""TrueSkill for a free-for-all of single players, without trueskill's object graph.

``env.rate([(r1,), (r2,), ...], ranks=...)`` builds a factor graph of ``Variable``/``Factor``
objects and ``Gaussian`` messages on every call: about 0.4 ms for four players and 1.6 ms for ten,
which made rating the biggest cost per game of the harness. The functions here run the same
algorithm on plain floats, about ten times faster:

- :func:`rate_free_for_all` takes and returns ``(mu, sigma)`` pairs and equals
  ``env.rate([(Rating(mu, sigma),), ...], ranks)`` read back as ``(rating.mu, rating.sigma)``;
- :func:`rate_ratings` takes and returns ``Rating`` objects and equals
  ``env.rate([(r,), ...], ranks)``. Use it to carry ratings from game to game as the package
  would: ``Rating(r.mu, r.sigma)`` is not always ``r`` to the last bit (about 2 % of ratings
  differ by an ulp after ``sigma ** -2`` and back), so a chain kept as ``(mu, sigma)`` pairs
  drifts from a chain kept as ``Rating`` objects by ~1e-14, with the package as with this.

Both transcribe ``TrueSkill.rate`` for the case the arena uses (every team is one player, every
weight 1, a static draw probability, the pure-Python backend, the default ``min_delta``): the same
message-passing schedule and the same floating-point operations in the same order, so results
are equal (``==``) to the package's, and they raise the package's exceptions
(``FloatingPointError`` when a truncation cannot be computed, ``ValueError`` for a zero sigma)
where it does. Anything else (a callable draw probability, another backend, a subclass that
overrides the algorithm) is handed to ``env.rate`` itself.

The message passing itself (:func:`_rate_python`, the reference) is also written in C, in the
optional extension ``arena.ratings._trueskill_c`` built at install time when a C compiler is present: the
same operations in the same order, hence the same doubles, five to ten times faster. It is used
when built, unless ``ARENA_PURE_PYTHON_TRUESKILL=1`` or :func:`use_c_extension` says otherwise
(:func:`implementation` tells which runs). Wherever the Python code would raise, or meets numbers
the C code does not check for, the C code hands the game back to the Python code.

How the graph maps onto floats, for players ``0..n-1`` sorted by rank (``D_j`` is the
performance difference between sorted players ``j`` and ``j + 1``)::

    R_i  rating          messages: prior, likelihood
    P_i  performance     messages: likelihood, team sum
    T_i  team perf.      messages: team sum, left diff (D_{i-1}), right diff (D_i)
    D_j  difference      messages: diff sum, truncation

A Variable's value is the product of its messages in the package too, but it is kept as a
separate number and updated incrementally (``value / old_message * message``), and those
incremental sums round differently from a fresh product, so every value and every message is
kept here as the package keeps it (``*p`` precision, ``*t`` precision-adjusted mean). The zeros
the package adds (``0 + x``: a fresh Variable, a sum that starts at ``0``) are added here too,
as ``0.0 + x`` (the same operation: the int is converted first); they turn ``-0.0`` into ``0.0``.
Multiplications by the coefficients ``1`` and ``-1`` are exact and are left out.
"""

from __future__ import annotations

import math
from math import exp, sqrt

import trueskill
from trueskill import backends as _backends

from arena import c_extensions

# Bumped with every change to _rate_python, and in arena/ratings/_trueskill_c.c with the same change: an
# extension built from older sources (a checkout updated without reinstalling) is not used.
_TRANSCRIPTION = 1

_trueskill_c = c_extensions.load("arena.ratings._trueskill_c", _TRANSCRIPTION)

__all__ = ["implementation", "rate_free_for_all", "rate_ratings", "use_c_extension"]

PURE_PYTHON_VARIABLE = "ARENA_PURE_PYTHON_TRUESKILL"

_INF = float("inf")
# TrueSkill.rate's default min_delta (bound when the package was imported).
_MIN_DELTA = trueskill.DELTA

# trueskill.backends.cdf and pdf with their defaults mu=0, sigma=1:
#   cdf(x) = 0.5 * erfc(-(x - 0) / (1 * sqrt(2)))   and x - 0 == x, 1 * s == s exactly;
#   pdf(x) = 1 / sqrt(2 * pi) * abs(1) * exp(-(((x - 0) / abs(1)) ** 2 / 2))
#          = (1 / sqrt(2 * pi)) * exp(-(x ** 2 / 2))   since c * 1 == c and x / 1 == x exactly.
_SQRT2 = 1 * sqrt(2)
_PDF_SCALE = 1 / sqrt(2 * math.pi) * abs(1)


def _cdf(x):
    y = -x / _SQRT2
    # trueskill.backends.erfc(y), verbatim.
    z = abs(y)
    t = 1.0 / (1.0 + z / 2.0)
    r = t * exp(
        -z * z
        - 1.26551223
        + t
        * (
            1.00002368
            + t
            * (
                0.37409196
                + t
                * (
                    0.09678418
                    + t
                    * (
                        -0.18628806
                        + t
                        * (
                            0.27886807
                            + t
                            * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))
                        )
                    )
                )
            )
        )
    )
    return 0.5 * (2.0 - r if y < 0 else r)


def _pdf(x):
    return _PDF_SCALE * exp(-(x**2 / 2))


# What the package's methods must be for the transcription to hold.
_TRANSCRIBED = (
    "rate",
    "validate_rating_groups",
    "validate_weights",
    "factor_graph_builders",
    "run_schedule",
    "v_win",
    "v_draw",
    "w_win",
    "w_draw",
)
_class_is_plain: dict[type, bool] = {}

# Per environment: (beta, tau, draw_probability) objects it was computed from -> (beta ** 2,
# tau ** 2, draw margin). Keyed by id(env) and checked by identity of those three attributes, so a
# changed attribute (or a new environment that reuses the id) recomputes; the values depend on
# nothing else once the backend is known to be the pure-Python one.
_settings_cache: dict[int, tuple] = {}
_SETTINGS_CACHE_MAX = 256


def _settings(env):
    """``(beta², tau², draw margin)`` for ``env``, or None if ``env.rate`` must do the work."""
    cls = type(env)
    plain = _class_is_plain.get(cls)
    if plain is None:
        plain = _class_is_plain[cls] = issubclass(cls, trueskill.TrueSkill) and all(
            getattr(cls, name) is getattr(trueskill.TrueSkill, name) for name in _TRANSCRIBED
        )
    if (
        not plain
        or env.backend is not None
        or env.cdf is not _backends.cdf
        or env.pdf is not _backends.pdf
        or env.ppf is not _backends.ppf
    ):
        return None
    beta, tau, draw_probability = env.beta, env.tau, env.draw_probability
    cached = _settings_cache.get(id(env))
    if (
        cached is not None
        and cached[0] is beta
        and cached[1] is tau
        and cached[2] is draw_probability
    ):
        return cached[3]
    if callable(draw_probability):
        return None
    # LikelihoodFactor's variance is beta ** 2, PriorFactor adds dynamic ** 2 (dynamic = tau), and
    # build_trunc_layer's margin for two one-player teams is calc_draw_margin(p, 2, env).
    values = (beta**2, tau**2, trueskill.calc_draw_margin(draw_probability, 2, env))
    if len(_settings_cache) >= _SETTINGS_CACHE_MAX:
        _settings_cache.clear()
    _settings_cache[id(env)] = (beta, tau, draw_probability, values)
    return values


_step_cache: dict[int, tuple] = {}


def _steps(team_diff_len):
    """One iteration of run_schedule's loop for ``team_diff_len`` differences.

    ``(x, up)``: send D_x's sum factor down, the truncation up, then the sum factor up to the
    right term (``up == 1``), to the left term (``up == 0``) or nowhere (``up == -1``, two teams).
    """
    steps = _step_cache.get(team_diff_len)
    if steps is None:
        if team_diff_len == 1:
            steps = ((0, -1),)
        else:
            steps = tuple((x, 1) for x in range(team_diff_len - 1)) + tuple(
                (x, 0) for x in range(team_diff_len - 1, 0, -1)
            )
        _step_cache[team_diff_len] = steps
    return steps


def _check_arguments(ratings, ranks):
    n = len(ratings)
    if n < 2:
        raise ValueError("Need multiple rating groups")
    if ranks is None:
        ranks = list(range(n))
    elif len(ranks) != n:
        raise ValueError("Wrong ranks")
    return ranks


def rate_free_for_all(
    env: trueskill.TrueSkill, ratings: list[tuple[float, float]], ranks: list[float]
) -> list[tuple[float, float]]:
    """New (mu, sigma) per player, equal to env.rate([(Rating(mu, sigma),) ...], ranks=ranks).

    ``ratings[i]`` is player i's ``(mu, sigma)``, ``ranks[i]`` their place (smaller is better,
    equal places draw). The result is in input order: ``(rating.mu, rating.sigma)`` of each
    ``Rating`` the package would return. Raises what the package raises, notably
    ``FloatingPointError`` when a winner is rated far below a loser.

    ``Rating(r.mu, r.sigma)`` is not always ``r`` to the last bit (``sigma ** -2`` and back), so
    to continue a chain of ``Rating`` objects exactly as ``env.rate`` would, use
    :func:`rate_ratings`.
    """
    ranks = _check_arguments(ratings, ranks)
    settings = _settings(env)
    if settings is None:
        groups = [(trueskill.Rating(mu, sigma),) for mu, sigma in ratings]
        return [(g[0].mu, g[0].sigma) for g in env.rate(groups, ranks=ranks)]
    pis = []
    taus = []
    for mu, sigma in ratings:
        # Rating(mu, sigma), that is Gaussian(mu, sigma).
        if sigma == 0:
            raise ValueError("sigma**2 should be greater than 0")
        pi = sigma**-2
        pis.append(pi)
        taus.append(pi * mu)
    result = _rate(settings, pis, taus, ranks, env)
    for i, (mu, sigma) in enumerate(result):
        # The returned Rating(mu, sigma), read back as .mu and .sigma.
        if sigma == 0:
            raise ValueError("sigma**2 should be greater than 0")
        pi = sigma**-2
        tau = pi * mu
        result[i] = (pi and tau / pi, sqrt(1 / pi) if pi else _INF)
    return result


def rate_ratings(
    env: trueskill.TrueSkill, ratings: list[trueskill.Rating], ranks: list[float]
) -> list[trueskill.Rating]:
    """New ratings, equal to ``[g[0] for g in env.rate([(r,) for r in ratings], ranks=ranks)]``.

    The same computation as :func:`rate_free_for_all`, from and to ``Rating`` objects: the
    precision and precision-adjusted mean of each new ``Rating`` are the package's to the bit.
    """
    ranks = _check_arguments(ratings, ranks)
    settings = _settings(env)
    if settings is None:
        return [g[0] for g in env.rate([(r,) for r in ratings], ranks=ranks)]
    result = _rate(settings, [r.pi for r in ratings], [r.tau for r in ratings], ranks, env)
    new = []
    for mu, sigma in result:
        # Rating(mu, sigma) without its checks of other argument forms: the same two operations.
        if sigma == 0:
            raise ValueError("sigma**2 should be greater than 0")
        rating = _new_rating(_Rating)
        rating.pi = pi = sigma**-2
        rating.tau = pi * mu
        new.append(rating)
    return new


_Rating = trueskill.Rating
_new_rating = object.__new__


# The C extension's rate(), or None for the pure-Python code; see use_c_extension().
_rate_c = None


def use_c_extension(enabled: bool = True) -> bool:
    """Rate with the C extension (when it is built) or, ``enabled=False``, in pure Python.

    Returns whether the C extension is now in use. At import it is used unless the environment
    variable ``ARENA_PURE_PYTHON_TRUESKILL`` is set to anything but ``0`` or nothing.
    """
    global _rate_c
    _rate_c = _trueskill_c.rate if enabled and _trueskill_c is not None else None
    return _rate_c is not None


def implementation() -> str:
    """Which code rates games: the C extension or the pure-Python reference."""
    return "C extension (arena.ratings._trueskill_c)" if _rate_c is not None else "pure Python"


use_c_extension(c_extensions.wanted(PURE_PYTHON_VARIABLE))


def _rate(settings, pis, taus, ranks, env):
    """:func:`_rate_python`, in C when the extension is in use and handles the case.

    The C code gives the same doubles; wherever the Python code would raise or meets numbers
    outside what the C code checks for, the C code returns None and the Python code runs.
    """
    if _rate_c is not None:
        result = _rate_c(pis, taus, ranks, *settings, _MIN_DELTA)
        if result is not None:
            return result
    return _rate_python(settings, pis, taus, ranks, env)


def _rate_python(settings, pis, taus, ranks, env):
    """TrueSkill.rate on one-player teams given as Gaussians (pi, tau), in input order.

    Returns ``[(float(var.mu), float(var.sigma)), ...]`` for each player's rating variable in
    input order: the arguments TrueSkill.rate gives ``Rating`` for the result.
    """
    n = len(pis)
    variance, dynamic2, draw_margin = settings

    # TrueSkill.rate: a stable sort by rank (the same keys in the same order give the same
    # permutation as sorting the (index, (group, rank, weights)) tuples by rank).
    order = sorted(range(n), key=ranks.__getitem__)
    sorted_ranks = [ranks[i] for i in order]

    # The gray arrows: prior, likelihood and team-sum factors sent down, player by player.
    prior_p = [0.0] * n  # R's value after the prior (its message from the likelihood is 0)
    prior_t = [0.0] * n
    perf_msg_p = [0.0] * n  # P's message from the likelihood factor
    perf_msg_t = [0.0] * n
    team_msg_p = [0.0] * n  # T's message from its team-sum factor
    team_msg_t = [0.0] * n
    Tp = [0.0] * n  # T's value
    Tt = [0.0] * n
    for k, i in enumerate(order):
        pi = pis[i]
        tau = taus[i]
        # PriorFactor.down, reading the rating's .mu and .sigma properties:
        # Gaussian(val.mu, sqrt(val.sigma ** 2 + dynamic ** 2)), set as R's
        # value by update_value (the message it leaves is not read again).
        s = sqrt((sqrt(1 / pi) if pi else _INF) ** 2 + dynamic2)
        if s == 0:
            raise ValueError("sigma**2 should be greater than 0")
        p0 = s**-2
        t0 = p0 * (pi and tau / pi)
        prior_p[k] = p0
        prior_t[k] = t0
        # LikelihoodFactor.down: msg = R / R[lik] = (p0 - 0, t0 - 0); a = 1 / (1 + variance * pi).
        a = 1.0 / (1.0 + variance * p0)
        mp = a * p0
        mt = a * t0
        perf_msg_p[k] = mp
        perf_msg_t[k] = mt
        # update_message on the fresh P: (0 - 0) + message.
        pp = 0.0 + mp
        pt = 0.0 + mt
        # SumFactor(T, [P], (1,)).down: div = P / P[sum] = (pp - 0, pt - 0);
        # mu = 0 + 1 * div.mu; pi_inv = 0 + 1 ** 2 / div.pi; pi = 1. / pi_inv.
        m = 0.0 + (pp and pt / pp)
        try:
            pi_inv = 0.0 + 1.0 / pp
        except ZeroDivisionError:
            pi_inv = _INF
        p = 1.0 / pi_inv
        t = p * m
        team_msg_p[k] = p
        team_msg_t[k] = t
        Tp[k] = 0.0 + p
        Tt[k] = 0.0 + t

    # Arrows 1, 2, 3: the difference layer, iterated.
    L = n - 1
    tie = [sorted_ranks[x] == sorted_ranks[x + 1] for x in range(L)]
    left_p = [0.0] * n  # T_i's message from D_{i-1}'s sum factor
    left_t = [0.0] * n
    right_p = [0.0] * n  # T_i's message from D_i's sum factor
    right_t = [0.0] * n
    Dp = [0.0] * L  # D's value
    Dt = [0.0] * L
    sum_p = [0.0] * L  # D's message from its sum factor
    sum_t = [0.0] * L
    trunc_p = [0.0] * L  # D's message from its truncation factor
    trunc_t = [0.0] * L
    single = L == 1
    steps = _steps(L)
    cdf = _cdf
    pdf = _pdf
    for _ in range(10):
        delta = 0
        for x, up in steps:
            x1 = x + 1
            # SumFactor(D_x, [T_x, T_x+1], [+1, -1]).down. SumFactor.update:
            #   mu = 0; pi_inv = 0; for each term: div = var / var[factor];
            #   mu += coeff * div.mu; pi_inv += coeff ** 2 / div.pi (inf on division by zero,
            #   and no more additions once inf); pi = 1. / pi_inv; tau = pi * mu.
            # coeff * y is y or -y exactly, and a + -b is a - b in IEEE 754.
            # T_x / T_x[D_x's sum] (div0) and T_x+1 / T_x+1[D_x's sum] (div1) do not change
            # before this step's up(), which reuses them.
            d0p = Tp[x] - right_p[x]
            d0t = Tt[x] - right_t[x]
            mu0 = d0p and d0t / d0p  # Gaussian.mu
            try:
                inv0 = 0.0 + 1.0 / d0p
            except ZeroDivisionError:
                inv0 = _INF
            d1p = Tp[x1] - left_p[x1]
            d1t = Tt[x1] - left_t[x1]
            mu1 = d1p and d1t / d1p
            m = (0.0 + mu0) - mu1
            pi_inv = inv0
            if pi_inv != _INF:
                try:
                    pi_inv += 1.0 / d1p
                except ZeroDivisionError:
                    pi_inv = _INF
            p = 1.0 / pi_inv
            t = p * m
            vp = (Dp[x] - sum_p[x]) + p
            vt = (Dt[x] - sum_t[x]) + t
            sum_p[x] = p
            sum_t[x] = t

            # TruncateFactor(D_x).up
            divp = vp - trunc_p[x]
            divt = vt - trunc_t[x]
            sqrt_pi = sqrt(divp)
            diff = divt / sqrt_pi
            margin = draw_margin * sqrt_pi
            if tie[x]:
                # v_draw(diff, margin), then w_draw(diff, margin), which calls
                # v_draw(abs(diff), margin): the same a, b, denom and numer, sign +1.
                abs_diff = abs(diff)
                a = margin - abs_diff
                b = -margin - abs_diff
                denom = cdf(a) - cdf(b)
                pdf_b = pdf(b)
                pdf_a = pdf(a)
                numer = pdf_b - pdf_a
                v = (numer / denom) if denom else a
                if not denom:
                    raise trueskill._floating_point_error(env)
                w = v**2 + (a * pdf_a - b * pdf_b) / denom
                v = v * (-1 if diff < 0 else +1)
            else:
                # v_win(diff, margin), then w_win, which calls v_win again (same value).
                xx = diff - margin
                denom = cdf(xx)
                v = (pdf(xx) / denom) if denom else -xx
                w = v * (v + xx)
                if not 0 < w < 1:
                    raise trueskill._floating_point_error(env)
            denom = 1.0 - w
            p = divp / denom
            t = (divt + sqrt_pi * v) / denom
            # update_value: message = value * old_message / self; delta; self = value.
            trunc_p[x] = (p + trunc_p[x]) - vp
            trunc_t[x] = (t + trunc_t[x]) - vt
            pi_delta = abs(vp - p)
            if pi_delta == _INF:
                d = 0.0
            else:
                d = abs(vt - t)
                s = sqrt(pi_delta)
                if s > d:  # max(d, s)
                    d = s
            Dp[x] = p
            Dt[x] = t
            if single:
                delta = d
            elif d > delta:  # max(delta, d)
                delta = d

            if up == 1:
                # SumFactor.up(1): coeffs [1.0, -1.0], terms [T_x, D_x], into T_x+1.
                # The T_x term is div0 again (1.0 ** 2 / d == 1 / d).
                dDp = p - sum_p[x]
                dDt = t - sum_t[x]
                m = (0.0 + mu0) - (dDp and dDt / dDp)
                pi_inv = inv0
                if pi_inv != _INF:
                    try:
                        pi_inv += 1.0 / dDp
                    except ZeroDivisionError:
                        pi_inv = _INF
                p = 1.0 / pi_inv
                t = p * m
                Tp[x1] = (Tp[x1] - left_p[x1]) + p
                Tt[x1] = (Tt[x1] - left_t[x1]) + t
                left_p[x1] = p
                left_t[x1] = t
            elif up == 0:
                # SumFactor.up(0): coeffs [1.0, 1.0], terms [D_x, T_x+1], into T_x.
                # The T_x+1 term is div1 again.
                dDp = p - sum_p[x]
                dDt = t - sum_t[x]
                m = (0.0 + (dDp and dDt / dDp)) + mu1
                try:
                    pi_inv = 0.0 + 1.0 / dDp
                except ZeroDivisionError:
                    pi_inv = _INF
                if pi_inv != _INF:
                    try:
                        pi_inv += 1.0 / d1p
                    except ZeroDivisionError:
                        pi_inv = _INF
                p = 1.0 / pi_inv
                t = p * m
                Tp[x] = (Tp[x] - right_p[x]) + p
                Tt[x] = (Tt[x] - right_t[x]) + t
                right_p[x] = p
                right_t[x] = t
        if delta <= _MIN_DELTA:
            break

    # Up both ends: team_diff_layer[0].up(0), then team_diff_layer[L - 1].up(1).
    d0p = Dp[0] - sum_p[0]
    d0t = Dt[0] - sum_t[0]
    d1p = Tp[1] - left_p[1]
    d1t = Tt[1] - left_t[1]
    m = 0.0 + (d0p and d0t / d0p)
    m = m + (d1p and d1t / d1p)
    try:
        pi_inv = 0.0 + 1.0 / d0p
    except ZeroDivisionError:
        pi_inv = _INF
    if pi_inv != _INF:
        try:
            pi_inv += 1.0 / d1p
        except ZeroDivisionError:
            pi_inv = _INF
    p = 1.0 / pi_inv
    t = p * m
    Tp[0] = (Tp[0] - right_p[0]) + p
    Tt[0] = (Tt[0] - right_t[0]) + t
    right_p[0] = p
    right_t[0] = t

    x = L - 1
    d0p = Tp[x] - right_p[x]
    d0t = Tt[x] - right_t[x]
    d1p = Dp[x] - sum_p[x]
    d1t = Dt[x] - sum_t[x]
    m = 0.0 + (d0p and d0t / d0p)
    m = m - (d1p and d1t / d1p)
    try:
        pi_inv = 0.0 + 1.0 / d0p
    except ZeroDivisionError:
        pi_inv = _INF
    if pi_inv != _INF:
        try:
            pi_inv += 1.0 / d1p
        except ZeroDivisionError:
            pi_inv = _INF
    p = 1.0 / pi_inv
    t = p * m
    Tp[L] = (Tp[L] - left_p[L]) + p
    Tt[L] = (Tt[L] - left_t[L]) + t

    # The rest of the black arrows: every team-sum factor up (into P), then every likelihood
    # factor up (into R). Each player's chain is independent of the others'.
    final_p = [0.0] * n
    final_t = [0.0] * n
    for k in range(n):
        # SumFactor(T, [P], (1,)).up(0): coeffs [1.0], div = T / T[sum].
        dp = Tp[k] - team_msg_p[k]
        dt = Tt[k] - team_msg_t[k]
        m = 0.0 + (dp and dt / dp)
        try:
            pi_inv = 0.0 + 1.0 / dp
        except ZeroDivisionError:
            pi_inv = _INF
        p = 1.0 / pi_inv
        t = p * m
        # update_message on P (its message from the sum was 0): (P - 0) + message.
        pp = (0.0 + perf_msg_p[k]) + p
        pt = (0.0 + perf_msg_t[k]) + t
        # LikelihoodFactor.up: msg = P / P[lik]; R = (R - 0) + a * msg.
        mp = pp - perf_msg_p[k]
        mt = pt - perf_msg_t[k]
        a = 1.0 / (1.0 + variance * mp)
        final_p[k] = prior_p[k] + a * mp
        final_t[k] = prior_t[k] + a * mt

    # TrueSkill.rate: Rating(float(var.mu), float(var.sigma)), unsorted back to input order.
    result: list = [None] * n
    for k, i in enumerate(order):
        p = final_p[k]
        result[i] = (float(p and final_t[k] / p), float(sqrt(1 / p) if p else _INF))
    return result
