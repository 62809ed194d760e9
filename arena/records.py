"""Game records: compact for storage, self-contained when exported.

The referee already knows, for every decision, the index of the chosen action in the legal
actions the engine listed. Stored, a game is a small header (game, parameters, seed, bots, faults,
every chance event with its card order) plus one byte per decision and two bytes of timing, all
zlib-compressed: about a kilobyte for a game of Twenty Down. ``expand`` turns that back into the
full, self-contained JSON record (every action spelt out with its seat, the result) by re-running it
through the engine, which also re-checks it.
"""

from __future__ import annotations

import array
import json
import zlib

from .cards import CARDS
from .games.base import Chance, Game, RecordError, State

COMPACT_VERSION = 1
TIME_UNIT = 1e-5  # decision times are stored in units of 10 µs
TICKS_PER_SECOND = 1 / TIME_UNIT
TIME_MAX = 0xFFFF


def _chance_compact(chance: Chance) -> list:
    out = []
    for key, value in chance.log:
        if isinstance(value, list | tuple):
            out.append([key, bytes(value).hex()])
        else:
            out.append([key, value])
    return out


def _chance_events(compact: list) -> list[dict]:
    events = []
    for key, value in compact:
        if isinstance(value, str):
            value = [CARDS[b].ascii for b in bytes.fromhex(value)]
        events.append({"event": key, "value": value})
    return events


def pack(
    state: State,
    bots: tuple[str, ...],
    faults: list[dict],
    indices: list[int],
    times: list[float],
) -> bytes:
    # One byte per decision, unless some decision had more than 256 legal actions.
    most = max(indices, default=0)
    typecode = "B" if most < 0x100 else "H" if most < 0x10000 else "I"
    packed = array.array(typecode, indices)
    ticks = [int(t * TICKS_PER_SECOND) for t in times]
    slow = []
    if max(ticks, default=0) > TIME_MAX:
        slow = [[i, round(t, 6)] for i, t in enumerate(times) if ticks[i] > TIME_MAX]
        ticks = [min(TIME_MAX, u) for u in ticks]
    units = array.array("H", ticks)
    header = {
        "v": COMPACT_VERSION,
        **state.game.to_json(),
        "seed": state.chance.seed,
        "chance": _chance_compact(state.chance),
        "bots": list(bots),
        "faults": faults,
        "slow": slow,
        "decisions": len(indices),
        "index_type": typecode,
    }
    head = json.dumps(header, separators=(",", ":")).encode()
    body = len(head).to_bytes(4, "little") + head + packed.tobytes() + units.tobytes()
    return zlib.compress(body, 1)  # level 1: a third of the time of 6, 5 % larger


def unpack(blob: bytes) -> tuple[dict, array.array, list[float]]:
    try:
        body = zlib.decompress(blob)
        size = int.from_bytes(body[:4], "little")
        header = json.loads(body[4 : 4 + size])
    except (zlib.error, ValueError) as exc:
        raise RecordError(f"damaged stored record: {exc}") from None
    n = header["decisions"]
    indices = array.array(header.get("index_type", "B"))
    start = 4 + size
    end = start + n * indices.itemsize
    indices.frombytes(body[start:end])
    units = array.array("H")
    units.frombytes(body[end : end + 2 * n])
    times = [u * TIME_UNIT for u in units]
    for i, seconds in header.get("slow", []):
        times[i] = seconds
    return header, indices, times


def expand(blob: bytes, games: dict[str, type[Game]]) -> dict:
    """The full self-contained record of a stored game (see docs/records.md)."""
    header, indices, times = unpack(blob)
    try:
        game = games[header["game"]](
            players=header["players"], variant=header["variant"], **header["params"]
        )
    except KeyError:
        raise RecordError(
            f"the stored record names an unknown game {header.get('game')!r}"
        ) from None
    state = game.replay_state(_chance_events(header["chance"]))
    state.chance.seed = header["seed"]
    for number, index in enumerate(indices, start=1):
        legal = state.legal_actions()
        if index >= len(legal):
            raise RecordError(f"stored record: decision {number} has no action {index}")
        state.apply_action(legal[index])
    record = state.record()
    record["bots"] = header["bots"]
    record["faults"] = header["faults"]
    record["decision_ms"] = [round(t * 1000, 3) for t in times]
    return record
