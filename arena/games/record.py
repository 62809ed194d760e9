"""Game records: compact for storage, self-contained when exported.

The referee already knows, for every decision, the index of the chosen action in the legal
actions the engine listed. Stored, a game is a small header (game, parameters, seed, bots, faults,
the numbers drawn), the card order of every shuffle (one byte a card), one byte per decision and
two bytes of timing, all zlib-compressed with a preset dictionary: about 410 bytes for a game of
Twenty Down and 560 for How Low Can You Go? between the bundled bots. ``expand`` turns that back
into the full, self-contained JSON record (every chance event named, every action spelt out with
its seat, the result; docs/records.md) by re-running it through the engine, which also re-checks
it: the engine asks for the chance events in its own order and is served them from the record.

``pack`` runs once per game in the workers, so it avoids Python work per decision: the indices
are ``bytes(list)``, the times go through ``struct`` in one call, and the fixed start of the
header is made once per game object.
"""

from __future__ import annotations

import array
import json
import struct
import sys
import zlib
from collections import deque
from collections.abc import Sequence
from json.encoder import encode_basestring_ascii
from operator import itemgetter

from arena.cards import CARDS
from arena.games.base import Chance, Game, RecordError, State

COMPACT_VERSION = 2
# Format 1 (still read): every chance event named in the header with its card order as a hex
# string, then the indices, then the times as 16-bit counts of 10 µs (``TIME_UNIT``), with the
# decisions over 0.65 s in the header's "slow" list.
TIME_UNIT = 1e-5
HALF_MAX = 65504.0  # the largest half-precision float: longer decisions are stored as this
# Format 2 times: IEEE half floats whose low byte keeps only its top 2 bits (4 significant bits:
# within 3.2 % once read back, or 4 µs under 61 µs), in two planes: the high bytes, then the low
# ones. Finer times cost 40-150 bytes a game more (the low bits are noise) for nothing a person
# reading a replay needs.
_LOW_MASK = bytes(b & 0xC0 for b in range(256))
_LOW_MIDDLE = 0x20  # added back when reading: the middle of what the dropped bits stand for
_WITH_MIDDLE = bytes(b | _LOW_MIDDLE for b in range(256))
_NONZERO = bytes([0] + [0xFF] * 255)


def _preset_dictionary() -> bytes:
    """zlib's preset dictionary of format 2: text every header of the bundled games repeats.

    Part of the format: never change it (a new dictionary is a new ``COMPACT_VERSION``; the test
    suite pins its hash). It saves about 150 bytes a game at no cost in time.
    """
    parts = []
    for game, params in (
        ("how-low-can-you-go", '"starting_chips":7,"buy_in":5,"max_deals":50'),
        ("twenty-down", '"start_points":20,"fixed_trump_after":8,"max_deals":100'),
    ):
        parts.append(
            f'{{"v":2,"game":"{game}","players":4,"variant":null,"params":{{{params}}},"seed":"'
        )
    parts.append(',"numbers":[0],"cards":416,"bots":["random","random"],"faults":[],')
    parts.append('"decisions":100,"index_type":"B"}')
    return "".join(parts).encode()


ZDICT = _preset_dictionary()

_head_starts: dict[int, tuple[Game, str]] = {}  # id(game) -> (game, '{"v":2,"game":...,"seed":')
_bots_json: dict[tuple[str, ...], str] = {}


def _head_start(game: Game) -> str:
    cached = _head_starts.get(id(game))
    if cached is None or cached[0] is not game:
        text = json.dumps({"v": COMPACT_VERSION, **game.to_json()}, separators=(",", ":"))
        if len(_head_starts) > 64:
            _head_starts.clear()
        cached = _head_starts[id(game)] = (game, text[:-1] + ',"seed":')
    return cached[1]


def _bots(bots: tuple[str, ...]) -> str:
    text = _bots_json.get(bots)
    if text is None:
        if len(_bots_json) > 1024:
            _bots_json.clear()
        text = _bots_json[bots] = json.dumps(list(bots), separators=(",", ":"))
    return text


def _json_text(seed) -> str:
    # json.dumps of a str without JSONEncoder's Python layers (the same C function encodes it).
    return encode_basestring_ascii(seed) if type(seed) is str else json.dumps(seed)


def pack(
    state: State,
    bots: tuple[str, ...],
    faults: list[dict],
    indices: list[int],
    times: list[float],
    time_bank: dict | None = None,
) -> bytes:
    """The compact record of a finished game (called once per game, in the workers).

    Body, zlib level 1 with the preset dictionary ``ZDICT``: 4 bytes little-endian header length;
    the header (JSON); the card orders of the chance log, one byte a card, in the order they were
    drawn; one index a decision (the chosen action's position in the legal actions: 1 byte, or 2
    or 4 little-endian if some decision had more than 256 or 65536); the decision times (see
    ``_LOW_MASK``). The header keeps the numbers of the chance log (``randrange`` events) in order;
    the events' names come back from the engine when ``expand`` replays the game. ``time_bank``
    (``--time-bank``: the bank and each seat's use of it) is in the header only when given.
    """
    n = len(indices)
    try:
        packed = bytes(indices)  # one byte per decision (the usual case)
        typecode = "B"
    except ValueError:
        typecode = "H" if max(indices) < 0x10000 else "I"
        packed = array.array(typecode, indices).tobytes()
    try:
        halves = struct.pack(f"<{n}e", *times)
    except (OverflowError, struct.error):  # a decision longer than 18 hours
        halves = struct.pack(f"<{n}e", *[min(t, HALF_MAX) for t in times])
    numbers = []
    orders = []
    for _, value in state.chance.log:
        if type(value) is tuple:
            orders.append(bytes(value))
        else:
            numbers.append(str(value))
    cards = b"".join(orders)
    head = "".join(
        (
            _head_start(state.game),
            _json_text(state.chance.seed),
            ',"numbers":[',
            ",".join(numbers),
            '],"cards":',
            str(len(cards)),
            ',"bots":',
            _bots(tuple(bots)),
            ',"faults":',
            json.dumps(faults, separators=(",", ":")) if faults else "[]",
            f',"decisions":{n},"index_type":"{typecode}"',
            "" if time_bank is None else f',"time_bank":{json.dumps(time_bank)}',
            "}",
        )
    ).encode()
    compressor = zlib.compressobj(1, zdict=ZDICT)  # level 1: a third of the time of 6, 5 % larger
    return (
        compressor.compress(
            b"".join(
                (
                    len(head).to_bytes(4, "little"),
                    head,
                    cards,
                    packed,
                    halves[1::2],
                    halves[0::2].translate(_LOW_MASK),
                )
            )
        )
        + compressor.flush()
    )


def _times_v2(high: bytes, low: bytes) -> list[float]:
    n = len(high)
    # A zero stays zero (a tiny time has low bits: it keeps its middle). Most stored times are
    # zeros, so the low bytes of the zeros are cleared at once: big ints as byte vectors, a
    # byte of ``nonzero`` 0xFF where the time's high or low byte is not zero.
    nonzero = (int.from_bytes(high) | int.from_bytes(low)).to_bytes(n).translate(_NONZERO)
    halves = bytearray(2 * n)
    halves[1::2] = high
    with_middle = int.from_bytes(low.translate(_WITH_MIDDLE)) & int.from_bytes(nonzero)
    halves[0::2] = with_middle.to_bytes(n)
    return list(struct.unpack(f"<{n}e", halves))


def _half_codes(high: bytes, low: bytes) -> array.array:
    """The stored decision times as 16-bit codes (``high << 8 | low``, the low byte as stored):
    a code names one time (``time_of_code``), so a writer can look its text up by the code."""
    halves = bytearray(2 * len(high))
    halves[1::2] = high
    halves[0::2] = low
    codes = array.array("H", halves)
    if sys.byteorder == "big":
        codes.byteswap()
    return codes


def time_of_code(code: int) -> float:
    """The decision time (seconds) a code of ``_half_codes`` names, as ``_times_v2`` reads it."""
    if not code:
        return 0.0
    return struct.unpack("<e", bytes(((code & 0xFF) | _LOW_MIDDLE, code >> 8)))[0]


def unpack(blob: bytes, codes: bool = False) -> tuple[dict, array.array, list[float]]:
    """Header, decision indices and decision times (seconds) of a compact record. ``codes``: the
    times of a format-2 record as the codes of ``_half_codes`` instead (an ``array``).

    Format 2: ``header["card_bytes"]`` holds the card orders (one byte a card, in draw order);
    format 1: ``header["chance"]`` lists ``[name, value]`` with card orders as hex strings.
    """
    try:
        # (A stream of format 1 does not ask for the dictionary and decompresses as before.)
        decompressor = zlib.decompressobj(zdict=ZDICT)
        body = decompressor.decompress(blob) + decompressor.flush()
        size = int.from_bytes(body[:4], "little")
        header = json.loads(body[4 : 4 + size])
        start = 4 + size
        version = header.get("v", 1)
        if version > COMPACT_VERSION:
            raise RecordError(
                f"stored record of format {version}: made by a newer arena (this one reads "
                f"{COMPACT_VERSION})"
            )
        if version >= 2:
            count = header["cards"]
            header["card_bytes"] = body[start : start + count]
            start += count
        n = header["decisions"]
        typecode = header.get("index_type", "B")
        if typecode not in ("B", "H", "I"):  # (unsigned: an index is never negative)
            raise ValueError(f"index type {typecode!r}")
        indices = array.array(typecode)
        end = start + n * indices.itemsize
        indices.frombytes(body[start:end])
        if version >= 2:
            high, low = body[end : end + n], body[end + n : end + 2 * n]
            if len(high) != n or len(low) != n or len(header["card_bytes"]) != count:
                raise ValueError("it ends early")
            times = _half_codes(high, low) if codes else _times_v2(high, low)
        else:
            units = array.array("H")
            units.frombytes(body[end : end + 2 * n])
            if len(units) != n:
                raise ValueError("it ends early")
            times = [u * TIME_UNIT for u in units]
            for i, seconds in header.get("slow", []):
                times[i] = seconds
    except RecordError:
        raise
    except (zlib.error, ValueError, KeyError, TypeError, IndexError, struct.error) as exc:
        raise RecordError(f"damaged stored record: {exc}") from None
    if len(indices) != n:
        raise RecordError("damaged stored record: it ends early")
    return header, indices, times


class _StoredChance(Chance):
    """Chance served from a format-2 record: numbers and card orders in the order the engine
    asks for them, each logged under the name the engine gives it (as ``Chance`` does)."""

    __slots__ = ("_numbers", "_cards", "_at", "_pack")

    def __init__(self, seed, numbers: Sequence[int], cards: bytes):
        super().__init__(seed)
        self._numbers = deque(numbers)
        self._cards = cards
        self._at = 0
        # the last tuple of cards shuffled, its cards sorted and whether they are all different
        self._pack = ((), (b"", True))

    def shuffled(self, key, cards):
        n = len(cards)
        at = self._at
        chunk = self._cards[at : at + n]
        if len(chunk) != n:
            raise RecordError(f"stored record: no card order for chance event {key!r}")
        self._at = at + n
        if cards is self._pack[0]:  # every deal shuffles the game's one tuple of its pack
            expected, distinct = self._pack[1]
        else:
            expected = bytes(sorted(cards))
            distinct = len(set(expected)) == n
            if type(cards) is tuple:
                self._pack = (cards, (expected, distinct))
        # (an order of the cards asked for: so every byte names a card). Of n different cards:
        # n bytes, each one of them, and each of them among the bytes.
        if (
            chunk.translate(None, expected) or expected.translate(None, chunk)
            if distinct
            else bytes(sorted(chunk)) != expected
        ):
            raise RecordError(f"stored record: chance event {key!r} is not an order of its cards")
        try:
            order = itemgetter(*chunk)(CARDS) if n > 1 else tuple([CARDS[b] for b in chunk])
        except IndexError:  # (cards that are not of CARDS)
            raise RecordError(f"stored record: no card order for chance event {key!r}") from None
        self.log.append((key, order))
        return list(order)

    def randrange(self, key, n):
        if not self._numbers:
            raise RecordError(f"stored record: no number for chance event {key!r}")
        value = self._numbers.popleft()
        if not isinstance(value, int) or not 0 <= value < n:
            raise RecordError(
                f"stored record: chance event {key!r}: {value!r} is not in 0..{n - 1}"
            )
        self.log.append((key, value))
        return value

    def copy(self) -> Chance:
        raise RecordError("a state replayed from a stored record cannot be copied")

    def drawn_cards(self) -> bytes:
        """The card orders served so far, one byte a card: those of the log, one after another
        (``arena.games.record_text`` writes their text from these)."""
        return self._cards[: self._at]

    def left_over(self) -> bool:
        return bool(self._numbers) or self._at != len(self._cards)


def _chance_events(compact: list) -> list[dict]:
    events = []
    for key, value in compact:
        if isinstance(value, str):
            value = [CARDS[b].ascii for b in bytes.fromhex(value)]
        events.append({"event": key, "value": value})
    return events


def replay_stored(
    blob: bytes, games: dict[str, type[Game]], made: dict | None = None, codes: bool = False
) -> tuple[State, dict, list[float]]:
    """The final state of a stored game, replayed through its engine, with the record's header
    and decision times (seconds; with ``codes``, as ``unpack`` gives them): ``expand`` without
    building the record, for a caller that writes it another way (``arena.games.record_text``).
    ``made``: a dict in which to keep the game objects made, for a caller replaying many records
    (a game object is never changed)."""
    header, indices, times = unpack(blob, codes)
    try:
        game = _game(header, games, made)
    except KeyError:
        raise RecordError(
            f"the stored record names an unknown game {header.get('game')!r}"
        ) from None
    if header.get("v", 1) >= 2:
        chance = _StoredChance(header["seed"], header["numbers"], header["card_bytes"])
        state = game.state_class(game, chance)
    else:
        state = game.replay_state(_chance_events(header["chance"]))
        state.chance.seed = header["seed"]
    # an engine may offer a cheaper apply_legal for replays (How Low: ``apply_stored``)
    apply = getattr(state, "apply_stored", None) or state.apply_legal
    # or all of them in one call (Twenty Down: ``apply_stored_all``), with the same errors
    apply_all = getattr(state, "apply_stored_all", None)
    try:
        # every engine's apply_legal reads legal_actions()[index] before it changes anything
        if apply_all is not None:
            apply_all(indices)
        else:
            deque(map(apply, indices), 0)  # (each in turn, without a Python loop)
    except IndexError:
        number = len(state.history) + 1
        index = indices[number - 1]
        if index < len(state.legal_actions()):
            raise
        raise RecordError(f"stored record: decision {number} has no action {index}") from None
    if isinstance(state.chance, _StoredChance) and state.chance.left_over():
        raise RecordError("stored record: chance data left over after the last decision")
    return state, header, times


def _game(header: dict, games: dict[str, type[Game]], made: dict | None) -> Game:
    if made is None:
        return games[header["game"]](
            players=header["players"], variant=header["variant"], **header["params"]
        )
    params = header["params"]
    try:
        key = (header["game"], header["players"], header["variant"], *params, *params.values())
        game = made.get(key)
    except (TypeError, AttributeError):  # (not a game's header: as without ``made``)
        return _game(header, games, None)
    if game is None:
        game = made[key] = _game(header, games, None)
    return game


def decision_ms(seconds: float) -> float:
    """A decision time as a record states it."""
    return round(seconds * 1000, 3)


def expand(blob: bytes, games: dict[str, type[Game]]) -> dict:
    """The full self-contained record of a stored game (see docs/records.md)."""
    state, header, times = replay_stored(blob, games)
    record = state.record()
    record["bots"] = header["bots"]
    record["faults"] = header["faults"]
    record["decision_ms"] = [decision_ms(t) for t in times]
    if "time_bank" in header:
        record["time_bank"] = header["time_bank"]
    return record
