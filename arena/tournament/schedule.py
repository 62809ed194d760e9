"""Schedules in duplicate format: which bots sit at which table, in which seat, on which deal.

A *group* is the set of bots at one table. A group plays one *board* (one deal seed) once per seat
rotation — lineup ``j`` puts ``group[(seat + j) % m]`` in each seat — so every bot sits in every
seat equally often and every bot gets the same cards in turn, as in duplicate bridge. With fewer
bots than seats, the group is all of them, each filling seats equally (``a b a b``, ``b a b a``).

Without duplicate (``--no-duplicate``) the seat rotations stay but every game gets a deal of its
own: luck no longer cancels out, but no deal ever comes back, so a bot that remembers the hands it
held cannot recognise a deal in a later rotation and know the others' cards.

How the groups are drawn is the *pairing* (``PAIRINGS``):

- ``round-robin``: every combination of the bots for the table size, round after round, each
  round in a shuffled order, so a schedule cut short by ``--games`` still spreads its games. Its
  round is enumerated (shuffled) up front: it is for fields whose full round fits in a run;
- ``random``, ``gauntlet``, ``swiss``, ``matchmaking``: rounds of tables drawn from the field
  (``arena.tournament.pairings``); each costs only the games it yields. The last two draw a round
  from the results of the rounds before it (``Schedule.record``), so they are played round by
  round.

Every schedule is a lazy iterator, the same for a seed whatever ``--jobs`` is; a shorter one is a
prefix of a longer one, so a resumed run skips the games stored and plays the rest.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterable, Iterator

from arena.execution.context import ScheduledGame
from arena.ratings.trueskill import Environment
from arena.tournament.pairings import Draw, make_draw

PAIRINGS = ("round-robin", "random", "gauntlet", "swiss", "matchmaking")
RESULT_DEPENDENT = frozenset({"swiss", "matchmaking"})
# A round robin shuffles the indices of one round's groups: beyond this many, --pairing random.
MAX_ROUND_ROBIN_GROUPS = 1_000_000
STREAM_SLICE = 4096  # games handed to the backend at once by the pairings that stream


# --- seeds: the one place where a board's deal seed is formed -------------------------------------


def board_seed(seed: str | int, game: str, round_number: int, table: int) -> str:
    """The deal seed of table ``table`` of round ``round_number``."""
    return f"{seed}/{game}/{round_number}/{table}"


def rotation_seed(board: str, rotation: int) -> str:
    """The deal seed of one seat rotation of a board, without duplicate format."""
    return f"{board}/{rotation}"


def round_order(seed: str | int, game: str, round_number: int) -> random.Random:
    """The generator that shuffles a round-robin round (it never reaches a bot)."""
    return random.Random(f"{seed}/{game}/round-{round_number}")


# --- round robin -------------------------------------------------------------------------------


def groups(bots: list[str], table_size: int) -> Iterator[tuple[str, ...]]:
    if len(bots) >= table_size:
        return itertools.combinations(bots, table_size)
    return iter([tuple(bots)])


def round_robin_groups(n_bots: int, table_size: int) -> int:
    """Tables in one round of the round robin."""
    return math.comb(n_bots, table_size) if n_bots >= table_size else 1


def round_robin_games(n_bots: int, table_size: int) -> int:
    """Games in one full round of the round robin (every group once per seat rotation)."""
    return round_robin_groups(n_bots, table_size) * min(n_bots, table_size)


def default_pairing(n_bots: int, table_size: int, games: int) -> str:
    """``round-robin`` while one full round of it fits in the run's games, else ``random``."""
    return "round-robin" if round_robin_games(n_bots, table_size) <= games else "random"


def lineups(group: tuple[str, ...], table_size: int) -> list[tuple[str, ...]]:
    m = len(group)
    return [tuple(group[(seat + j) % m] for seat in range(table_size)) for j in range(m)]


def round_robin(
    game: str,
    bots: list[str],
    table_size: int,
    games: int,
    seed: str | int,
    duplicate: bool = True,
) -> Iterator[ScheduledGame]:
    """The first ``games`` games of the endless round-robin of ``bots``, in duplicate format
    unless ``duplicate`` is false."""
    if not bots:
        return
    table_groups = list(groups(sorted(bots), table_size))
    group_lineups = [lineups(group, table_size) for group in table_groups]  # the same every round
    index = 0
    board = 0
    for round_number in itertools.count():
        order = list(range(len(table_groups)))
        if len(order) > 1:  # (seeding costs more than the rest of a round of one group)
            round_order(seed, game, round_number).shuffle(order)
        for g in order:
            deal = board_seed(seed, game, round_number, g)
            for j, lineup in enumerate(group_lineups[g]):
                if index >= games:
                    return
                if duplicate:
                    yield ScheduledGame(index, game, deal, lineup, board)
                else:
                    yield ScheduledGame(index, game, rotation_seed(deal, j), lineup, board)
                    board += 1
                index += 1
            if duplicate:
                board += 1


# --- every pairing -------------------------------------------------------------------------------


class Schedule:
    """The games of one game of a run, drawn by its pairing.

    ``rounds()`` yields them in order, in lists: a pairing's rounds, or for the pairings that do
    not depend on results, slices of ``STREAM_SLICE`` games. For ``swiss`` and ``matchmaking``
    (``adaptive``), each game's placings must be given to ``record`` before the next round is
    asked for: the round is drawn from them.
    """

    def __init__(
        self,
        game: str,
        bots: list[str],
        table_size: int,
        games: int,
        seed: str | int,
        duplicate: bool = True,
        pairing: str = "round-robin",
        gauntlet: Iterable[str] = (),
        environment: Environment | None = None,
    ):
        self.game = game
        self.bots = sorted(bots)
        self.table_size = table_size
        self.games = games
        self.seed = seed
        self.duplicate = duplicate
        self.pairing = pairing
        self.adaptive = pairing in RESULT_DEPENDENT
        self.draw: Draw | None = None
        if pairing != "round-robin":
            self.draw = make_draw(
                pairing, self.bots, table_size, f"{seed}/{game}", list(gauntlet), environment
            )

    def __iter__(self) -> Iterator[ScheduledGame]:
        """Every game; for an adaptive pairing, only once the games before are recorded."""
        return itertools.chain.from_iterable(self.rounds())

    def rounds(self) -> Iterator[list[ScheduledGame]]:
        if self.draw is None:
            flat = round_robin(
                self.game, self.bots, self.table_size, self.games, self.seed, self.duplicate
            )
            return _slices(flat, STREAM_SLICE)
        drawn = self._drawn_rounds()
        return (
            drawn if self.adaptive else _slices(itertools.chain.from_iterable(drawn), STREAM_SLICE)
        )

    def record(self, item: ScheduledGame, placings: dict[str, float]) -> None:
        """The placings of a game played (or stored): what the next rounds are drawn from."""
        if self.adaptive:
            # In seat order, so a game stored and read back counts exactly as one just played.
            self.draw.record({bot: placings[bot] for bot in dict.fromkeys(item.seats)})

    def _drawn_rounds(self) -> Iterator[list[ScheduledGame]]:
        index = 0
        board = 0
        for round_number in itertools.count():
            played: list[ScheduledGame] = []
            for t, group in enumerate(self.draw.tables(round_number)):
                deal = board_seed(self.seed, self.game, round_number, t)
                for j, lineup in enumerate(lineups(group, self.table_size)):
                    if index >= self.games:
                        if played:
                            yield played
                        return
                    if self.duplicate:
                        played.append(ScheduledGame(index, self.game, deal, lineup, board))
                    else:
                        seed = rotation_seed(deal, j)
                        played.append(ScheduledGame(index, self.game, seed, lineup, board))
                        board += 1
                    index += 1
                if self.duplicate:
                    board += 1
            yield played


def _slices(games: Iterator[ScheduledGame], size: int) -> Iterator[list[ScheduledGame]]:
    while chunk := list(itertools.islice(games, size)):
        yield chunk
