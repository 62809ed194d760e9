"""With ``--isolation process`` no bot file runs in arena's own process, not even to be loaded
(``arena.execution.process.sandboxed_loading``): a sandboxed loading process imports the files
and reports what they register.

The registry arena builds from those reports is the one it builds loading the files itself, and
a file that ends, hangs, kills or fools its loading process is a one-line load error naming it,
while every other bot loads and plays.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from conftest import FIRST_BOT, RANDOM_BOT, REPO, STANDARD_BOTS, bot_file, plugin_bots, write_bots
from test_cli import arena_process, run_args
from test_hostile_bots import BROKEN_FILES

from arena.execution.process.bubblewrap import SandboxSettings
from arena.execution.process.sandboxed_loading import LoadedElsewhere, load_registry_isolated
from arena.plugins.loading import load_registry

pytestmark = pytest.mark.usefixtures("isolated")

SETTINGS_BOT = """
import arena


class Tuned(arena.Bot):
    name = "tuned"
    games = {"twenty-down"}

    def __init__(self, depth=1, label=""):
        self.depth = depth

    def act(self, observation):
        return observation.legal_actions[0]


@arena.hookimpl
def arena_register_bots(register):
    register(Tuned, depth=3, label="x")
    register(Tuned, name="tuned-deep", depth=9)
"""

# Each ends, hangs, attacks or fools the process that loads it; (source, part of its error).
HOSTILE_FILES = {
    "exits.py": ("import os\nos._exit(5)\n", "its loading process ended (exit code 5)"),
    "segfaults.py": (
        "import ctypes\nctypes.string_at(0)\n",
        "its loading process was killed by SIGSEGV",
    ),
    "kills_arena.py": (
        "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n",
        "PermissionError",
    ),
    "garbles.py": (
        "import os\nfor fd in range(3, 30):\n"
        "    try:\n"
        '        os.write(fd, b\'{"not": "a report"}\\n\')\n'
        "    except OSError:\n"
        "        pass\n",
        "wrote something else than its report",
    ),
    "nests.py": (
        "import os\nfor fd in range(3, 30):\n"
        "    try:\n"
        "        os.write(fd, b'[' * 200000 + b'\\n')\n"
        "    except OSError:\n"
        "        pass\n",
        "wrote something else than its report",
    ),
    "registers_a_game.py": (
        "import arena\nfrom arena.games.twenty_down import TwentyDown\n\n\n"
        "class Copy(TwentyDown):\n    name = 'td-copy'\n    aliases = ()\n\n\n"
        "@arena.hookimpl\ndef arena_register_games(register):\n    register(Copy)\n",
        "may register bots only",
    ),
}


def _registry_rows(registry):
    bots = {
        name: (spec.games, [(k, repr(v)) for k, v in spec.settings], spec.source, spec.origin)
        for name, spec in registry.bots.items()
    }
    return bots, [str(e) for e in registry.errors], sorted(registry.games)


def test_the_registry_is_the_one_loading_the_files_here_gives(tmp_path):
    files = {name: source for name, (source, _) in BROKEN_FILES.items()}
    files["twin_a.py"] = bot_file("twin", "return observation.legal_actions[0]")
    files["tuned.py"] = SETTINGS_BOT
    baseline = REPO / "arena" / "plugins" / "baseline"
    more = {name: (baseline / name).read_text() for name in ("random_bot.py", "td_heuristic.py")}
    folders = [write_bots(tmp_path / "bots", {**STANDARD_BOTS, **files}), tmp_path / "more"]
    write_bots(folders[1], more)
    here = load_registry(folders, entry_points=False)
    isolated = load_registry_isolated(folders, entry_points=False)
    assert _registry_rows(isolated) == _registry_rows(here)
    assert {"tuned", "tuned-deep", "first", "td-heuristic"} <= plugin_bots(isolated)
    assert not {"random", "twin"} & set(isolated.bots)  # each registered by two files
    assert len(isolated.errors) == len(BROKEN_FILES) + 1  # and random, in both folders
    for spec in (s for s in isolated.bots.values() if s.name in plugin_bots(isolated)):
        assert issubclass(spec.cls, LoadedElsewhere) and spec.origin[0] == "file"
    assert repr(dict(isolated.bots["tuned"].settings)["label"]) == "'x'"


def test_no_bot_file_runs_in_arenas_own_process(tmp_path):
    marker = tmp_path / "pids.txt"
    spy = f"import os\nopen({str(marker)!r}, 'a').write(f'{{os.getpid()}}\\n')\n" + RANDOM_BOT
    folder = write_bots(tmp_path / "bots", {"spy.py": spy, "first_bot.py": FIRST_BOT})
    before = set(sys.modules)
    # (no bubblewrap: the spy writes outside its folder, which bubblewrap hides)
    registry = load_registry_isolated(folder, entry_points=False, sandbox=SandboxSettings("none"))
    assert plugin_bots(registry) == {"random", "first"}
    pids = marker.read_text().split()
    assert len(pids) == 1 and int(pids[0]) != os.getpid()
    assert not [m for m in set(sys.modules) - before if m.startswith("arena_bots.")]


@pytest.mark.parametrize("name", sorted(HOSTILE_FILES))
def test_a_file_that_ends_attacks_or_fools_its_loading_process_is_one_load_error(tmp_path, name):
    source, fragment = HOSTILE_FILES[name]
    # Files sorted before and after it: loaded by the first loading process and by a new one.
    files = {"a_first.py": FIRST_BOT, name: source, "z_random.py": RANDOM_BOT}
    folder = write_bots(tmp_path / "bots", files)
    registry = load_registry_isolated(folder, entry_points=False)
    assert plugin_bots(registry) == {"first", "random"}
    (error,) = registry.errors
    assert error.source == str(folder / name) and fragment in error.message, error
    assert "\n" not in str(error)


def test_a_file_that_hangs_its_loading_process_is_a_load_error_after_the_limit(tmp_path):
    files = {"a_first.py": FIRST_BOT, "hangs.py": "while True:\n    pass\n", "z.py": RANDOM_BOT}
    folder = write_bots(tmp_path / "bots", files)
    registry = load_registry_isolated(folder, entry_points=False, seconds=1.0)
    assert plugin_bots(registry) == {"first", "random"}
    (error,) = registry.errors
    assert error.source == str(folder / "hangs.py")
    assert error.message == "did not finish loading within 1 s"


def test_a_file_using_more_than_the_memory_limit_to_load_is_a_load_error(tmp_path):
    hog = "blob = bytearray(3 * 1024 ** 3)\n" + RANDOM_BOT
    folder = write_bots(tmp_path / "bots", {"hog.py": hog, "first_bot.py": FIRST_BOT})
    registry = load_registry_isolated(folder, entry_points=False, memory_mib=256)
    assert plugin_bots(registry) == {"first"}
    (error,) = registry.errors
    assert error.source == str(folder / "hog.py") and "MemoryError" in error.message


def test_a_process_isolated_run_survives_hostile_files_and_plays_the_others(tmp_path):
    files = {name: source for name, (source, _) in HOSTILE_FILES.items()}
    folder = write_bots(tmp_path / "bots", {**files, **STANDARD_BOTS})
    db = tmp_path / "run.db"
    args = run_args(folder, db, "--isolation", "process", "--game", "td", games=4)
    proc = arena_process(*args)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("arena: warning: ")]
    assert len(warnings) == len(HOSTILE_FILES), proc.stderr
    for name, (_, fragment) in HOSTILE_FILES.items():
        (line,) = [w for w in warnings if f"{folder / name}: " in w]
        assert fragment in line
    assert db.exists()
    assert "random" in proc.stdout and "td-only" in proc.stdout


def test_arena_bots_can_list_files_without_importing_them_here(tmp_path):
    files = {"exits.py": HOSTILE_FILES["exits.py"][0], **STANDARD_BOTS}
    folder = write_bots(tmp_path / "bots", files)
    proc = arena_process("bots", "--bots-dir", folder, "--isolation", "process")
    assert proc.returncode == 0, proc.stderr
    for name in ("random", "first", "td-only"):
        assert name in proc.stdout
    assert f"failed: {Path(folder) / 'exits.py'}: its loading process ended (exit code 5)" in (
        proc.stdout
    )


def test_ctrl_c_while_a_file_hangs_its_loading_process_stops_the_run_at_once(tmp_path):
    import signal
    import subprocess
    import time

    folder = write_bots(tmp_path / "bots", {"hangs.py": "while True:\n    pass\n", **STANDARD_BOTS})
    args = run_args(folder, tmp_path / "run.db", "--isolation", "process", games=2)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", *map(str, args)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(2.0)  # loading hangs.py (the limit is 30 s)
    began = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 130, err
    assert time.monotonic() - began < 5 and "Traceback" not in err


@pytest.mark.parametrize("cores,shared,process", [(1, 1, 1), (2, 2, 1), (3, 3, 1), (8, 8, 4)])
def test_process_isolation_runs_one_game_worker_per_two_cores_by_default(
    monkeypatch, cores, shared, process
):
    """Each worker's bot processes keep about one more core busy (arena bench: on two cores one
    worker plays faster than two)."""
    from arena.tournament import run as tournament

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cores)))
    assert tournament.default_jobs() == tournament.default_jobs("shared") == shared
    assert tournament.default_jobs("process") == process


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two cores")
def test_on_two_cores_a_process_isolated_run_uses_one_worker_and_a_shared_one_two(tmp_path):
    import subprocess

    folder = write_bots(tmp_path / "bots", STANDARD_BOTS)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    for mode, workers in (("process", 1), ("shared", 2)):
        args = ["run", "--games", 2, "--db", tmp_path / f"{mode}.db", "--bots-dir", folder, "-q"]
        proc = subprocess.run(
            [sys.executable, "-m", "arena", *map(str, args), "--isolation", mode, "--game", "td"],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            preexec_fn=lambda: os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:2]),
        )
        assert proc.returncode == 0, proc.stderr
        assert f"{workers} job(s), isolation {mode}" in proc.stderr


def test_an_unrelated_unfinished_process_isolated_run_does_not_change_a_shared_one(tmp_path):
    """Found in review: the files were loaded for process isolation because some unfinished run
    of the database was process-isolated, and a shared run of a game registered by a bot file
    then failed ("unknown game") with a warning that made no sense for it."""
    from test_plugins import GAME_PLUGIN

    from arena.store.database import Store

    folder = write_bots(tmp_path / "bots", {**STANDARD_BOTS, "pick_game.py": GAME_PLUGIN})
    db = tmp_path / "mixed.db"
    store = Store(db)
    store.start_run("other", {"another": "run"}, {"isolation": "process", "bot_memory": 512})
    store.close()
    proc = arena_process(*run_args(folder, db, "--game", "p3", games=4, seed="p3"))
    assert proc.returncode == 0, proc.stderr
    assert "isolation shared" in proc.stderr and "warning" not in proc.stderr, proc.stderr
    assert "pick-three" in proc.stdout


FORGER = """
import os
import arena

# Reports for this file and the next, as a loading process shared by both would read them.
lines = [
    {"file": 0, "bots": [], "games": [], "errors": []},
    {"file": 1},
    {"file": 1, "bots": [{"name": "impostor", "games": None, "settings": []}], "games": [],
     "errors": []},
]
import json
for fd in range(3, 30):
    try:
        os.write(fd, b"".join(json.dumps(line).encode() + b"\\n" for line in lines))
    except OSError:
        pass
os._exit(0)
"""


def test_a_file_cannot_forge_another_files_report_nor_end_its_loading(tmp_path):
    """Found in review, when one loading process loaded every file in turn: a file could write
    the next file's report (its bot then vanished for an impostor), or end the process while
    the next file loaded (which was then blamed)."""
    ender = "import os, threading, time\n\nthreading.Thread(target=lambda: (time.sleep(0.5), "
    ender += "os._exit(3))).start()\n" + FIRST_BOT
    slow = "import time\ntime.sleep(1.0)\n" + RANDOM_BOT
    files = {"a_forger.py": FORGER, "b_honest.py": STANDARD_BOTS["td_only.py"]}
    files |= {"c_ender.py": ender, "d_slow.py": slow}
    folder = write_bots(tmp_path / "bots", files)
    registry = load_registry_isolated(folder, entry_points=False)
    assert registry.bots["td-only"].source == str(folder / "b_honest.py")
    assert registry.bots["random"].source == str(folder / "d_slow.py")
    assert "impostor" not in registry.bots
    assert {e.source for e in registry.errors} <= {str(folder / "c_ender.py")}


ODD_BUT_HONEST = """
import arena


class Odd(arena.Bot):
    def __init__(self, **settings):
        pass

    def act(self, observation):
        return observation.legal_actions[0]


@arena.hookimpl
def arena_register_bots(register):
    register(Odd, name="spaced name ünïcode")
    register(Odd, name="x" * 300)
    register(Odd, name="dashed", **{"search-depth": 3, "note": "y" * 500})
"""

LONG_ERROR = "raise ImportError('no ' + 'such ' * 400 + 'module')\n"


def test_files_within_what_loading_here_takes_load_the_same_there(tmp_path):
    """Found in review: a long error, a name with a tab or of 300 characters, a setting that is
    not an identifier: each made the whole report count as forged. (A tab is no longer a bot
    name: arena.plugins.names; a space and letters beyond ASCII are.)"""
    folder = write_bots(tmp_path / "bots", {"odd.py": ODD_BUT_HONEST, "long.py": LONG_ERROR})
    here = load_registry(folder, entry_points=False)
    there = load_registry_isolated(folder, entry_points=False)
    assert plugin_bots(there) == plugin_bots(here) == {"spaced name ünïcode", "x" * 300, "dashed"}
    assert [k for k, _ in there.bots["dashed"].settings] == ["note", "search-depth"]
    ((error_here,), (error_there,)) = here.errors, there.errors
    assert error_there.source == error_here.source == str(folder / "long.py")
    assert error_there.message.startswith("failed to import: ImportError: no such such")
    assert len(error_there.message) <= 1000 and "\n" not in error_there.message
