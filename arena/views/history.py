"""``arena history``: stored games as a table or as JSON, newest first."""

from __future__ import annotations

import json
import time

from tabulate import tabulate

HEADERS = [
    "id",
    "run",
    "game",
    "finished",
    "seats from 0: bot score (rank, F: forfeited)",
    "faults",
    "record",
]


def history_json(stored_games: list[dict]) -> str:
    rows = [
        {
            "id": g["id"],
            "run": g["run_id"],
            "game": g["game"],
            "finished": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(g["finished"])),
            "seed": g["seed"],
            "decisions": g["decisions"],
            "record": g["record"] is not None,
            "seats": g["seats"],
            "faults": g["fault_log"],
        }
        for g in stored_games
    ]
    return json.dumps(rows, indent=2)


def history_table(stored_games: list[dict]) -> str:
    table = []
    for g in stored_games:
        seats = "  ".join(
            f"{s['bot']} {s['score']} ({s['rank']}{'F' if s['forfeit'] else ''})"
            for s in g["seats"]
        )
        faults = sum(s["faults"] for s in g["seats"])
        finished = time.strftime("%Y-%m-%d %H:%M", time.localtime(g["finished"]))
        record = "" if g["record"] is not None else "no"
        table.append([g["id"], g["run_id"], g["game"], finished, seats, faults or "", record])
    return tabulate(table, headers=HEADERS, tablefmt="simple")
