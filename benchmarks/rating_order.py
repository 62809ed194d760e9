"""How often each rating orders a field of known strength correctly, after N games.

    python benchmarks/rating_order.py [--seeds 20] [--games 48,192,768,3072] [--noise ...]
    python benchmarks/rating_order.py --write-field FOLDER   # the field's bot file, to play it

The field is one heuristic (``arena/plugins/baseline/td_heuristic.py``) with increasing added
randomness: bot ``i`` plays a uniformly random legal move with probability ``noise[i]`` instead of
its own, so the true order is ``noisy-0 > noisy-1 > ...``. For each seed, one Twenty Down run of the largest N is
played in duplicate format and one without (``--no-duplicate``); after its first N games (every
N asked) three orderings are read: TrueSkill μ, TrueSkill μ − 3σ (the leaderboard's default
sort), and the batch Plackett–Luce rating (``elo``). Prints, per format and N, the share of seeds
whose ordering is exactly right.
"""

from __future__ import annotations

import argparse
import sqlite3
import tempfile
import time
from pathlib import Path

from arena.plugins.loading import load_registry
from arena.ratings.batch import fit_tally
from arena.ratings.bootstrap import Tally
from arena.ratings.trueskill import RatingTable, environment_for
from arena.store.database import Store
from arena.tournament.plan import GamePlan, Tournament
from arena.tournament.run import run_tournament

REPO = Path(__file__).resolve().parent.parent
GAME = "twenty-down"

NOISY = """

class Noisy(TwentyDownHeuristic):
    noise = 0.0

    def act(self, obs):
        if self.rng.random() < self.noise:
            legal = obs.legal_actions
            return legal[self.rng.randrange(len(legal))]
        return super().act(obs)


@arena.hookimpl
def arena_register_bots(register):  # (replaces the file's own: only the noisy field is loaded)
    for i, noise in enumerate({noises!r}):
        register(Noisy, name=f"noisy-{{i}}", noise=noise)
"""


def write_field(folder: Path, noises: list[float]) -> None:
    source = (REPO / "arena" / "plugins" / "baseline" / "td_heuristic.py").read_text(
        encoding="utf-8"
    )
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "noisy_field.py").write_text(source + NOISY.format(noises=noises), encoding="utf-8")


def field_registry(folder: Path, noises: list[float]):
    write_field(folder, noises)
    return load_registry(bots_dir=folder, entry_points=False)


def play(registry, folder: Path, bots: list[str], games: int, seed: str, duplicate: bool):
    """The placings of each game of one run, in schedule order: [(run, board, {bot: place})]."""
    game_class = registry.games[GAME].cls
    plan = GamePlan(GAME, 4, bots, environment=environment_for(game_class))
    tournament = Tournament(
        [plan], games_per_game=games, seed=seed, records=False, duplicate=duplicate
    )
    path = folder / f"{seed}-{duplicate}.db"
    store = Store(path)
    run_tournament(tournament, registry, store, jobs=1, resume=False)
    store.close()
    db = sqlite3.connect(path)
    rows = db.execute(
        "SELECT g.id, g.run_id, g.board, p.bot, p.place FROM games g "
        "JOIN placings p ON p.game_id = g.id ORDER BY g.idx, p.bot"
    ).fetchall()
    db.close()
    games_out: dict[int, tuple] = {}
    for game_id, run_id, board, bot, place in rows:
        games_out.setdefault(game_id, (run_id, board, {}))[2][bot] = place
    return list(games_out.values())


def orderings(games: list[tuple], environment) -> dict[str, list[str]]:
    """The three orderings (best first) after these games."""
    table = RatingTable(environment)
    tally = Tally(replicates=0)
    rows = []
    for run_id, board, placings in games:
        table.update(placings)
        key = "\x1e".join(f"{bot}\x1f{place}" for bot, place in placings.items())
        rows.append((run_id, board, key, 1))
    tally.add(rows)
    bots, theta = fit_tally(tally)
    elo = dict(zip(bots, theta[0], strict=True))
    ratings = table.ratings
    return {
        "TrueSkill μ": sorted(ratings, key=lambda b: -ratings[b].mu),
        "TrueSkill μ−3σ": sorted(ratings, key=lambda b: -(ratings[b].mu - 3 * ratings[b].sigma)),
        "batch elo": sorted(elo, key=lambda b: -elo[b]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--games", default="48,192,768,3072")
    parser.add_argument("--noise", default="0,0.05,0.1,0.15")
    parser.add_argument("--write-field", type=Path, help="Only write the field's bot file there.")
    args = parser.parse_args()
    ns = sorted(int(n) for n in args.games.split(","))
    noises = [float(x) for x in args.noise.split(",")]
    if args.write_field:
        write_field(args.write_field, noises)
        return
    truth = [f"noisy-{i}" for i in range(len(noises))]
    right: dict[tuple, int] = {}
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        registry = field_registry(folder, noises)
        environment = environment_for(registry.games[GAME].cls)
        for seed in range(args.seeds):
            for duplicate in (True, False):
                games = play(registry, folder, truth, ns[-1], f"order-{seed}", duplicate)
                for n in ns:
                    for method, order in orderings(games[:n], environment).items():
                        key = (duplicate, n, method)
                        right[key] = right.get(key, 0) + (order == truth)
    methods = ("TrueSkill μ", "TrueSkill μ−3σ", "batch elo")
    print(f"noise {noises}, {args.seeds} seeds, {time.perf_counter() - start:.0f} s")
    print(f"{'format':<14}{'games':>7}" + "".join(f"{m:>17}" for m in methods))
    for duplicate in (True, False):
        for n in ns:
            shares = [100.0 * right[(duplicate, n, m)] / args.seeds for m in methods]
            label = "duplicate" if duplicate else "no duplicate"
            print(f"{label:<14}{n:>7}" + "".join(f"{s:>16.0f}%" for s in shares))


if __name__ == "__main__":
    main()
