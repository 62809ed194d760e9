"""Paired comparison of two bots on the duplicate boards they both played.

On a duplicate board both bots got the same deals (in turn, seat rotation by seat rotation), so
most of the luck of the deal is common to their results and cancels in their difference. The unit
is the board: per board, the mean over its games of (a − b), for the score and for the place.
The paired interval comes from the spread of those board differences. The unpaired one, for
comparison, is what the same games would give taken one by one, as if each had been dealt afresh
(as ``--no-duplicate`` plays): the spread of single games' differences, which holds all the luck
of who got the good hand, over the number of games. Their ratio is what the pairing of deals
buys: an interval ``k`` times narrower needs ``k²`` times fewer games.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Difference:
    """Mean of a − b over the boards, the half-widths of its 95 % interval, paired and not."""

    mean: float
    paired: float
    unpaired: float

    @property
    def narrower(self) -> float | None:
        """How many times narrower the paired interval is (None if it is 0 or unknown)."""
        if not self.paired or math.isnan(self.paired) or math.isnan(self.unpaired):
            return None
        return self.unpaired / self.paired


@dataclass(frozen=True)
class Paired:
    boards: int
    games: int
    score: Difference
    rank: Difference


def _variance(values: Sequence[float]) -> float:
    n = len(values)
    if n < 2:
        return math.nan
    mean = sum(values) / n
    return sum((v - mean) ** 2 for v in values) / (n - 1)


def _difference(boards: list[list[tuple]], k: int) -> Difference:
    """Column ``k`` (a) minus column ``k + 1`` (b) of the games, grouped by board."""
    diffs = [sum(g[k] - g[k + 1] for g in games) / len(games) for games in boards]
    single = [g[k] - g[k + 1] for games in boards for g in games]
    paired = Z95 * math.sqrt(_variance(diffs) / len(diffs))
    unpaired = Z95 * math.sqrt(_variance(single) / len(single))
    return Difference(sum(diffs) / len(diffs), paired, unpaired)


def paired_comparison(rows: Sequence[tuple]) -> Paired | None:
    """From rows (run, board, place a, place b, score a, score b), one per game both played;
    None without any."""
    boards: dict[tuple[int, int], list[tuple]] = {}
    for run_id, board, place_a, place_b, score_a, score_b in rows:
        boards.setdefault((run_id, board), []).append((place_a, place_b, score_a, score_b))
    if not boards:
        return None
    grouped = list(boards.values())
    return Paired(len(grouped), len(rows), _difference(grouped, 2), _difference(grouped, 0))
