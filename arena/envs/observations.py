"""The PettingZoo environment's observations written by the optional C extension
``arena.envs._encode_c`` (built at install time where a C compiler is present; setup.py).

With it, each observation's two arrays are rows of two numpy blocks made once per
``_BLOCK_BYTES`` of vectors: each row is written once and handed out once, a fresh array that
nothing writes again (a view: ``array.base`` is its block, which lives while any of its rows
does). Twenty Down's vector and legal numbers are written in C from the engine's fields, the same
values as ``TwentyDownEncoding.write_state`` and ``legal_numbers`` (the reference, and the
fallback), and How Low's as ``HowLowEncoding``'s; another game's vector is its Python
encoding's, copied into the row. Without the extension, or with ``ARENA_PURE_PYTHON_ENVS=1`` (or
:func:`use_c_extension`), the environment makes its arrays in Python
(``ArenaAECEnv._observe_in_python``), the same values.
"""

from __future__ import annotations

import numpy as np

from arena import c_extensions
from arena.games.how_low.encoding import HowLowEncoding
from arena.games.how_low.hands import VALUE
from arena.games.how_low.rules import HowLowState
from arena.games.twenty_down.encoding import CARD_INDEX, TwentyDownEncoding
from arena.games.twenty_down.rules import TwentyDownState

# Bumped with every change of meaning of the Python code that _encode_c.c (next to this file)
# repeats, and there with the same change: an extension built from older sources is not used.
_C_TRANSCRIPTION = 2

_encode_c = c_extensions.load("arena.envs._encode_c", _C_TRANSCRIPTION)

PURE_PYTHON_VARIABLE = "ARENA_PURE_PYTHON_ENVS"
# A block's vectors: under malloc's threshold for a fresh mapping (128 KiB), so that a new block
# reuses freed memory instead of faulting in new pages.
_BLOCK_BYTES = 64 * 1024

_use_c = False  # see use_c_extension


def use_c_extension(enabled: bool = True) -> bool:
    """Write observations in the C extension (when it is built) or, ``enabled=False``, in
    Python, for environments made after this call. Returns whether the C extension is now in
    use. At import it is used unless ``ARENA_PURE_PYTHON_ENVS`` is set to anything but ``0`` or
    nothing."""
    global _use_c
    _use_c = enabled and _encode_c is not None
    return _use_c


use_c_extension(c_extensions.wanted(PURE_PYTHON_VARIABLE))


def implementation() -> str:
    """Which code makes new environments' observations: the C extension or pure Python."""
    return "C extension (arena.envs._encode_c)" if _use_c else "pure Python"


def observer(game, encoding, state_type: type, use_c: bool | None = None):
    """The C extension's ``Observer`` for an environment of ``game`` (None where it is not in
    use, or ``use_c`` is False: None follows :func:`use_c_extension`); it writes the vectors
    itself when ``state_type`` is a bundled game's engine, and copies those of other games'
    Python encodings."""
    if not (_use_c if use_c is None else use_c and _encode_c is not None):
        return None
    size, actions = encoding.observation_size, encoding.num_actions
    rows = max(16, _BLOCK_BYTES // (4 * size))

    def new_blocks():
        # (each row is zeroed as it is handed out: ``np.zeros`` would zero the block twice)
        return np.empty((rows, size), np.float32), np.empty((rows, actions), np.int8)

    layouts = {}
    if state_type is TwentyDownState and type(encoding) is TwentyDownEncoding:
        layouts["twenty_down"] = _twenty_down_layout(game, encoding)
    elif state_type is HowLowState and type(encoding) is HowLowEncoding:
        layouts["how_low"] = _how_low_layout(encoding)
    return _encode_c.Observer(size, actions, new_blocks, **layouts)


def engine_writers(observer) -> tuple:
    """``observer``'s (observe, legal numbers) for a bundled game's state, which it writes
    itself; (None, None) where it only copies vectors, or is None."""
    if observer is not None and observer.twenty_down:
        return observer.observe_twenty_down, observer.legal_twenty_down
    if observer is not None and observer.how_low:
        return observer.observe_how_low, observer.legal_how_low
    return None, None


def _twenty_down_layout(game, encoding) -> tuple:
    """What ``Observer`` reads Twenty Down's vector positions from (its ``TD_*`` order)."""
    at = encoding.at
    parts = (
        "hand", "phase", "trump", "dealer", "forehand", "deal", "hearts_fixed", "points",
        "exchanged", "tricks_won", "played", "current_trick", "led_suit", "playing",
    )  # fmt: skip
    return (
        *(at[name] for name in parts),
        encoding.max_deals,
        encoding.fixed_trump_after,
        encoding.start_points,
        int(game.variant == "brostedt"),
        CARD_INDEX,
    )


def _how_low_layout(encoding) -> tuple:
    """What ``Observer`` reads How Low's vector positions from (its ``HL_*`` order)."""
    at = encoding.at
    parts = (
        "hand", "hand_total", "dealer", "active", "chips", "bank", "deal", "round", "stock_size",
        "discard_size", "discarded", "redrawn", "last_totals", "last_chip_changes",
    )  # fmt: skip
    return (
        *(at[name] for name in parts),
        encoding.players,
        encoding.packs,
        encoding.max_deals,
        encoding.pack_size,
        encoding.chip_scale,
        VALUE,
    )
