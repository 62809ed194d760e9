"""Drawing the tables of a round from a field of any size: who plays whom.

A *draw* gives the groups (the bots at each table) of round after round; ``schedule.Schedule``
turns each group into its seat rotations and deals. Its cost grows with the tables drawn, never
with the number of possible tables. Every draw is decided by the seed alone (and, for ``swiss``
and ``matchmaking``, by the results recorded of the rounds before), never by the order in which
games finish: the same for a seed whatever ``--jobs`` is.

- ``random``: the bots come from successive shuffles of the field, each bot once per shuffle, dealt
  into tables in turn. After any number of tables, the bots' table counts differ by at most one:
  when the field does not divide into tables, the bots left over begin the next round (they sit
  out in turn). A table that spans two shuffles never holds a bot twice: a bot already there waits
  for the next table.
- ``gauntlet``: every table holds one bot under test (several take turns, table by table); the
  other seats come from the rest of the field as in ``random``.
- ``swiss``: bots ordered by their standing in this run (the opponents they finished ahead of, a
  tie counting half; equal standings in a seeded random order), dealt into tables in that order,
  as a chess Swiss pairs neighbours in the standings.
- ``matchmaking``: bots ordered by a skill drawn from their TrueSkill rating over this run's
  games, ``N(μ, σ)``, and dealt into tables in that order: bots whose ratings are close play each
  other, and an uncertain rating (a large σ) moves its bot around the field until it settles. The
  ratings are this run's own, from the game's prior, so the draw does not depend on what the
  database held before the run; the leaderboard's ratings are not touched.

In ``swiss`` and ``matchmaking`` every bot plays every round, but ``N mod table size`` of them,
who sit it out: those that sat out least so far (ties: the lowest standing), so that sitting out
goes round the field and every bot plays as often as any other, within one table at the end of a
round (two if ``--games`` ends the run within a round). A round's tables are played in a random
order, those of the bots that sat out most first.
"""

from __future__ import annotations

import random
from collections import Counter, deque

from arena.ratings.trueskill import Environment, RatingTable

Group = tuple[str, ...]


class Draw:
    """The groups of each round; ``record`` takes the placings of each game played, in order."""

    def tables(self, round_number: int) -> list[Group]:
        raise NotImplementedError

    def record(self, placings: dict[str, float]) -> None:
        pass


class _Stream:
    """Bots from successive seeded shuffles of ``bots``, each once per shuffle."""

    def __init__(self, bots: list[str], seed: str):
        self.bots = list(bots)
        self.seed = seed
        self.shuffles = 0
        self.queue: deque[str] = deque()

    def take(self, k: int) -> Group:
        """The next ``k`` distinct bots (``k`` at most the field)."""
        table: list[str] = []
        waiting: list[str] = []
        while len(table) < k:
            if not self.queue:
                order = list(self.bots)
                random.Random(f"{self.seed}/shuffle-{self.shuffles}").shuffle(order)
                self.shuffles += 1
                self.queue.extend(order)
            bot = self.queue.popleft()
            (waiting if bot in table else table).append(bot)
        self.queue.extendleft(reversed(waiting))
        return tuple(table)


class RandomDraw(Draw):
    def __init__(self, bots: list[str], table_size: int, seed: str):
        self.bots = bots
        self.table_size = table_size
        self.stream = _Stream(bots, seed)

    def tables(self, round_number: int) -> list[Group]:
        if len(self.bots) <= self.table_size:
            return [tuple(self.bots)]  # everyone at one table, filling the seats in turn
        return [self.stream.take(self.table_size) for _ in range(len(self.bots) // self.table_size)]


class GauntletDraw(Draw):
    def __init__(self, bots: list[str], table_size: int, seed: str, tested: list[str]):
        self.tested = list(tested)
        self.field = [b for b in bots if b not in set(tested)]
        self.others = min(table_size - 1, len(self.field))
        self.stream = _Stream(self.field, seed)

    def tables(self, round_number: int) -> list[Group]:
        per_bot = max(1, len(self.field) // self.others)  # the field about once per round
        return [
            (bot, *self.stream.take(self.others)) for _ in range(per_bot) for bot in self.tested
        ]


class _SortedDraw(Draw):
    """Bots dealt into tables in the order of a key; those left over sit out in turn."""

    def __init__(self, bots: list[str], table_size: int, seed: str):
        self.bots = bots
        self.table_size = table_size
        self.seed = seed
        self.sat_out: Counter[str] = Counter()

    def order(self, rng: random.Random) -> list[str]:
        """The bots, best first."""
        raise NotImplementedError

    def tables(self, round_number: int) -> list[Group]:
        k = self.table_size
        if len(self.bots) <= k:
            return [tuple(self.bots)]
        rng = random.Random(f"{self.seed}/round-{round_number}")
        ordered = self.order(rng)
        left_over = len(ordered) % k
        if left_over:
            # Fewest sit-outs first; among equals the lowest in the order (as a chess bye).
            rank = {bot: i for i, bot in enumerate(ordered)}
            out = sorted(ordered, key=lambda b: (self.sat_out[b], -rank[b]))[:left_over]
            gone = set(out)
            ordered = [b for b in ordered if b not in gone]
        tables = [tuple(ordered[i : i + k]) for i in range(0, len(ordered), k)]
        # Played in a random order, but the tables of the bots that sat out most first: a run
        # that --games ends within a round favours no end of the standings, and those bots.
        rng.shuffle(tables)
        tables.sort(key=lambda table: -sum(self.sat_out[b] for b in table))
        if left_over:
            self.sat_out.update(out)
        return tables


class SwissDraw(_SortedDraw):
    def __init__(self, bots: list[str], table_size: int, seed: str):
        super().__init__(bots, table_size, seed)
        self.points: Counter[str] = Counter()

    def order(self, rng: random.Random) -> list[str]:
        shuffled = list(self.bots)
        rng.shuffle(shuffled)
        return sorted(shuffled, key=lambda b: -self.points[b])  # (a stable sort)

    def record(self, placings: dict[str, float]) -> None:
        for bot, place in placings.items():
            self.points[bot] += sum(
                1.0 if place < other else 0.5 if place == other else 0.0
                for rival, other in placings.items()
                if rival != bot
            )


class MatchmakingDraw(_SortedDraw):
    def __init__(self, bots: list[str], table_size: int, seed: str, environment: Environment):
        super().__init__(bots, table_size, seed)
        self.ratings = RatingTable(environment)

    def order(self, rng: random.Random) -> list[str]:
        drawn = {}
        for bot in self.bots:  # (sorted: one draw per bot in a fixed order)
            rating = self.ratings.rating(bot)
            drawn[bot] = rng.gauss(rating.mu, rating.sigma)
        return sorted(self.bots, key=lambda b: -drawn[b])

    def record(self, placings: dict[str, float]) -> None:
        if len(placings) >= 2:
            try:
                self.ratings.update(placings)
            except (ArithmeticError, ValueError):
                pass  # (the run's own rating of the game reports it)


def make_draw(
    pairing: str,
    bots: list[str],
    table_size: int,
    seed: str,
    gauntlet: list[str],
    environment: Environment | None,
) -> Draw:
    """The draw of ``pairing`` for ``bots`` (sorted) at tables of ``table_size``."""
    if pairing == "random":
        return RandomDraw(bots, table_size, seed)
    if pairing == "gauntlet":
        return GauntletDraw(bots, table_size, seed, gauntlet)
    if pairing == "swiss":
        return SwissDraw(bots, table_size, seed)
    if pairing == "matchmaking":
        return MatchmakingDraw(bots, table_size, seed, environment or Environment())
    raise ValueError(f"unknown pairing {pairing!r}")
