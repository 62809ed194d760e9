"""Counts of finishing orders, for the stored games and for each bootstrap replicate of them.

The bootstrap resamples whole duplicate boards, so the luck a board's deal shares between its seat
rotations stays paired. It is the Poisson bootstrap: each board enters replicate ``r`` with a
weight drawn from Poisson(1), which for many boards is the same as drawing boards with replacement,
with one property that a plain resample lacks: the weight is a hash of (run, board, r), so the
same board gets the same weight whenever its games are counted. Counts then only ever grow, and
games stored after a fit are added to the cached counts without reading the older games again
(even the later games of a board whose first games were already counted).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

REPLICATES = 200
_BOARDS_PER_CHUNK = 8192
_MASK = np.uint64(0xFFFFFFFFFFFFFFFF)
# P(Poisson(1) <= k) for k = 0, 1, ...: a uniform number above the k-th value draws more than k.
_POISSON_CDF = np.cumsum([math.exp(-1) / math.factorial(k) for k in range(20)])

Finishing = tuple[tuple[str, float], ...]  # (bot, place) pairs, best place first


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64: a good 64-bit hash, vectorised (uint64 arithmetic wraps around)."""
    with np.errstate(over="ignore"):
        z = (x + np.uint64(0x9E3779B97F4A7C15)) & _MASK
        z = ((z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)) & _MASK
        z = ((z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)) & _MASK
        return z ^ (z >> np.uint64(31))


def board_weights(run_ids: np.ndarray, boards: np.ndarray, replicates: int) -> np.ndarray:
    """Poisson(1) weights, (boards, replicates), the same for a board every time it is asked."""
    keys = (run_ids.astype(np.uint64) << np.uint64(32)) | boards.astype(np.uint64)
    with np.errstate(over="ignore"):
        x = _mix(keys)[:, None] + np.arange(replicates, dtype=np.uint64)[None, :]
    u = (_mix(x) >> np.uint64(11)).astype(float) * 2.0**-53
    return np.searchsorted(_POISSON_CDF, u, side="right").astype(float)


def parse_finishing(key: str) -> Finishing:
    """A finishing from the store's text key (``bot␟place`` items joined by ``␞``)."""
    pairs = (item.split("\x1f") for item in key.split("\x1e"))
    return tuple(sorted(((bot, float(place)) for bot, place in pairs), key=lambda p: (p[1], p[0])))


class Tally:
    """Finishing orders and their counts: column 0 the games as stored, 1.. the replicates."""

    def __init__(self, replicates: int = REPLICATES):
        self.replicates = replicates
        self.finishings: list[Finishing] = []
        self.counts = np.zeros((0, replicates + 1))
        self._index: dict[Finishing, int] = {}

    @classmethod
    def restore(cls, finishings: list[Finishing], counts: np.ndarray) -> Tally:
        tally = cls(counts.shape[1] - 1)
        tally.finishings = list(finishings)
        tally.counts = counts
        tally._index = {f: i for i, f in enumerate(tally.finishings)}
        return tally

    def _ids(self, keys: list[str]) -> np.ndarray:
        """The finishing index of each text key (new finishings are appended)."""
        by_key: dict[str, int] = {}
        ids = np.empty(len(keys), dtype=np.intp)
        for i, key in enumerate(keys):
            index = by_key.get(key)
            if index is None:
                finishing = parse_finishing(key)
                index = self._index.setdefault(finishing, len(self.finishings))
                if index == len(self.finishings):
                    self.finishings.append(finishing)
                by_key[key] = index
            ids[i] = index
        grow = len(self.finishings) - self.counts.shape[0]
        if grow:
            self.counts = np.vstack([self.counts, np.zeros((grow, self.replicates + 1))])
        return ids

    def add(self, rows: Iterable[tuple[int, int, str, int]]) -> int:
        """Count rows (run id, board, finishing key, games); returns the games counted."""
        rows = list(rows)
        if not rows:
            return 0
        run_ids, boards, keys, games = zip(*rows, strict=True)
        ids = self._ids(list(keys))
        games = np.array(games, dtype=float)
        self.counts[:, 0] += np.bincount(ids, games, minlength=self.counts.shape[0])
        pairs = np.column_stack([np.array(run_ids, dtype=np.int64), np.array(boards, np.int64)])
        board_list, board_of = np.unique(pairs, axis=0, return_inverse=True)
        board_of = board_of.ravel()
        for start in range(0, len(board_list), _BOARDS_PER_CHUNK):
            stop = start + _BOARDS_PER_CHUNK
            weights = board_weights(board_list[start:stop, 0], board_list[start:stop, 1],
                                    self.replicates)  # fmt: skip
            mine = np.flatnonzero((board_of >= start) & (board_of < stop))
            order = mine[np.argsort(ids[mine], kind="stable")]
            per_row = weights[board_of[order] - start] * games[order, None]
            firsts = np.flatnonzero(np.r_[True, np.diff(ids[order]) != 0])
            self.counts[ids[order][firsts], 1:] += np.add.reduceat(per_row, firsts, axis=0)
        return int(games.sum())
