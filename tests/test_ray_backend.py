"""``--backend ray``: the same results as a local run, on a local Ray instance.

One Ray head for the module (``ray start --head --block``, 2 CPUs, in a session of its own, ended
by its process group at the end), which every run joins with ``--ray-address``, as a run joins a
real cluster: the bot files travel in Ray's runtime environment. Each Ray run is compared with
the same run played locally: the leaderboard (``--format json``) and every stored row of every
game (deal, seats, scores, ranks, faults, record). A Ray worker killed with ``SIGKILL`` in the
middle of a game loses nothing and stores nothing twice; process isolation works there with the
same faults; a bot that cannot be loaded on the node is one line naming the node; Ctrl-C and
``--resume`` behave as locally.

Ray is in the test extra: without it these tests skip, and fail when ``CI`` is set.
"""

from __future__ import annotations

import faulthandler
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from conftest import (
    FIRST_BOT,
    RANDOM_BOT,
    assert_one_line_error,
    bot_file,
    count_games,
    leaderboard_json,
    write_bots,
)

from arena.games.record import unpack

pytestmark = pytest.mark.usefixtures("isolated")

# The head and every process of these tests run without Ray's token authentication (a cluster
# of one machine, on localhost, for the length of the module).
RAY_ENV = {"RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}
ON_NODE = "ARENA_RAY_TEST_NODE"  # set only in the Ray head's environment: its workers see it
START_SECONDS = 180.0  # Ray's start on a loaded shared machine: slow, but not forever
TEST_SECONDS = 600.0  # a test of a few small runs that takes longer hangs


def need_ray():
    try:
        import ray
    except ImportError:
        if os.environ.get("CI"):
            raise
        pytest.skip("Ray is not installed (pip install -e '.[ray]')")
    return ray


@pytest.fixture(scope="module")
def ray_address():
    """The address of a Ray head with 2 CPUs, started for this module."""
    need_ray()
    os.environ.update(RAY_ENV)
    # (short: Ray's socket paths under it must fit in 107 bytes)
    temp = tempfile.mkdtemp(prefix="arena-ray-")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = open(Path(temp) / "head.log", "w+")
    command = [
        sys.executable, "-m", "ray.scripts.scripts", "start", "--head", "--block",
        "--num-cpus", "2", "--port", str(port), "--node-ip-address", "127.0.0.1",
        "--include-dashboard=false", "--disable-usage-stats", "--temp-dir", temp,
    ]  # fmt: skip
    head = subprocess.Popen(
        command,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env={**os.environ, ON_NODE: "1"},
    )
    try:
        _wait_for_head(head, Path(log.name))
        yield f"127.0.0.1:{port}"
    finally:
        _stop_group(head)
        log.close()
        subprocess.run(["rm", "-rf", temp], check=False)


def _wait_for_head(head: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + START_SECONDS
    while "block forever" not in log.read_text():
        if head.poll() is not None or time.monotonic() > deadline:
            pytest.fail(f"the Ray head did not start:\n{log.read_text()[-3000:]}")
        time.sleep(0.5)


def _stop_group(head: subprocess.Popen) -> None:
    """End the head and everything it started (its own process group, nothing else)."""
    for sig, wait in ((signal.SIGTERM, 3.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(head.pid, sig)
        except ProcessLookupError:
            break
        try:
            head.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
        time.sleep(0.5)  # (what it started ends after it)
    try:
        os.killpg(head.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


@pytest.fixture(autouse=True)
def no_hang():
    """A run that hangs (a task Ray never schedules) ends the test session with every thread's
    traceback instead of waiting forever."""
    faulthandler.dump_traceback_later(TEST_SECONDS, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


def dump(db: Path) -> dict:
    """Every stored fact of every game, in schedule order, without ids and timings (a record's
    header and decisions, not its times)."""
    with sqlite3.connect(db) as con:
        games = [
            (*row[:-1], _record(row[-1]))
            for row in con.execute(
                "SELECT game, idx, board, seed, players, decisions, record FROM games "
                "ORDER BY game, idx"
            )
        ]
        seats = con.execute(
            "SELECT g.game, g.idx, s.seat, s.bot, s.score, s.rank, s.faults, s.forfeit "
            "FROM seats s JOIN games g ON g.id = s.game_id ORDER BY g.game, g.idx, s.seat"
        ).fetchall()
        faults = con.execute(
            "SELECT g.game, g.idx, f.seat, f.decision, f.kind, f.message "
            "FROM faults f JOIN games g ON g.id = f.game_id ORDER BY g.game, g.idx, f.seat, "
            "f.decision"
        ).fetchall()
    return {"games": games, "seats": seats, "faults": faults}


def _record(blob: bytes | None):
    if blob is None:
        return None
    header, indices, _times = unpack(blob)
    return header, list(indices)


def run(cli, db: Path, bots: Path, *extra, address: str | None = None):
    args = ["run", "--db", db, "--bots-dir", bots, "--seed", "ray-test", "-q", "--format", "json"]
    if address is not None:
        args += ["--backend", "ray", "--ray-address", address]
    return cli(*args, *extra)


def same_as_local(cli, tmp_path: Path, bots: Path, address: str, *extra) -> tuple[Path, object]:
    """Play the run on Ray, then locally; assert the same leaderboard and stored games."""
    on_ray, local = tmp_path / "ray.db", tmp_path / "local.db"
    result = run(cli, on_ray, bots, *extra, address=address)
    assert result.exit_code == 0, (result.output, result.exception)
    assert "ray: 1 worker(s) on 1 node" in result.stderr or "ray: 2 worker(s) on 1 node" in (
        result.stderr
    ), result.stderr
    assert run(cli, local, bots, *extra, "-j", "2").exit_code == 0
    assert leaderboard_json(cli, on_ray) == leaderboard_json(cli, local)
    assert dump(on_ray) == dump(local)
    return on_ray, result


def test_same_leaderboard_and_records_as_a_local_run(cli, tmp_path, ray_address):
    # A bot file (shipped to the node) and two bundled bots, both games, several chunks.
    bots = write_bots(tmp_path / "bots", {"random_bot.py": RANDOM_BOT})
    extra = ["--games", "24", "--bots", "random,td-heuristic,hl-heuristic"]
    db, result = same_as_local(cli, tmp_path, bots, ray_address, *extra)
    assert count_games(db) == 48
    assert json.loads(result.stdout)  # the final tables, as locally


def test_a_game_a_bot_file_registers_plays_on_ray(cli, tmp_path, ray_address):
    from test_plugins import GAME_PLUGIN  # (its game class is pickled by value for the nodes)

    files = {"pick_game.py": GAME_PLUGIN, "random_bot.py": RANDOM_BOT, "first_bot.py": FIRST_BOT}
    bots = write_bots(tmp_path / "bots", files)
    extra = ["--game", "p3", "--games", "12", "--bots", "random,first"]
    db, _ = same_as_local(cli, tmp_path, bots, ray_address, *extra)
    assert count_games(db, "pick-three") == 12


def test_an_old_version_travels_to_the_nodes_from_its_stored_source(cli, tmp_path, ray_address):
    bots = write_bots(tmp_path / "bots", {"first_bot.py": FIRST_BOT, "random_bot.py": RANDOM_BOT})
    db = tmp_path / "ray.db"
    common = ["--game", "td", "--games", "8"]
    assert run(cli, db, bots, *common, "--bots", "first,random").exit_code == 0
    (bots / "first_bot.py").write_text(bot_file("first", "raise RuntimeError('version 2')"))
    extra = [*common, "--bots", "first@1,first,random", "--seed", "second"]
    result = run(cli, db, bots, *extra, address=ray_address)
    assert result.exit_code == 0, result.output
    every = {row["bot"]: row for row in json.loads(result.stdout)["twenty-down"]}
    assert every["first@1"]["faults"] == 0 and every["first@2"]["faults"] > 0


KILLER = """
import os
import time
import arena

MARK = {mark!r}


class Killed(arena.Bot):
    name = "killed"

    def act(self, observation):
        # The first decision of the run tells the test which Ray worker plays it (this game's
        # worker is a child of the Ray worker) and waits for that worker to be killed.
        try:
            fd = os.open(MARK, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        except FileExistsError:
            pass
        else:
            os.write(fd, str(os.getppid()).encode())
            os.close(fd)
            time.sleep(30)
        legal = observation.legal_actions
        return legal[self.rng.randrange(len(legal))]


@arena.hookimpl
def arena_register_bots(register):
    register(Killed)
"""


def test_a_killed_ray_worker_loses_no_game_and_stores_none_twice(cli, tmp_path, ray_address):
    mark = tmp_path / "ray-worker.pid"
    bots = write_bots(tmp_path / "bots", {"killed.py": KILLER.format(mark=str(mark))})
    killed = []

    def kill_the_worker():
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            text = mark.read_text() if mark.exists() else ""
            if text:
                pid = int(text)
                assert pid != os.getpid()
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
                return
            time.sleep(0.05)

    killer = threading.Thread(target=kill_the_worker, daemon=True)
    killer.start()
    extra = ["--game", "td", "--games", "12", "--bots", "killed,random,td-heuristic"]
    # (the local run finds the mark written: its bot does not wait)
    db, _ = same_as_local(cli, tmp_path, bots, ray_address, *extra)
    killer.join(timeout=5)
    assert killed, "the Ray worker was never killed"
    with pytest.raises(ProcessLookupError):
        os.kill(killed[0], 0)
    assert count_games(db) == 12
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT COUNT(DISTINCT idx) FROM games").fetchone()[0] == 12


# Faults that do not depend on which games share a bot process: the same in any chunking.
FAULTY = bot_file(
    "faulty",
    """
    if self.rng.random() < 0.05:
        raise ValueError("a bug")
    if self.rng.random() < 0.05:
        return "not an action"
    return observation.legal_actions[0]
    """,
)
# A bot process that ends: every game it hosts forfeits that seat where it is (which games
# share the process depends on the chunks: compared by kind, not game by game).
CRASHER = bot_file(
    "crasher",
    """
    if len(observation.legal_actions) > 1 and self.rng.random() < 0.02:
        os._exit(3)
    return observation.legal_actions[0]
    """,
    header="import os",
)


def test_process_isolation_on_ray_gives_the_same_faults(cli, tmp_path, ray_address):
    files = {"faulty.py": FAULTY, "crasher.py": CRASHER, "random_bot.py": RANDOM_BOT}
    bots = write_bots(tmp_path / "bots", files)
    extra = ["--game", "td", "--games", "8", "--bots", "faulty,random", "--isolation", "process"]
    db, _ = same_as_local(cli, tmp_path, bots, ray_address, *extra)
    assert {kind for *_, kind, _ in dump(db)["faults"]} == {"exception", "illegal"}

    crashed = tmp_path / "crashed.db"
    extra = ["--game", "td", "--games", "8", "--bots", "crasher,random", "--isolation", "process"]
    result = run(cli, crashed, bots, *extra, address=ray_address)
    assert result.exit_code == 0, result.output
    assert count_games(crashed) == 8
    assert {kind for *_, kind, _ in dump(crashed)["faults"]} == {"crash"}
    # (a crash forfeits at once)
    assert any(bot == "crasher" and forfeit for *_, bot, _, _, _, forfeit in dump(crashed)["seats"])


NODE_ONLY_FAILURE = bot_file(
    "fragile",
    "return observation.legal_actions[0]",
    header=f"import os\nif os.environ.get({ON_NODE!r}):\n    import a_module_only_the_parent_has",
)


def test_a_bot_that_cannot_load_on_a_node_is_one_line_naming_it(cli, tmp_path, ray_address):
    bots = write_bots(tmp_path / "bots", {"fragile.py": NODE_ONLY_FAILURE})
    db = tmp_path / "ray.db"
    result = run(cli, db, bots, "--game", "td", "--games", "12", "--bots", "fragile,random",
                 address=ray_address)  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("arena: error:")]
    assert len(errors) == 1, result.stderr
    # the node by its address, then its host name
    assert "bot fragile cannot be loaded on node " in errors[0]
    assert f" ({socket.gethostname()}): ModuleNotFoundError" in errors[0]
    assert "a_module_only_the_parent_has" in errors[0]


def test_ctrl_c_and_resume_as_locally(cli, tmp_path, ray_address):
    """A real ``arena run --backend ray`` interrupted by SIGINT (to its process group, as a
    terminal's Ctrl-C), then ``--resume``: the same games as a run never interrupted."""
    slow = bot_file(
        "slow",
        "time.sleep(0.004)\nreturn observation.legal_actions[0]",
        header="import time",
    )
    bots = write_bots(tmp_path / "bots", {"slow.py": slow})
    db = tmp_path / "ray.db"
    args = ["--db", str(db), "--bots-dir", str(bots), "--seed", "ray-test", "-q"]
    args += ["--game", "td", "--games", "16", "--bots", "slow,random"]
    command = [sys.executable, "-m", "arena", "run", *args, "--ray-address", ray_address]
    process = subprocess.Popen(
        command, stderr=subprocess.PIPE, text=True, start_new_session=True, env=os.environ
    )
    deadline = time.monotonic() + 120
    while _stored(db) < 2 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    os.killpg(process.pid, signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "interrupted: finished games are stored" in stderr
    assert 2 <= _stored(db) < 16
    resumed = cli("run", "--resume", "--db", db, "--bots-dir", bots, "-q", "--backend", "ray",
                  "--ray-address", ray_address)  # fmt: skip
    assert resumed.exit_code == 0, resumed.output
    local = tmp_path / "local.db"
    assert run(cli, local, bots, *args[7:]).exit_code == 0
    assert leaderboard_json(cli, db) == leaderboard_json(cli, local)
    assert dump(db) == dump(local)


def _stored(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
            return con.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    except sqlite3.Error:
        return 0


# --- without a cluster -------------------------------------------------------------------------


def test_the_main_install_never_imports_ray(tmp_path):
    """``arena --help`` and ``arena run --help`` leave Ray alone (it takes a second to import)."""
    check = (
        "import sys\n"
        "from arena.cli import app\n"
        "for args in (['--help'], ['run', '--help']):\n"
        "    try:\n"
        "        app(args)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "assert 'ray' not in sys.modules, 'ray was imported'\n"
    )
    result = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "--backend" in result.stdout and "--ray-address" in result.stdout


def test_backend_ray_without_ray_is_one_line(cli, monkeypatch, bots_dir):
    monkeypatch.setitem(sys.modules, "ray", None)  # (an import of it fails)
    result = cli("run", "--backend", "ray", "--bots-dir", bots_dir, "--games", "4")
    assert_one_line_error(result, "--backend ray needs Ray", "pip install 'arena[ray]'")
    assert not Path("leaderboard").exists()  # (said before any database was made)


def test_backend_settings_are_checked(cli, bots_dir, tmp_path):
    result = cli("run", "--backend", "cluster", "--bots-dir", bots_dir)
    assert_one_line_error(result, "--backend must be local or ray, not 'cluster'")
    result = cli("run", "--backend", "local", "--ray-address", "auto", "--bots-dir", bots_dir)
    assert_one_line_error(result, "--ray-address needs --backend ray")
    toml = tmp_path / "t.toml"
    toml.write_text('games = 4\nbackend = "slurm"\n')
    result = cli("run", toml, "--bots-dir", bots_dir)
    assert_one_line_error(result, "t.toml: backend must be local or ray, not 'slurm'")


def test_an_address_nothing_listens_at_is_one_line_at_once(cli, bots_dir, tmp_path):
    """Ray retried an unreachable --ray-address for many minutes without a word (found by
    review: `--ray-address nohost:1` still waited after 10 minutes)."""
    need_ray()
    with socket.socket() as probe:  # a port of this machine that nothing listens at
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    start = time.monotonic()
    result = cli(
        "run", "--backend", "ray", "--ray-address", f"127.0.0.1:{port}", "--bots-dir", bots_dir,
        "--games", "4", "--db", tmp_path / "a.db",
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith(f"arena: error: cannot reach Ray at 127.0.0.1:{port}: "), last
    assert time.monotonic() - start < 10


def test_a_program_bot_in_the_folder_blocks_nothing_until_it_is_seated(cli, tmp_path, ray_address):
    """Program bots (bots/*.toml) are not shipped to nodes yet: a run that does not field one
    plays as usual; one that does is refused in one line, before any game is stored."""
    examples = Path(__file__).resolve().parent.parent / "examples" / "protocol"
    files = {name: (examples / name).read_text() for name in ("random-js.toml", "random.js")}
    bots = write_bots(tmp_path / "bots", {"random_bot.py": RANDOM_BOT, **files})
    played = run(cli, tmp_path / "a.db", bots, "--game", "td", "--games", "4",
                 "--bots", "random,td-heuristic", address=ray_address)  # fmt: skip
    assert played.exit_code == 0, (played.output, played.exception)
    refused = run(cli, tmp_path / "b.db", bots, "--game", "td", "--games", "4",
                  "--bots", "random-js,random", address=ray_address)  # fmt: skip
    assert refused.exit_code == 1, refused.output
    assert "Traceback" not in refused.output
    errors = [line for line in refused.stderr.splitlines() if line.startswith("arena: error:")]
    assert len(errors) == 1 and "random-js: a program bot (bots/*.toml) cannot play" in errors[0]
    assert count_games(tmp_path / "b.db") == 0
