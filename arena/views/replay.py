"""Stored games told for a person (``arena replay``) and checked against the database.

The telling is the game's own: ``Game.narrator`` (``arena.games.narration`` and each game's
``view``) is told every action, here from a record re-run through the engine, in ``arena play``
as the bots move. Full view (``seat=None``): everything, since everything is public after the
game. Seat view (``seat=N``): only what seat N's observation shows at each moment.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from typing import Any

from arena.games.base import (
    Game,
    RecordError,
    State,
    action_from_json,
    game_from_record,
    replay,
    to_plain,
)
from arena.games.narration import Emit, Narrator, Style, deal_stopper, ordinal, plural
from arena.referee.outcome import ranks_with_forfeits


def stream_wants_ascii(stream: Any) -> bool:
    """True when ``stream`` cannot write ♥ (e.g. a terminal in the C locale)."""
    encoding = getattr(stream, "encoding", None) or "ascii"
    try:
        "♥♦♣♠".encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return True
    return False


def step(state: State, narrator: Narrator, index: int, number: int) -> None:
    """Apply ``legal_actions()[index]`` to ``state`` and tell it."""
    seat = state.current_player()
    action = state.legal_actions()[index]
    probe = deal_stopper(state)
    if probe is not None:
        probe.apply_legal(index)
    deal = getattr(state, "deal", None)
    narrator.action(state, probe, seat, action, number)
    state.apply_legal(index)
    if deal is not None and state.deal != deal and not state.is_terminal():
        narrator.new_deal(state)


# --- telling a whole record ---------------------------------------------------------------------


def tell_record(
    record: dict,
    games: dict[str, type[Game]],
    emit: Emit,
    seat: int | None = None,
    style: Style | None = None,
    names: Sequence[str] | None = None,
) -> State:
    """Re-run a full JSON record through the engine, telling it; returns the final state."""
    game = game_from_record(record, games)
    if seat is not None and not 0 <= seat < game.players:
        raise RecordError(f"there is no seat {seat} in this game (seats 0-{game.players - 1})")
    names = list(names or record.get("bots") or [f"seat {s}" for s in range(game.players)])
    faults: dict[int, list[dict]] = {}
    for fault in record.get("faults", []):
        faults.setdefault(fault["decision"], []).append(fault)
    narrator = game.narrator(names, emit, seat=seat, style=style)
    state = game.replay_state(record.get("chance", []))
    for fault in faults.get(0, []):
        narrator.fault(fault)
    narrator.begin(state)
    for number, (who, value) in enumerate(record.get("actions", []), start=1):
        if state.is_terminal() or state.current_player() != who:
            raise RecordError(f"action {number}: it is not seat {who}'s turn")
        legal = state.legal_actions()
        action = action_from_json(value, legal)
        for fault in faults.get(number, []):
            narrator.fault(fault)
        step(state, narrator, legal.index(action), number)
    for fault in faults.get(-1, []):
        narrator.fault(fault)
    return state


def render_game(
    info: dict,
    record: dict,
    games: dict[str, type[Game]],
    seat: int | None = None,
    style: Style | None = None,
) -> str:
    """The whole text of ``arena replay``: header, the game deal by deal, the result."""
    lines: list[str] = []
    emit = lines.append
    game_class = games.get(record["game"])
    emit(_heading(info, record, game_class))
    names = record.get("bots") or [s["bot"] for s in info["seats"]]
    emit("seats: " + ", ".join(f"{s} {n}" for s, n in enumerate(names)))
    if seat is not None:
        emit(f"seen from seat {seat} ({names[seat]}): only what that seat could see at each moment")
    tell_record(record, games, emit, seat=seat, style=style, names=names)
    emit("")
    emit(
        "Result"
        + (f" ({game_class.score_name}, {game_class.better} is better)" if game_class else "")
    )
    lines.extend(_result_rows(info, record, names))
    return "\n".join(lines)


def _heading(info: dict, record: dict, game_class: type[Game] | None) -> str:
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(info["finished"]))
    title = getattr(game_class, "title", "") or record["game"]
    extra = []
    if record.get("variant"):
        extra.append(f"variant {record['variant']}")
    defaults = getattr(game_class, "parameters", {})
    changed = {k: v for k, v in record.get("params", {}).items() if defaults.get(k) != v}
    if changed:
        extra.append(", ".join(f"{k}={v}" for k, v in changed.items()))
    return (
        f"game {info['id']} · {title} · run {info['run_id']} · {when} · seed {record['seed']}"
        + (f" · {'; '.join(extra)}" if extra else "")
    )


def _result_rows(info: dict, record: dict, names: Sequence[str]) -> list[str]:
    """One line a seat, best first: place, score, thinking time a move, faults."""
    ms = record.get("decision_ms", [])
    thinking = [0.0] * len(names)
    moves = [0] * len(names)
    for (who, _), spent in zip(record.get("actions", []), ms, strict=False):
        thinking[who] += spent
        moves[who] += 1
    seats = {s["seat"]: s for s in info["seats"]}
    result = record.get("result", {})
    rows = []
    for s, name in enumerate(names):
        row = seats.get(s, {})
        score = result["scores"][s] if result else row.get("score")
        rank = row.get("rank") or (result["ranks"][s] if result else 0)
        note = []
        if row.get("faults"):
            note.append(plural(row["faults"], "fault"))
        if row.get("forfeit"):
            note.append("forfeited")
        avg = f"{thinking[s] / moves[s]:.2f} ms a move" if moves[s] else "no moves"
        text = f"   {ordinal(rank) if rank else '?':>4}  seat {s} {name:<16} {score:>4}   {avg}"
        rows.append((rank or 99, s, text + (f"  ({', '.join(note)})" if note else "")))
    return [text for _, _, text in sorted(rows)]


# --- the moves for a person about to choose ----------------------------------------------------


def menu(legal: Sequence[Any], style: Style, width: int = 80) -> list[str]:
    """The legal moves numbered from 1, in columns."""
    cells = [f"{i:>2}) {style.action(a)}" for i, a in enumerate(legal, start=1)]
    size = max(len(c) for c in cells) + 3
    per_row = max(1, min(len(cells), width // size))
    rows = []
    for start in range(0, len(cells), per_row):
        rows.append("  " + "".join(c.ljust(size) for c in cells[start : start + per_row]).rstrip())
    return rows


def output_style(force_ascii: bool = False, colour: bool = False) -> Style:
    """The card style for standard output. A stream that cannot write ♥ gets ASCII cards, and
    the few other symbols (→, —) are replaced rather than failing."""
    ascii_only = stream_wants_ascii(sys.stdout)
    if ascii_only and hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="replace")
    return Style(ascii=force_ascii or ascii_only, colour=colour)


# --- a stored game's facts, checking it, and one seat's inputs -----------------------------------


def stored_facts(info: dict) -> dict:
    """What the database adds to the record: the id, the run, the scores and final ranks the
    tournament stored (ranks after forfeits)."""
    return {
        "id": info["id"],
        "run": info["run_id"],
        "finished": info["finished"],
        "scores": [s["score"] for s in info["seats"]],
        "ranks": [s["rank"] for s in info["seats"]],
        "forfeits": [bool(s["forfeit"]) for s in info["seats"]],
    }


def verify_game(info: dict, record: dict, games: dict[str, type[Game]]) -> list[str]:
    """Re-run a stored game's record through the engine and compare with what the database says.

    ``record`` is the expanded record (``records.expand`` has already replayed the compact form:
    every stored index named a legal action). Checks: the JSON record replays action by action to
    the result it states (``games.base.replay``); dealt from its seed, the game gets the very deck
    orders the record holds; the scores, the ranks after forfeits, the bots, the number of
    decisions and the faults are the stored ones. Raises ``RecordError`` on the first difference;
    returns the lines to print.
    """
    state = replay(record, games)
    result = state.result()
    lines = [
        f"ok  {len(record['actions'])} actions replay through the {record['game']} engine, "
        "each legal when it was played",
        f"ok  the replay ends with the record's result: scores {list(result.scores)}",
    ]
    if record.get("seed") is not None:
        lines.append(_check_deals(state.game, record))
    lines.append(_check_results(info, record, result))
    lines.append(_check_faults(info, record))
    lines.append(f"verified: game {info['id']} replays to its stored result")
    return lines


def _check_deals(game: Game, record: dict) -> str:
    """A fresh game from the record's seed must deal the very cards the record holds."""
    fresh = game.new_state(record["seed"])
    for _, value in record["actions"]:
        fresh.apply_action(action_from_json(value, fresh.legal_actions()))
    dealt = fresh.chance.to_json()
    if dealt != record["chance"]:
        first = next(
            (i for i, (a, b) in enumerate(zip(dealt, record["chance"], strict=False)) if a != b),
            min(len(dealt), len(record["chance"])),
        )
        raise RecordError(
            f"seed {record['seed']!r} does not give the recorded chance events "
            f"(first difference at event {first + 1})"
        )
    return f"ok  the seed {record['seed']} deals exactly the {len(dealt)} recorded chance events"


def _check_results(info: dict, record: dict, result) -> str:
    """The bots, scores and ranks after forfeits are the stored ones."""
    seats = info["seats"]
    stored_bots = [s["bot"] for s in seats]
    if record.get("bots") and list(record["bots"]) != stored_bots:
        raise RecordError(f"the record's bots {record['bots']} are not the stored {stored_bots}")
    scores = [s["score"] for s in seats]
    if list(result.scores) != scores:
        raise RecordError(f"the replay's scores {list(result.scores)} are not the stored {scores}")
    forfeits = [bool(s["forfeit"]) for s in seats]
    ranks = list(ranks_with_forfeits(result.ranks, forfeits))
    stored_ranks = [s["rank"] for s in seats]
    if ranks != stored_ranks:
        raise RecordError(f"the replay's ranks {ranks} are not the stored {stored_ranks}")
    forfeited = [i for i, f in enumerate(forfeits) if f]
    return f"ok  stored scores {scores} and ranks {stored_ranks}" + (
        f" (forfeits: seats {forfeited})" if forfeited else ""
    )


def _check_faults(info: dict, record: dict) -> str:
    """The number of decisions and the faults, one by one and per seat, are the stored ones."""
    seats = info["seats"]
    if info.get("decisions") is not None and info["decisions"] != len(record["actions"]):
        raise RecordError(
            f"{len(record['actions'])} actions in the record, {info['decisions']} decisions stored"
        )
    faults = [
        {k: f[k] for k in ("seat", "decision", "kind", "message")} for f in record.get("faults", [])
    ]
    if faults != info.get("fault_log", faults):
        raise RecordError("the record's faults are not the stored ones")
    counts = [sum(1 for f in faults if f["seat"] == s) for s in range(len(seats))]
    if counts != [s["faults"] for s in seats]:
        raise RecordError(f"the record's fault counts {counts} are not the stored ones")
    return f"ok  {plural(len(faults), 'fault')}, as stored"


def seat_decisions(
    record: dict, games: dict[str, type[Game]], seat: int, forfeited: bool = False
) -> dict:
    """Every decision of ``seat``: its observation (as the bot got it, in JSON) and its answer.

    A seat that ``forfeited`` was asked nothing after its last fault: the referee played those
    decisions, which are marked ``"asked": false``.
    """
    game = game_from_record(record, games)
    state = game.replay_state(record.get("chance", []))
    ms = record.get("decision_ms", [])
    faults = {f["decision"]: f for f in record.get("faults", []) if f["seat"] == seat}
    forfeited_after = max(faults, default=0) if forfeited else None
    out = []
    for number, (who, value) in enumerate(record["actions"], start=1):
        legal = state.legal_actions()
        action = action_from_json(value, legal)
        if who == seat:
            entry = {
                "decision": number,
                "observation": state.observation(seat).to_json(),
                "action": to_plain(action),
            }
            if number <= len(ms):
                entry["ms"] = ms[number - 1]
            if number in faults:
                entry["fault"] = faults[number]
            if forfeited_after is not None and number > forfeited_after:
                entry["asked"] = False
            out.append(entry)
        state.apply_action(action)
    return {
        "format": "arena-seat-view/1",
        "game": record["game"],
        "seat": seat,
        "bot": (record.get("bots") or [None] * game.players)[seat],
        "decisions": out,
        "final": state.observation(seat).to_json(),
        "result": record.get("result"),
    }
