"""Leaderboard tables from the results database, in table, markdown, JSON or CSV form."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping

from tabulate import tabulate

from arena.ratings.batch import BatchRatings, batch_ratings
from arena.store.database import Store
from arena.views.versions import VersionView, version_view

FORMATS = ("table", "markdown", "json", "csv")
# --sort: the row key each order sorts by, best first (ties by name).
SORTS = {"conservative": "conservative", "mu": "mu", "elo": "elo"}

COLUMNS = [
    ("rank", "#"),
    ("bot", "bot"),
    ("mu", "μ"),
    ("sigma", "σ"),
    ("conservative", "μ−3σ"),
    ("elo", "elo"),
    ("elo_ci", "±"),
    ("games", "games"),
    ("wins", "wins"),
    ("win_pct", "win %"),
    ("avg_rank", "avg rank"),
    ("avg_score", "avg score"),
    ("faults", "faults"),
    ("forfeits", "forfeits"),
]


def leaderboard_rows(
    store: Store,
    game: str,
    sort: str = "conservative",
    batch: BatchRatings | None = None,
    versions: VersionView | None = None,
) -> list[dict]:
    """One dict per bot with a rating or games in ``game``, best first by ``sort`` (a key of
    SORTS). ``elo`` and ``elo_ci`` (the half-width of its 95 % interval) come from the batch
    ratings (``batch``, else fitted or read from the cache); None for a bot without them.
    ``versions``: which versions of each bot, under which names (default: the latest)."""
    batch = batch if batch is not None else batch_ratings(store, game)
    versions = versions or version_view(store.bot_versions(), rated=store.rated_bots())
    ratings = store.ratings(game)
    stats = batch.stats() if batch is not None else store.bot_stats(game)
    rows = []
    for bot in set(ratings) | set(stats):
        if not versions.show(bot):
            continue
        mu, sigma = ratings.get(bot, (25.0, 25.0 / 3))
        s = stats.get(bot, {})
        games = s.get("games", 0)
        wins = s.get("wins", 0)
        elo, elo_ci = batch.of(bot) if batch is not None and bot in batch else (None, None)
        rows.append(
            {
                "bot": versions.label(bot),
                "mu": round(mu, 3),
                "sigma": round(sigma, 3),
                "conservative": round(mu - 3 * sigma, 3),
                "elo": round(elo, 1) if elo is not None else None,
                "elo_ci": round(elo_ci, 1) if elo_ci is not None else None,
                "games": games,
                "wins": wins,
                "win_pct": round(100.0 * wins / games, 1) if games else 0.0,
                "avg_rank": round(s["avg_rank"], 3) if s.get("avg_rank") is not None else None,
                "avg_score": round(s["avg_score"], 2) if s.get("avg_score") is not None else None,
                "faults": s.get("faults", 0) or 0,
                "forfeits": s.get("forfeits", 0) or 0,
            }
        )
    key = SORTS[sort]
    rows.sort(key=lambda r: (r[key] is None, -(r[key] or 0.0), r["bot"]))
    for i, row in enumerate(rows, start=1):
        row["rank"] = i
    return [{key: row[key] for key, _ in COLUMNS} for row in rows]


def head_to_head_rows(store: Store, game: str, versions: VersionView | None = None) -> list[dict]:
    versions = versions or version_view(store.bot_versions(), rated=store.rated_bots())
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


def los_rows(batch: BatchRatings | None, versions: VersionView) -> dict[str, dict[str, float]]:
    """P(row better than column), in %, one decimal, for the bots of a batch fit that
    ``versions`` shows."""
    if batch is None:
        return {}
    return {
        versions.label(a): {
            versions.label(b): round(100.0 * p, 1) for b, p in row.items() if versions.show(b)
        }
        for a, row in batch.los_matrix().items()
        if versions.show(a)
    }


def _los_table(los: dict[str, dict[str, float]], order: list[str]) -> tuple[list[str], list]:
    bots = [b for b in order if b in los]
    table = [[a] + ["—" if a == b else f"{los[a][b]:.1f}%" for b in bots] for a in bots]
    return ["P(better) →"] + bots, table


def render(
    store: Store,
    game_names: list[str],
    fmt: str = "table",
    head_to_head: bool = False,
    score_names: Mapping[str, str] | None = None,
    sort: str = "conservative",
    los: bool = False,
    all_versions: bool = False,
) -> str:
    """The tables of the games named, as one string. ``score_names``: what each game calls its
    score (``Game.score_name``: points, chips) for the table's column head. ``los`` adds each
    game's likelihood-of-superiority matrix (P(row better than column), %). Only the latest
    version of each bot unless ``all_versions``."""
    view = version_view(store.bot_versions(), all_versions, store.rated_bots())
    batches = {game: batch_ratings(store, game) for game in game_names}
    data = {g: leaderboard_rows(store, g, sort, batches[g], view) for g in game_names}
    h2h = {g: head_to_head_rows(store, g, view) for g in game_names} if head_to_head else {}
    los_data = {g: los_rows(batches[g], view) for g in game_names} if los else {}
    if fmt == "json":
        return _json(game_names, data, h2h, los_data)
    if fmt == "csv":
        return _csv(data, h2h, los_data)
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
            floatfmt=[".0f" if key in ("elo", "elo_ci") else ".2f" for key, _ in COLUMNS],
        )
        parts.append(f"{title}\n{body}")
        if head_to_head and h2h.get(game):
            headers2, table = _matrix(h2h[game])
            parts.append(
                f"{title} — head to head (row finished ahead of column, % of shared games)\n"
                + tabulate(table, headers=headers2, tablefmt=tablefmt)
            )
        if los and los_data.get(game):
            headers3, table = _los_table(los_data[game], [row["bot"] for row in rows])
            parts.append(
                f"{title} — likelihood of superiority (P(row is better than column))\n"
                + tabulate(table, headers=headers3, tablefmt=tablefmt)
            )
    return "\n\n".join(parts)


def _json(game_names: list[str], data: dict, h2h: dict, los: dict) -> str:
    if not h2h and not los:
        return json.dumps(data, indent=2)
    out = {}
    for game in game_names:
        out[game] = {"leaderboard": data[game]}
        if h2h:
            out[game]["head_to_head"] = h2h[game]
        if los:
            out[game]["los"] = los[game]
    return json.dumps(out, indent=2)


def _csv(data: dict, h2h: dict, los: dict) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["game"] + [key for key, _ in COLUMNS])
    for game, rows in data.items():
        for row in rows:
            writer.writerow([game] + [row[key] for key, _ in COLUMNS])
    if h2h:
        writer.writerow([])
        writer.writerow(
            ["game", "bot", "opponent", "games", "ahead", "tied", "behind", "ahead_pct"]
        )
        for game, rows in h2h.items():
            for r in rows:
                writer.writerow([game] + list(r.values()))
    if los:
        writer.writerow([])
        writer.writerow(["game", "bot", "opponent", "los_pct"])
        for game, matrix in los.items():
            for a, row in matrix.items():
                for b, p in row.items():
                    writer.writerow([game, a, b, p])
    return out.getvalue()
