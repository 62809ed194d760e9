"""The bounds of the numbers a user gives a run or a game, and the one-line error for a value
out of them: ``check_setting``. ``arena run`` (``arena.tournament``) and ``arena play``
(``arena.views.human_game``) both check their settings here.
"""

from __future__ import annotations


class PlanError(Exception):
    """A tournament (or a game of `arena play`) that cannot be played as asked; one line for the
    user."""


# Bounds of the numbers of a run. Beyond them a value is a slip of the keyboard, and breaks
# something or nobody means them: days of play in one run (ratings carry over between runs), more
# worker processes than the system gives, a limit no rlimit holds (every bot process would fail
# to start), a move time that never runs out (NaN compares false with everything).
MAX_GAMES = 1_000_000
MAX_MOVE_TIME = 3600.0  # seconds
MAX_TIME_BANK = 86400.0  # seconds of a seat's bank for one game
MAX_JOBS = 256
MIN_BOT_MEMORY = 64  # MiB
MAX_BOT_MEMORY = 1024 * 1024  # MiB: 1 TiB
MAX_BOT_CPU = 10**9  # seconds
ISOLATIONS = ("shared", "process")

# How a message names a setting given on the command line.
OPTIONS = {
    "games": "--games",
    "move_time": "--move-time",
    "time_bank": "--time-bank",
    "max_faults": "--max-faults",
    "jobs": "--jobs",
    "isolation": "--isolation",
    "bot_memory": "--bot-memory",
    "bot_cpu": "--bot-cpu",
    "bots": "--bots",
    "players": "--players",
    "pairing": "--pairing",
    "gauntlet": "--gauntlet",
}


def _shown(value) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return repr(value) if isinstance(value, str) else str(value)


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_setting(key: str, value, name: str | None = None) -> None:
    """Raise ``PlanError`` unless ``value`` can be used for the run setting ``key`` (``games``,
    ``move_time``, ``time_bank``, ``max_faults``, ``jobs``, ``isolation``, ``bot_memory``,
    ``bot_cpu``).

    ``name`` is how the message names the setting: its option by default.
    """
    name = name or OPTIONS[key]
    if key == "isolation":
        if value not in ISOLATIONS:
            raise PlanError(f"{name} must be shared or process, not {_shown(value)}")
        return
    if key in ("move_time", "time_bank"):
        number = isinstance(value, int | float) and not isinstance(value, bool)
        high = MAX_MOVE_TIME if key == "move_time" else MAX_TIME_BANK
        if not (number and 0 < value <= high):  # NaN fails every comparison
            raise PlanError(
                f"{name} must be a number of seconds above 0 and at most {high:g}, "
                f"not {_shown(value)}"
            )
        return
    low, high, what = {
        "games": (1, MAX_GAMES, " (to play more, run again: ratings carry over)"),
        "max_faults": (1, None, ""),
        "jobs": (1, MAX_JOBS, ""),
        "bot_memory": (MIN_BOT_MEMORY, MAX_BOT_MEMORY, " (MiB)"),
        "bot_cpu": (1, MAX_BOT_CPU, " (seconds)"),
    }[key]
    if not _whole(value) or value < low or (high is not None and value > high):
        span = f"at least {low}" if high is None else f"from {low} to {high}"
        raise PlanError(f"{name} must be a whole number {span}{what}, not {_shown(value)}")
