"""The 26 standard discards of a sorted five-card hand as ``HowLowState.legal_actions()`` returns
them: a read-only sequence whose length is known without listing them, built only when read.

A playout, a search bot or the benchmark asks for ``len(state.legal_actions())`` and then plays an
index (``apply_legal``): with this sequence no discard is made for that, and the engine plays the
index from its tables (``tables.KEEP``, ``tables.THROWN``). Anything else (indexing, iterating,
``in``, ``index``, ``==``, ``+``) builds the plain list once (``discards_of_five``) and reads it.
The observations a bot receives hold a plain list, as before. (The class is
``arena.games.discards.StandardDiscards``, which Twenty Down's exchanges use too.)
"""

from __future__ import annotations

from arena.games.discards import StandardDiscards

__all__ = ["StandardDiscards", "standard_discards"]

_new = object.__new__


def standard_discards(hand: list) -> StandardDiscards:
    """``StandardDiscards(hand)`` without the call to ``__init__`` (one a decision)."""
    legal = _new(StandardDiscards)
    legal.hand = hand
    legal._items = None
    return legal
