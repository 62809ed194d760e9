"""The sequential probability ratio test of ``arena match --sprt``, on duplicate boards.

A duplicate board of a two-bot match is what a game pair is to fishtest and fastchess: one deal,
played once with each seat rotation (A, B, A, B... then B, A, B, A...), so the luck of the cards
cancels out. Each game of the board gives A a result against B (1 finished ahead, ½ tied,
0 behind; a bot holding several seats is placed by the mean rank of its seats), and the board's
score is the mean of its two results: 0, ¼, ½, ¾ or 1, the *pentanomial* outcome (LL, LD, WL+DD,
WD, WW). The log-likelihood ratio is the generalized one of fastchess's
``app/src/matchmaking/sprt/sprt.cpp`` (after Michel Van den Bergh's notes for fishtest): the
empirical distribution of board outcomes is tilted, by maximum likelihood, to the expected score
of each hypothesis (``logistic``: Elo as a score, ``normalized``: Elo per standard deviation of the
board score, fishtest's nElo), and the LLR is the number of boards times the mean log ratio of
the two tilted distributions. Counts of zero count as 0.001, as there.

The test stops at the first whole board where the LLR leaves ``(log(β/(1−α)), log((1−β)/α))``:
below accepts H0 (A is not elo1 better than B, its Elo at most elo0), above accepts H1.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

MODELS = ("logistic", "normalized")
PENTANOMIAL_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
OUTCOME_NAMES = ("LL", "LD", "WL+DD", "WD", "WW")
_NELO_SCALE = 800.0 / math.log(10)  # nElo per unit of t = (score - ½) / σ of one game


class SprtError(ValueError):
    """Bounds of a test that cannot be run; the message is one line for the user."""


def elo_to_score(elo: float) -> float:
    """The expected score of a bot ``elo`` points stronger, on the logistic Elo scale."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_to_elo(score: float) -> float:
    """The logistic Elo difference of an expected score (±inf at 1 and 0)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def board_outcome(results: Sequence[float]) -> int:
    """The pentanomial outcome (0 = LL … 4 = WW) of a board from A's results in its games
    (1, ½ or 0 each): the mean result in quarters."""
    mean = sum(results) / len(results)
    return min(4, max(0, round(4 * mean)))


def check_bounds(elo0: float, elo1: float, alpha: float, beta: float, model: str) -> None:
    """The rules fastchess applies to an SPRT's settings; raises ``SprtError``."""
    for name, value in (("--elo0", elo0), ("--elo1", elo1), ("--alpha", alpha), ("--beta", beta)):
        if not math.isfinite(value):
            raise SprtError(f"{name} must be a finite number, not {value}")
    if elo0 >= elo1:
        raise SprtError(f"--elo0 must be less than --elo1 (have {elo0:g} and {elo1:g})")
    for name, value in (("--alpha", alpha), ("--beta", beta)):
        if not 0 < value < 1:
            raise SprtError(f"{name} must be between 0 and 1 (exclusive), not {value:g}")
    if alpha + beta >= 1:
        raise SprtError(f"--alpha plus --beta must be less than 1 (have {alpha + beta:g})")
    if model not in MODELS:
        raise SprtError(f"--model must be logistic or normalized, not {model!r}")


@dataclass(frozen=True)
class Sprt:
    """The hypotheses and error rates of one test, and its log-likelihood ratio."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "logistic"

    def __post_init__(self) -> None:
        check_bounds(self.elo0, self.elo1, self.alpha, self.beta, self.model)

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, counts: Sequence[int]) -> float:
        """The LLR of the board outcomes ``counts`` (LL, LD, WL+DD, WD, WW), or of game results
        (losses, draws, wins) when three counts are given."""
        if len(counts) == 5:
            scores = PENTANOMIAL_SCORES
        elif len(counts) == 3:
            scores = (0.0, 0.5, 1.0)
        else:
            raise ValueError("counts of 3 (trinomial) or 5 (pentanomial) outcomes")
        regular = [c if c > 0 else 1e-3 for c in counts]
        total = sum(regular)
        probs = [c / total for c in regular]
        if self.model == "normalized":
            # t of a game (fastchess: √2 × the per-board t for a pair of games)
            factor = math.sqrt(2.0) if len(counts) == 5 else 1.0
            p0 = _mle_normalized(scores, probs, factor * self.elo0 / _NELO_SCALE)
            p1 = _mle_normalized(scores, probs, factor * self.elo1 / _NELO_SCALE)
        else:
            p0 = _mle_logistic(scores, probs, elo_to_score(self.elo0))
            p1 = _mle_logistic(scores, probs, elo_to_score(self.elo1))
        return total * sum(
            p * (math.log(b) - math.log(a)) for p, a, b in zip(probs, p0, p1, strict=True)
        )

    def decision(self, llr: float) -> str | None:
        """The decision at this LLR: "H0", "H1", or None (go on)."""
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None


@dataclass
class SequentialTest:
    """A test in progress: board outcomes in, a decision out once the LLR crosses a bound."""

    sprt: Sprt
    counts: list[int] = field(default_factory=lambda: [0] * 5)
    llr: float = 0.0
    decided: str | None = None

    @property
    def boards(self) -> int:
        return sum(self.counts)

    def add(self, outcome: int) -> str | None:
        """Count one board's outcome (0 = LL … 4 = WW); the decision, once there is one."""
        self.counts[outcome] += 1
        self.llr = self.sprt.llr(self.counts)
        if self.decided is None:
            self.decided = self.sprt.decision(self.llr)
        return self.decided

    def score(self) -> float:
        """A's mean score over the boards so far (½ before any)."""
        boards = self.boards
        if not boards:
            return 0.5
        return sum(c * s for c, s in zip(self.counts, PENTANOMIAL_SCORES, strict=True)) / boards

    def elo(self) -> float:
        return score_to_elo(self.score())


def _solve(phi: Sequence[float], probs: Sequence[float]) -> float:
    """θ with Σ pᵢ φᵢ / (1 + θ φᵢ) = 0 between −1/max φ and −1/min φ, where the sum falls
    from +∞ to −∞: Newton's steps, kept inside the shrinking bracket (bisection otherwise)."""
    low, high = -1.0 / max(phi), -1.0 / min(phi)
    theta = 0.0 if low < 0.0 < high else (low + high) / 2
    for _ in range(200):
        value = slope = 0.0
        for p, f in zip(probs, phi, strict=True):
            d = 1.0 + theta * f
            value += p * f / d
            slope -= p * f * f / (d * d)
        if value > 0:
            low = theta
        else:
            high = theta
        step = theta - value / slope if slope else (low + high) / 2
        if not low < step < high:
            step = (low + high) / 2
        if abs(step - theta) < 1e-12 * max(1.0, abs(theta)) or high - low < 1e-14:
            return step
        theta = step
    return theta


def _mle_logistic(scores, probs, s: float) -> list[float]:
    """The distribution closest to ``probs`` (maximum likelihood) with expected score ``s``."""
    phi = [a - s for a in scores]
    theta = _solve(phi, probs)
    return [p / (1.0 + theta * f) for p, f in zip(probs, phi, strict=True)]


def _mle_normalized(scores, probs, t: float) -> list[float]:
    """The distribution closest to ``probs`` with (mean − ½) / σ = ``t``, by fixed-point steps
    from the uniform one (fastchess, after Van den Bergh, "Comments on normalized Elo" §4.1)."""
    p = [1.0 / len(scores)] * len(scores)
    for _ in range(10):
        mu = sum(a * q for a, q in zip(scores, p, strict=True))
        sigma = math.sqrt(sum(q * (a - mu) ** 2 for a, q in zip(scores, p, strict=True)))
        phi = [a - 0.5 - 0.5 * t * sigma * (1.0 + ((a - mu) / sigma) ** 2) for a in scores]
        theta = _solve(phi, probs)
        new = [q / (1.0 + theta * f) for q, f in zip(probs, phi, strict=True)]
        change = max(abs(a - b) for a, b in zip(new, p, strict=True))
        p = new
        if change < 1e-4:
            break
    return p
