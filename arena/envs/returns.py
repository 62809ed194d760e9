"""What a finished game is worth to each seat, for learning code: +1 for first place, -1 for
last, linear in the rank between (shared ranks share the value). Ranks, not raw scores, because
they are what a tournament rates, and they make both games' returns lie in [-1, 1]. Per deal:
the change of the scores a deal settles."""

from __future__ import annotations

from arena.games.base import GameResult


def rank_returns(result: GameResult) -> list[float]:
    n = len(result.ranks)
    return [1.0 - 2.0 * (rank - 1) / (n - 1) for rank in result.ranks]


def deal_scores(engine) -> tuple:
    """The scores a deal changes: Twenty Down's points, How Low's chips (plugin games: a
    ``points`` or ``chips`` list on their state, else nothing changes between deals)."""
    for name in ("points", "chips"):
        scores = getattr(engine, name, None)
        if scores is not None:
            return tuple(scores)
    return (0,) * engine.game.players
