"""Bots in any language end to end, through a real ``python -m arena run``: whole tournaments with
the Node.js and C examples in both isolation modes, and hostile programs in other languages (sh,
JavaScript, C), each faulted with the right kind while the rest of the run is undisturbed. Tests
needing node or cc skip without them, and fail when ``CI`` is set (``.ci/run`` installs both)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from conftest import FIRST_BOT, RANDOM_BOT, REPO, write_bots
from test_cli import arena_process, run_args
from test_hostile_bots import Ran, assert_completed, assert_others_untouched, faults_by_seat
from test_protocol import require

pytestmark = pytest.mark.usefixtures("isolated")
MODES = ["shared", "process"]
EXAMPLES = REPO / "examples" / "protocol"
HELLO = '{"type":"hello","protocol":1,"name":"hostile","games":["twenty-down"]}'


def program_run(tmp_path: Path, files: dict[str, str], mode: str, game: str = "twenty-down",
                games: int = 4, bots: str | None = None, copy=(), players: int = 4,
                move_time: float = 1.0, extra=()) -> Ran:  # fmt: skip
    folder = write_bots(tmp_path / "bots", {"random_bot.py": RANDOM_BOT, "first_bot.py": FIRST_BOT,
                                            **files})  # fmt: skip
    for name in copy:
        shutil.copy(EXAMPLES / name, folder / name)
    db = tmp_path / f"{mode}.db"
    options = ["--game", game, "--isolation", mode, "--move-time", move_time, "--format", "json"]
    if bots:
        options += ["--bots", bots]
    options += list(extra)
    if game == "how-low-can-you-go":
        options += ["--players", players]
    args = run_args(folder, db, *options, games=games, seed="programs", jobs=1)
    env = {"ARENA_CACHE_DIR": str(tmp_path / "cache")}
    return Ran(arena_process(*args, env_extra=env), db, game, games)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("game", ["twenty-down", "how-low-can-you-go"])
def test_tournaments_with_the_node_and_c_example_bots(tmp_path, mode, game):
    require("node")
    require("cc")
    copy = [f for f in os.listdir(EXAMPLES) if f.endswith((".js", ".c", ".h", ".toml"))]
    ran = program_run(tmp_path, {}, mode, game, games=6, copy=copy, players=4)
    assert_completed(ran)
    rows = ran.rows
    for bot in ("random-js", "heuristic-js", "random-c", "heuristic-c", "random", "first"):
        assert rows[bot]["games"] >= 1 and rows[bot]["faults"] == 0, rows[bot]
    assert sum(row["games"] for row in rows.values()) == 6 * 4
    assert ran.faults() == []


def manifest(name: str, command: str) -> str:
    return f'name = "{name}"\ngames = ["twenty-down"]\ncommand = [{command}]\n'


SH = {
    # answers the hello, then never again
    "mute": f"read line\necho '{HELLO}'\nwhile read line; do :; done\n",
    # closes its standard output after the hello, and goes on reading
    "closed": f"read line\necho '{HELLO}'\nexec 1>&-\nwhile read line; do :; done\n",
    # starts children that keep its output open, and exits (where it may start any: as root
    # under bubblewrap it may not, and ends at its first try)
    "parent": f"read line\necho '{HELLO}'\nread line\n(sleep 1234.5 &) 2>/dev/null\n"
              "sleep 1234.5 2>/dev/null &\nexit 4\n",
}  # fmt: skip
JS = {
    "garbage": "'this is not JSON'",
    "illegal": '\'{"type":"action","action":"XX"}\'',
    "huge": "'x'.repeat(10000000)",  # a line of 10 MB
}
EXITS_C = """
#include <stdio.h>
#include <string.h>
int main(void) {
    char line[1 << 16];
    while (fgets(line, sizeof line, stdin)) {
        if (strstr(line, "\\"hello\\"")) { puts("HELLO"); fflush(stdout); }
        else if (strstr(line, "\\"act\\"")) return 3;
    }
    return 0;
}
""".replace("HELLO", HELLO.replace('"', '\\"'))


def js_program(answer: str) -> str:
    return (
        "require('readline').createInterface({input: process.stdin}).on('line', (line) => {\n"
        "  const m = JSON.parse(line);\n"
        f"  if (m.type === 'hello') console.log('{HELLO}');\n"
        f"  else if (m.type === 'act') console.log({answer});\n"
        "});\n"
    )


def hostile_files(name: str) -> dict[str, str]:
    if name in SH:
        return {f"{name}.sh": SH[name], f"{name}.toml": manifest(name, f'"sh", "{name}.sh"')}
    if name in JS:
        require("node")
        return {f"{name}.js": js_program(JS[name]),
                f"{name}.toml": manifest(name, f'"node", "{name}.js"')}  # fmt: skip
    require("cc")
    return {
        "exits.c": EXITS_C,
        "exits.toml": manifest("exits", '"{cache}/exits"')
        + 'build = ["cc", "-o", "{cache}/exits", "exits.c"]\n',
    }


# name -> (the fault kinds it may get, a part of their message)
EXPECTED = {
    "mute": ({"timeout"}, ""),  # (said by the program's host or by the worker's clock)
    "huge": ({"crash"}, "it wrote a line longer than 1048576 bytes"),
    # (under bubblewrap, whose own process holds the pipe too, seen only when an answer is due)
    "closed": ({"crash", "timeout"}, ""),
    "parent": ({"crash"}, "its program ended (exit code"),
    "garbage": ({"crash"}, "it wrote not JSON: 'this is not JSON'"),
    "illegal": ({"illegal"}, '"XX" is not a legal action'),
    "exits": ({"crash"}, "its program ended (exit code 3)"),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(EXPECTED))
def test_hostile_programs_are_faulted_with_the_right_kind_and_disturb_nothing(tmp_path, mode, name):
    move_time = 0.3 if name in SH else 1.0  # (node starting again takes a while on a busy CI)
    ran = program_run(tmp_path, hostile_files(name), mode, bots=f"{name},random,first",
                      move_time=move_time)  # fmt: skip
    assert_completed(ran)
    assert_others_untouched(ran, {name})
    kinds, message = EXPECTED[name]
    seats = faults_by_seat(ran, name)
    assert seats, ran.rows[name]
    for faults in seats.values():
        assert len(faults) == 3  # then the seat forfeits (--max-faults 3)
        for _, found_kind, found_message in faults:
            assert found_kind in kinds and message in found_message, faults
    assert ran.rows[name]["forfeits"] == len(seats)
    if name == "parent":  # whatever it started ended with it
        assert not _processes_with("1234.5"), "a child of the program outlived it"


def _processes_with(text: str) -> list[str]:
    found = []
    for pid in os.listdir("/proc"):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if text in cmdline and "pytest" not in cmdline:
            found.append(cmdline)
    return found


# Sleeps 0.35 s on its first decision of each game (past a 0.25 s move time), then answers at
# once; answers an illegal action if a request does not say what is left of its bank.
SLOW_JS = """
const seen = new Set();
require('readline').createInterface({input: process.stdin}).on('line', (line) => {
  const m = JSON.parse(line);
  if (m.type === 'hello') console.log('HELLO');
  else if (m.type === 'act') {
    if (!seen.has(m.id)) {
      seen.add(m.id);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 350);
    }
    const ok = m.time.move === 0.25 && typeof m.time.bank === 'number' && m.time.bank > 0;
    console.log(JSON.stringify({type: 'action', action: ok ? m.observation.legal_actions[0] : 'XX'}));
  }
});
""".replace("HELLO", HELLO)


@pytest.mark.parametrize("mode", MODES)
def test_a_program_draws_on_its_time_bank_and_is_told_what_is_left(tmp_path, mode):
    require("node")
    files = {"slow.js": SLOW_JS, "slow.toml": manifest("slow", '"node", "slow.js"')}
    options = dict(games=4, bots="slow,random", move_time=0.25)
    banked = program_run(tmp_path, files, mode, extra=["--time-bank", "3"], **options)
    assert_completed(banked)
    assert banked.faults() == [], banked.faults()
    unbanked = program_run(tmp_path / "no-bank", files, mode, **options)
    assert {(bot, kind) for bot, _, _, _, kind, _ in unbanked.faults()} == {("slow", "timeout")}
