"""Chance events as OpenSpiel chance nodes: the engine asks, the caller answers.

An engine draws every random event through ``Chance``. ``ChanceNodes`` answers from the events
supplied so far and, when it has none left, raises ``NeedChance`` naming the event. The OpenSpiel
state then becomes a chance node for it — a shuffle card by card (each outcome a card, with the
probability of its copies among those left), a number in one node — and retries the engine step
with the event supplied. A deal's whole order is drawn, so the stock and the talon are chance
outcomes too and a replay of the OpenSpiel history gives the very same game.
"""

from __future__ import annotations

from collections import deque

from arena.games.base import Chance


class NeedChance(Exception):  # noqa: N818 (a request, not an error)
    """The engine needs chance event ``key``: an order of ``cards``, or a number below ``n``."""

    def __init__(self, key: str, cards: tuple | None = None, n: int | None = None):
        super().__init__(key)
        self.key, self.cards, self.n = key, cards, n


class ChanceNodes(Chance):
    __slots__ = ("supplied",)

    def __init__(self, supplied=()):
        super().__init__(seed=None)
        self.supplied = deque(supplied)

    def shuffled(self, key, cards):
        if not self.supplied:
            raise NeedChance(key, cards=tuple(cards))
        order = tuple(self.supplied.popleft())
        self.log.append((key, order))
        return list(order)

    def randrange(self, key, n):
        if not self.supplied:
            raise NeedChance(key, n=n)
        value = self.supplied.popleft()
        self.log.append((key, value))
        return value

    def copy(self) -> ChanceNodes:
        other = ChanceNodes(self.supplied)
        other.log = list(self.log)
        return other


class PendingEvent:
    """One chance event being drawn: the outcomes so far, and what is left to draw."""

    __slots__ = ("need", "left", "drawn")

    def __init__(self, need: NeedChance):
        self.need = need
        self.drawn: list = []
        self.left: dict[int, int] = {}
        for card in need.cards or ():
            self.left[card] = self.left.get(card, 0) + 1

    def copy(self) -> PendingEvent:
        other = PendingEvent.__new__(PendingEvent)
        other.need, other.drawn, other.left = self.need, self.drawn[:], dict(self.left)
        return other

    def outcomes(self) -> list[tuple[int, float]]:
        if self.need.cards is None:
            n = self.need.n
            return [(i, 1.0 / n) for i in range(n)]
        total = sum(self.left.values())
        return [(int(card), count / total) for card, count in sorted(self.left.items())]

    def draw(self, outcome: int):
        """Record one outcome; return the event's value once complete, else None."""
        if self.need.cards is None:
            if not 0 <= outcome < self.need.n:
                raise ValueError(f"chance outcome {outcome} is not below {self.need.n}")
            return outcome
        count = self.left.get(outcome, 0)
        if not count:
            raise ValueError(f"chance outcome {outcome} is not a card left to draw")
        card = next(c for c in self.left if c == outcome)
        if count == 1:
            del self.left[card]
        else:
            self.left[card] = count - 1
        self.drawn.append(card)
        return None if self.left else tuple(self.drawn)
