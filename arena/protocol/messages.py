"""The messages of the JSON-lines protocol (``docs/protocol.md``), built and checked in one place.

Arena writes ``hello``, ``start``, ``act`` and ``end``; a program writes ``hello`` once and one
``action`` (or ``error``) for every ``act``. Each message is one JSON object on one line. The
referee's side (``execution.process.program_bot``), the Python client (``arena.protocol``), the
conformance test (``arena check-bot``) and the documentation's examples all use these functions.
"""

from __future__ import annotations

import json
from typing import Any

from arena.games.base import to_plain

PROTOCOL_VERSION = 1
MAX_LINE = 1 << 20  # bytes of one line a program may write (its answer, its hello)
ARENA_TYPES = ("hello", "start", "act", "end")
PROGRAM_TYPES = ("hello", "action", "error")


class ProtocolError(ValueError):
    """A line that is not a message of the protocol; the message says what is wrong."""


def dumps(message: dict) -> bytes:
    """One message as the line written on the pipe."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


def time_left(move: float, bank: float | None = None) -> dict:
    """The ``time`` of a request: seconds for this move, seconds left in the bank (``None``
    unless the run uses ``--time-bank``)."""
    return {"move": move, "bank": bank}


def hello() -> dict:
    return {"type": "hello", "protocol": PROTOCOL_VERSION}


def start(key: int, info: Any, seed: str, time: dict) -> dict:
    """The start of a game for one seat (``info``: the referee's ``GameInfo``), named ``key``
    in the messages of that game."""
    return {
        "type": "start",
        "id": key,
        "game": info.game,
        "seat": info.seat,
        "players": info.players,
        "variant": info.variant,
        "params": dict(info.params),
        "seed": seed,
        "time": time,
    }


def act(
    key: int, observation: dict, time: dict, request: int | None = None, count: int | None = None
) -> dict:
    """A request to act: ``observation`` as ``Observation.to_json()`` gives it (its
    ``legal_actions`` are the legal actions, in record notation); ``request`` the request's
    number, new for every request a program is sent (its answer may repeat it); ``count``, in
    the compact form only, the number of legal actions (the observation then holds only the
    fields the program asked for)."""
    head = (
        {"type": "act", "id": key}
        if request is None
        else {"type": "act", "id": key, "request": request}
    )
    if count is not None:
        head["count"] = count
    return {**head, "observation": observation, "time": time}


def only_fields(observation: dict, fields: frozenset | None) -> dict:
    """The observation of a request in the compact form: the fields asked for, in order."""
    if fields is None:
        return observation
    return {name: value for name, value in observation.items() if name in fields}


def end(key: int, result: Any) -> dict:
    """The end of a game: the engine's scores and ranks (``GameResult``)."""
    return {"type": "end", "id": key, **result.to_json()}


def parse_line(line: bytes) -> dict:
    """A program's line as a message -> the object; ProtocolError if it is not one."""
    if len(line) > MAX_LINE:
        raise ProtocolError(f"a line of {len(line)} bytes (at most {MAX_LINE})")
    try:
        message = json.loads(line)
    except (ValueError, UnicodeDecodeError, RecursionError, MemoryError):
        # (a line of brackets nested thousands deep is a RecursionError of the parser)
        raise ProtocolError(f"not JSON: {_excerpt(line)}") from None
    if not isinstance(message, dict):
        raise ProtocolError(f"not a JSON object: {_excerpt(line)}")
    kind = message.get("type")
    if kind not in PROGRAM_TYPES:
        raise ProtocolError(f"unknown message type {kind!r} (expected one of {PROGRAM_TYPES})")
    return message


def _excerpt(line: bytes) -> str:
    text = line[:60].decode("utf-8", errors="replace").strip()
    return repr(text + ("..." if len(line) > 60 else ""))


def check_hello(message: dict) -> list[str]:
    """What is wrong with a program's ``hello`` (empty: nothing)."""
    problems = []
    if message.get("type") != "hello":
        return [f"expected a hello, got {message.get('type')!r}"]
    if message.get("protocol") != PROTOCOL_VERSION:
        problems.append(f"protocol {message.get('protocol')!r}: arena speaks {PROTOCOL_VERSION}")
    if not isinstance(message.get("name"), str) or not message["name"]:
        problems.append("hello has no name (a non-empty string)")
    games = message.get("games")
    if not (isinstance(games, list) and all(isinstance(g, str) for g in games)):
        problems.append("hello's games is not a list of game names")
    if "fields" in message and fields_wanted(message) is None:
        problems.append("hello's fields is not a list of observation field names")
    return problems


def fields_wanted(hello: dict) -> frozenset | None:
    """The observation fields a program's hello asks for (the compact form), None if it asks
    for the whole observation (or its ``fields`` is not a list of names)."""
    fields = hello.get("fields")
    if isinstance(fields, list) and all(isinstance(f, str) for f in fields):
        return frozenset(fields)
    return None


def answer_for(message: dict, key: int, request: int | None = None) -> None:
    """ProtocolError if an answer names another ``request`` (or game ``id``) than the one it
    answers: a line written in surplus, read while the next answer was awaited. An answer need
    not name them: arena then relies on the order alone (programs written before answers could
    name their request are not caught writing a surplus line that looks like an answer)."""
    for name, expected in (("request", request), ("id", key)):
        if name in message and expected is not None and message[name] != expected:
            found = repr(message[name])[:30]
            raise ProtocolError(
                f"an answer to {name} {found} where {name} {expected} was asked (a message"
                " nobody asked for)"
            )


def action_index(message: dict, legal_json: list) -> int:
    """The index in ``legal_json`` (the legal actions in record notation) of the action an
    ``action`` message names, by the action (a set of cards may come in any order) or by its
    ``index``. ValueError if it names none; ProtocolError if the message is not an action."""
    if message.get("type") != "action" or ("action" in message) == ("index" in message):
        if message.get("type") == "action":
            raise ProtocolError("an action naming neither an action nor an index, or both")
        raise ProtocolError(f"expected an action, got {message.get('type')!r}")
    if "index" in message:
        return index_named(message["index"], len(legal_json))
    value = message["action"]
    try:
        return legal_json.index(value)
    except ValueError:
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            key = sorted(value)
            for index, legal in enumerate(legal_json):
                if isinstance(legal, list) and sorted(legal) == key:
                    return index
        raise


def index_named(index: Any, count: int) -> int:
    """An answer's ``index`` if it is one of ``count`` legal actions', else ValueError."""
    if type(index) is not int or not 0 <= index < count:
        raise ValueError(f"index {index!r} of {count} legal actions")
    return index


def named(message: dict) -> Any:
    """What an answer named: its action, or its index (as the text ``index N``)."""
    if "index" in message:
        return f"index {message['index']!r}"[:40]
    return message.get("action")


def legal_json(observation: Any) -> list:
    return [to_plain(action) for action in observation.legal_actions]


def check_arena_message(message: dict) -> list[str]:
    """What is wrong with a message arena writes (for the documentation's examples)."""
    kind = message.get("type")
    required = {
        "hello": ("protocol",),
        "start": ("id", "game", "seat", "players", "variant", "params", "seed", "time"),
        "act": ("id", "observation", "time"),
        "end": ("id", "scores", "ranks", "better"),
    }.get(kind)
    if required is None:
        return [f"unknown type {kind!r}"]
    problems = [f"{kind}: no {key!r}" for key in required if key not in message]
    if "time" in message and set(message["time"]) != {"move", "bank"}:
        problems.append(f"{kind}: time must have move and bank")
    if kind == "act" and "count" in message:  # the compact form: the fields asked for
        if type(message["count"]) is not int or message["count"] < 1:
            problems.append("act: count must be the number of legal actions")
    elif kind == "act":
        observation = message["observation"]
        for key in ("game", "seat", "legal_actions"):
            if key not in observation:
                problems.append(f"act: the observation has no {key!r}")
    return problems
