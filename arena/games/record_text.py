"""The JSON text of a game record, written from a finished state without the nested dicts.

``RecordText.text(state, extra)`` is ``json.dumps(record, ensure_ascii=False)`` of the record
``arena.games.record.expand`` returns (``state.record()`` plus ``extra``: the bots, the faults,
the decision times), the same characters, made from string pieces: the start of the record a
game's facts give is made once per game, every card's and every ``(seat, action)``'s text is
made once and looked up after that, and a chance event's card order is one ``join``. A record
holds about 200 actions and 500 dealt cards, so this is most of what ``arena export`` saved by
not dumping dicts (docs/research.md). Anything not of the common shapes (an action of another
type, a chance value that is neither a card order nor a number) goes through ``json.dumps``.
"""

from __future__ import annotations

import json
from array import array
from json.encoder import encode_basestring  # (json.dumps of a str, ensure_ascii=False)

from arena.cards import ASCII_NAMES, Card
from arena.games.base import RECORD_FORMAT, Game, GameResult, State, to_plain
from arena.games.record import decision_ms, time_of_code

_CARD_TEXT: tuple[str, ...] = tuple(f'"{name}"' for name in ASCII_NAMES)
# A card order's text is ``"XY", `` a card: made with C-level byte slices (``_order``).
assert all(len(name) == 2 and name.isascii() for name in ASCII_NAMES)
_RANK_BYTES = bytes.maketrans(bytes(range(len(ASCII_NAMES))), "".join(ASCII_NAMES)[::2].encode())
_SUIT_BYTES = bytes.maketrans(bytes(range(len(ASCII_NAMES))), "".join(ASCII_NAMES)[1::2].encode())


def _names(raw: bytes) -> str:
    """``'"XY", '`` for each card of ``raw`` (card numbers), one after another."""
    out = bytearray(b'"XY", ' * len(raw))
    out[1::6] = raw.translate(_RANK_BYTES)
    out[2::6] = raw.translate(_SUIT_BYTES)
    return out.decode()


# How Low's discards are 23,478 sets of cards (at each seat): the texts kept stop at this many.
_MAX_TEXTS = 200_000


def _order(cards) -> str:
    """``json.dumps([card.ascii for card in cards])``: ``cards`` are ``Card``s."""
    return f"[{_names(bytes(cards))[:-2]}]"


def _dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False)


class RecordText:
    """Writes records as JSON text; keeps the texts it made (use one per export, any games)."""

    def __init__(self) -> None:
        self._starts: dict[tuple, str] = {}
        self._events: dict[str, str] = {}
        # game name -> the texts of actions (``_tables``)
        self._action_tables: dict[str, tuple[list[list[str]], list[str], dict, list[dict]]] = {}
        self._bots: dict[tuple, str] = {}
        self._times = _TimeTexts()
        self._codes = _CodeTexts()
        self.games_made: dict = {}  # ``replay_stored``'s game objects, for an export's records

    def _start(self, game: Game) -> str:
        """``'{"format": ..., "params": {...}, "seed": '``: the same for every game of ``game``."""
        key = (game.name, game.players, game.variant, tuple(game.params.items()))
        start = self._starts.get(key)
        if start is None:
            text = _dumps({"format": RECORD_FORMAT, **game.to_json()})
            start = self._starts[key] = f'{text[:-1]}, "seed": '
        return start

    def _chance(self, chance) -> str:
        """The chance log's text. A record replayed from storage (``drawn_cards``) has every card
        order's bytes in one string, in log order: their texts are slices of one translation."""
        drawn = getattr(chance, "drawn_cards", None)
        if drawn is not None:
            text = self._chance_text(chance.log, _names(drawn()))
            if text is not None:
                return text
        return self._chance_text(chance.log, None)

    def _chance_text(self, log: list, names: str | None) -> str | None:
        """The text of ``log``, its card orders sliced from ``names`` (None: if the orders are
        not those names, one after another), or made one by one (``names`` None)."""
        events = self._events
        parts = []
        at = 0
        for key, value in log:
            head = events.get(key)
            if head is None:
                head = events[key] = f'{{"event": {_dumps(key)}, "value": '
            kind = type(value)
            # (a tuple is a card order, as Chance.shuffled logs one: its first card tells)
            if kind is tuple and value and type(value[0]) is Card:
                if names is None:
                    parts.append(f"{head}{_order(value)}}}")
                else:
                    end = at + 6 * len(value)
                    parts.append(f"{head}[{names[at : end - 2]}]}}")
                    at = end
            elif kind is int:
                parts.append(f"{head}{value}}}")
            else:
                parts.append(f"{head}{_dumps(to_plain(value))}}}")
        if names is not None and at != len(names):
            return None
        return f"[{', '.join(parts)}]"

    def _tables(self, game: Game) -> tuple[list[list[str]], list[str], dict, list[dict]]:
        """Per seat the texts of playing each card (by the card's number) and the start of any
        other action, ``'[seat, '``; the texts of the other actions (one game's are of one
        shape: a Twenty Down trump is a Suit, which can equal a card's number); and per seat
        the texts of its moves of other actions seen so far."""
        tables = self._action_tables.get(game.name)
        if tables is None:
            tables = self._action_tables[game.name] = ([], [], {}, [])
        cards, seats, _, moves = tables
        while len(cards) < game.players:
            seats.append(f"[{len(cards)}, ")
            cards.append([f"{seats[-1]}{text}]" for text in _CARD_TEXT])
            moves.append({})
        return tables

    def _actions(self, history: list, game: Game) -> str:
        cards, seats, known, moves = self._tables(game)

        def other(seat: int, action) -> str:
            try:
                text = known.get(action)
            except TypeError:  # an unhashable action: dumped every time
                return _dumps([seat, to_plain(action)])
            if text is None:
                if type(action) is tuple and all(type(c) is Card for c in action):
                    text = _order(action)
                else:
                    text = _dumps(to_plain(action))
                if len(known) < _MAX_TEXTS:
                    known[action] = text
            move = f"{seats[seat]}{text}]"
            if len(moves[seat]) < _MAX_TEXTS:
                moves[seat][action] = move
            return move

        try:  # (a move seen before at its seat: looked up without a call)
            parts = [
                cards[s][a] if type(a) is Card else moves[s].get(a) or other(s, a)
                for s, a in history
            ]
        except TypeError:  # an unhashable action
            parts = [cards[s][a] if type(a) is Card else other(s, a) for s, a in history]
        return f"[{', '.join(parts)}]"

    def _bots_text(self, bots) -> str:
        key = tuple(bots)
        text = self._bots.get(key)
        if text is None:
            text = self._bots[key] = _dumps(list(bots))
        return text

    def text(self, state: State, header: dict, times: list[float]) -> str:
        """``json.dumps(record, ensure_ascii=False)`` of the record ``arena.games.record.expand``
        makes of ``replay_stored``'s ``state, header, times``."""
        parts = [
            self._start(state.game),
            _seed_text(state.chance.seed),
            ', "chance": ',
            self._chance(state.chance),
            ', "actions": ',
            self._actions(state.history, state.game),
        ]
        if state.is_terminal():
            parts += ', "result": ', _result(state.result())
        parts += (
            ', "bots": ',
            self._bots_text(header["bots"]),
            ', "faults": ',
            _dumps(header["faults"]) if header["faults"] else "[]",
            ', "decision_ms": [',
            ", ".join(
                map((self._codes if type(times) is array else self._times).__getitem__, times)
            ),
            "]",
        )
        if "time_bank" in header:
            parts += ', "time_bank": ', _dumps(header["time_bank"])
        parts.append("}")
        return "".join(parts)


def _seed_text(seed) -> str:
    return encode_basestring(seed) if type(seed) is str else _dumps(seed)


def _result(result) -> str:
    """``json.dumps(result.to_json(), ensure_ascii=False)``, written out for int scores (a
    plugin game's own kind of result may write more: its ``to_json`` is asked)."""
    if type(result) is not GameResult:
        return _dumps(result.to_json())
    scores, ranks = result.scores, result.ranks
    if set(map(type, (*scores, *ranks))) - {int} or type(result.better) is not str:
        return _dumps(result.to_json())
    return (
        f'{{"scores": [{", ".join(map(str, scores))}], "ranks": [{", ".join(map(str, ranks))}], '
        f'"better": {encode_basestring(result.better)}}}'
    )


class _TimeTexts(dict):
    """A decision time in seconds -> its text in a record: half floats, so a few hundred."""

    def __missing__(self, seconds: float) -> str:
        text = self[seconds] = _dumps(decision_ms(seconds))
        return text


class _CodeTexts(dict):
    """A stored time's code (``arena.games.record.unpack(codes=True)``) -> its text in a record."""

    def __missing__(self, code: int) -> str:
        text = self[code] = _dumps(decision_ms(time_of_code(code)))
        return text
