"""Batch ratings: a Plackett–Luce fit of all the stored games of a game, on the Elo scale, with a
95 % interval from the board bootstrap, cached in the database.

TrueSkill stays the running rating (it moves game by game, and its τ keeps it learning); this one
is fitted again from every game, so more games always mean a surer answer. The scale is anchored
at a mean of 0 over the bots of the game: an ``elo`` of +100 is 100 Elo above the field's average.

The fit is cached per game (``store/rating_cache.py``) with the counts it was made from. When games
were added since, only those are read and counted, and the fit starts from the cached strengths
(two or three Newton steps instead of six to ten), so a leaderboard costs one indexed count when
nothing changed, and little more than reading the new games when something did.
"""

from __future__ import annotations

import io
import json
import math
import zipfile
from dataclasses import dataclass, field

import numpy as np

from arena.ratings.bootstrap import REPLICATES, Tally
from arena.ratings.plackett_luce import ELO_PER_UNIT, expand, fit
from arena.store.database import Store
from arena.store.rating_cache import Extent

Z95 = 1.959963984540054
FIT_VERSION = 1  # bump when the model or its prior changes: cached fits are then made again


@dataclass(frozen=True)
class BatchRatings:
    """One game's fit: each bot's Elo, and its Elo in every bootstrap replicate."""

    bots: tuple[str, ...]
    elo: np.ndarray  # (bots,)
    samples: np.ndarray  # (replicates, bots)
    games: int
    sums: dict[str, list] = field(default_factory=dict)  # per bot: rating_cache.STAT_SUMS

    def stats(self) -> dict[str, dict]:
        """Per bot: games, wins, mean rank, mean score, faults, forfeits (as Store.bot_stats),
        from the cached sums: a leaderboard of a million games need not read them all again."""
        out = {}
        for bot, (games, wins, rank_sum, score_sum, seats, faults, forfeits) in self.sums.items():
            out[bot] = {
                "games": games,
                "wins": wins,
                "avg_rank": rank_sum / seats if seats else None,
                "avg_score": score_sum / seats if seats else None,
                "faults": faults,
                "forfeits": forfeits,
            }
        return out

    def __contains__(self, bot: str) -> bool:
        return bot in self.bots

    def _i(self, bot: str) -> int:
        return self.bots.index(bot)

    def of(self, bot: str) -> tuple[float, float]:
        """(Elo, half-width of its 95 % interval)."""
        i = self._i(bot)
        return float(self.elo[i]), Z95 * float(self.samples[:, i].std(ddof=1))

    def difference(self, a: str, b: str) -> tuple[float, float, float]:
        """(Elo of a − Elo of b, half-width of its 95 % interval, P(a better than b))."""
        i, j = self._i(a), self._i(b)
        diff = float(self.elo[i] - self.elo[j])
        sd = float((self.samples[:, i] - self.samples[:, j]).std(ddof=1))
        return diff, Z95 * sd, likelihood_of_superiority(diff, sd)

    def los_matrix(self) -> dict[str, dict[str, float]]:
        """P(row better than column) for every pair of bots."""
        return {a: {b: self.difference(a, b)[2] for b in self.bots if b != a} for a in self.bots}


def likelihood_of_superiority(diff: float, sd: float) -> float:
    """P(true difference > 0) for a difference estimated as ``diff`` with standard error ``sd``
    (normal approximation)."""
    if sd <= 0:
        return 0.5 if diff == 0 else float(diff > 0)
    return 0.5 * (1.0 + math.erf(diff / (sd * math.sqrt(2.0))))


def batch_ratings(store: Store, game: str, replicates: int = REPLICATES) -> BatchRatings | None:
    """The game's batch ratings (None without games), from the cache when it is current."""
    now = store.game_extent(game)
    if now.games == 0:
        return None
    covered, tally, start, sums = Extent(0, 0, 0.0), Tally(replicates), None, {}
    cached = store.cached_batch(game)
    decoded = _decode(cached[1]) if cached is not None else None
    if decoded is not None and decoded[0].replicates == replicates:
        old_tally, old_bots, old_theta, old_sums = decoded
        if cached[0] == now:
            return _ratings(old_bots, old_theta, now.games, old_sums)
        if store.game_extent(game, cached[0].last_id) == cached[0]:  # still a prefix: add to it
            covered, tally, sums = cached[0], old_tally, old_sums
            start = dict(zip(old_bots, old_theta.T, strict=True))
    tally.add(store.finishings_after(game, covered.last_id, now.last_id))
    for bot, new in store.stat_sums(game, covered.last_id, now.last_id).items():
        sums[bot] = [a + (b or 0) for a, b in zip(sums.get(bot, [0] * len(new)), new, strict=True)]
    bots, theta = fit_tally(tally, start)
    store.cache_batch(game, now, _encode(tally, bots, theta, sums))
    return _ratings(bots, theta, now.games, sums)


def fit_tally(tally: Tally, start: dict[str, np.ndarray] | None = None):
    """(bots, θ of shape (replicates + 1, bots)): row 0 the games as stored, then each replicate;
    ``start``: each bot's θ column of an earlier fit, to start from."""
    bots = tuple(sorted({bot for finishing in tally.finishings for bot, _ in finishing}))
    index = {bot: i for i, bot in enumerate(bots)}
    orders = expand([[(index[bot], place) for bot, place in f] for f in tally.finishings])
    first = None
    if start:
        first = np.zeros((tally.replicates + 1, len(bots)))
        for bot, column in start.items():
            if bot in index and len(column) == first.shape[0]:
                first[:, index[bot]] = column
    return bots, fit(len(bots), orders, tally.counts, start=first)


def _ratings(bots, theta: np.ndarray, games: int, sums: dict) -> BatchRatings:
    elo = theta * ELO_PER_UNIT
    return BatchRatings(tuple(bots), elo[0], elo[1:], games, sums)


def _encode(tally: Tally, bots, theta: np.ndarray, sums: dict) -> bytes:
    out = io.BytesIO()
    text = json.dumps(
        {"version": FIT_VERSION, "bots": list(bots), "finishings": tally.finishings, "sums": sums}
    )
    np.savez_compressed(
        out, counts=tally.counts, theta=theta, text=np.frombuffer(text.encode(), dtype=np.uint8)
    )
    return out.getvalue()


def _decode(data: bytes) -> tuple[Tally, tuple[str, ...], np.ndarray, dict] | None:
    """The cached tally and fit; None if the entry cannot be read (it is then made again)."""
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as arrays:
            text = json.loads(arrays["text"].tobytes().decode())
            if text.get("version") != FIT_VERSION:
                return None
            finishings = [tuple((b, float(p)) for b, p in f) for f in text["finishings"]]
            tally = Tally.restore(finishings, arrays["counts"])
            return tally, tuple(text["bots"]), arrays["theta"], text["sums"]
    except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile):
        return None
