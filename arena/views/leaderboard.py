"""Leaderboard tables from the results database, in table, markdown, JSON or CSV form."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping

from tabulate import tabulate

from arena.store.database import Store
from arena.views.versions import VersionView, version_view

FORMATS = ("table", "markdown", "json", "csv")

COLUMNS = [
    ("rank", "#"),
    ("bot", "bot"),
    ("mu", "μ"),
    ("sigma", "σ"),
    ("conservative", "μ−3σ"),
    ("games", "games"),
    ("wins", "wins"),
    ("win_pct", "win %"),
    ("avg_rank", "avg rank"),
    ("avg_score", "avg score"),
    ("faults", "faults"),
    ("forfeits", "forfeits"),
]


def leaderboard_rows(store: Store, game: str, versions: VersionView | None = None) -> list[dict]:
    """One dict per bot with a rating or games in ``game``, best conservative score first;
    ``versions``: which versions of each bot, under which names (default: the latest)."""
    versions = versions or version_view(store.bot_versions())
    ratings = store.ratings(game)
    stats = store.bot_stats(game)
    rows = []
    for bot in set(ratings) | set(stats):
        if not versions.show(bot):
            continue
        mu, sigma = ratings.get(bot, (25.0, 25.0 / 3))
        s = stats.get(bot, {})
        games = s.get("games", 0)
        wins = s.get("wins", 0)
        rows.append(
            {
                "bot": versions.label(bot),
                "mu": round(mu, 3),
                "sigma": round(sigma, 3),
                "conservative": round(mu - 3 * sigma, 3),
                "games": games,
                "wins": wins,
                "win_pct": round(100.0 * wins / games, 1) if games else 0.0,
                "avg_rank": round(s["avg_rank"], 3) if s.get("avg_rank") is not None else None,
                "avg_score": round(s["avg_score"], 2) if s.get("avg_score") is not None else None,
                "faults": s.get("faults", 0) or 0,
                "forfeits": s.get("forfeits", 0) or 0,
            }
        )
    rows.sort(key=lambda r: (-r["conservative"], r["bot"]))
    for i, row in enumerate(rows, start=1):
        row["rank"] = i
    return [{key: row[key] for key, _ in COLUMNS} for row in rows]


def head_to_head_rows(store: Store, game: str, versions: VersionView | None = None) -> list[dict]:
    versions = versions or version_view(store.bot_versions())
    rows = []
    for a, b, ahead, tied, behind in store.head_to_head(game):
        if not (versions.show(a) and versions.show(b)):
            continue
        total = ahead + tied + behind
        rows.append(
            {
                "bot": versions.label(a),
                "opponent": versions.label(b),
                "games": total,
                "ahead": ahead,
                "tied": tied,
                "behind": behind,
                "ahead_pct": round(100.0 * ahead / total, 1) if total else 0.0,
            }
        )
    return rows


def _matrix(rows: list[dict]) -> tuple[list[str], list[list]]:
    bots = sorted({r["bot"] for r in rows} | {r["opponent"] for r in rows})
    cell = {(r["bot"], r["opponent"]): r for r in rows}
    table = []
    for a in bots:
        line = [a]
        for b in bots:
            r = cell.get((a, b))
            line.append("—" if a == b else (f"{r['ahead_pct']:.0f}% ({r['games']})" if r else ""))
        table.append(line)
    return ["ahead of →"] + bots, table


def render(
    store: Store,
    game_names: list[str],
    fmt: str = "table",
    head_to_head: bool = False,
    score_names: Mapping[str, str] | None = None,
    all_versions: bool = False,
) -> str:
    """The tables of the games named, as one string. ``score_names``: what each game calls its
    score (``Game.score_name``: points, chips) for the table's column head. Only the latest
    version of each bot unless ``all_versions``."""
    view = version_view(store.bot_versions(), all_versions)
    data = {game: leaderboard_rows(store, game, view) for game in game_names}
    h2h = {g: head_to_head_rows(store, g, view) for g in game_names} if head_to_head else {}
    if fmt == "json":
        if head_to_head:
            return json.dumps(
                {g: {"leaderboard": data[g], "head_to_head": h2h[g]} for g in game_names},
                indent=2,
            )
        return json.dumps(data, indent=2)
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["game"] + [key for key, _ in COLUMNS])
        for game, rows in data.items():
            for row in rows:
                writer.writerow([game] + [row[key] for key, _ in COLUMNS])
        if head_to_head:
            writer.writerow([])
            writer.writerow(
                ["game", "bot", "opponent", "games", "ahead", "tied", "behind", "ahead_pct"]
            )
            for game, rows in h2h.items():
                for r in rows:
                    writer.writerow([game] + list(r.values()))
        return out.getvalue()
    tablefmt = "github" if fmt == "markdown" else "simple"
    parts = []
    for game, rows in data.items():
        score_name = (score_names or {}).get(game, "score")
        headers = [label if key != "avg_score" else f"avg {score_name}" for key, label in COLUMNS]
        title = f"## {game}" if fmt == "markdown" else f"{game}"
        if not rows:
            parts.append(f"{title}\n(no games yet)")
            continue
        body = tabulate(
            [[row[key] for key, _ in COLUMNS] for row in rows],
            headers=headers,
            tablefmt=tablefmt,
            floatfmt=".2f",
        )
        parts.append(f"{title}\n{body}")
        if head_to_head and h2h.get(game):
            headers2, table = _matrix(h2h[game])
            parts.append(
                f"{title} — head to head (row finished ahead of column, % of shared games)\n"
                + tabulate(table, headers=headers2, tablefmt=tablefmt)
            )
    return "\n\n".join(parts)
