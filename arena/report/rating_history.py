"""Each bot's rating over the games of one game, for the report's plot.

The store keeps only the latest ratings, so the history is rated again from the stored placings,
in the order they were rated, each run in the TrueSkill environment it was played with (its
stored identity; the game's defaults for a run that names none). The last point of each bot is
its stored rating. At most ``points`` samples a bot keep the plot (and the file) small.
"""

from __future__ import annotations

from itertools import groupby

from arena.games.base import Game
from arena.ratings.trueskill import Environment, RatingTable, environment_for
from arena.store.database import Store


def rating_history(
    store: Store, game: str, game_class: type[Game] | None, points: int = 300
) -> dict:
    """``{"games": [n, ...], "bots": {bot: [mu or None, ...]}}``: μ after the n-th game."""
    placings = store.placings_in_order(game)
    environments = _environments(store, game, game_class)
    total = len({row[0] for row in placings})
    every = max(1, -(-total // points))
    xs: list[int] = []
    series: dict[str, list] = {}
    table: RatingTable | None = None
    table_run = None
    count = 0
    for (_, run_id), rows in groupby(placings, key=lambda r: (r[0], r[1])):
        if run_id != table_run:
            environment = environments.get(run_id) or environments.get(None)
            states = table.ratings if table is not None else {}
            table = RatingTable(environment)
            table.ratings = dict(states)  # ratings carry over from run to run
            table_run = run_id
        table.update({bot: place for _, _, bot, place in rows})
        count += 1
        if count % every == 0 or count == total:
            xs.append(count)
            for bot, rating in table.ratings.items():
                series.setdefault(bot, [None] * (len(xs) - 1)).append(round(rating.mu, 3))
            for values in series.values():
                if len(values) < len(xs):
                    values.append(None)
    return {"games": xs, "bots": series}


def _environments(store: Store, game: str, game_class) -> dict:
    """The environment of each run that played ``game``; key None: the game's default."""
    default = environment_for(game_class) if game_class is not None else Environment()
    found: dict = {None: default}
    for run in store.all_runs():
        for plan in run.config.get("plans", []):
            if plan.get("game") == game and plan.get("environment"):
                found[run.id] = Environment(**plan["environment"])
    return found
