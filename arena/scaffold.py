"""``arena new-bot NAME --game GAME``: write a commented bot file into ``bots/`` that runs at once.

``arena new-bot`` (``arena.cli``) only parses its options and calls ``write_bot_file``, which
checks everything first and writes nothing on an error: the name (lowercase
letters, digits and dashes, starting with a letter; not a bot that is already registered), the
game (a registered game name or alias: ``twenty-down``, ``td``, ``how-low-can-you-go``, ``hl``,
or a game an installed plugin adds) and the file (``bots/NAME.py`` with dashes as underscores,
which must not exist yet). Each problem is a ``ScaffoldError`` (a ``ValueError``) whose message
is one line.

The file is the game's ``bot_template`` (``Game.bot_template``; each bundled game's folder holds
one): one bot class for the game with a simple, legal strategy, comments on every field of the
game's observation it reads, and the hook that registers it. A game without a template of its own
gets ``GENERIC``, a bot that plays a random legal action.
"""

from __future__ import annotations

import keyword
import re
from pathlib import Path

from arena.plugins.names import name_problem

NAME_PATTERN = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
MAX_NAME_LENGTH = 40


class ScaffoldError(ValueError):
    """A bot file that cannot be written; the message is one line."""


def _class_name(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("-")) + "Bot"


def _check_name(name: str) -> None:
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise ScaffoldError(
            f"bad bot name {name!r}: use lowercase letters, digits and dashes, starting with a "
            "letter (for example my-bot)"
        )
    if len(name) > MAX_NAME_LENGTH:
        raise ScaffoldError(f"bad bot name {name!r}: at most {MAX_NAME_LENGTH} characters")
    if keyword.iskeyword(name.replace("-", "_")):
        raise ScaffoldError(f"bad bot name {name!r}: it is a Python keyword")
    problem = name_problem(name)
    if problem is not None:
        raise ScaffoldError(problem)


def write_bot_file(
    name: str, game: str, bots_dir: Path, registry=None, package: bool = False
) -> Path:
    """Write ``bots_dir/NAME.py`` (dashes become underscores) and return its path; ``package``:
    a bot package instead, ``bots_dir/NAME/`` with ``__init__.py`` and a ``helpers.py`` it
    imports (``from . import helpers``), and return the folder.

    ``registry`` (an ``arena.plugins.loading.Registry``) is loaded from ``bots_dir`` when not
    given; it supplies the game names and the bot names already taken. Raises ``ScaffoldError``
    with a one-line message for a bad or taken name, an unknown game or an existing file.
    """
    _check_name(name)
    bots_dir = Path(bots_dir)
    if bots_dir.exists() and not bots_dir.is_dir():
        raise ScaffoldError(f"{bots_dir} is not a folder")
    stem = name.replace("-", "_")
    path = bots_dir / stem if package else bots_dir / f"{stem}.py"
    for taken in (bots_dir / stem, bots_dir / f"{stem}.py"):
        if taken.exists():
            raise ScaffoldError(f"{taken} already exists; choose another name or edit that file")
    if registry is None:
        from arena.plugins.loading import load_registry

        registry = load_registry(bots_dir)
    from arena.plugins.loading import UnknownNameError

    try:
        game_class = registry.game(game).cls
    except UnknownNameError as exc:
        raise ScaffoldError(str(exc)) from None
    if name in registry.bots:
        raise ScaffoldError(f"bot name {name!r} is already taken by {registry.bots[name].source}")
    template = game_class.bot_template or GENERIC
    source = template.format(name=name, cls=_class_name(name), game=game_class.name)
    files = {path: source}
    if package:
        source = source.replace("\nimport arena\n", "\nimport arena\n\n" + PACKAGE_IMPORT, 1)
        files = {path / "__init__.py": source, path / "helpers.py": HELPERS.format(name=name)}
    try:
        for where, text in files.items():
            where.parent.mkdir(parents=True, exist_ok=True)
            with open(where, "x", encoding="utf-8") as f:  # "x": never overwrite, even in a race
                f.write(text)
    except FileExistsError:
        raise ScaffoldError(
            f"{path} already exists; choose another name or edit that file"
        ) from None
    except OSError as exc:
        raise ScaffoldError(f"cannot write {path}: {exc.strerror or exc}") from None
    return path


GENERIC = '''"""{name}: a bot for {game} (written by `arena new-bot`; make it yours).

Try it:   arena run --bots {name},random --games 200
Guide:    docs/writing-bots.md
"""

import arena


class {cls}(arena.Bot):
    name = "{name}"  # the name on the leaderboard: unique
    games = {{"{game}"}}  # the games it plays

    def act(self, obs):
        """Return one element of obs.legal_actions; obs.to_json() shows everything it sees."""
        legal = obs.legal_actions
        return legal[self.rng.randrange(len(legal))]  # self.rng: seeded, games replay exactly


@arena.hookimpl
def arena_register_bots(register):
    register({cls})
'''

# A bot package's own modules are imported relatively (no sys.path to edit).
PACKAGE_IMPORT = "from . import helpers  # noqa: F401  your own modules: from . import x\n"
HELPERS = '''"""{name}'s own helpers: import them in __init__.py with `from . import helpers`."""


def lowest(actions):
    """The first of the legal actions (they come sorted): a start for your own strategy."""
    return actions[0]
'''

__all__ = ["ScaffoldError", "write_bot_file"]
