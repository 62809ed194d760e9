"""Tournament files: a TOML description of a run, checked key by key (every key is listed in the
README, "Tournament files").

```toml
games = 500               # games of each game
seed = "spring-cup"
move_time = 1.0           # seconds per decision
time_bank = 10.0          # optional: each seat's seconds past move_time over a game
max_faults = 3
jobs = 2                  # optional; default: the number of cores
db = "../leaderboard/spring.db"   # optional; paths are relative to this file
bots_dir = ["../bots", "../ladder"]  # optional; default ./bots
records = true
pairing = "random"        # optional: round-robin, random, gauntlet, swiss, matchmaking
gauntlet = ["my-bot"]     # the bots under test of pairing = "gauntlet"
backend = "ray"           # optional: local (default) or ray (docs/cluster.md)
ray_address = "auto"      # optional, with ray: the cluster to join; default: a local instance

[game.twenty-down]        # leave out every [game.*] table to play every game
bots = ["random", "td-heuristic"]
beta = 4.17               # TrueSkill environment, optional
draw_probability = 0.02

[game.how-low-can-you-go]
players = 5
variant = "whalen"        # optional
params = { max_deals = 30 }
```
"""

from __future__ import annotations

import difflib
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class TournamentFileError(Exception):
    """A tournament file that cannot be used; the message is one line naming the file."""


TOP_KEYS: dict[str, tuple[type, ...]] = {
    "games": (int,),
    "seed": (int, str),
    "move_time": (int, float),
    "time_bank": (int, float),
    "max_faults": (int,),
    "jobs": (int,),
    "db": (str,),
    "records": (bool,),
    "duplicate": (bool,),
    "isolation": (str,),
    "backend": (str,),
    "ray_address": (str,),
    "bot_memory": (int,),
    "bot_cpu": (int,),
    "bots_dir": (str, list),
    "bots": (list,),
    "pairing": (str,),
    "gauntlet": (list,),
    "game": (dict,),
}
GAME_KEYS: dict[str, tuple[type, ...]] = {
    "bots": (list,),
    "pairing": (str,),
    "gauntlet": (list,),
    "players": (int,),
    "variant": (str,),
    "params": (dict,),
    "mu": (int, float),
    "sigma": (int, float),
    "beta": (int, float),
    "tau": (int, float),
    "draw_probability": (int, float),
}
ENVIRONMENT_KEYS = ("mu", "sigma", "beta", "tau", "draw_probability")
# A game parameter beyond this is a slip (and its scores would not fit the database's integers).
MAX_PARAM = 10**9
TYPE_NAMES = {
    int: "a whole number",
    float: "a number",
    str: "a string",
    bool: "true or false",
    list: "a list",
    dict: "a table",
}


@dataclass
class GameSection:
    name: str
    bots: list[str] | None = None
    players: int | None = None
    variant: str | None = None
    params: dict[str, int] = field(default_factory=dict)
    environment: dict[str, float] = field(default_factory=dict)
    pairing: str | None = None
    gauntlet: list[str] | None = None


@dataclass
class TournamentFile:
    path: Path
    settings: dict[str, Any]
    sections: list[GameSection]  # its [game.NAME] tables


def _check(path: Path, where: str, table: dict, allowed: dict[str, tuple[type, ...]]) -> None:
    for key, value in table.items():
        if key not in allowed:
            close = difflib.get_close_matches(key, list(allowed), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise TournamentFileError(f"{path}: unknown key {where}{key!r}{hint}")
        types = allowed[key]
        ok = isinstance(value, types) and not (isinstance(value, bool) and bool not in types)
        if not ok:
            wanted = " or ".join(TYPE_NAMES[t] for t in types)
            raise TournamentFileError(f"{path}: {where}{key} must be {wanted}, not {value!r}")


def _string_list(path: Path, where: str, value: list, key: str = "bots") -> list[str]:
    if not all(isinstance(v, str) for v in value):
        raise TournamentFileError(f"{path}: {where}{key} must be a list of bot names")
    return list(value)


def load_tournament_file(path: str | Path) -> TournamentFile:
    """The file's settings (top-level keys) and game sections, each key checked; raises
    ``TournamentFileError``."""
    path = Path(path)
    data = _read(path)
    _check(path, "", data, TOP_KEYS)
    settings = _settings(path, {k: v for k, v in data.items() if k != "game"})
    sections = [_section(path, name, table) for name, table in data.get("game", {}).items()]
    return TournamentFile(path, settings, sections)


def _read(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TournamentFileError(f"{path}: no such tournament file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise TournamentFileError(f"{path}: cannot read it ({exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise TournamentFileError(f"{path}: not valid TOML: {exc}") from None


def _settings(path: Path, settings: dict[str, Any]) -> dict[str, Any]:
    for key in ("bots", "gauntlet"):
        if key in settings:
            settings[key] = _string_list(path, "", settings[key], key)
    if isinstance(settings.get("bots_dir"), list) and not all(
        isinstance(d, str) for d in settings["bots_dir"]
    ):
        raise TournamentFileError(f"{path}: bots_dir must be a folder or a list of folders")
    if settings.get("bots_dir") == []:
        raise TournamentFileError(f"{path}: bots_dir names no folder; leave it out for ./bots")
    # Paths in the file are relative to the file, wherever arena is run from.
    if "db" in settings:
        settings["db"] = _beside(path, settings["db"])
    if isinstance(settings.get("bots_dir"), str):
        settings["bots_dir"] = _beside(path, settings["bots_dir"])
    elif "bots_dir" in settings:
        settings["bots_dir"] = [_beside(path, folder) for folder in settings["bots_dir"]]
    return settings


def _beside(path: Path, value: str) -> str:
    """A path written in the tournament file ``path``, as seen from the current directory."""
    return os.path.normpath(path.parent / Path(value).expanduser())


def _section(path: Path, name: str, table) -> GameSection:
    where = f"game.{name}."
    if not isinstance(table, dict):
        raise TournamentFileError(f"{path}: [game.{name}] must be a table")
    _check(path, where, table, GAME_KEYS)
    params = table.get("params", {})
    for key, value in params.items():
        if isinstance(value, bool) or not isinstance(value, int):
            raise TournamentFileError(
                f"{path}: {where}params.{key} must be a whole number, not {value!r}"
            )
        if abs(value) > MAX_PARAM:
            raise TournamentFileError(
                f"{path}: {where}params.{key} must be a whole number between {-MAX_PARAM} "
                f"and {MAX_PARAM}, not {value}"
            )
    return GameSection(
        name=name,
        bots=_string_list(path, where, table["bots"]) if "bots" in table else None,
        players=table.get("players"),
        variant=table.get("variant"),
        params=dict(params),
        environment={k: float(table[k]) for k in ENVIRONMENT_KEYS if k in table},
        pairing=table.get("pairing"),
        gauntlet=(
            _string_list(path, where, table["gauntlet"], "gauntlet")
            if "gauntlet" in table
            else None
        ),
    )
