"""``shuffle(rng, cards)``: ``rng.shuffle(cards)`` with the same draws and the same order, without
its two Python calls a card, when ``rng`` is a plain ``random.Random``. Determinizing shuffles the
unseen cards at every sample of a search bot, so this is the hot path of both games' searches; a
search bot that shuffles with it plays the same games as with ``Random.shuffle``."""

from __future__ import annotations

import random
from typing import Any

# n.bit_length() for every size up to two packs (How Low Can You Go? may play with two).
_BIT_LENGTH = tuple(n.bit_length() for n in range(2 * 52 + 1))
# Random.shuffle draws through _randbelow_with_getrandbits (CPython 3.2 on): inlined below.
_PLAIN_SHUFFLE = random.Random._randbelow is random.Random._randbelow_with_getrandbits


def shuffle(rng: Any, cards: list) -> None:
    """Shuffle ``cards`` in place as ``rng.shuffle(cards)`` would (any other generator, or a list
    longer than two packs, is shuffled by ``rng.shuffle`` itself)."""
    if type(rng) is not random.Random or not _PLAIN_SHUFFLE or len(cards) >= len(_BIT_LENGTH):
        rng.shuffle(cards)
        return
    getrandbits = rng.getrandbits
    bits = _BIT_LENGTH
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1
        k = bits[n]
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]
