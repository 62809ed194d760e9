"""What ``arena run`` says about a game's field: its bots, its pairing, the games each bot got."""

from __future__ import annotations

import statistics

from arena.tournament.plan import GamePlan
from arena.tournament.schedule import round_robin_games

LISTED = 12  # a field larger than this is a "large field": counted, not listed in full


def describe_plan(plan: GamePlan, games: int) -> str:
    """``twenty-down: 1000 games, 4 seats, bots: a, b, c; pairing random (...)``."""
    n = len(plan.bots)
    if n <= LISTED:
        bots = ", ".join(plan.bots)
    else:
        bots = f"{n} ({', '.join(plan.bots[:3])}, …)"
    pairing = plan.pairing
    if pairing == "gauntlet":
        pairing += f" of {', '.join(plan.gauntlet)}"
    elif pairing != "round-robin":
        full = round_robin_games(n, plan.players)
        if full > games:
            pairing += f" (a full round robin is {full:,} games)"
    return f"{plan.game}: {games} games, {plan.players} seats, bots: {bots}; pairing {pairing}"


def describe_games_per_bot(game: str, counts: list[int]) -> str | None:
    """``twenty-down: games per bot 64 min, 67 median, 68 max`` for a large field, else None."""
    if len(counts) <= LISTED or not counts:
        return None
    median = statistics.median(counts)
    shown = f"{median:g}" if median == int(median) else f"{median:.1f}"
    return f"{game}: games per bot {min(counts)} min, {shown} median, {max(counts)} max"
