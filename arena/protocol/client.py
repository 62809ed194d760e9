"""A Python bot as a program of the protocol: reads arena's lines on stdin, answers on stdout.

The bot is an ``arena.Bot`` class, made once for each game (``start``), asked ``act`` with the
observation rebuilt from its JSON (the game's own class when it has a ``from_json``; otherwise an
object with the same fields: cards as ``arena.Card``, suits as ``Suit``, sets of cards as tuples,
objects as attribute namespaces), its answer written back in record notation.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any, BinaryIO

from arena.cards import CardError, parse_card, parse_suit
from arena.games.base import GameResult, to_plain
from arena.protocol import messages
from arena.referee.outcome import GameInfo

_SUIT_LETTERS = frozenset("CSHD")


def _value(value: Any) -> Any:
    if isinstance(value, str):
        try:
            if len(value) == 2:
                return parse_card(value)
            if value in _SUIT_LETTERS:
                return parse_suit(value)
        except CardError:
            pass
        return value
    if isinstance(value, list):
        return tuple(_value(v) for v in value)
    if isinstance(value, dict):
        return SimpleNamespace(**{k: _value(v) for k, v in value.items()})
    return value


class JsonObservation(SimpleNamespace):
    """An observation rebuilt from its JSON, for a game whose class has no ``from_json``."""


def observation_from_json(data: dict, classes: dict) -> Any:
    cls = classes.get(data.get("game"))
    if cls is not None:
        return cls.from_json(data)
    fields = {key: _value(value) for key, value in data.items() if key != "legal_actions"}
    fields["game"], fields["seat"] = data["game"], data["seat"]
    return JsonObservation(**fields, legal_actions=[_value(a) for a in data["legal_actions"]])


def _from_json_classes() -> dict:
    """The observation classes that rebuild themselves from JSON, by game name."""
    from arena.games.how_low.rules import HowLowObservation

    return {"how-low-can-you-go": HowLowObservation}


def serve(bot_class: type, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
    """Play as ``bot_class`` over the protocol until arena closes the input."""
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout.buffer
    real_stdout = stdout
    sys.stdout = sys.stderr  # the bot's prints must not reach arena as messages
    classes = _from_json_classes()
    bots: dict[int, Any] = {}
    settings: dict = {}

    def send(message: dict) -> None:
        real_stdout.write(messages.dumps(message))
        real_stdout.flush()

    for line in stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            settings = message.get("settings") or {}
            games = getattr(bot_class, "games", None)
            send({
                **messages.hello(),
                "name": getattr(bot_class, "name", "") or bot_class.__name__,
                "games": sorted(games) if games is not None else _every_game(),
            })  # fmt: skip
        elif kind == "start":
            bot = bots[message["id"]] = bot_class(**settings)
            bot._arena_seed = message["seed"]
            if getattr(type(bot), "start", None) is not None:
                move = message["time"]["move"]
                bot.start(GameInfo(message["game"], message["seat"], message["players"],
                                   message["variant"], message["params"], move))  # fmt: skip
        elif kind == "act":
            answer = _answer(bots.get(message["id"]), message["observation"], classes)
            if "request" in message:  # (named, a surplus line is told from an answer)
                answer["request"] = message["request"]
            send(answer)
        elif kind == "end":
            bot = bots.pop(message["id"], None)
            if bot is not None and getattr(type(bot), "end", None) is not None:
                bot.end(GameResult(tuple(message["scores"]), tuple(message["ranks"]),
                                   message["better"]))  # fmt: skip


def _every_game() -> list[str]:
    from arena.plugins.loading import load_games

    return sorted(load_games(entry_points=False).games)


def _answer(bot: Any, data: dict, classes: dict) -> dict:
    if bot is None:
        return {"type": "error", "message": "act for a game that was not started"}
    try:
        return {"type": "action", "action": to_plain(bot.act(observation_from_json(data, classes)))}
    except Exception as exc:  # the bot's own error: arena records an exception fault
        return {"type": "error", "message": f"{type(exc).__name__}: {exc}"[:200]}


def load_class(target: str) -> type:
    """``path/to/bot.py:ClassName`` (or ``package.module:ClassName``) -> the class."""
    where, _, name = target.rpartition(":")
    if not where or not name:
        raise SystemExit(f"arena.protocol: expected FILE.py:ClassName, not {target!r}")
    if where.endswith(".py"):
        path = Path(where)
        spec = importlib.util.spec_from_file_location(f"arena_program_{path.stem}", path)
        if spec is None or spec.loader is None:
            raise SystemExit(f"arena.protocol: cannot import {where}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module(where)
    try:
        return getattr(module, name)
    except AttributeError:
        raise SystemExit(f"arena.protocol: {where} has no {name}") from None


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        raise SystemExit("usage: python -m arena.protocol path/to/bot.py:ClassName")
    serve(load_class(argv[0]))
