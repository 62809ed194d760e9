"""Search playouts a second: the cycle of every search bot, measured for each bundled game.

A playout is what a determinized search does for each sample: ``game.determinize(observation,
rng)`` (a full state consistent with what one seat sees), ``clone()`` of it, then random legal play
(``apply_legal``) to the end of the deal, where the bundled search bots score a sample (the
showdown of How Low Can You Go?, the last trick of Twenty Down). The positions are fixed: for
each seed, random play to the middle of the second deal, seen by the seat to act. Playouts of a
position stop at the end of its deal through a copy of the game with ``max_deals`` set to that
deal (as ``arena.games.narration.deal_stopper`` does), so no new deal is shuffled.

``python -m arena.bench.playouts`` (or ``arena bench --playouts``) prints playouts a second of CPU
time (other processes on a busy machine do not count) and decisions a playout for each game, the
median of several repeats.
"""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass

from arena.bench.engines import bench_games
from arena.games.base import TERMINAL, Game, Observation

POSITION_SEEDS = 8  # positions per game


@dataclass(frozen=True)
class Position:
    """A mid-deal decision as its seat sees it, and the game that stops at the end of its deal."""

    game: Game
    observation: Observation
    deal: int


def _stopped_at(game: Game, deal: int) -> Game:
    return type(game)(
        players=game.players, variant=game.variant, **{**game.params, "max_deals": deal}
    )


def positions(game: Game, count: int = POSITION_SEEDS) -> list[Position]:
    """``count`` positions from fixed seeds: random play to the middle of the second deal (half
    as many decisions into it as a random continuation of it takes), as the seat to act sees it."""
    found: list[Position] = []
    seed = 0
    while len(found) < count:
        seed += 1
        rng = random.Random(seed)
        state = game.new_state(seed=f"playouts-{seed}")
        while state.current_player() != TERMINAL and state.deal == 1:
            state.apply_legal(rng.randrange(len(state.legal_actions())))
        probe = state.clone()
        length = 0
        while probe.current_player() != TERMINAL and probe.deal == 2:
            probe.apply_legal(rng.randrange(len(probe.legal_actions())))
            length += 1
        for _ in range(length // 2):
            state.apply_legal(rng.randrange(len(state.legal_actions())))
        if state.current_player() == TERMINAL or state.deal != 2:
            continue  # the game ended in its first deal: next seed
        seat = state.current_player()
        found.append(Position(_stopped_at(game, 2), state.observation(seat), 2))
    return found


def run_playouts(position: Position, playouts: int, rng: random.Random) -> int:
    """``playouts`` determinize + clone + random playouts from ``position``; the decisions made."""
    determinize = position.game.determinize
    observation = position.observation
    randrange = rng.randrange
    decisions = 0
    for _ in range(playouts):
        state = determinize(observation, rng).clone()
        while state.current_player() != TERMINAL:
            state.apply_legal(randrange(len(state.legal_actions())))
            decisions += 1
    return decisions


def measure_playouts(game: Game, playouts: int = 300, repeats: int = 5, seed: int = 1) -> dict:
    """Playouts a second over the fixed positions of ``game`` (``playouts`` from each), the median
    of ``repeats`` measurements; and the decisions a playout."""
    places = positions(game)
    rates = []
    decisions = 0
    for r in range(repeats):
        rng = random.Random(seed + r)
        start = time.process_time()
        decisions = sum(run_playouts(p, playouts, rng) for p in places)
        rates.append(len(places) * playouts / (time.process_time() - start))
    return {
        "game": game.name,
        "players": game.players,
        "positions": len(places),
        "playouts_per_s": statistics.median(rates),
        "decisions_per_playout": decisions / (len(places) * playouts),
    }


def playout_lines(playouts: int = 300, repeats: int = 5) -> list[str]:
    lines = []
    for game_class in bench_games():
        row = measure_playouts(game_class(), playouts, repeats)
        lines.append(
            f"{row['game']:<20} playouts        {row['playouts_per_s']:>10,.0f} playouts/s"
            f"  ({row['decisions_per_playout']:.1f} decisions/playout, determinize + clone +"
            f" random play to the end of the deal, {row['positions']} positions)"
        )
    return lines


def main(argv: list[str] | None = None) -> None:
    import sys

    args = sys.argv[1:] if argv is None else argv
    for line in playout_lines(int(args[0]) if args else 300):
        print(line)


if __name__ == "__main__":
    main()
