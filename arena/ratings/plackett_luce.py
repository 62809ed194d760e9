"""The Plackett–Luce fit of finishing orders, with counts, for many bootstrap replicates at once.

A game's finishing order is drawn, in the Plackett–Luce model, place by place: the winner among the
bots left with probability ``exp(θ_i) / Σ exp(θ_left)``. The maximum-likelihood strengths θ
(plus a tiny ridge ``alpha``, so that a bot that never lost still has a finite strength and the
scale is anchored at a mean of 0) are found by Newton's method on the concave log-likelihood.

Why not ``choix.opt_rankings`` directly: choix takes one tuple per game and walks them in Python at
every step; a million games make that minutes. Identical finishing orders are grouped here and
carry a count (the bootstrap's replicates are other counts of the same orders), so a fit costs
the same for a hundred games as for a million. The tests check it against choix on plain data.

Ties: a tie group is spread over its rotations and their reverses, each with an equal share of the
game (all ``k!`` orders for ``k ≤ 3``): every tied bot is first equally often, and each pair of tied
bots is ordered both ways equally often, so a tie counts as half a win each way.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

ELO_PER_UNIT = 400.0 / math.log(10.0)  # Elo = 400/ln(10) × θ: odds of 10 to 1 are 400 Elo
ALPHA = 1e-2  # ridge: a slight pull towards 0, so that a bot that never lost stays finite
_MAX_STEP = 4.0  # largest change of a strength in one Newton step (a flat start can overshoot)
_CHUNK_FLOATS = 2_000_000  # orders handled at once: at most this many (replicates × m²) floats


@dataclass(frozen=True)
class Orders:
    """Strict orders of bot indices grouped by length: ``rows[m]`` is (k, m) int, ``source[m]``
    the finishing each row comes from, ``share[m]`` its share of that finishing (ties)."""

    rows: dict[int, np.ndarray]
    source: dict[int, np.ndarray]
    share: dict[int, np.ndarray]


def tie_orders(group: Sequence[int]) -> list[tuple[int, ...]]:
    """The orders a tie group stands for: its rotations and their reverses, without repeats."""
    k = len(group)
    rotations = [tuple(group[(i + j) % k] for j in range(k)) for i in range(k)]
    seen: dict[tuple[int, ...], None] = {}
    for order in rotations + [r[::-1] for r in rotations]:
        seen.setdefault(order)
    return list(seen)


def expand(finishings: Sequence[Sequence[tuple[int, float]]]) -> Orders:
    """The strict orders of finishings given as (bot index, place) pairs; a lower place is better.
    A finishing with fewer than two bots is left out."""
    rows: dict[int, list] = {}
    source: dict[int, list] = {}
    share: dict[int, list] = {}
    for f, finishing in enumerate(finishings):
        if len(finishing) < 2:
            continue
        ranked = sorted(finishing, key=lambda pair: (pair[1], pair[0]))
        groups = [
            tie_orders([bot for bot, _ in members])
            for _, members in itertools.groupby(ranked, key=lambda pair: pair[1])
        ]
        combos = list(itertools.product(*groups))
        m = len(finishing)
        for combo in combos:
            rows.setdefault(m, []).append([bot for part in combo for bot in part])
            source.setdefault(m, []).append(f)
            share.setdefault(m, []).append(1.0 / len(combos))
    return Orders(
        {m: np.array(v, dtype=np.intp) for m, v in rows.items()},
        {m: np.array(v, dtype=np.intp) for m, v in source.items()},
        {m: np.array(v, dtype=float) for m, v in share.items()},
    )


def _chunk_terms(
    theta: np.ndarray, rows: np.ndarray, weights: np.ndarray, n: int, second: bool = True
):
    """Log-likelihood (R,), gradient (R, n) and Hessian (R, n, n; None unless ``second``) of one
    chunk of orders of one length, for R replicates at once. ``weights``: (R, k)."""
    r_count, m = theta.shape[0], rows.shape[1]
    t = theta[:, rows]  # (R, k, m)
    top = t.max(axis=2, keepdims=True)
    e = np.exp(t - top)
    suffix = np.cumsum(e[:, :, ::-1], axis=2)[:, :, ::-1]  # S_i = Σ_{j≥i} e_j
    inv = 1.0 / suffix[:, :, : m - 1]
    a = np.zeros_like(e)
    b = np.zeros_like(e)
    a[:, :, : m - 1] = np.cumsum(inv, axis=2)
    b[:, :, : m - 1] = np.cumsum(inv * inv, axis=2)
    a[:, :, m - 1] = a[:, :, m - 2]
    b[:, :, m - 1] = b[:, :, m - 2]
    loglik = (t[:, :, : m - 1] - top - np.log(suffix[:, :, : m - 1])).sum(axis=2)
    loglik = (weights * loglik).sum(axis=1)
    not_last = np.ones(m)
    not_last[m - 1] = 0.0
    g_local = weights[:, :, None] * (not_last - e * a)  # (R, k, m)
    offsets = (np.arange(r_count) * n)[:, None, None]
    grad = np.bincount(
        (offsets + rows[None]).ravel(), g_local.ravel(), minlength=r_count * n
    ).reshape(r_count, n)
    if not second:
        return loglik, grad, None
    # H_jl = -w (δ_jl e_j a_j - e_j e_l b_min(j,l))
    b_min = b[:, :, np.minimum.outer(np.arange(m), np.arange(m))]  # (R, k, m, m)
    h_local = e[:, :, :, None] * e[:, :, None, :] * b_min
    diag = np.arange(m)
    h_local[:, :, diag, diag] -= e * a
    h_local *= weights[:, :, None, None]
    pair = rows[:, :, None] * n + rows[:, None, :]  # (k, m, m)
    hess = np.bincount(
        ((np.arange(r_count) * n * n)[:, None, None, None] + pair[None]).ravel(),
        h_local.ravel(),
        minlength=r_count * n * n,
    ).reshape(r_count, n, n)
    return loglik, grad, hess


def _terms(
    theta: np.ndarray, orders: Orders, counts: np.ndarray, alpha: float, second: bool = True
):
    """Penalised log-likelihood, gradient and (if ``second``) Hessian for every replicate
    (columns of ``counts``: (finishings, R))."""
    r_count, n = theta.shape
    loglik = -0.5 * alpha * (theta * theta).sum(axis=1)
    grad = -alpha * theta
    hess = np.broadcast_to(-alpha * np.eye(n), (r_count, n, n)).copy() if second else None
    for m, rows in orders.rows.items():
        weights = (counts[orders.source[m]] * orders.share[m][:, None]).T  # (R, k)
        step = max(1, _CHUNK_FLOATS // (r_count * m * (m if second else 1)))
        for start in range(0, len(rows), step):
            part = slice(start, start + step)
            ll, g, h = _chunk_terms(theta, rows[part], weights[:, part], n, second)
            loglik += ll
            grad += g
            if second:
                hess += h
    return loglik, grad, hess


def fit(
    n: int,
    orders: Orders,
    counts: np.ndarray,
    start: np.ndarray | None = None,
    alpha: float = ALPHA,
    tol: float = 1e-7,
) -> np.ndarray:
    """Strengths θ, (R, n), one row per column of ``counts`` (finishings × R), each of mean 0.
    ``start``: (R, n) or (n,) strengths to start from (a previous fit), else zeros.

    Column 0 (the games as stored) gets Newton's method. The others, bootstrap replicates close
    to it, are solved with its Hessian held fixed: each step then needs the gradient only, a
    cost linear in the table size instead of quadratic, and the steps still shrink geometrically
    (the replicates' Hessians differ from it by their resampling noise). Any replicate that
    does not settle that way gets Newton's method too."""
    counts = np.asarray(counts, dtype=float)
    if counts.ndim == 1:
        counts = counts[:, None]
    r_count = counts.shape[1]
    theta = np.zeros((r_count, n))
    if n == 0:
        return theta
    if start is not None:
        theta[:] = start
    with np.errstate(all="ignore"):  # a trial step may overflow: it is then halved
        theta[:1] = _newton(theta[:1], orders, counts[:, :1], alpha, tol)
        if r_count > 1:
            theta[1:] = _replicates(theta, start is not None, orders, counts, alpha, tol)
    return theta - theta.mean(axis=1, keepdims=True)


def _replicates(theta, started: bool, orders: Orders, counts, alpha: float, tol: float):
    """Rows 1.. of ``theta`` solved for columns 1.. of ``counts``, by steps with the Hessian of
    row 0 (fitted to column 0) held fixed; they start from row 0 unless ``started``."""
    point = theta[0]
    _, _, hess = _terms(theta[:1], orders, counts[:, :1], alpha)
    inverse = np.linalg.inv(-hess[0])
    counts = counts[:, 1:]
    theta = np.array(theta[1:]) if started else np.tile(point, (counts.shape[1], 1))
    largest = np.inf
    for _ in range(100):
        _, grad, _ = _terms(theta, orders, counts, alpha, second=False)
        step = grad @ inverse
        size = np.abs(step).max()
        if not np.isfinite(size) or size > 2 * largest:
            break
        theta = theta + step
        largest = min(largest, size)
        if size < tol:
            return theta
    return _newton(np.tile(point, (counts.shape[1], 1)), orders, counts, alpha, tol)


def _newton(theta: np.ndarray, orders: Orders, counts: np.ndarray, alpha: float, tol: float):
    loglik, grad, hess = _terms(theta, orders, counts, alpha)
    for _ in range(50):
        step = np.linalg.solve(-hess, grad[:, :, None])[:, :, 0]
        scale = np.minimum(1.0, _MAX_STEP / np.maximum(np.abs(step).max(axis=1), 1e-300))
        for _halving in range(30):  # Newton on a concave function rarely needs it; be safe
            trial = theta + scale[:, None] * step
            new_ll, new_grad, new_hess = _terms(trial, orders, counts, alpha)
            worse = ~(new_ll >= loglik - 1e-12 * np.abs(loglik))  # NaN is worse too
            if not worse.any():
                break
            scale = np.where(worse, scale / 2, scale)
        theta, loglik, grad, hess = trial, new_ll, new_grad, new_hess
        if np.abs(scale[:, None] * step).max() < tol:
            break
    return theta
