"""The rows of ``arena bots`` and ``arena games``: what a registry holds, as table rows."""

from __future__ import annotations

from pathlib import Path


def bot_rows(registry) -> list[list]:
    """[bot, games, settings, source] for each registered bot, by name."""
    rows = []
    for spec in sorted(registry.bots.values(), key=lambda s: s.name):
        plays = ", ".join(sorted(spec.games)) if spec.games is not None else "every game"
        settings = ", ".join(f"{k}={v!r}" for k, v in spec.settings)
        rows.append([spec.name, plays, settings, spec.source])
    return rows


def game_rows(registry) -> list[list]:
    """[game, aliases, players, parameters, variants, source] for each registered game."""
    rows = []
    for spec in sorted(registry.games.values(), key=lambda s: s.name):
        cls = spec.cls
        size = (
            str(cls.min_players)
            if cls.min_players == cls.max_players
            else (f"{cls.min_players}-{cls.max_players} (default {cls.default_players})")
        )
        params = ", ".join(f"{k}={v}" for k, v in cls.parameters.items())
        rows.append(
            [cls.name, ", ".join(cls.aliases), size, params, ", ".join(cls.variants), spec.source]
        )
    return rows


def unloaded_subfolders(folders: list) -> list[tuple[Path, Path]]:
    """(folder, sub-folder) for each sub-folder of a bots folder with ``*.py`` files in it that is
    not itself loaded (a sub-folder with an ``__init__.py`` is a bot package, loaded)."""
    loaded = {Path(f).resolve() for f in folders}
    found = []
    for folder in map(Path, folders):
        try:
            subs = sorted(p for p in folder.iterdir() if p.is_dir())
        except OSError:
            continue
        for sub in subs:
            if sub.name[0] in "._" or sub.resolve() in loaded or (sub / "__init__.py").exists():
                continue
            if any(f.name[0] != "_" for f in sub.glob("*.py")):
                found.append((folder, sub))
    return found
