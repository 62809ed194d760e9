"""Strangers' bots in a real sandbox (issue 13): hostile bot files against ``random`` at Twenty
Down with ``--isolation process``, through a real ``python -m arena run``.

The bubblewrap tests need ``bwrap`` (Debian's ``bubblewrap``): they skip on a machine without it,
and FAIL when the environment variable ``CI`` is set (``.ci/run`` installs it). docs/security.md
lists the attacks and the tests that show each one fails.

A sandboxed bot can write nothing outside its process, so the hostile bots here report what they
found the only way left to them: as the message of a fault (an exception in ``act``), which the
database keeps.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

import pytest
from conftest import FIRST_BOT, RANDOM_BOT, bot_file, plugin_bots, write_bots
from test_cli import arena_process, run_args
from test_hostile_bots import TD, Ran, assert_completed, assert_others_untouched

from arena.execution.process import bubblewrap

SECRET_SEED = "secret-seed-7f3a9c"
HONEST = {"random_bot.py": RANDOM_BOT, "first_bot.py": FIRST_BOT}


def require_bwrap() -> None:
    problem = bubblewrap.probe(bubblewrap.bwrap_path())
    if problem is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"CI is set but {problem}: apt-get install bubblewrap")
    pytest.skip(f"{problem} (apt-get install bubblewrap)")


@pytest.fixture
def bwrap():
    require_bwrap()


def sandboxed_run(folder, files: dict, bots: str, *extra, games: int = 2, seed="sandbox") -> Ran:
    bots_dir = write_bots(folder / "bots", {**HONEST, **files})
    db = folder / "results" / "arena.db"
    db.parent.mkdir(exist_ok=True)
    options = ["--game", TD, "--isolation", "process", "--move-time", 2.0, "--format", "json"]
    args = run_args(bots_dir, db, *options, "--bots", bots, *extra, games=games, seed=seed)
    return Ran(arena_process(*args), db, TD, games)


def reports(ran: Ran, bot: str) -> list[dict]:
    """What the bot reported, as the messages of its faults (JSON after 'REPORT')."""
    found = []
    for who, _, _, _, _, message in ran.faults():
        if who == bot and "REPORT" in message:
            found.append(json.loads(message[message.index("REPORT") + 6 :].strip()))
    return found


# --- attacks 2 and 3: the database and the seed; and no network ------------------------------

SNOOP = bot_file(
    "snoop",
    """
    if getattr(type(self), "reported", False):  # once per process
        return observation.legal_actions[0]
    type(self).reported = True
    raise RuntimeError("REPORT " + json.dumps(SEEN))
    """,
    header="""
    import json, os, socket, sqlite3, sys

    def snoop():
        seen = {"pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit())}
        lines = []
        for pid in seen["pids"]:
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    lines.append(f.read().replace(b"\\0", b" ").decode())
            except OSError:
                pass
        seen["seed"] = any(__SECRET__ in line for line in lines)
        dbs = [w for line in lines for w in line.split() if w.endswith(".db")]
        for top, dirs, files in os.walk("/", onerror=None):
            if top.startswith(("/proc", "/sys", "/dev", "/usr", sys.prefix, sys.base_prefix)):
                dirs[:] = []
                continue
            dbs += [os.path.join(top, f) for f in files if f.endswith(".db")]
        seen["dbs"] = dbs
        seen["opened"] = []
        for path in dbs:
            try:
                con = sqlite3.connect(f"file:{path}?mode=rw", uri=True)
                con.execute("CREATE TABLE forged (x)")
                con.commit()
                seen["opened"].append(path)
                seen["seed"] |= any(__SECRET__ in str(r) for r in con.execute("SELECT * FROM runs"))
            except Exception:
                pass
        try:
            socket.create_connection(("127.0.0.1", __PORT__), timeout=2).close()
            seen["network"] = "connected"
        except OSError as exc:
            seen["network"] = type(exc).__name__
        seen["uid"] = os.getuid()
        return seen

    SEEN = snoop()  # at import, where time is not short
    """,
)


@pytest.fixture(scope="module")
def snooped(tmp_path_factory):
    require_bwrap()
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.setblocking(False)
    port = listener.getsockname()[1]
    source = SNOOP.replace("__SECRET__", repr(SECRET_SEED)).replace("__PORT__", str(port))
    folder = tmp_path_factory.mktemp("snoop")
    ran = sandboxed_run(folder, {"snoop.py": source}, "snoop,random", seed=SECRET_SEED)
    try:
        listener.accept()
        connected = True
    except BlockingIOError:
        connected = False
    listener.close()
    return ran, connected


def test_sandboxed_bot_cannot_find_nor_forge_the_database(snooped):
    """Attack 2: the --db path is nowhere in sight (no other process's command line, no file),
    and the stored results are honest."""
    ran, _ = snooped
    assert_completed(ran)
    assert_others_untouched(ran, {"snoop"})
    (seen,) = reports(ran, "snoop")
    assert seen["dbs"] == [] and seen["opened"] == []
    assert ran.query("SELECT name FROM sqlite_master WHERE name = 'forged'") == []
    assert ran.rows["snoop"]["faults"] == 1  # its report, and nothing else changed


def test_sandboxed_bot_cannot_read_the_runs_seed(snooped):
    """Attack 3 (the database part): neither the runs table nor an ancestor's --seed."""
    ran, _ = snooped
    (seen,) = reports(ran, "snoop")
    assert seen["seed"] is False
    assert seen["pids"] == [1, 2]  # bubblewrap's init and the bot's own process: nobody else
    assert seen["uid"] == bubblewrap.NOBODY


def test_sandboxed_bot_has_no_network(snooped):
    ran, connected = snooped
    (seen,) = reports(ran, "snoop")
    assert seen["network"] != "connected" and not connected


# --- attack 5: memory before import, the process cap -----------------------------------------

HOG = "buffer = bytearray(1 << 30)\n" + RANDOM_BOT.replace('"random"', '"hog"')


def test_a_bot_allocating_a_gibibyte_at_import_does_not_load_under_256_mib(tmp_path):
    """Attack 5: the memory limit holds before the bot file is imported (with or without
    bubblewrap: it is set before the process executes anything)."""
    ran = sandboxed_run(tmp_path, {"hog.py": HOG}, "random,first", "--bot-memory", 256)
    assert_completed(ran)
    assert "hog.py" in ran.proc.stderr and "MemoryError" in ran.proc.stderr, ran.proc.stderr
    assert "hog" not in ran.rows


BREEDER = bot_file(
    "breeder",
    """
    if getattr(type(self), "reported", False):  # once per process
        return observation.legal_actions[0]
    type(self).reported = True
    raise RuntimeError("REPORT " + json.dumps({"bomb": bomb(), "helpers": helpers()}))
    """,
    header="""
    import json, os, time

    def bomb():
        started = 0
        for _ in range(40):
            try:
                if os.fork() == 0:
                    time.sleep(30)
                    os._exit(0)
                started += 1
            except OSError:
                break
        return started

    def helpers():
        # four helpers, one after the other, each allocating 315 MiB under a 512 MiB limit
        codes = []
        for _ in range(4):
            try:
                pid = os.fork()
            except OSError:
                codes.append("not started")
                continue
            if pid == 0:
                try:
                    bytearray(315 << 20)
                    os._exit(0)
                except MemoryError:
                    os._exit(3)
            codes.append(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
        return codes
    """,
)


def test_sandboxed_bot_cannot_multiply_its_memory_with_processes(bwrap, tmp_path):
    """Attack 5: a fork bomb stops at the process cap; what its helpers allocate is bounded by
    the cap times the limit (as root, where the kernel ignores RLIMIT_NPROC, no helper at all)."""
    ran = sandboxed_run(tmp_path, {"breeder.py": BREEDER}, "breeder,random", "--bot-memory", 512)
    assert_completed(ran)
    assert_others_untouched(ran, {"breeder"})
    (seen,) = reports(ran, "breeder")
    cap = bubblewrap.process_cap()
    # (the bot's own process and bubblewrap's init count too; a cap of 1: no new process)
    others = 0 if cap == 1 else cap - 2
    assert seen["bomb"] <= others, seen
    assert seen["helpers"].count(0) + seen["bomb"] <= others
    if os.geteuid() == 0:
        assert seen == {"bomb": 0, "helpers": ["not started"] * 4}


FILLER = bot_file(
    "filler",
    """
    if getattr(type(self), "reported", False):  # once per process
        return observation.legal_actions[0]
    type(self).reported = True
    raise RuntimeError("REPORT " + json.dumps({d: fill(d) for d in FOLDERS}))
    """,
    header="""
    import json, os

    FOLDERS = ("/tmp", "/dev/shm", "/dev")

    def fill(folder):
        # MiB written into a file of the folder, up to 400: a tmpfs is memory, not address space
        written = 0
        try:
            with open(os.path.join(folder, "fill"), "wb") as f:
                for _ in range(400):
                    f.write(bytes(1 << 20))
                    f.flush()
                    written += 1
        except OSError:
            pass
        try:
            os.unlink(os.path.join(folder, "fill"))
        except OSError:
            pass
        return written
    """,
)


def test_sandboxed_bot_cannot_fill_memory_through_its_private_folders(bwrap, tmp_path):
    """Attack 5 again: files in the sandbox's own tmpfs folders are the machine's memory, outside
    RLIMIT_AS. Under --bot-memory 128 a bot once wrote 400 MiB into each of /tmp, /dev/shm and
    /dev; /tmp and /dev/shm now hold at most TMPFS_MIB each, and no more than the memory limit,
    and /dev is read-only."""
    if not bubblewrap.sizes_tmpfs(bubblewrap.bwrap_path()):
        if os.environ.get("CI"):
            pytest.fail("CI is set but bubblewrap has no --size (it needs 0.8 or later)")
        pytest.skip("bubblewrap has no --size (it needs 0.8 or later)")
    ran = sandboxed_run(tmp_path, {"filler.py": FILLER}, "filler,random", "--bot-memory", 128)
    assert_completed(ran)
    assert_others_untouched(ran, {"filler"})
    (seen,) = reports(ran, "filler")
    assert seen["/tmp"] <= 128 >= seen["/dev/shm"], seen
    assert seen["/dev"] == 0, seen


# --- attacks 7 and 8: arena's output, other processes' pipes ------------------------------------

INTRUDER = bot_file(
    "intruder",
    """
    if getattr(type(self), "reported", False):  # once per process
        return observation.legal_actions[0]
    type(self).reported = True
    raise RuntimeError("REPORT " + json.dumps(intrude()))
    """,
    header="""
    import json, os

    def ancestors():
        pid, found = os.getpid(), []
        while pid > 1:
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
            found.append(pid)
        return found

    def intrude():
        opened = []
        pids = set(ancestors()) | {int(p) for p in os.listdir("/proc") if p.isdigit()}
        for pid in sorted(pids - {os.getpid()}):
            try:
                fds = os.listdir(f"/proc/{pid}/fd")
            except OSError:
                continue
            for fd in fds:
                try:
                    out = os.open(f"/proc/{pid}/fd/{fd}", os.O_WRONLY | os.O_NONBLOCK)
                    os.write(out, b"INJECTED garbage\\n")
                    os.close(out)
                    opened.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
                except OSError:
                    pass
        return {"opened": opened}
    """,
)


@pytest.fixture(scope="module")
def intruded(tmp_path_factory):
    require_bwrap()
    folder = tmp_path_factory.mktemp("intruder")
    return sandboxed_run(folder, {"intruder.py": INTRUDER}, "intruder,random")


def test_sandboxed_bot_cannot_write_into_arenas_output(intruded):
    """Attack 7: through /proc/<arena>/fd/1: --format json stays valid JSON."""
    ran = intruded
    assert_completed(ran)
    assert "INJECTED" not in ran.proc.stdout and "INJECTED" not in ran.proc.stderr
    assert set(ran.rows) == {"intruder", "random"}  # stdout parses as the JSON document


@pytest.mark.skipif(os.geteuid() != 0, reason="the attack needs root: run as root (CI is)")
def test_sandboxed_bot_of_a_root_run_cannot_open_other_processes_pipes(intruded):
    """Attack 8: as root, no pipe of another process (its worker's, the other bots') is in
    reach: an honest bot is never blamed, the run is never aborted."""
    ran = intruded
    assert_others_untouched(ran, {"intruder"})
    (seen,) = reports(ran, "intruder")
    # it sees only bubblewrap's init (pid 1), whose only files open to it lead nowhere
    assert set(seen["opened"]) <= {"/dev/null"}, seen


# --- the line at start --------------------------------------------------------------------------


def test_the_start_line_says_which_protections_are_active(bwrap, tmp_path):
    ran = sandboxed_run(tmp_path, {}, "random,first", games=1)
    assert_completed(ran)
    (line,) = [x for x in ran.proc.stderr.splitlines() if x.startswith("sandbox:")]
    assert line.startswith("sandbox: bubblewrap (no network, private /proc, no view of the ")
    assert "uid 65534" in line and "memory 1024 MiB before import" in line


@pytest.mark.parametrize("how", ["--sandbox none", "no bwrap on PATH"])
def test_without_bubblewrap_the_start_line_says_what_is_missing(tmp_path, how):
    bots_dir = write_bots(tmp_path / "bots", HONEST)
    options = ["--game", TD, "--isolation", "process", "--bots", "random,first"]
    if how == "--sandbox none":
        options += ["--sandbox", "none"]
    env = {"PATH": str(tmp_path)} if how == "no bwrap on PATH" else None
    args = run_args(bots_dir, tmp_path / "x.db", *options, games=1)
    proc = arena_process(*args, env_extra=env)
    assert proc.returncode == 0, proc.stderr
    (line,) = [x for x in proc.stderr.splitlines() if x.startswith("sandbox:")]
    why = "--sandbox none" if how == "--sandbox none" else "bubblewrap not found"
    assert line.startswith(f"sandbox: none ({why}): memory 1024 MiB before import")
    assert "missing: no network" in line and "apt-get install bubblewrap" in line


def test_sandbox_bwrap_required_and_missing_is_a_one_line_error(tmp_path):
    bots_dir = write_bots(tmp_path / "bots", {"random_bot.py": RANDOM_BOT})
    options = ["--game", TD, "--isolation", "process", "--sandbox", "bwrap"]
    args = run_args(bots_dir, tmp_path / "x.db", *options, games=1)
    proc = arena_process(*args, env_extra={"PATH": str(tmp_path)})
    assert proc.returncode != 0
    assert proc.stderr.strip().splitlines() == [
        "arena: error: --sandbox bwrap: bubblewrap not found (apt-get install bubblewrap)"
    ]
    assert not (tmp_path / "x.db").exists()


def test_the_sandbox_shows_the_arena_package_but_not_the_checkout_nor_the_database(tmp_path):
    import arena

    bot = write_bots(tmp_path / "bots", {"b.py": RANDOM_BOT}) / "b.py"
    args = bubblewrap.wrap(["python"], [str(bot)], bubblewrap.SandboxSettings(hidden=("/nowhere",)))
    binds = {args[i + 1] for i, a in enumerate(args) if a in ("--ro-bind", "--bind")}
    package = os.path.dirname(os.path.realpath(arena.__file__))
    assert package in binds and str(bot.parent.resolve()) in binds
    assert os.path.dirname(package) not in binds and "/" not in binds
    assert not any(b.startswith(str(tmp_path.resolve())) and "bots" not in b for b in binds)


def test_a_database_inside_a_bot_folder_is_covered(tmp_path):
    bots = write_bots(tmp_path / "bots", {"b.py": RANDOM_BOT})
    args = bubblewrap.wrap(
        ["python"], [str(bots / "b.py")], bubblewrap.SandboxSettings(hidden=(str(bots),))
    )
    text = " ".join(args)
    real = str(bots.resolve())
    # the folder, then an empty tmpfs over it, then the bot file alone
    assert text.index(f"--ro-bind {real} {real}") < text.index(f"--tmpfs {real}")
    assert text.index(f"--tmpfs {real}") < text.index(f"--ro-bind {real}/b.py {real}/b.py")


# --- attack 9: shared mode ----------------------------------------------------------------------


def test_shared_mode_what_a_bot_starts_ends_with_the_run(tmp_path):
    """Attack 9: 20 children (half of them in sessions of their own) end with the run."""
    pids = tmp_path / "pids"
    spawner = bot_file(
        "spawner",
        f"""
        if not getattr(type(self), "spawned", False):
            type(self).spawned = True
            with open({str(pids)!r}, "a") as f:
                for i in range(20):
                    child = subprocess.Popen(["sleep", "60"], start_new_session=i % 2 == 0)
                    f.write(f"{{child.pid}}\\n")
        return observation.legal_actions[0]
        """,
        header="import subprocess",
    )
    folder = write_bots(tmp_path / "bots", {"random_bot.py": RANDOM_BOT, "spawner.py": spawner})
    args = run_args(folder, tmp_path / "x.db", "--game", TD, "--bots", "spawner,random", games=4)
    proc = arena_process(*args)
    assert proc.returncode == 0, proc.stderr
    started = [int(line) for line in pids.read_text().split()]
    assert len(started) == 20
    time.sleep(0.2)
    alive = [pid for pid in started if _alive(pid)]
    assert alive == []


def _alive(pid: int) -> bool:
    """Running (not a zombie waiting for its parent)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


# prints the pid of a child it leaves behind (which must not hold the pipe being read)
ORPHAN_MAKER = (
    "import subprocess as s; d = s.DEVNULL; print(s.Popen(['sleep', '60'], stdout=d, stderr=d).pid)"
)


def test_descendants_of_a_block_end_with_it():
    from arena.execution.descendants import Descendants, children

    with Descendants():
        child = subprocess.run(
            [sys.executable, "-c", ORPHAN_MAKER],
            capture_output=True,
            text=True,
        )
        orphan = int(child.stdout)
        assert orphan in children()  # given to this process, the subreaper, not to init
    assert not _alive(orphan)


def test_a_bot_file_symlinked_from_another_folder_loads_in_the_sandbox(bwrap, tmp_path):
    from arena.execution.process.sandboxed_loading import load_registry_isolated

    real = write_bots(tmp_path / "elsewhere", {"first_bot.py": FIRST_BOT}) / "first_bot.py"
    folder = write_bots(tmp_path / "bots", {"random_bot.py": RANDOM_BOT})
    (folder / "first_bot.py").symlink_to(real)
    registry = load_registry_isolated(folder, entry_points=False)
    assert plugin_bots(registry) == {"random", "first"}, registry.errors
