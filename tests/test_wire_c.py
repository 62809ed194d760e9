"""The C extension ``arena.execution.process._wire_c`` diffs, applies and pickles as ``arena.execution.process.wire``'s Python code
does, object for object; ``ARENA_PURE_PYTHON_WIRE=1`` switches it off, in the worker and in the
bot processes, and a whole run gives the same results either way."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from contextlib import contextmanager

import pytest
from conftest import FIRST_BOT, RANDOM_BOT, require_c_extension, write_bots
from hypothesis import given, settings
from hypothesis import strategies as st
from test_cli import arena_process, run_args

from arena.execution.process import wire

C_MISSING = (
    "arena.execution.process._wire_c is not built (no C compiler at install time?) or out of date"
)
needs_c = pytest.mark.skipif(wire._wire_c is None, reason=C_MISSING)


@contextmanager
def implementation(use_c: bool):
    """Diff and apply in the C extension, or in pure Python, inside."""
    was_c = wire._use_c
    assert wire.use_c_extension(use_c) == use_c
    try:
        yield
    finally:
        wire.use_c_extension(was_c)


def test_the_c_extension_is_built_when_required():
    """ARENA_REQUIRE_C_EXTENSION=1 (where a compiler exists): fail if the C code is not built."""
    require_c_extension(wire._wire_c, C_MISSING)
    if os.environ.get(wire.PURE_PYTHON_VARIABLE, "0") in ("", "0"):
        assert wire.implementation() == "C extension (arena.execution.process._wire_c)"
    for use_c in (True, False):
        with implementation(use_c):
            assert isinstance(wire.changes_for(3, ()), wire._wire_c.Differ) == use_c
            expected = "C extension (arena.execution.process._wire_c)" if use_c else "pure Python"
            assert wire.implementation() == expected


def changes_for_both(n: int, grows_from: tuple) -> tuple:
    """(the Python differ, the C differ)."""
    with implementation(False):
        python = wire.changes_for(n, grows_from)
    with implementation(True):
        return python, wire.changes_for(n, grows_from)


def _same_objects(a, b) -> bool:
    """The same values, where each element of a tuple or list is the very same object."""
    if type(a) is not type(b):
        return False
    if type(a) in (tuple, list):
        return len(a) == len(b) and all(
            x is y or _same_objects(x, y) for x, y in zip(a, b, strict=True)
        )
    return a is b or (type(a) is int and a == b)


class _Frozen(tuple):
    """A tuple subclass: not ``type(v) is tuple``, so never taken as a grown tuple."""


ATOMS = [0, 1, 2, 2.0, "a", "b", None, True, frozenset({1}), b"x", _Frozen((1,))]


@st.composite
def _case(draw):
    """A last observation's values and a new one's, made the ways engines make them: the same
    object, a tuple grown or rebuilt of the same elements, another field's old tuple grown, equal
    objects that are not the same, lists (changed in place or not)."""
    n = draw(st.integers(0, 7))
    atom = st.sampled_from(ATOMS)
    shared = [[1, 2], []]  # lists: mutable, sent again even when they are the same object
    small = st.lists(atom, max_size=4).map(tuple) | st.sampled_from(shared) | atom
    last = [draw(small) for _ in range(n)]
    values = []
    for i in range(n):
        old = last[i]
        other = last[draw(st.integers(0, n - 1))]
        how = draw(st.integers(0, 6))
        if how == 0:
            values.append(old)
        elif how == 1 and type(old) is tuple:
            values.append(old + tuple(draw(st.lists(atom, max_size=3))))
        elif how == 2 and type(old) is tuple:
            values.append(old[:1] + old[1:] if old else ())  # rebuilt: the same elements
        elif how == 3 and type(other) is tuple:
            values.append(other + tuple(draw(st.lists(atom, max_size=3))))
        elif how == 4 and type(old) is tuple and old:
            values.append(old[:-1])  # shrank
        elif how == 5:
            values.append(tuple(2.0 if x == 2 else x for x in old) if type(old) is tuple else 2)
        else:
            values.append(draw(small))
    pairs = []
    targets = list(range(n))
    draw(st.randoms()).shuffle(targets)
    for i in targets[: draw(st.integers(0, min(2, n // 2)))]:
        sources = [j for j in range(n) if j != i and j not in dict(pairs) and j not in targets[:2]]
        if sources:
            pairs.append((i, draw(st.sampled_from(sources))))
    return tuple(values), tuple(last), tuple(pairs)


@needs_c
@settings(max_examples=400, deadline=None)
@given(_case())
def test_the_c_differ_finds_what_the_python_one_finds(case):
    values, last, pairs = case
    python, c = changes_for_both(len(values), pairs)
    expected = python(values, last)
    got = c(values, last)
    assert _same_objects(got, expected), (got, expected)
    # and both ways of applying them rebuild the new values, element for element
    for use_c in (False, True):
        view = list(last)
        with implementation(use_c):
            wire.apply_changes(view, got)
        assert len(view) == len(values)
        assert all(v is w or _same_objects(v, w) for v, w in zip(view, values, strict=True)), (
            view,
            values,
        )


@needs_c
def test_the_c_differ_refuses_what_the_python_one_refuses():
    python, c = changes_for_both(2, ())
    for differ in (python, c):
        with pytest.raises(ValueError):
            differ((1, 2, 3), (1, 2))
    with pytest.raises(ValueError):
        wire._wire_c.Differ(2, (1, 1), set(), bool)  # a field growing from itself


@needs_c
def test_applying_a_continuation_to_no_values_is_the_same_error_in_c_and_python():
    """(Found in review: the C code divided by zero, which killed the process.)"""
    for use_c in (False, True):
        with implementation(use_c), pytest.raises(ZeroDivisionError):
            wire.apply_changes([], [0, (1,)])


@needs_c
def test_a_known_named_tuple_is_reduced_alike_in_c_and_python():
    from arena.cards import CARDS
    from arena.games.twenty_down import Trick

    trick = Trick(1, ((1, CARDS[3]),), 1)
    python = wire._reduce_named_tuple(trick)
    c = wire._wire_c.reduce_named_tuple(trick)
    assert c[0] is python[0] is tuple.__new__
    assert c[1][0] is Trick and type(c[1][1]) is tuple and c[1][1] == tuple(trick)
    assert c[1][1][1] is trick[1]


def _commands(game, count: int) -> list:
    """The commands a worker makes for random play of ``game``: a seat's first observation
    whole, its next ones as changes (``wire.changes``), and then the end of each game."""
    import random

    rng = random.Random(5)
    commands: list = []
    while len(commands) < count:
        state = game.new_state(f"seed-{len(commands)}")
        last: dict = {}
        while (seat := state.current_player()) >= 0:
            observation = state.observation(seat)
            values = wire.fields_getter(type(observation))(observation)
            if seat in last:
                found = wire.differ_for(type(observation))(values, last[seat])
                commands.append(("act_changes", 4096 + seat, found))
            else:
                commands.append(("act", 4096 + seat, observation))
            last[seat] = values
            state.apply_legal(rng.randrange(len(state.legal_actions())))
        commands.append(("end", 4096, state.result()))
    return commands


EDGES = [
    ("x", 1.5, -0.0, float("inf"), -3, 255, 256, 65535, 65536, 2**31 - 1, -(2**31), 2**31),
    ("é", "\ud800", True, False, None, [], [1], [1, 2], (), (1,), (1, 2, 3, 4), b"x"),
    ("new", 1, 2, {"a": 1}, frozenset({1}), list(range(1001))),
]


@needs_c
@pytest.mark.parametrize("game", ["twenty-down", "how-low-can-you-go"])
def test_the_c_command_writer_writes_the_picklers_very_bytes(game):
    """``BatchWriter``'s C writer (``_wire_c.CommandWriter``) writes what the pickler writes,
    byte for byte, for every command of random games and for values at the edges of each of its
    opcodes; what it cannot write (a big int, a dict, an observation) the pickler writes."""
    from arena.games import HowLowCanYouGo, TwentyDown

    games = [TwentyDown(), HowLowCanYouGo()]
    chosen = next(g for g in games if g.name == game)
    deep: list = [1]
    for _ in range(60):
        deep = [deep]
    commands = _commands(chosen, 400) + EDGES + [("act", 1, deep)]
    encoder = wire.CommandEncoder(wire.known_objects(games))
    with implementation(False):
        python = wire.BatchWriter(encoder)
    with implementation(True):
        c = wire.BatchWriter(encoder)
    assert isinstance(c.dump, wire._wire_c.CommandWriter)
    assert not isinstance(python.dump, wire._wire_c.CommandWriter)
    for command in commands:
        python.dump(command)
        c.dump(command)
    assert len(c.pieces) == len(commands)
    assert c.pieces == python.pieces
    loop: list = [1]
    loop.append(loop)
    for writer in (python, c):
        with pytest.raises(ValueError):  # a cycle: the caller's ``dump_cyclic``
            writer.dump(("act", 1, loop))
    assert len(c.pieces) == len(commands)


def test_the_environment_variable_forces_pure_python():
    code = "from arena.execution.process import wire; print(wire.implementation())"
    env = {**os.environ, wire.PURE_PYTHON_VARIABLE: "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "pure Python", out.stderr


@pytest.mark.usefixtures("isolated")
def test_process_mode_results_are_the_same_with_the_c_or_the_python_diff(tmp_path):
    """A whole ``--isolation process`` run (the worker and its bot processes all in pure Python
    when the variable is set) gives the leaderboard and the game records of the shared mode."""
    bots = write_bots(tmp_path / "bots", {"random_bot.py": RANDOM_BOT, "first_bot.py": FIRST_BOT})
    boards = {}
    for setting, mode, env in (
        ("shared", "shared", {}),
        ("c", "process", {}),
        ("python", "process", {wire.PURE_PYTHON_VARIABLE: "1"}),
    ):
        db = tmp_path / f"{setting}.db"
        args = run_args(bots, db, "--isolation", mode, "--format", "json", games=6, seed="wire")
        proc = arena_process(*args, env_extra=env)
        assert proc.returncode == 0, proc.stderr[-2000:]
        records = []
        for game_id in range(1, 13):
            replay = arena_process("replay", game_id, "--db", db, "--format", "json")
            assert replay.returncode == 0, replay.stderr[-2000:]
            record = json.loads(replay.stdout)
            records.append((record["seed"], record["actions"], record["result"], record["faults"]))
        boards[setting] = (json.loads(proc.stdout), sorted(records))
    assert boards["c"] == boards["shared"]
    assert boards["python"] == boards["shared"]
