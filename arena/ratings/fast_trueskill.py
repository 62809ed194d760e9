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

(A C transcription once ran beside this code; whole runs were no faster with it, rating being a
few per cent of a game's cost, so it was removed: see issue 12.)

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
Multiplications by the coefficients ``1`` and ``-1`` are exact: left out, or written ``sign * y``.
"""

from __future__ import annotations

import math
from math import exp, sqrt

import trueskill
from trueskill import backends as _backends

__all__ = ["rate_free_for_all", "rate_ratings"]

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

    ``(x, x + 1, up)``: send D_x's sum factor down, the truncation up, then the sum factor up to
    the right term (``up == 1``), to the left term (``up == 0``) or nowhere (``up == -1``, two
    teams).
    """
    steps = _step_cache.get(team_diff_len)
    if steps is None:
        if team_diff_len == 1:
            steps = ((0, 1, -1),)
        else:
            steps = tuple((x, x + 1, 1) for x in range(team_diff_len - 1)) + tuple(
                (x, x + 1, 0) for x in range(team_diff_len - 1, 0, -1)
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


def _rate(settings, pis, taus, ranks, env):
    """TrueSkill.rate on one-player teams given as Gaussians (pi, tau), in input order.

    Returns ``[(float(var.mu), float(var.sigma)), ...]`` for each player's rating variable in
    input order: the arguments TrueSkill.rate gives ``Rating`` for the result.
    """
    variance, dynamic2, draw_margin = settings
    # TrueSkill.rate: a stable sort by rank (the same keys in the same order give the same
    # permutation as sorting the (index, (group, rank, weights)) tuples by rank).
    order = sorted(range(len(pis)), key=ranks.__getitem__)
    sorted_ranks = [ranks[i] for i in order]
    down, Tp, Tt = _send_down(order, pis, taus, variance, dynamic2)
    ties = [sorted_ranks[x] == sorted_ranks[x + 1] for x in range(len(order) - 1)]
    try:
        _difference_layer(Tp, Tt, ties, draw_margin)
    except _Unrateable:
        raise trueskill._floating_point_error(env) from None
    return _send_up(order, down, Tp, Tt, variance)


def _sum_of_two(ap, at, bp, bt, b_sign):
    """The message ``(pi, tau)`` a two-term SumFactor with coefficients ``1`` and ``b_sign``
    (``1.0`` or ``-1.0``) sends, from each term's value divided by its message to the factor.

    SumFactor.update: mu = 0; pi_inv = 0; for each term: mu += coeff * div.mu;
    pi_inv += coeff ** 2 / div.pi (inf on division by zero, and no more additions once inf);
    pi = 1. / pi_inv; tau = pi * mu. ``b_sign * y`` is ``y`` or ``-y`` exactly, ``a + -y`` is
    ``a - y`` in IEEE 754, and ``(-1.0) ** 2 / d`` is ``1.0 / d``.
    """
    m = (0.0 + (ap and at / ap)) + b_sign * (bp and bt / bp)
    pi_inv = 0.0 + 1.0 / ap if ap else _INF
    if pi_inv != _INF:
        pi_inv = pi_inv + 1.0 / bp if bp else _INF
    p = 1.0 / pi_inv
    return p, p * m


def _send_down(order, pis, taus, variance, dynamic2):
    """The gray arrows: prior, likelihood and team-sum factors sent down, player by player in
    rank ``order``.

    Returns, per sorted player, the messages the arrows up read again (R's value after the
    prior, P's message from the likelihood, T's message from its team sum: ``(p0, t0, mp, mt,
    p, t)``), and the lists of T's values (pi, tau) that the difference layer updates.
    """
    down = []
    Tp = []
    Tt = []
    for i in order:
        pi = pis[i]
        # PriorFactor.down, reading the rating's .mu and .sigma properties:
        # Gaussian(val.mu, sqrt(val.sigma ** 2 + dynamic ** 2)), set as R's
        # value by update_value (the message it leaves is not read again).
        s = sqrt((sqrt(1 / pi) if pi else _INF) ** 2 + dynamic2)
        if s == 0:
            raise ValueError("sigma**2 should be greater than 0")
        p0 = s**-2
        t0 = p0 * (pi and taus[i] / pi)
        # LikelihoodFactor.down: msg = R / R[lik] = (p0 - 0, t0 - 0); a = 1 / (1 + variance * pi).
        a = 1.0 / (1.0 + variance * p0)
        mp = a * p0
        mt = a * t0
        # update_message on the fresh P: (0 - 0) + message, then SumFactor(T, [P], (1,)).down:
        # div = P / P[sum] = (pp - 0, pt - 0); mu = 0 + 1 * div.mu; pi_inv = 0 + 1 ** 2 / div.pi.
        pp = 0.0 + mp
        p = 1.0 / (0.0 + 1.0 / pp if pp else _INF)
        t = p * (0.0 + (pp and (0.0 + mt) / pp))
        down.append((p0, t0, mp, mt, p, t))
        Tp.append(0.0 + p)
        Tt.append(0.0 + t)
    return down, Tp, Tt


def _send_up(order, down, Tp, Tt, variance):
    """The rest of the black arrows: every team-sum factor up (into P), then every likelihood
    factor up (into R). Each player's chain is independent of the others'.

    Returns what TrueSkill.rate makes each new Rating of, ``(float(var.mu), float(var.sigma))``
    of R, unsorted back to input order.
    """
    result: list = [None] * len(order)
    for i, (p0, t0, perf_p, perf_t, team_p, team_t), tp, tt in zip(
        order, down, Tp, Tt, strict=True
    ):
        # SumFactor(T, [P], (1,)).up(0): coeffs [1.0], div = T / T[sum]: as in _send_down.
        dp = tp - team_p
        p = 1.0 / (0.0 + 1.0 / dp if dp else _INF)
        t = p * (0.0 + (dp and (tt - team_t) / dp))
        # update_message on P (its message from the sum was 0): (P - 0) + message.
        pp = (0.0 + perf_p) + p
        pt = (0.0 + perf_t) + t
        # LikelihoodFactor.up: msg = P / P[lik]; R = (R - 0) + a * msg.
        mp = pp - perf_p
        a = 1.0 / (1.0 + variance * mp)
        p = p0 + a * mp
        t = t0 + a * (pt - perf_t)
        result[i] = (float(p and t / p), float(sqrt(1 / p) if p else _INF))
    return result


def _difference_layer(Tp, Tt, ties, draw_margin):
    """Arrows 1, 2, 3: the performance differences D_0 .. D_L-1 between neighbours in rank order
    and their sum and truncation factors, iterated as run_schedule does; then the sum factors at
    both ends send up: team_diff_layer[0].up(0), then team_diff_layer[L - 1].up(1). Updates the
    team performances T (``Tp``, ``Tt``) in place; ``ties[x]``: sorted players x and x + 1 have
    the same rank.
    """
    n = len(Tp)
    L = n - 1
    # T_i's messages from D_{i-1}'s sum factor (left) and from D_i's (right).
    teams = (Tp, Tt, [0.0] * n, [0.0] * n, [0.0] * n, [0.0] * n)
    # D's value and its messages from its sum factor and from its truncation factor.
    differences = ([0.0] * L, [0.0] * L, [0.0] * L, [0.0] * L, [0.0] * L, [0.0] * L)
    _iterate(_steps(L), ties, teams, differences, draw_margin)
    Tp, Tt, left_p, left_t, right_p, right_t = teams
    Dp, Dt, sum_p, sum_t = differences[:4]
    # up(0) at D_0: coefficients [1, 1], terms [D_0, T_1], into T_0.
    p, t = _sum_of_two(
        Dp[0] - sum_p[0], Dt[0] - sum_t[0], Tp[1] - left_p[1], Tt[1] - left_t[1], 1.0
    )
    Tp[0] = (Tp[0] - right_p[0]) + p
    Tt[0] = (Tt[0] - right_t[0]) + t
    right_p[0] = p
    right_t[0] = t
    # up(1) at D_L-1: coefficients [1, -1], terms [T_L-1, D_L-1], into T_L.
    x = L - 1
    p, t = _sum_of_two(
        Tp[x] - right_p[x], Tt[x] - right_t[x], Dp[x] - sum_p[x], Dt[x] - sum_t[x], -1.0
    )
    Tp[L] = (Tp[L] - left_p[L]) + p
    Tt[L] = (Tt[L] - left_t[L]) + t


def _iterate(steps, ties, teams, differences, draw_margin):
    """run_schedule's loop over the difference layer (one iteration is ``steps``, see _steps),
    until no message changes by more than min_delta, at most ten times.

    The innermost loop of rating: the sum factors are written out here, not called (see
    :func:`_sum_of_two` for what they compute and why it equals the package's).
    """
    Tp, Tt, left_p, left_t, right_p, right_t = teams
    Dp, Dt, sum_p, sum_t, trunc_p, trunc_t = differences
    single = len(ties) == 1
    inf = _INF
    for _ in range(10):
        delta = 0
        for x, x1, up in steps:
            # a = T_x / T_x[D_x's sum] and b = T_x+1 / T_x+1[D_x's sum]: neither changes
            # before this step's up().
            ap = Tp[x] - right_p[x]
            bp = Tp[x1] - left_p[x1]
            mu_a = 0.0 + (ap and (Tt[x] - right_t[x]) / ap)
            mu_b = bp and (Tt[x1] - left_t[x1]) / bp
            inv_a = 0.0 + 1.0 / ap if ap else inf
            # SumFactor(D_x, [T_x, T_x+1], [+1, -1]).down
            p = 1.0 / (inv_a if inv_a == inf else inv_a + 1.0 / bp if bp else inf)
            t = p * (mu_a - mu_b)
            vp = (Dp[x] - sum_p[x]) + p
            vt = (Dt[x] - sum_t[x]) + t
            sum_p[x] = p
            sum_t[x] = t
            # TruncateFactor(D_x).up; update_value: message = value * old_message / self;
            # delta = max(|delta tau|, sqrt(|delta pi|)) (0 when pi changes by inf); self = value.
            p, t = _truncate(vp - trunc_p[x], vt - trunc_t[x], draw_margin, ties[x])
            trunc_p[x] = (p + trunc_p[x]) - vp
            trunc_t[x] = (t + trunc_t[x]) - vt
            Dp[x] = p
            Dt[x] = t
            pi_delta = abs(vp - p)
            if pi_delta == inf:
                d = 0.0
            else:
                d = abs(vt - t)
                s = sqrt(pi_delta)
                if s > d:  # max(d, s)
                    d = s
            if single or d > delta:  # max(delta, d)
                delta = d
            if up == 1:  # SumFactor.up(1): coefficients [1, -1], terms [T_x, D_x], into T_x+1
                dp = p - sum_p[x]
                dt = t - sum_t[x]
                p = 1.0 / (inv_a if inv_a == inf else inv_a + 1.0 / dp if dp else inf)
                t = p * (mu_a - (dp and dt / dp))
                Tp[x1] = (Tp[x1] - left_p[x1]) + p
                Tt[x1] = (Tt[x1] - left_t[x1]) + t
                left_p[x1] = p
                left_t[x1] = t
            elif up == 0:  # SumFactor.up(0): coefficients [1, 1], terms [D_x, T_x+1], into T_x
                dp = p - sum_p[x]
                dt = t - sum_t[x]
                inv = 0.0 + 1.0 / dp if dp else inf
                p = 1.0 / (inv if inv == inf else inv + 1.0 / bp if bp else inf)
                t = p * ((0.0 + (dp and dt / dp)) + mu_b)
                Tp[x] = (Tp[x] - right_p[x]) + p
                Tt[x] = (Tt[x] - right_t[x]) + t
                right_p[x] = p
                right_t[x] = t
        if delta <= _MIN_DELTA:
            break


class _Unrateable(Exception):
    """A truncation the package cannot compute either: it raises its FloatingPointError."""


def _truncate(divp, divt, draw_margin, tie):
    """TruncateFactor.up: D's new value ``(pi, tau)`` from its value divided by the truncation's
    message, for a draw (``tie``) or a win of the better-ranked player. (pdf(x) is written out as
    ``_PDF_SCALE * exp(-(x**2 / 2))``, see above: this runs in the innermost loop.)"""
    sqrt_pi = sqrt(divp)
    diff = divt / sqrt_pi
    margin = draw_margin * sqrt_pi
    if tie:
        # v_draw(diff, margin), then w_draw(diff, margin), which calls
        # v_draw(abs(diff), margin): the same a, b, denom and numer, sign +1.
        abs_diff = abs(diff)
        a = margin - abs_diff
        b = -margin - abs_diff
        denom = _cdf(a) - _cdf(b)
        pdf_b = _PDF_SCALE * exp(-(b**2 / 2))
        pdf_a = _PDF_SCALE * exp(-(a**2 / 2))
        v = ((pdf_b - pdf_a) / denom) if denom else a
        if not denom:
            raise _Unrateable
        w = v**2 + (a * pdf_a - b * pdf_b) / denom
        v = v * (-1 if diff < 0 else +1)
    else:
        # v_win(diff, margin), then w_win, which calls v_win again (same value).
        xx = diff - margin
        denom = _cdf(xx)
        v = (_PDF_SCALE * exp(-(xx**2 / 2)) / denom) if denom else -xx
        w = v * (v + xx)
        if not 0 < w < 1:
            raise _Unrateable
    denom = 1.0 - w
    return divp / denom, (divt + sqrt_pi * v) / denom
