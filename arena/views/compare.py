"""``arena compare A B``: two bots side by side on the boards both played, and their Elo gap.

The paired figures (score, place) come from the duplicate boards where both bots sat at the same
table (``ratings/paired.py``); the Elo difference, its interval and the likelihood of superiority
come from the game's batch rating over all its games (``ratings/batch.py``).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass

from tabulate import tabulate

from arena.ratings.batch import batch_ratings
from arena.ratings.paired import Paired, paired_comparison
from arena.store.database import Store


class CompareError(Exception):
    """Nothing to compare; the message is one line for the user."""


@dataclass(frozen=True)
class Comparison:
    game: str
    a: str
    b: str
    paired: Paired
    elo: float | None  # Elo of a − Elo of b, over all the game's games
    elo_ci: float | None  # half-width of its 95 % interval
    los: float | None  # P(a better than b)


def compare(store: Store, games: list[str], a: str, b: str) -> list[Comparison]:
    """One comparison per game in ``games`` where both bots played a board together."""
    if a == b:
        raise CompareError(f"compare two different bots, not {a!r} with itself")
    played = {game: store.bots_of(game) for game in games}
    for bot in (a, b):
        if not any(bot in bots for bots in played.values()):
            known = sorted({bot for bots in played.values() for bot in bots})
            raise CompareError(f"no results for bot {bot!r} (have: {', '.join(known) or 'none'})")
    out = []
    for game in games:
        if a not in played[game] or b not in played[game]:
            continue
        paired = paired_comparison(store.paired_boards(game, a, b))
        if paired is None:
            continue
        batch = batch_ratings(store, game)
        elo = elo_ci = los = None
        if batch is not None and a in batch and b in batch:
            elo, elo_ci, los = batch.difference(a, b)
        out.append(Comparison(game, a, b, paired, elo, elo_ci, los))
    if not out:
        where = games[0] if len(games) == 1 else "any game"
        raise CompareError(f"{a} and {b} never played at the same table in {where}")
    return out


def _fmt(value: float | None, sign: bool = True, digits: int = 2) -> str:
    if value is None or math.isnan(value):
        return "—"
    return f"{value:+.{digits}f}" if sign else f"±{value:.{digits}f}"


def _times(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}× ({value * value:.1f}× fewer games)"


def render_text(comparisons: list[Comparison], score_names: dict[str, str] | None = None) -> str:
    parts = []
    for c in comparisons:
        p = c.paired
        score_name = (score_names or {}).get(c.game, "score")
        table = [
            [f"{score_name}", _fmt(p.score.mean), _fmt(p.score.paired, False),
             _fmt(p.score.unpaired, False), _times(p.score.narrower)],
            ["place", _fmt(p.rank.mean), _fmt(p.rank.paired, False),
             _fmt(p.rank.unpaired, False), _times(p.rank.narrower)],
            ["elo (all games)", _fmt(c.elo, digits=1), _fmt(c.elo_ci, False, 1), "", ""],
        ]  # fmt: skip
        body = tabulate(
            table,
            headers=[f"{c.a} − {c.b}", "mean", "95 % paired", "unpaired", "paired is narrower"],
            tablefmt="simple",
            disable_numparse=True,
        )
        los = "—" if c.los is None else f"{100 * c.los:.1f}%"
        parts.append(
            f"{c.game}: {c.a} vs {c.b} on {p.boards} boards ({p.games} games) both played\n"
            f"{body}\nP({c.a} better than {c.b}) = {los}   "
            "(a lower place is better: a negative place difference favours "
            f"{c.a})"
        )
    return "\n\n".join(parts)


def render_json(comparisons: list[Comparison]) -> str:
    out = {}
    for c in comparisons:
        item = asdict(c)
        paired = item.pop("paired")
        for key in ("score", "rank"):
            paired[key]["narrower"] = getattr(c.paired, key).narrower
        out[c.game] = {**item, **paired}
    return json.dumps(out, indent=2, default=lambda v: None)
