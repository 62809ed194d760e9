"""``shuffle(rng, cards)``: ``rng.shuffle(cards)`` with the same draws and the same order, without
its two Python calls a card, when ``rng`` is a plain ``random.Random``. Determinizing shuffles the
unseen cards at every sample of a search bot, so this is the hot path of both games' searches; a
search bot that shuffles with it plays the same games as with ``Random.shuffle``."""

from __future__ import annotations

import random
from typing import Any

# n.bit_length() for every size up to two packs (How Low Can You Go? may play with two).
_BIT_LENGTH = tuple(n.bit_length() for n in range(2 * 52 + 1))
# The steps of a shuffle of n cards, (i, i + 1, its bit length) from i = n - 1 down to 1: read
# from a table, a step costs fewer bytecodes than computed (14 % fewer instructions a shuffle).
_STEPS = tuple(
    tuple((i, i + 1, _BIT_LENGTH[i + 1]) for i in range(n - 1, 0, -1))
    for n in range(len(_BIT_LENGTH))
)
# Random.shuffle draws through _randbelow_with_getrandbits (CPython 3.2 on): inlined below.
_PLAIN_SHUFFLE = random.Random._randbelow is random.Random._randbelow_with_getrandbits


def shuffle(rng: Any, cards: list) -> None:
    """Shuffle ``cards`` in place as ``rng.shuffle(cards)`` would (any other generator, or a list
    longer than two packs, is shuffled by ``rng.shuffle`` itself)."""
    if type(rng) is not random.Random or not _PLAIN_SHUFFLE or len(cards) >= len(_BIT_LENGTH):
        rng.shuffle(cards)
        return
    getrandbits = rng.getrandbits
    for i, n, k in _STEPS[len(cards)]:
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]
