"""Round-robin schedules in duplicate format.

A *group* is the set of bots at one table: every combination of the selected bots for the table
size, or, with fewer bots than seats, all of them, each filling seats equally. A group plays one
*board* (one deal seed) once per seat rotation — lineup ``j`` puts ``group[(seat + j) % m]`` in each
seat — so every bot sits in every seat equally often and every bot gets the same cards in turn, as
in duplicate bridge. Rounds repeat the groups with fresh seeds, in a shuffled order, so a schedule
cut short by ``--games`` still spreads games over the groups.

Without duplicate (``--no-duplicate``) the seat rotations stay but every game gets a deal of its
own: luck no longer cancels out, but no deal ever comes back, so a bot that remembers the hands it
held cannot recognise a deal in a later rotation and know the others' cards.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

from arena.execution.context import ScheduledGame


def groups(bots: list[str], table_size: int) -> list[tuple[str, ...]]:
    if len(bots) >= table_size:
        return list(itertools.combinations(bots, table_size))
    return [tuple(bots)]


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
    table_groups = groups(sorted(bots), table_size)
    group_lineups = [lineups(group, table_size) for group in table_groups]  # the same every round
    index = 0
    board = 0
    for round_number in itertools.count():
        order = list(range(len(table_groups)))
        if len(order) > 1:  # (seeding costs more than the rest of a round of one group)
            random.Random(f"{seed}/{game}/round-{round_number}").shuffle(order)
        for g in order:
            board_seed = f"{seed}/{game}/{round_number}/{g}"
            for j, lineup in enumerate(group_lineups[g]):
                if index >= games:
                    return
                if duplicate:
                    yield ScheduledGame(index, game, board_seed, lineup, board)
                else:
                    yield ScheduledGame(index, game, f"{board_seed}/{j}", lineup, board)
                    board += 1
                index += 1
            if duplicate:
                board += 1
