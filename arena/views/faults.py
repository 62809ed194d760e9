"""What a person reads about faults: ``arena faults``, the end-of-run summary, ``--fail-fast``.

The traceback of an ``exception`` fault is stored with it (``arena.referee.faults``); the
observation a bot was answering is rebuilt from the game's record.
"""

from __future__ import annotations

import json
import textwrap

from arena.games.base import Game


def where(fault: dict) -> str:
    """``decision 7`` / ``start()`` / ``end()``."""
    decision = fault["decision"]
    return {0: "start()", -1: "end()"}.get(decision, f"decision {decision}")


def fault_report(faults: list[dict]) -> str:
    """Each fault in one line (game, run, seat, bot, decision, kind, message), with its traceback
    indented under it."""
    lines = []
    for f in faults:
        lines.append(
            f"game {f['game_id']} (run {f['run']}, {f['game']}), seat {f['seat']} {f['bot']}, "
            f"{where(f)}: {f['kind']}: {f['message']}"
        )
        if f["traceback"]:
            lines.append(textwrap.indent(f["traceback"], "    "))
    return "\n".join(lines)


def summary_lines(counts: dict[str, dict[str, int]], run_id: int, show: str) -> list[str]:
    """One line per bot that faulted in the run, and the command that shows the details."""
    if not counts:
        return []
    lines = []
    for bot, kinds in sorted(counts.items()):
        total = sum(kinds.values())
        detail = ", ".join(f"{kind} {n}" for kind, n in sorted(kinds.items()))
        lines.append(f"faults in run {run_id}: {bot} {total} ({detail})")
    lines.append(f"see them, with tracebacks: {show}")
    return lines


def observation_at(
    record: dict, games: dict[str, type[Game]], seat: int, decision: int
) -> dict | None:
    """The observation (JSON) seat ``seat`` was answering at ``decision``, from the expanded
    record; None for ``start()`` and ``end()``."""
    from arena.views.replay import seat_decisions

    if decision <= 0:
        return None
    for entry in seat_decisions(record, games, seat)["decisions"]:
        if entry["decision"] == decision:
            return entry["observation"]
    return None


def fail_fast_report(fault: dict, observation: dict | None, note: str = "") -> str:
    """What ``--fail-fast`` prints when it stops a run: the fault, its traceback and the
    observation the bot was answering."""
    text = ["stopped at the first fault (--fail-fast): " + fault_report([fault])]
    if observation is not None:
        text.append("the observation it was answering:")
        for key, value in observation.items():  # one field a line, as obs.to_json() has it
            text.append(f"    {key}: {json.dumps(value, ensure_ascii=False)}")
    elif note:
        text.append(note)
    return "\n".join(text)
