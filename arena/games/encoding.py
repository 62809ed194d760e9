"""Fixed-size views of a game for learning code: numbered actions and a flat observation vector.

Reinforcement-learning libraries (PettingZoo, OpenSpiel) want a fixed action space and a
fixed-size observation. A game offers one through ``Game.encoding()``, an ``Encoding`` made from
the game's facts (table size, variant). It reads only an ``Observation`` — what one seat may see —
so nothing hidden from that seat can reach its vector. ``write`` fills any mutable sequence (a
list, an ``array('f')``, a numpy array): numpy is the caller's.

Exchanges, in both bundled games, are numbered by *position* in the sorted hand, not by card:
``EXCHANGE_MASKS[i]`` is the set of hand positions (bit p = the p-th card) that action i discards,
in the order the engines list them (stand, the singles, the pairs, the triples).
"""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations
from typing import Any

from arena.games.base import GameError, Observation

EXCHANGE_MASKS: tuple[int, ...] = tuple(
    sum(1 << p for p in combo) for size in range(4) for combo in combinations(range(5), size)
)
EXCHANGE_INDEX: dict[int, int] = {mask: i for i, mask in enumerate(EXCHANGE_MASKS)}


def exchange_name(number: int) -> str:
    """``exchange:`` and the hand positions (1-5) action ``number`` discards; ``stand``."""
    mask = EXCHANGE_MASKS[number]
    return "exchange:" + "".join(str(p + 1) for p in range(5) if mask >> p & 1) if mask else "stand"


def exchange_index(hand, discard) -> int:
    """The number (0-25) of the exchange ``discard`` (a sorted tuple of cards) from the sorted
    ``hand``: each card matched to the first unused position holding it (two packs repeat cards)."""
    mask = 0
    p = 0
    for card in discard:
        while hand[p] != card or mask & (1 << p):
            p += 1
        mask |= 1 << p
        p += 1
    return EXCHANGE_INDEX[mask]


class Encoding:
    """The numbered actions and the observation vector of one game (players, variant fixed).

    ``num_actions``: actions are numbered 0..num_actions-1. ``observation_size``: the length of
    ``encode``'s vector. ``parts``: ``(name, size)`` in vector order, what the documentation
    lists. Subclasses set ``parts`` and call ``_layout()`` in ``__init__``, and implement
    ``write`` (or ``features``) and ``action_index``.
    """

    num_actions: int = 0
    parts: tuple[tuple[str, int], ...] = ()
    observation_size: int = 0

    def _layout(self) -> None:
        self.at = {}
        size = 0
        for name, part in self.parts:
            self.at[name] = size
            size += part
        self.observation_size = size

    def write(self, observation: Observation, out) -> None:
        """Write the vector into ``out``, ``observation_size`` zeros in any mutable sequence (a
        list, an ``array('f')``, a numpy array); only its non-zero entries are written. The fast
        form, which the environments use; a subclass implements it (or ``features``)."""
        if type(self).features is Encoding.features:
            raise NotImplementedError(f"{type(self).__name__} implements no write or features")
        for i, v in zip(*self.features(observation), strict=True):
            out[i] = v

    def features(self, observation: Observation) -> tuple[list[int], list[float]]:
        """The entries ``write`` writes (all the non-zero ones): positions, each at most once,
        and values. A caller with numpy writes ``vector[positions] = values`` into zeros."""
        entries: defaultdict[int, float] = defaultdict(float)
        self.write(observation, entries)
        return list(entries), list(entries.values())

    def encode(self, observation: Observation) -> list[float]:
        """The whole vector, ``observation_size`` floats."""
        out = [0.0] * self.observation_size
        self.write(observation, out)
        return out

    def action_index(self, observation: Observation, action: Any) -> int:
        raise NotImplementedError

    def action_name(self, index: int) -> str:
        """A short name of action number ``index`` (OpenSpiel's action strings)."""
        return f"action-{index}"

    def legal_indices(self, observation: Observation) -> list[int]:
        """The number of each of ``observation.legal_actions``, in the same order."""
        return [self.action_index(observation, a) for a in observation.legal_actions]

    def action_of(self, observation: Observation, index: int) -> Any:
        """The legal action numbered ``index``; ``GameError`` if none is."""
        for action, number in zip(
            observation.legal_actions, self.legal_indices(observation), strict=True
        ):
            if number == index:
                return action
        raise GameError(f"action number {index} is not legal for seat {observation.seat} here")
