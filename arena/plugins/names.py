"""What a bot's name may be: one that every command can select and no other thing already means."""

from __future__ import annotations

# The seat of a person in `arena play --rated`, stored under this name (arena.views.human_seat).
RESERVED = {"human": "the person of `arena play`"}


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a bot (None: it can). ``--bots`` splits at commas and strips
    each name, ``name@2`` names a version, and tables and messages are one line a bot."""
    if "@" in name:
        return f"bot name {name!r} may not contain '@' (name@2 names a version)"
    if "," in name:
        return f"bot name {name!r} may not contain ',' (--bots a,b names two bots)"
    if name != name.strip():
        return f"bot name {name!r} may not begin or end with a space"
    if not name.isprintable():
        return f"bot name {name!r} may not contain a control character"
    if name in RESERVED:
        return f"bot name {name!r} is {RESERVED[name]}: choose another"
    return None
