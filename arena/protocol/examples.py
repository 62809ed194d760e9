"""The examples of ``docs/protocol.md``: every message of both games, from real seeded games.

``python -m arena.protocol.examples --write docs/protocol.md`` fills each block marked
``<!-- example: NAME -->`` in the document with the example ``NAME``; ``tests/test_protocol.py``
checks that the document's blocks are these very messages, and that each is valid.
"""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path

from arena.bot import seat_seed
from arena.games.base import to_plain
from arena.plugins.loading import load_games
from arena.protocol import messages
from arena.referee.outcome import GameInfo

MARKER = re.compile(r"<!-- example: ([a-z0-9-]+) -->\n```json\n(.*?)```", re.S)
# (game, variant, the example's name prefix, the phases shown: (field value, name))
GAMES = (
    ("twenty-down", None, "td", ("trump", "exchange", "play")),
    ("twenty-down", "brostedt", "td-brostedt", ("stay-or-drop",)),
    ("how-low-can-you-go", None, "hl", ("exchange",)),
    ("how-low-can-you-go", "whalen", "hl-whalen", ("redraw",)),
)


# The compact form's examples: a program asking for its hand and nothing else.
COMPACT = ("hl-compact-act-exchange", "td-compact-act-play")
COMPACT_FIELDS = frozenset({"hand"})


def _phase(observation: dict) -> str:
    if "phase" in observation:
        return observation["phase"]
    return "redraw" if "redraw" in observation["legal_actions"] else "exchange"


def _game_examples(game_name: str, variant, prefix: str, phases, found: dict) -> None:
    registry = load_games(entry_points=False)
    game = registry.games[game_name].cls(variant=variant)
    seed = f"protocol-example/{game_name}/{variant}"
    state = game.new_state(seed)
    chooser = random.Random(seed)
    seat = 0
    time = messages.time_left(1.0)
    info = GameInfo(game.name, seat, game.players, game.variant, dict(game.params), 1.0)
    found[f"{prefix}-start"] = messages.start(1, info, seat_seed(seed, seat), time)
    wanted = list(phases)
    asked = 0  # the seat's requests so far: its program's first game
    while (player := state.current_player()) >= 0:
        legal = state.legal_actions()
        index = chooser.randrange(len(legal))
        asked += player == seat
        if player == seat and wanted:
            observation = state.observation(player).to_json()
            phase = _phase(observation)
            # a play with a trick in progress shows more than a lead
            if phase in wanted and (phase != "play" or observation.get("current_trick")):
                wanted.remove(phase)
                found[f"{prefix}-act-{phase}"] = messages.act(1, observation, time, asked)
                found[f"{prefix}-action-{phase}"] = {
                    "type": "action", "request": asked, "action": to_plain(legal[index])
                }  # fmt: skip
                if f"{prefix}-compact-act-{phase}" in COMPACT:  # the same, in the compact form
                    shown = messages.only_fields(observation, COMPACT_FIELDS)
                    found[f"{prefix}-compact-act-{phase}"] = messages.act(
                        1, shown, time, asked, len(legal)
                    )
                    found[f"{prefix}-compact-action-{phase}"] = {
                        "type": "action", "request": asked, "index": index
                    }  # fmt: skip
        state.apply_legal(index)
    found[f"{prefix}-end"] = messages.end(1, state.result())


def examples() -> dict[str, dict]:
    found: dict[str, dict] = {
        "arena-hello": {**messages.hello(), "settings": {"depth": 2}},
        "bot-hello": {
            "type": "hello",
            "protocol": messages.PROTOCOL_VERSION,
            "name": "heuristic-js",
            "games": ["twenty-down", "how-low-can-you-go"],
        },
        "bot-error": {"type": "error", "request": 7, "message": "TypeError: hand is undefined"},
        "bot-hello-compact": {
            "type": "hello",
            "protocol": messages.PROTOCOL_VERSION,
            "name": "random-js",
            "games": ["twenty-down", "how-low-can-you-go"],
            "fields": sorted(COMPACT_FIELDS),
        },
    }
    for game_name, variant, prefix, phases in GAMES:
        _game_examples(game_name, variant, prefix, phases, found)
    return found


def render(message: dict) -> str:
    """An example as the document shows it: one line when short, else a key a line (and the
    observation's fields a line each); on the pipe, every message is one line."""
    line = json.dumps(message)
    if len(line) <= 100:
        return line
    rows = []
    for key, value in message.items():
        if isinstance(value, dict) and len(json.dumps(value)) > 80:
            inner = [f"    {json.dumps(k)}: {json.dumps(v)}" for k, v in value.items()]
            rows.append(f"  {json.dumps(key)}: {{\n" + ",\n".join(inner) + "\n  }")
        else:
            rows.append(f"  {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(rows) + "\n}"


def fill(text: str, found: dict[str, dict]) -> str:
    def block(match: re.Match) -> str:
        name = match.group(1)
        return f"<!-- example: {name} -->\n```json\n{render(found[name])}\n```"

    return MARKER.sub(block, text)


def main(argv: list[str]) -> None:
    found = examples()
    if len(argv) == 2 and argv[0] == "--write":
        path = Path(argv[1])
        path.write_text(fill(path.read_text(), found))
        return
    for name, message in found.items():
        print(f"<!-- example: {name} -->\n```json\n{render(message)}\n```\n")


if __name__ == "__main__":
    main(sys.argv[1:])
