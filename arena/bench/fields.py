"""Benchmarks of large fields: how a run scales with its bots, and how well pairings rank them.

``large_field`` plays a run of one bot class registered ``bots`` times (1,000 by default) and
prints when the first game started (from the start, bot loading included), when its first results
were stored, the whole time and the peak memory. ``ranking``
plays a field of bots of known order — one heuristic with more and more random moves — with a
pairing, and prints the Kendall rank correlation between the leaderboard (μ − 3σ) and the known
order after so many games. ``benchmarks/large_fields.py`` and ``benchmarks/ranking_quality.py``
run them from a checkout.
"""

from __future__ import annotations

import os
import resource
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from arena.execution.backend import make_backend
from arena.execution.context import PlayContext
from arena.plugins.loading import Registry, load_registry
from arena.ratings.trueskill import RatingTable, environment_for
from arena.store.database import Store
from arena.tournament.plan import GamePlan, Tournament
from arena.tournament.run import run_tournament
from arena.tournament.schedule import Schedule

MANY_BOTS = """
import os
import time

import arena


class FieldRandom(arena.Bot):
    def start(self, info):
        # The first game to start, in any worker, writes the time (the file is created once).
        try:
            fd = os.open(os.environ["ARENA_BENCH_FIRST_GAME"], os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        except (KeyError, FileExistsError):
            return
        os.write(fd, repr(time.time()).encode())
        os.close(fd)

    def act(self, observation):
        legal = observation.legal_actions
        return legal[self.rng.randrange(len(legal))]


@arena.hookimpl
def arena_register_bots(register):
    for i in range({bots}):
        register(FieldRandom, name=f"random-{{i:04d}}")
"""

NOISY_BOTS = """
import importlib.util

import arena

_spec = importlib.util.spec_from_file_location("bench_heuristic", {path!r})
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)


class Noisy(_module.{cls}):
    noise = 0.0

    def act(self, observation):
        if self.rng.random() < self.noise:
            legal = observation.legal_actions
            return legal[self.rng.randrange(len(legal))]
        return super().act(observation)


@arena.hookimpl
def arena_register_bots(register):
    for i in range({bots}):
        register(Noisy, name=f"noisy-{{i:03d}}", noise=i / {bots_less_one})
"""


def _peak_mib() -> tuple[float, float]:
    """Peak resident memory (MiB) of this process and of its largest finished child."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return own, children


def large_field(
    game_name: str,
    players: int,
    bots: int = 1000,
    games: int = 2000,
    jobs: int = 2,
    pairing: str = "random",
    echo: Callable = print,
) -> dict:
    """Play ``games`` games between ``bots`` random bots at ``players`` seats; print figures."""
    began = time.perf_counter()
    began_wall = time.time()
    firsts: list[float] = []

    def progress(game: str, done: int, total: int) -> None:
        if done and not firsts:
            firsts.append(time.perf_counter() - began)

    with tempfile.TemporaryDirectory() as folder:
        first_game = Path(folder) / "first-game"
        os.environ["ARENA_BENCH_FIRST_GAME"] = str(first_game)
        (Path(folder) / "many.py").write_text(MANY_BOTS.format(bots=bots), encoding="utf-8")
        registry = load_registry(bots_dir=Path(folder), entry_points=False)
        loaded = time.perf_counter() - began
        game_class = registry.games[game_name].cls
        plan = GamePlan(
            game_name,
            players,
            sorted(name for name in registry.bots if name.startswith("random-")),
            environment=environment_for(game_class),
            pairing=pairing,
        )
        tournament = Tournament([plan], games_per_game=games, seed="large-field")
        store = Store(Path(folder) / "field.db")
        summary = run_tournament(tournament, registry, store, jobs=jobs, progress=progress)
        counts = store.games_per_bot(summary.run_id, game_name, plan.bots)
        store.close()
        started = float(first_game.read_text()) - began_wall
        del os.environ["ARENA_BENCH_FIRST_GAME"]
    seconds = time.perf_counter() - began
    own, child = _peak_mib()
    figures = {
        "loaded_s": loaded,
        "first_game_s": started,
        "first_stored_s": firsts[0] if firsts else seconds,
        "seconds": seconds,
        "games_per_s": summary.games_played / summary.seconds,
        "peak_mib": own,
        "peak_child_mib": child,
        "games_per_bot": (counts[0], counts[len(counts) // 2], counts[-1]),
    }
    echo(
        f"{game_name} {bots} bots x {players} seats, {games} games, --jobs {jobs}, {pairing}: "
        f"bots loaded {loaded:.2f} s, first game started {started:.2f} s, first results stored "
        f"{figures['first_stored_s']:.2f} s, "
        f"done {seconds:.1f} s ({figures['games_per_s']:,.0f} games/s), peak memory "
        f"{own:,.0f} MiB (largest worker {child:,.0f} MiB), games per bot "
        f"{counts[0]}/{counts[len(counts) // 2]}/{counts[-1]} (min/median/max)"
    )
    return figures


def kendall_tau(order: list[str], known: list[str]) -> float:
    """Kendall's τ-a between two orderings of the same items (1: the same, -1: reversed)."""
    position = {item: i for i, item in enumerate(known)}
    ranks = [position[item] for item in order]
    n = len(ranks)
    concordant = discordant = 0
    for i in range(n):
        for j in range(i + 1, n):
            if ranks[i] < ranks[j]:
                concordant += 1
            elif ranks[i] > ranks[j]:
                discordant += 1
    return (concordant - discordant) / (n * (n - 1) / 2)


def noisy_registry(folder: Path, heuristic: Path, cls: str, bots: int) -> Registry:
    """``bots`` copies of the heuristic class ``cls`` of the bot file ``heuristic``, the i-th
    playing a random legal move with probability i / (bots - 1): ``noisy-000`` is the best."""
    text = NOISY_BOTS.format(path=str(heuristic), cls=cls, bots=bots, bots_less_one=bots - 1)
    (folder / "noisy.py").write_text(text, encoding="utf-8")
    return load_registry(bots_dir=folder, entry_points=False)


def ranking(
    registry: Registry,
    game_name: str,
    pairing: str,
    checkpoints: Iterable[int],
    jobs: int = 2,
    seed: str = "ranking",
    echo: Callable = print,
) -> dict[int, float]:
    """Kendall's τ between the leaderboard (μ − 3σ) and the known order (the bots' names)
    after each checkpoint's number of games of one run with ``pairing``."""
    checkpoints = sorted(checkpoints)
    game_class = registry.games[game_name].cls
    game = game_class()
    # The field is the noisy copies alone, not the bundled bots every registry also holds.
    bots = sorted(b.name for b in registry.bots_for(game_name) if b.name.startswith("noisy-"))
    environment = environment_for(game_class)
    schedule = Schedule(
        game_name, bots, game.players, checkpoints[-1], seed, pairing=pairing,
        environment=environment,
    )  # fmt: skip
    table = RatingTable(environment)
    context = PlayContext(registry, {game_name: game})
    taus: dict[int, float] = {}
    began = time.perf_counter()
    played = 0
    with make_backend(context, "shared", jobs) as backend:
        for item, outcome in backend.outcomes_by_round(schedule.rounds()):
            placings = outcome.placings()
            table.update(placings)
            schedule.record(item, placings)
            played += 1
            if played in checkpoints:
                board = sorted(bots, key=lambda b: -_conservative(table, b))
                taus[played] = kendall_tau(board, bots)
                echo(
                    f"{game_name} {len(bots)} bots, {pairing:<12} after {played:>6,} games: "
                    f"Kendall tau {taus[played]:.3f} ({time.perf_counter() - began:.0f} s)"
                )
    return taus


def _conservative(table: RatingTable, bot: str) -> float:
    rating = table.rating(bot)
    return rating.mu - 3 * rating.sigma
