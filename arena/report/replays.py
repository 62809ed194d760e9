"""Stored games as the frames of the report's replay viewer.

A record is re-run through its engine once; after the start and after every action, each view
(the full view, then one per seat) is drawn by the game (``Game.table_drawing``) and told by its
narrator. To keep hundreds of games in a few MB, each distinct value (a hand, a seat's lines, a
pile, a status line, a line of a caption) is stored once per game, and a frame holds only the
parts that changed since the previous frame of its view, as indexes into those values (``say``,
the caption, is always there: the indexes of its lines).
"""

from __future__ import annotations

from typing import Any

from arena.games.base import Game, RecordError, action_from_json, game_from_record
from arena.views.replay import step


class _Values:
    """Each distinct JSON value once, by its index."""

    def __init__(self):
        self.values: list[Any] = []
        self._index: dict[str, int] = {}

    def __call__(self, value: Any) -> int:
        key = repr(value)  # drawings are built in one order: equal values, equal reprs
        index = self._index.get(key)
        if index is None:
            index = self._index[key] = len(self.values)
            self.values.append(value)
        return index


class _View:
    """One viewer: its narrator's lines, and the parts of its drawing as value indexes."""

    def __init__(self, game: Game, seat: int | None, names, values: _Values):
        self.seat = seat
        self.game = game
        self.values = values
        self.lines: list[str] = []
        self.narrator = game.narrator(names, self.lines.append, seat=seat)
        self.frames: list[dict] = []
        self.last: dict[str, int] = {}

    def parts(self, state) -> tuple[dict[str, int], list[int]]:
        drawing = self.game.table_drawing(state, self.seat)
        parts = {"status": drawing["status"], "turn": drawing["turn"]}
        # Small parts change alone: a hand without its lines, one pile without the others.
        for s, entry in enumerate(drawing["seats"]):
            for key, value in entry.items():
                parts[f"{key}{s}"] = value
        for i, entry in enumerate(drawing["piles"]):
            parts[f"pile{i}"] = entry
        parts["piles"] = len(drawing["piles"])
        values = self.values
        say = [values(line) for line in self.lines if line.strip()]
        self.lines.clear()
        return {key: values(value) for key, value in parts.items()}, say


class _Fanout:
    """Tells every view's narrator what one narrator would be told."""

    def __init__(self, views: list[_View]):
        self.narrators = [v.narrator for v in views]

    def begin(self, state) -> None:
        for n in self.narrators:
            n.begin(state)

    def action(self, *args) -> None:
        for n in self.narrators:
            n.action(*args)

    def new_deal(self, state) -> None:
        for n in self.narrators:
            n.new_deal(state)

    def fault(self, fault: dict) -> None:
        for n in self.narrators:
            n.fault(fault)


def game_frames(record: dict, games: dict[str, type[Game]], names: list[str]) -> dict:
    """The viewer's data for one expanded record: ``values``, and per view (full, seat 0, ...)
    its frames: frame 0 is the start, frame n the table after action n."""
    game = game_from_record(record, games)
    values = _Values()
    views = [_View(game, seat, names, values) for seat in (None, *range(game.players))]
    fan = _Fanout(views)
    faults: dict[int, list[dict]] = {}
    for fault in record.get("faults", []):
        faults.setdefault(fault["decision"], []).append(fault)
    state = game.replay_state(record.get("chance", []))
    for fault in faults.get(0, []):
        fan.fault(fault)
    fan.begin(state)
    _frames(views, state)
    actions = record.get("actions", [])
    for number, (who, value) in enumerate(actions, start=1):
        if state.is_terminal() or state.current_player() != who:
            raise RecordError(f"action {number}: it is not seat {who}'s turn")
        legal = state.legal_actions()
        index = legal.index(action_from_json(value, legal))
        for fault in faults.get(number, []):
            fan.fault(fault)
        step(state, fan, index, number)
        if number == len(actions):
            for fault in faults.get(-1, []):
                fan.fault(fault)
        _frames(views, state)
    return {
        "values": values.values,
        "views": [v.frames for v in views],
        "fault_steps": sorted(d for d in faults if d > 0),
    }


def _frames(views: list[_View], state) -> None:
    """One frame of each view. The full view's frame holds its parts that changed; a seat view's,
    only where it differs from the full view (most of the table is public): the parts whose
    difference changed, ``-1`` where it became the same again, and its caption if another."""
    full, full_say = views[0].parts(state)
    first = views[0]
    first.frames.append(
        {k: v for k, v in full.items() if first.last.get(k) != v} | {"say": full_say}
    )
    first.last = full
    for view in views[1:]:
        parts, say = view.parts(state)
        wanted = {k: v for k, v in parts.items() if full.get(k) != v}
        frame = {k: v for k, v in wanted.items() if view.last.get(k) != v}
        frame.update((k, -1) for k in view.last if k not in wanted)
        if say != full_say:
            frame["say"] = say
        view.last = wanted
        view.frames.append(frame)


def drawing_at(frames: dict, players: int, view: int, index: int) -> dict:
    """The drawing of frame ``index`` of ``view`` (0: full, 1 + n: seat n) put back together,
    as the page's JavaScript does (``frameAt`` in assets/report.js)."""
    values = frames["values"]
    full: dict = {}
    over: dict = {}
    for i in range(index + 1):
        full.update(frames["views"][0][i])
        if view:
            for key, value in frames["views"][view][i].items():
                if value == -1:
                    over.pop(key, None)
                else:
                    over[key] = value
    parts = {**full, **over}
    say = frames["views"][view][index].get("say", frames["views"][0][index]["say"])
    return {
        "status": values[parts["status"]],
        "turn": values[parts["turn"]],
        "seats": [
            {k: values[parts[f"{k}{s}"]] for k in ("cards", "hidden", "lines", "out")}
            for s in range(players)
        ],
        "piles": [values[parts[f"pile{i}"]] for i in range(values[parts["piles"]])],
        "say": "\n".join(values[i] for i in say),
    }
