"""Bots in any language end to end, through a real ``python -m arena run``: whole tournaments with
the Node.js and C examples in both isolation modes, and hostile programs in other languages (sh,
JavaScript, C), each faulted with the right kind while the rest of the run is undisturbed. Tests
needing node or cc skip without them, and fail when ``CI`` is set (``.ci/run`` installs both)."""

from __future__ import annotations

import os
import shutil
import sys
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
    # in either mode the programs are sandboxed, and the run says how, in one line
    assert sum(line.startswith("sandbox: ") for line in ran.proc.stderr.splitlines()) == 1


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
    # an answer by index (docs/protocol.md, the compact form) out of range; one naming both
    "index-out": '\'{"type":"action","index":99}\'',
    "both": "JSON.stringify({type: 'action', index: 0, action: m.observation.legal_actions[0]})",
    "huge": "'x'.repeat(10000000)",  # a line of 10 MB
    "nested": "'['.repeat(100000)",  # JSON's parser gives up (RecursionError), well under 1 MB
    # a legal answer, and the same again 10 ms later, when its request's batch has been read
    "surplus": "(setTimeout(() => console.log(JSON.stringify(SURPLUS)), 10), "
               "JSON.stringify(SURPLUS))",
    # the same, its answers naming their request
    "surplus-numbered": "(setTimeout(() => console.log(JSON.stringify(NUMBERED)), 10), "
                        "JSON.stringify(NUMBERED))",
}  # fmt: skip
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
        "  const SURPLUS = {type: 'action', action: (m.observation || {}).legal_actions?.[0]};\n"
        "  const NUMBERED = {...SURPLUS, request: m.request};\n"
        f"  if (m.type === 'act') console.log({answer});\n"
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
    "nested": ({"crash"}, "it wrote not JSON: '[[[["),
    # (under bubblewrap, whose own process holds the pipe too, seen only when an answer is due)
    "closed": ({"crash", "timeout"}, ""),
    "parent": ({"crash"}, "its program ended (exit code"),
    "garbage": ({"crash"}, "it wrote not JSON: 'this is not JSON'"),
    "illegal": ({"illegal"}, '"XX" is not a legal action'),
    "index-out": ({"illegal"}, '"index 99" is not a legal action'),
    "both": ({"crash"}, "it wrote an action naming neither an action nor an index, or both"),
    # (a surplus that comes while the next answer is awaited is read as that answer, unless
    # the answers name their request)
    "surplus": ({"crash", "illegal"}, ""),
    "surplus-numbered": ({"crash"}, "a message nobody asked for"),
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
    surplus = name.startswith("surplus")
    seats = faults_by_seat(ran, name)
    assert seats, ran.rows[name]
    for faults in seats.values():
        assert len(faults) == 3 or surplus  # then the seat forfeits (--max-faults 3)
        for _, found_kind, found_message in faults:
            assert found_kind in kinds and message in found_message, faults
    assert ran.rows[name]["forfeits"] == len(seats) or surplus
    if name == "parent":  # whatever it started ended with it
        assert not _processes_with("1234.5"), "a child of the program outlived it"


# Its hello is brackets nested 8,192 deep (JSON's parser gives up: RecursionError); shell builtins
# only (as root under bubblewrap a program may not start children).
NESTED_HELLO = (
    "read line\ns='['; i=0\nwhile [ $i -lt 13 ]; do s=\"$s$s\"; i=$((i+1)); done\n"
    'echo "$s"\nwhile read line; do :; done\n'
)


@pytest.mark.parametrize("mode", MODES)
def test_a_program_whose_hello_breaks_the_json_parser_forfeits_and_disturbs_nothing(tmp_path, mode):
    files = {"nested.sh": NESTED_HELLO, "nested.toml": manifest("nested", '"sh", "nested.sh"')}
    ran = program_run(tmp_path, files, mode, bots="nested,random,first")
    assert_completed(ran)
    assert_others_untouched(ran, {"nested"})
    found = [f for faults in faults_by_seat(ran, "nested").values() for f in faults]
    assert found and all(kind == "crash" and "not JSON" in message for _, kind, message in found)


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
    const action = ok ? m.observation.legal_actions[0] : 'XX';
    console.log(JSON.stringify({type: 'action', action: action}));
  }
});
""".replace("HELLO", HELLO)


@pytest.mark.parametrize("mode", MODES)
def test_a_program_draws_on_its_time_bank_and_is_told_what_is_left(tmp_path, mode):
    require("node")
    files = {"slow.js": SLOW_JS, "slow.toml": manifest("slow", '"node", "slow.js"')}
    options = {"games": 4, "bots": "slow,random", "move_time": 0.25}
    banked = program_run(tmp_path, files, mode, extra=["--time-bank", "3"], **options)
    assert_completed(banked)
    assert banked.faults() == [], banked.faults()
    unbanked = program_run(tmp_path / "no-bank", files, mode, **options)
    assert {(bot, kind) for bot, _, _, _, kind, _ in unbanked.faults()} == {("slow", "timeout")}


SPY = """read line
echo "parent:" "$1"/../* >&2
x=none; read -r x 2>/dev/null < "$1/../beside.txt"; echo "beside: $x" >&2
x=none; read -r x 2>/dev/null < "$2/programs/other-0123/bin"; echo "other: $x" >&2
x=none; read -r x 2>/dev/null < "$3/built"; echo "own: $x" >&2
echo '{"type":"hello","protocol":1,"name":"spy","games":["twenty-down"]}'
while read line; do :; done
"""  # (builtins only: as root the sandbox lets it start no process)


def test_a_sandboxed_program_sees_its_own_files_only(tmp_path, monkeypatch):
    from test_bubblewrap_sandbox import require_bwrap

    from arena.execution.process.program_bot import ProgramLimits, ProgramPool
    from arena.plugins.manifests import prepare, read_manifest

    require_bwrap()
    cache = tmp_path / "cache"
    monkeypatch.setenv("ARENA_CACHE_DIR", str(cache))
    (tmp_path / "beside.txt").write_text("the user's secret")
    (cache / "programs" / "other-0123").mkdir(parents=True)
    (cache / "programs" / "other-0123" / "bin").write_text("another program's build")
    bots = write_bots(tmp_path / "bots", {"spy.sh": SPY, "spy.toml": (
        'name = "spy"\nbuild = ["sh", "-c", "echo mine > {cache}/built"]\n'
        f'command = ["sh", "spy.sh", "{{dir}}", "{cache}", "{{cache}}"]\n')})  # fmt: skip
    manifest = read_manifest(bots / "spy.toml")
    prepare(manifest)
    with open(tmp_path / "err", "w") as err:
        pool = ProgramPool(manifest, ProgramLimits(stderr=err.fileno()))
        try:
            pool.process()
        finally:
            pool.close()
    seen = dict(line.split(": ", 1) for line in (tmp_path / "err").read_text().splitlines())
    listed = {os.path.basename(p) for p in seen["parent"].split()}
    assert "bots" in listed and "beside.txt" not in listed, seen  # (the cache: a mount point)
    assert "secret" not in seen["beside"] and "another" not in seen["other"], seen
    assert seen["own"] == "mine", seen


def test_a_sandboxed_build_writes_only_into_its_own_cache(tmp_path, monkeypatch):
    from test_bubblewrap_sandbox import require_bwrap

    from arena.plugins.manifests import ManifestError, prepare, read_manifest

    require_bwrap()
    monkeypatch.setenv("ARENA_CACHE_DIR", str(tmp_path / "cache"))
    bots = write_bots(tmp_path / "bots", {
        "b.toml": 'name = "b"\nbuild = ["sh", "-c", "echo x > {dir}/../escaped"]\ncommand = "sh"\n',
        "c.toml": 'name = "c"\nbuild = ["sh", "-c", "echo x > {dir}/escaped"]\ncommand = "sh"\n',
    })  # fmt: skip
    prepare(read_manifest(bots / "b.toml"))  # (into the sandbox's own empty root)
    with pytest.raises(ManifestError, match="build failed"):
        prepare(read_manifest(bots / "c.toml"))  # (its folder is read-only)
    assert not (tmp_path / "escaped").exists() and not (bots / "escaped").exists()


def test_a_swapped_build_is_built_again(tmp_path, monkeypatch):
    from arena.plugins.manifests import prepare, read_manifest

    monkeypatch.setenv("ARENA_CACHE_DIR", str(tmp_path / "cache"))
    build = '["sh", "-c", "echo ours > {cache}/out"]'
    toml = f'name = "b"\nbuild = {build}\ncommand = "sh"\n'
    bots = write_bots(tmp_path / "bots", {"b.toml": toml})
    manifest = read_manifest(bots / "b.toml")
    prepare(manifest)
    (manifest.cache() / "out").write_text("swapped\n")
    prepare(manifest)
    assert (manifest.cache() / "out").read_text() == "ours\n"


def test_a_date_in_settings_is_a_one_line_error(tmp_path):
    from arena.plugins.manifests import ManifestError, read_manifest

    path = tmp_path / "d.toml"
    path.write_text('name = "d"\ncommand = ["sh"]\n[settings]\nwhen = 2024-01-01\n')
    with pytest.raises(ManifestError, match="no dates or times"):
        read_manifest(path)


@pytest.mark.parametrize(
    "name, message",
    [("a,b", "may not contain ','"), ("v@2", "may not contain '@'"), ("human", "is the person")],
)
def test_a_manifest_name_no_command_can_select_is_a_one_line_error(tmp_path, name, message):
    from arena.plugins.manifests import ManifestError, read_manifest

    path = tmp_path / "n.toml"
    path.write_text(f'name = "{name}"\ncommand = ["sh"]\n')
    with pytest.raises(ManifestError, match=message):
        read_manifest(path)


def test_the_manifest_is_read_once_not_at_every_spawn(tmp_path):
    from arena.plugins.manifests import read_manifest

    (tmp_path / "bot.sh").write_text("exit 0\n")
    path = tmp_path / "s.toml"
    path.write_text('name = "s"\ncommand = ["sh", "bot.sh"]\n')
    manifest = read_manifest(path)
    first = manifest.cache()
    (tmp_path / "bot.sh").unlink()  # (a digest now would fail)
    assert manifest.cache() == first and manifest.digest() == first.name.split("-")[-1]


def test_a_program_host_restarts_a_program_without_waiting_for_its_hello(tmp_path):
    from types import SimpleNamespace

    from arena.execution.process.bubblewrap import SandboxSettings
    from arena.execution.process.program_bot import ProgramLimits, ProgramPool
    from arena.execution.process.program_host import ProgramHost
    from arena.plugins.manifests import read_manifest

    (tmp_path / "slow.sh").write_text(f"read line\nsleep 0.3\necho '{HELLO}'\ncat >/dev/null\n")
    (tmp_path / "slow.toml").write_text(manifest("slow", '"sh", "slow.sh"'))
    limits = ProgramLimits(sandbox=SandboxSettings("none"))
    pool = ProgramPool(read_manifest(tmp_path / "slow.toml"), limits)
    try:
        first = pool.process()
        ProgramHost.restart(SimpleNamespace(pool=pool))  # (a decision of it failed)
        assert pool.current is not first and pool.current.alive
        assert pool.greeted is not pool.current  # its hello not awaited in the failed command
        player = pool.started_factory()()  # a seat's creation does not await it either
        assert pool.greeted is not pool.current
        player._ask(None)
        assert pool.greeted is pool.current  # its first message does
    finally:
        pool.close()


def test_a_program_that_ends_between_decisions_faults_its_next_decision(tmp_path):
    """The starts and ends of games are written after a batch's requests; a program that has
    ended by then was started again without any fault (a crash nobody was blamed for). The
    decision blamed still counts as seen: the seat's later requests are changes to it."""
    import time

    from arena.execution.process.bubblewrap import SandboxSettings
    from arena.execution.process.program_bot import ProgramLimits
    from arena.execution.process.program_host import ProgramHost
    from arena.execution.process.wire import differ_for, fields_getter
    from arena.games import TwentyDown
    from arena.plugins.manifests import read_manifest
    from arena.referee.outcome import GameInfo

    (tmp_path / "again.py").write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        f"    if m['type'] == 'hello': print({HELLO!r}, flush=True)\n"
        "    if m['type'] == 'act':\n"
        "        print(json.dumps({'type': 'action', 'request': m['request'], 'index': 0}),"
        " flush=True)\n"
    )
    (tmp_path / "quits.sh").write_text(  # the first ends after its hello; the next one answers
        f"if [ -e {tmp_path}/marker ]; then exec {sys.executable} {tmp_path}/again.py; fi\n"
        f"touch {tmp_path}/marker\nread line\necho '{HELLO}'\n"
    )
    (tmp_path / "quits.toml").write_text(manifest("quits", '"sh", "quits.sh"'))
    host = ProgramHost(
        read_manifest(tmp_path / "quits.toml"), ProgramLimits(sandbox=SandboxSettings("none"))
    )
    game = TwentyDown()
    state = game.new_state("s")
    seat = state.current_player()
    info = GameInfo(game.name, seat, 4, game.variant, dict(game.params), 1.0)
    try:
        host.pool.process()
        time.sleep(0.3)  # (it has ended)
        host.run([("new", 7, "ab" * 16, info)])  # its start is queued, and cannot be written
        assert host.owed is not None
        host.answers()  # (the seat's creation)
        observation = state.observation(seat)
        getter, differ = fields_getter(type(observation)), differ_for(type(observation))
        host.run([("act", 7, observation)])
        codes, _seconds, faults = host.answers()
        assert len(codes) == 1 and faults[0][0] == "crash", faults
        assert "between decisions" in faults[0][1]
        state.apply_legal(0)  # (the referee's fallback), then on to the seat's next decision
        while state.current_player() != seat:
            state.apply_legal(0)
        changes = differ(getter(state.observation(seat)), getter(observation))
        host.run([("act_changes", 7, changes)])
        codes, _seconds, faults = host.answers()
        assert faults == {} and len(codes) == 1  # blamed once; it answers the next one
    finally:
        host.pool.close()


def test_a_line_written_after_its_answer_was_read_is_not_the_next_answer(tmp_path):
    import time

    from arena.execution.process.bubblewrap import SandboxSettings
    from arena.execution.process.program_bot import ProgramLimits, ProgramPool
    from arena.plugins.manifests import read_manifest
    from arena.referee.faults import ProgramFault

    answer = '{"type":"action","action":0}'
    (tmp_path / "twice.sh").write_text(
        f"read line\necho '{HELLO}'\nread line\necho '{answer}'\nsleep 0.1\necho '{answer}'\n"
        "while read line; do :; done\n"
    )
    (tmp_path / "twice.toml").write_text(manifest("twice", '"sh", "twice.sh"'))
    pool = ProgramPool(read_manifest(tmp_path / "twice.toml"), ProgramLimits(
        sandbox=SandboxSettings("none")))  # fmt: skip
    try:
        player = pool.factory()
        request = b'{"type":"act","id":1}\n'
        assert player._ask(request) == {"type": "action", "action": 0}
        time.sleep(0.4)  # (its second line is in the pipe, unread)
        with pytest.raises(ProgramFault, match="a message nobody asked for"):
            player._ask(request)
    finally:
        pool.close()


@pytest.mark.parametrize("sandbox", ["none", "auto"])
def test_a_program_gets_a_minimal_environment_and_an_empty_folder(tmp_path, monkeypatch, sandbox):
    from test_bubblewrap_sandbox import require_bwrap

    from arena.execution.process.bubblewrap import SandboxSettings
    from arena.execution.process.program_bot import ProgramLimits, ProgramPool
    from arena.plugins.manifests import read_manifest

    if sandbox == "auto":
        require_bwrap()
    monkeypatch.setenv("ARENA_TEST_TOKEN", "a secret of the user's shell")
    (tmp_path / "env.sh").write_text(
        'read line\nset -- *\necho "token=$ARENA_TEST_TOKEN|mine=$MINE|home=$HOME|files=$*" >&2\n'
        f"echo '{HELLO}'\nwhile read line; do :; done\n"
    )
    (tmp_path / "env.toml").write_text(
        manifest("env", '"sh", "env.sh"') + '[env]\nMINE = "declared"\n'
    )
    limits = ProgramLimits(sandbox=SandboxSettings(sandbox), stderr=None)
    with open(tmp_path / "err", "w") as err:
        pool = ProgramPool(read_manifest(tmp_path / "env.toml"), limits)
        pool.limits = ProgramLimits(sandbox=SandboxSettings(sandbox), stderr=err.fileno())
        try:
            pool.process()
            folder = pool.current.folder
        finally:
            pool.close()
    seen = dict(p.split("=", 1) for p in (tmp_path / "err").read_text().strip().split("|"))
    assert seen["token"] == "" and seen["mine"] == "declared", seen
    assert seen["files"] == "*", seen  # run in an empty folder, not arena's
    assert seen["home"] == (folder or "/tmp/program"), seen
    assert folder is None or not os.path.exists(folder)  # removed with it


def test_a_bare_command_of_check_bot_has_what_to_show_in_the_sandbox(tmp_path):
    from arena.protocol.conformance import command_manifest

    files, exact = command_manifest(["sh", "-c", "exit 0"]).visible()  # (no manifest file)
    assert all(os.path.exists(p) for p in files + exact) and os.path.realpath(
        shutil.which("sh")) in {os.path.realpath(p) for p in files + exact}  # fmt: skip


@pytest.mark.parametrize("relative", [True, False])
def test_check_bot_shows_the_program_the_files_its_command_names(tmp_path, monkeypatch, relative):
    """``arena check-bot -- node random.js``, the script named relative to the current folder
    or absolute: it is shown in the sandbox (exactly), and the program runs."""
    from arena.protocol.conformance import command_manifest

    require("node")
    (tmp_path / "bot").mkdir()
    shutil.copy(EXAMPLES / "random.js", tmp_path / "bot" / "random.js")
    script = "bot/random.js" if relative else str(tmp_path / "bot" / "random.js")
    monkeypatch.chdir(tmp_path)
    files, exact = command_manifest(["node", script]).visible()
    assert str(tmp_path / "bot" / "random.js") in exact
    proc = arena_process("check-bot", "--games", "1", "--", "node", script, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "no problem found" in proc.stdout


def test_a_failure_of_arenas_own_program_host_faults_the_batch_not_the_worker(tmp_path):
    """The game worker serves a program's seats itself: an error of arena's there faults the
    batch's decisions (the program starts again), and the worker goes on."""
    from arena.execution.context import PlayContext
    from arena.execution.process.bubblewrap import SandboxSettings
    from arena.execution.process.program_channel import ProgramChannel, open_bot
    from arena.execution.process.wire import FAULT
    from arena.plugins.loading import load_registry

    (tmp_path / "e.sh").write_text(f"read line\necho '{HELLO}'\nwhile read line; do :; done\n")
    (tmp_path / "e.toml").write_text(manifest("e", '"sh", "e.sh"'))
    registry = load_registry([tmp_path], entry_points=False)
    game = registry.games["twenty-down"].cls()
    context = PlayContext(registry, {"twenty-down": game}, sandbox=SandboxSettings("none"))
    channel = open_bot(context, "e", [])
    assert isinstance(channel, ProgramChannel)
    try:
        channel.wait_ready()
        channel.host.run = lambda batch: 1 / 0  # (a bug of arena's)
        assert channel.send([("drop", 1), ("drop", 2)], 0.0)
        codes, _, faults = channel.receive()
        assert codes == [FAULT, FAULT]
        assert all(kind == "crash" and "ZeroDivisionError" in why for kind, why in faults.values())
        assert channel.host.pool.current is None  # (started again when next needed)
    finally:
        channel.kill()
