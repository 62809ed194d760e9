"""A referee nothing can spoil: hostile bots end to end, through a real ``python -m arena run``.

Every test drops one or more hostile bot files next to two honest ones (``random``, ``first``)
and runs the real command in a subprocess, in both isolation modes (``--isolation shared``, the
default, and ``--isolation process``) where the mode allows it. For each hostile behaviour the run
must complete (exit 0), the hostile bot must be faulted or forfeited — as the leaderboard JSON
(``faults``/``forfeits``) and the ``faults`` table of the database (kinds, messages, seats) show —
and every other bot's games must be played and rated normally: the right number of games, no
fault against them.

Tests marked ``xfail(strict=True, reason="BUG: ...")`` prove a bug that is still there; see the
reason. They turn into failures the day the bug is fixed, so that the mark is removed.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import FIRST_BOT, RANDOM_BOT, bot_file, count_games, write_bots
from test_cli import arena_process, run_args

from arena.execution.process import sandbox

pytestmark = pytest.mark.usefixtures("isolated")

TD = "twenty-down"
HL = "how-low-can-you-go"
MODES = ["shared", "process"]
HONEST = {"random_bot.py": RANDOM_BOT, "first_bot.py": FIRST_BOT}


# --- running a hostile tournament -----------------------------------------------------------------


@dataclass
class Ran:
    """One finished ``arena run --format json`` and its database."""

    proc: subprocess.CompletedProcess
    db: Path
    game: str
    games: int

    @property
    def board(self) -> dict:
        return json.loads(self.proc.stdout)

    @property
    def rows(self) -> dict[str, dict]:
        return {row["bot"]: row for row in self.board[self.game]}

    def query(self, sql: str, *args) -> list[tuple]:
        con = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True)
        try:
            return con.execute(sql, args).fetchall()
        finally:
            con.close()

    def faults(self) -> list[tuple]:
        """Every fault: (bot, game index, seat, decision, kind, message), in the order logged."""
        return self.query(
            """SELECT s.bot, g.idx, f.seat, f.decision, f.kind, f.message
               FROM faults f JOIN games g ON g.id = f.game_id
               JOIN seats s ON s.game_id = f.game_id AND s.seat = f.seat
               ORDER BY g.idx, f.rowid"""
        )

    def seats_of(self, bot: str) -> list[tuple[int, int]]:
        """(game index, seat) of every seat the bot held."""
        return self.query(
            "SELECT g.idx, s.seat FROM seats s JOIN games g ON g.id = s.game_id WHERE s.bot=? "
            "ORDER BY g.idx, s.seat",
            bot,
        )

    def seat_table(self) -> list[tuple]:
        return self.query(
            """SELECT g.game, g.idx, g.seed, s.seat, s.bot, s.score, s.rank, s.faults, s.forfeit
               FROM games g JOIN seats s ON s.game_id = g.id ORDER BY g.game, g.idx, s.seat"""
        )


def hostile_run(
    tmp_path: Path,
    files: dict[str, str],
    bots: str | None,
    mode: str = "shared",
    game: str = TD,
    games: int = 4,
    jobs: int = 1,
    extra: tuple = (),
    seed: str = "hostile",
    move_time: float = 0.2,
) -> Ran:
    folder = write_bots(tmp_path / "bots", {**HONEST, **files})
    db = tmp_path / f"{mode}-j{jobs}.db"
    options = ["--game", game, "--isolation", mode, "--move-time", move_time, "--format", "json"]
    if bots is not None:
        options += ["--bots", bots]
    if game == HL:
        options += ["--players", 2]
    args = run_args(folder, db, *options, *extra, games=games, seed=seed, jobs=jobs)
    return Ran(arena_process(*args), db, game, games)


def assert_completed(ran: Ran) -> None:
    proc = ran.proc
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert count_games(ran.db, ran.game) == ran.games
    assert count_games(ran.db) == ran.games
    # Every game was stored whole: one seat row per seat, one placing per bot.
    (bad,) = ran.query(
        """SELECT COUNT(*) FROM games g WHERE g.players !=
               (SELECT COUNT(*) FROM seats s WHERE s.game_id = g.id)
           OR NOT EXISTS (SELECT 1 FROM placings p WHERE p.game_id = g.id)"""
    )
    assert bad == (0,)


def assert_others_untouched(ran: Ran, hostile: set[str]) -> None:
    """Every bot but the hostile ones played every game, faultless, and was rated."""
    rows = ran.rows
    others = set(rows) - hostile
    assert others, rows
    for bot in others:
        row = rows[bot]
        assert row["games"] == ran.games, (bot, row)
        assert row["faults"] == 0 and row["forfeits"] == 0, (bot, row)
        assert row["sigma"] < 8.3, (bot, row)  # rated: σ shrank from its prior 8.33
    blamed = {bot for bot, *_ in ran.faults()}
    assert blamed <= hostile, blamed


def assert_hostile_forfeits_every_seat(ran: Ran, bot: str, faults_per_seat: int) -> None:
    seats = ran.seats_of(bot)
    assert seats, bot
    row = ran.rows[bot]
    assert row["games"] == ran.games
    assert row["forfeits"] == len(seats), (row, seats)
    assert row["faults"] == faults_per_seat * len(seats), (row, seats)
    assert row["wins"] == 0
    # A forfeiting bot is ranked behind every seat that did not forfeit, in every game.
    (ahead,) = ran.query(
        """SELECT COUNT(*) FROM placings p JOIN placings q ON p.game_id = q.game_id
           WHERE p.bot = ? AND q.bot != ? AND p.place <= q.place""",
        bot,
        bot,
    )
    assert ahead == (0,)


def faults_by_seat(ran: Ran, bot: str) -> dict[tuple[int, int], list[tuple]]:
    """(game index, seat) -> [(decision, kind, message), ...] of one bot's faults."""
    seats: dict[tuple[int, int], list[tuple]] = {}
    for who, idx, seat, decision, kind, message in ran.faults():
        if who == bot:
            seats.setdefault((idx, seat), []).append((decision, kind, message))
    return seats


# --- exceptions of every kind ---------------------------------------------------------------------

RAISER = bot_file(
    "raiser",
    """
    self.calls = getattr(self, "calls", 0) + 1
    return RAISERS[(self.calls - 1) % len(RAISERS)]()
    """,
    header='''
    class Custom(BaseException):
        """Not an Exception: only ``except BaseException`` catches it."""


    def value_error():
        raise ValueError("bad value")


    def runtime_error():
        raise RuntimeError("bad runtime")


    def system_exit():
        raise SystemExit(3)


    def keyboard_interrupt():
        raise KeyboardInterrupt("not a real Ctrl-C")


    def custom():
        raise Custom("custom base exception")


    def generator_exit():
        raise GeneratorExit("closing")


    def recurse():
        return recurse()


    RAISERS = [
        value_error, runtime_error, system_exit, keyboard_interrupt, custom, generator_exit, recurse
    ]
    ''',
)

RAISED = [
    "ValueError: bad value",
    "RuntimeError: bad runtime",
    "SystemExit: 3",
    "KeyboardInterrupt: not a real Ctrl-C",
    "Custom: custom base exception",
    "GeneratorExit: closing",
    "RecursionError: maximum recursion depth exceeded",
]


@pytest.mark.parametrize("mode", MODES)
def test_exceptions_of_every_kind_are_faults_and_the_run_goes_on(tmp_path, mode):
    """ValueError, RuntimeError, SystemExit, KeyboardInterrupt (raised by the bot, not a real
    Ctrl-C), a BaseException subclass, GeneratorExit, RecursionError: each seat of the bot raises
    all seven in turn, each is one ``exception`` fault, and the seventh forfeits the seat."""
    ran = hostile_run(
        tmp_path, {"raiser.py": RAISER}, "raiser,random,first", mode, extra=("--max-faults", 7)
    )
    assert_completed(ran)
    assert_others_untouched(ran, {"raiser"})
    assert_hostile_forfeits_every_seat(ran, "raiser", faults_per_seat=7)
    seats = faults_by_seat(ran, "raiser")
    assert set(seats) == set(ran.seats_of("raiser"))
    for seat, faults in seats.items():
        assert [kind for _, kind, _ in faults] == ["exception"] * 7, (seat, faults)
        messages = [message for _, _, message in faults]
        assert messages[:6] == RAISED[:6], (seat, messages)
        assert messages[6].startswith(RAISED[6]), (seat, messages)
        decisions = [decision for decision, _, _ in faults]
        assert decisions == sorted(decisions) and decisions[0] >= 1, (seat, decisions)


STR_RAISES = bot_file(
    "str-raises",
    "raise Nasty()",
    header="""
    class Nasty(Exception):
        def __str__(self):
            raise RuntimeError("you cannot even describe me")
    """,
)


@pytest.mark.parametrize("mode", MODES)
def test_exception_that_cannot_even_be_described_is_a_fault(tmp_path, mode):
    """An exception whose ``__str__`` raises breaks the code that describes the fault; the run
    must survive it all the same (today it does, as a ``crash``: the process describing it dies)."""
    ran = hostile_run(
        tmp_path, {"str_raises.py": STR_RAISES}, "str-raises,random", mode, game=HL, games=2
    )
    assert ran.proc.returncode == 0, ran.proc.stderr[-3000:]
    assert count_games(ran.db) == 2
    assert_others_untouched(ran, {"str-raises"})
    row = ran.rows["str-raises"]
    assert row["forfeits"] >= 1 or row["faults"] >= 2, row
    assert {kind for _, _, _, _, kind, _ in ran.faults()} <= {"exception", "crash"}


STR_LOOPS = bot_file(
    "str-loops",
    "raise Endless()",
    header="""
    class Endless(Exception):
        def __str__(self):
            while True:
                pass
    """,
)


@pytest.mark.slow
@pytest.mark.parametrize(
    "mode",
    [
        "shared",
        "process",
    ],
)
def test_exception_whose_description_never_ends_does_not_hang_the_run(tmp_path, mode):
    folder = write_bots(tmp_path / "bots", {**HONEST, "str_loops.py": STR_LOOPS})
    db = tmp_path / "loops.db"
    options = ["--game", HL, "--players", 2, "--bots", "str-loops,random", "--isolation", mode]
    options += ["--move-time", 0.2, "--format", "json"]
    args = run_args(folder, db, *options, games=1, seed="loops")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    try:
        stdout, stderr = proc.communicate(timeout=12)  # the heartbeat path needs about 5 s
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail("the run was still going after 12 s: one bot hung the whole tournament")
    assert proc.returncode == 0, stderr[-3000:]
    rows = {row["bot"]: row for row in json.loads(stdout)[HL]}
    assert rows["str-loops"]["faults"] >= 1
    assert rows["random"]["games"] == 1 and rows["random"]["faults"] == 0


# --- answers that are not legal actions, observations tampered with -------------------------------

LIAR = bot_file(
    "liar",
    """
    self.calls = getattr(self, "calls", 0) + 1
    return LIES[(self.calls - 1) % len(LIES)](observation)
    """,
    header="""
    class EqRaises:
        __hash__ = None

        def __eq__(self, other):
            raise RuntimeError("eq says no")


    def nothing(observation):
        return None


    def a_string(observation):
        return "QH"


    def every_action(observation):
        return list(observation.legal_actions)


    def eq_raises(observation):
        return EqRaises()


    def append_garbage(observation):
        observation.legal_actions.append("garbage")
        return "garbage"


    def replace_list(observation):
        observation.legal_actions = ["mine"]
        return "mine"


    LIES = [nothing, a_string, every_action, eq_raises, append_garbage, replace_list]
    """,
)

LIES = [
    ("illegal", "None is not a legal action"),
    ("illegal", "'QH' is not a legal action"),
    ("illegal", " is not a legal action"),  # the whole list, shortened
    ("exception", "RuntimeError: eq says no"),
    ("illegal", "'garbage' is not a legal action"),
    ("illegal", "'mine' is not a legal action"),
]

# Legal answers in disguise: an object equal to everything (matched to the first legal action),
# and a legal action returned after emptying or replacing the list it came from.
AGREEABLE = bot_file(
    "agreeable",
    """
    self.calls = getattr(self, "calls", 0) + 1
    legal = observation.legal_actions
    observation.seat = -1  # lies about everything it was told
    observation.game = "no-such-game"
    if self.calls % 3 == 1:
        return EqualToEverything()
    if self.calls % 3 == 2:
        choice = legal[-1]
        legal.clear()
        return choice
    observation.legal_actions = [legal[0]]
    return legal[0]
    """,
    header="""
    class EqualToEverything:
        __hash__ = None

        def __eq__(self, other):
            return True
    """,
)


@pytest.mark.parametrize("mode", MODES)
def test_illegal_answers_and_tampered_observations_are_faults(tmp_path, mode):
    files = {"liar.py": LIAR, "agreeable.py": AGREEABLE}
    ran = hostile_run(tmp_path, files, "liar,agreeable,random", mode, extra=("--max-faults", 6))
    assert_completed(ran)
    assert_others_untouched(ran, {"liar"})  # "agreeable" answers legally, in disguise
    assert_hostile_forfeits_every_seat(ran, "liar", faults_per_seat=6)
    seats = faults_by_seat(ran, "liar")
    assert set(seats) == set(ran.seats_of("liar"))
    for seat, faults in seats.items():
        assert len(faults) == 6, (seat, faults)
        for (_, kind, message), (expected_kind, fragment) in zip(faults, LIES, strict=True):
            assert kind == expected_kind and fragment in message, (seat, faults)
        assert faults[2][2].startswith("["), faults[2]


# --- blocking: interruptible, and not -------------------------------------------------------------

# Blocks in turn in time.sleep and in a busy loop: both are interrupted at the move time.
BLOCKER = bot_file(
    "blocker",
    """
    self.calls = getattr(self, "calls", 0) + 1
    if self.calls % 2:
        time.sleep(60)
    while True:
        pass
    """,
    header="import time",
)


@pytest.mark.parametrize("mode", MODES)
def test_bot_blocking_in_sleep_or_a_busy_loop_is_interrupted_at_the_move_time(tmp_path, mode):
    began = time.perf_counter()
    ran = hostile_run(tmp_path, {"blocker.py": BLOCKER}, "blocker,random", mode, game=HL, games=2)
    assert_completed(ran)
    assert_others_untouched(ran, {"blocker"})
    assert_hostile_forfeits_every_seat(ran, "blocker", faults_per_seat=3)
    faults = ran.faults()
    assert {(kind, message) for _, _, _, _, kind, message in faults} == {
        ("timeout", "no answer within 0.2 s")
    }
    # Six decisions stopped at 0.2 s each: nowhere near one minute of sleep.
    assert time.perf_counter() - began < 30


UNINTERRUPTIBLE = {
    "sigalrm-ignored": (
        """
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        time.sleep(60)
        return observation.legal_actions[0]
        """,
        "import signal\nimport time",
    ),
    "sigalrm-blocked": (
        """
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        while True:
            pass
        """,
        "import signal",
    ),
    "own-handler-and-itimer": (
        """
        signal.signal(signal.SIGALRM, lambda signum, frame: None)
        signal.setitimer(signal.ITIMER_REAL, 0.01, 0.01)
        while True:
            pass
        """,
        "import signal",
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("how", list(UNINTERRUPTIBLE))
def test_bot_switching_off_signals_and_timers_is_stopped_and_forfeits(tmp_path, mode, how):
    """No signal reaches it: its process (the game worker, or its own) stops answering or beating,
    is killed, and the game is replayed with the seat forfeited from that decision."""
    body, header = UNINTERRUPTIBLE[how]
    ran = hostile_run(
        tmp_path,
        {"hanger.py": bot_file("hanger", body, header)},
        "hanger,random",
        mode,
        game=HL,
        games=1,
    )
    assert_completed(ran)
    assert_others_untouched(ran, {"hanger"})
    assert_hostile_forfeits_every_seat(ran, "hanger", faults_per_seat=1)
    ((_, _, _, decision, kind, message),) = ran.faults()
    assert kind == "timeout" and decision >= 1
    assert "could not be interrupted" in message and "killed" in message


# --- bots that end their own process --------------------------------------------------------------

# Two bots at four seats sit a b a b, then b a b a: in two games the crasher holds seats 0-3, and
# each seat ends the process its own way at its first decision.
CRASHER = bot_file(
    "crasher",
    """
    how = observation.seat % 3
    if how == 0:
        os._exit(1)
    if how == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    ctypes.string_at(0)  # a segmentation fault
    """,
    header="import ctypes\nimport os\nimport signal",
)

DEATHS = {0: "its process ended (exit code 1)", 1: "killed by SIGKILL", 2: "killed by SIGSEGV"}


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("mode", MODES)
def test_bot_ending_its_own_process_is_a_crash_fault_attributed_to_it(tmp_path, mode, jobs):
    ran = hostile_run(tmp_path, {"crasher.py": CRASHER}, "crasher,random", mode, games=2, jobs=jobs)
    assert_completed(ran)
    assert_others_untouched(ran, {"crasher"})
    assert_hostile_forfeits_every_seat(ran, "crasher", faults_per_seat=1)
    seats = faults_by_seat(ran, "crasher")
    assert sorted(seat for _, seat in seats) == [0, 1, 2, 3]
    for (_, seat), ((decision, kind, message),) in seats.items():
        assert kind == "crash" and decision >= 1, (seat, kind, message)
        if mode == "shared":
            assert DEATHS[seat % 3] in message, (seat, message)
        else:  # a process that dies forfeits every seat it held, with how it died
            assert any(death in message for death in DEATHS.values()), (seat, message)


ENDS_BADLY = bot_file(
    "ends-badly",
    "return observation.legal_actions[0]",
    header="import os",
).replace(
    "    def act(self, observation):",
    "    def end(self, result):\n        os._exit(5)\n\n    def act(self, observation):",
)


@pytest.mark.parametrize("mode", MODES)
def test_bot_ending_its_process_in_end_is_one_crash_fault_at_the_end_of_each_game(tmp_path, mode):
    """The game is over: the fault is counted (decision -1) but forfeits nothing, in both modes
    (in shared mode the game is played again with that seat's end() left out, once; in process
    mode nothing is played again)."""
    ran = hostile_run(tmp_path, {"ends_badly.py": ENDS_BADLY}, "ends-badly,random", mode, games=2)
    assert_completed(ran)
    assert_others_untouched(ran, {"ends-badly"})
    seats = faults_by_seat(ran, "ends-badly")
    assert sorted(seats) == ran.seats_of("ends-badly")
    at_end = [(-1, "crash", "in end(): its process ended (exit code 5)")]
    lost = 0
    for found in seats.values():
        if mode == "process" and found != at_end:
            # A process that dies forfeits its seats in the games it was still playing.
            ((decision, kind, message),) = found
            assert decision >= 1 and (kind, message) == (
                "crash",
                at_end[0][2][len("in end(): ") :],
            ), found
            lost += 1
        else:
            assert found == at_end, found
    assert ran.rows["ends-badly"]["forfeits"] == lost


# The message of a bot process that wrote to arena's side of its pipes itself (``FORGERS``).
FORGERY = "it wrote to arena's side of its pipes itself; its process was killed"

# Each ends its own process at the second decision of every seat: the process has answered once
# for that seat, and is then replaced, again and again.
ENDINGS = {
    "exit": ("os._exit(3)", "its process ended (exit code 3)"),
    "SIGKILL": ("os.kill(os.getpid(), signal.SIGKILL)", "its process was killed by SIGKILL"),
    "SIGSEGV": ("os.kill(os.getpid(), signal.SIGSEGV)", "its process was killed by SIGSEGV"),
}


@pytest.mark.parametrize("how", list(ENDINGS))
def test_process_mode_bot_ending_its_process_is_described_by_how_it_ended_every_time(tmp_path, how):
    """The worker reads the end of the process's pipe (EOF) a moment before the process can be
    reaped: a process that ended must be told by its exit code or signal, never taken for a
    forger of its pipes (found in review: 5 of 8 ``os._exit`` faults said so)."""
    body, expected = ENDINGS[how]
    ender = bot_file(
        "ender",
        f"""
        self.calls = getattr(self, "calls", 0) + 1
        if self.calls == 2:
            {body}
        return observation.legal_actions[0]
        """,
        header="import os\nimport signal",
    )
    ran = hostile_run(tmp_path, {"ender.py": ender}, "ender,random", "process", games=6)
    assert_completed(ran)
    assert_others_untouched(ran, {"ender"})
    seats = faults_by_seat(ran, "ender")
    assert len(seats) == 12, seats  # two seats a game, each forfeited where its process ended
    assert ran.rows["ender"]["forfeits"] == 12
    excluded = "bot 'ender' is excluded from the rest of this run: its process failed 3 times"
    # (how many of its games a death reaches at once depends on timing: a seat's fault is its
    # process's death, described by how it ended, or the exclusion that the deaths bring)
    # One fault a seat: a process started again is not timed from before it was started (the
    # 13 faults for 12 seats seen once in CI: test_progress, ..._not_timed_as_its_first_command)
    assert all(len(found) == 1 for found in seats.values()), seats
    faults = [fault for found in seats.values() for fault in found]
    for decision, kind, message in faults:
        assert kind == "crash" and message in (expected, excluded), faults
        assert message == excluded or decision >= 1, faults
    assert any(message == expected for _, _, message in faults), faults


# --- memory ---------------------------------------------------------------------------------------

GLUTTON = bot_file(
    "glutton",
    """
    hoard = bytearray(2 * 1024**3)  # 2 GiB, far above --bot-memory 256
    return observation.legal_actions[len(hoard) % 1]
    """,
)

HOARDER = bot_file(
    "hoarder",
    """
    while True:  # keeps everything it gets, for the rest of its process's life
        HOARD.append(bytearray(16 * 1024**2))
    """,
    header="HOARD = []",
)


def test_memory_hogs_are_contained_by_bot_memory_in_process_mode(tmp_path):
    files = {"glutton.py": GLUTTON, "hoarder.py": HOARDER}
    # A whole second a move: filling 256 MiB must not turn into a timeout on a loaded machine.
    ran = hostile_run(
        tmp_path,
        files,
        "glutton,hoarder,random",
        "process",
        extra=("--bot-memory", 256),
        move_time=1.0,
    )
    assert_completed(ran)
    assert_others_untouched(ran, {"glutton", "hoarder"})
    for bot in ("glutton", "hoarder"):
        row = ran.rows[bot]
        assert row["forfeits"] == len(ran.seats_of(bot)), (bot, row)
    kinds = {kind for _, _, _, _, kind, _ in ran.faults()}
    assert kinds and kinds <= {"memory", "crash"}, kinds


@pytest.mark.parametrize("sigxcpu", ["default", "ignored"])
def test_bot_using_up_its_cpu_limit_is_a_cpu_fault_and_its_process_replaced(tmp_path, sigxcpu):
    """``--bot-cpu 1``: a bot burning 0.4 s of CPU a decision uses up its process's CPU time at
    about its third decision, over all its games; the kernel's SIGXCPU kills the process (or, if
    the bot ignores SIGXCPU, the SIGKILL of the hard limit a second later), which is replaced.
    Every fault is a ``cpu`` one, named so (found in review: 6 of 8 said instead that the bot had
    forged its pipes, a ``crash``; one ignoring SIGXCPU was a ``crash``), and each seat forfeits
    at its fault."""
    pids = tmp_path / "pids"
    ignore = "signal.signal(signal.SIGXCPU, signal.SIG_IGN)" if sigxcpu == "ignored" else ""
    burner = bot_file(
        "burner",
        f"""
        with open({str(pids)!r}, "a") as f:
            f.write(f"{{os.getpid()}}\\n")
        end = time.process_time() + 0.4
        while time.process_time() < end:
            pass
        return observation.legal_actions[0]
        """,
        header=f"import os\nimport signal\nimport time\n{ignore}",
    )
    # A long move time: 0.4 s of CPU must not turn into a timeout on a loaded machine.
    # (--sandbox none: the bot reports through a file outside its folder, which bubblewrap hides)
    ran = hostile_run(
        tmp_path,
        {"burner.py": burner},
        "burner,random",
        "process",
        games=4,
        extra=("--bot-cpu", 1, "--sandbox", "none"),
        move_time=5.0,
    )
    assert_completed(ran)
    assert_others_untouched(ran, {"burner"})
    assert_hostile_forfeits_every_seat(ran, "burner", faults_per_seat=1)
    seats = faults_by_seat(ran, "burner")
    assert len(seats) == 8, seats  # two seats a game, each forfeited once
    faults = [fault for (fault,) in seats.values()]
    assert [kind for _, kind, _ in faults] == ["cpu"] * 8, faults
    signal_name = "SIGXCPU" if sigxcpu == "default" else "SIGKILL"
    for decision, _, message in faults:
        assert signal_name in message and "CPU-time limit of 1 s" in message, message
        assert decision >= 1, faults
    # A process killed forfeits every seat it held, where each game was: nothing is played again,
    # so fewer processes than seats were started.
    started = set(pids.read_text().split())
    assert 1 <= len(started) <= len(seats), started


@pytest.mark.skip(
    reason="shared mode has no memory limit: a bot allocating 2 GiB gets it (the game worker "
    "grows to 2 GiB; the slow allocation shows only as timeout faults) and an unbounded one would "
    "take the machine; untrusted bots belong in --isolation process with --bot-memory"
)
def test_memory_hog_in_shared_mode():  # pragma: no cover - documented, not run
    pass


# --- bot files that fail to load ------------------------------------------------------------------

BROKEN_FILES = {
    "syntax.py": ("import arena\n\ndef broken(:\n    pass\n", "syntax error"),
    "missing_import.py": (
        "import arena\nimport arena_no_such_module_hostile\n",
        "ModuleNotFoundError",
    ),
    "no_hook.py": (
        "import arena\n\n\nclass Lonely(arena.Bot):\n    name = 'lonely'\n\n"
        "    def act(self, o):\n        return o.legal_actions[0]\n",
        "no @arena.hookimpl",
    ),
    "hook_raises.py": (
        "import arena\n\n\n@arena.hookimpl\ndef arena_register_bots(register):\n"
        "    raise RuntimeError('no bots today')\n",
        "RuntimeError: no bots today",
    ),
    # twin_a.py registers the name too: neither is loaded (issue 16).
    "twin_b.py": (bot_file("twin", "raise RuntimeError('I am the impostor')"), "neither is loaded"),
}


@pytest.mark.parametrize("mode", MODES)
def test_bot_files_that_fail_to_load_are_one_warning_each_and_the_others_play(tmp_path, mode):
    files = {name: source for name, (source, _) in BROKEN_FILES.items()}
    files["twin_a.py"] = bot_file("twin", "return observation.legal_actions[0]")
    ran = hostile_run(tmp_path, files, None, mode)
    assert_completed(ran)
    warnings = [
        line for line in ran.proc.stderr.splitlines() if line.startswith("arena: warning: ")
    ]
    assert len(warnings) == len(BROKEN_FILES), ran.proc.stderr
    folder = tmp_path / "bots"
    for name, (_, fragment) in BROKEN_FILES.items():
        (line,) = [w for w in warnings if w.startswith(f"arena: warning: {folder / name}: ")]
        assert fragment in line, line
    assert str(folder / "twin_a.py") in next(w for w in warnings if "twin_b.py" in w)
    # Every bot that loaded plays; neither twin does (the impostor's act would fault).
    assert set(ran.rows) == {"random", "first", "td-heuristic"}  # (bundled)
    assert_others_untouched(ran, set())


@pytest.mark.parametrize(
    "where",
    [
        "import",
        "hook",
    ],
)
def test_bot_file_raising_keyboard_interrupt_is_a_load_error(tmp_path, where):
    if where == "import":
        source = "raise KeyboardInterrupt\n"
    else:
        source = (
            "import arena\n\n\n@arena.hookimpl\ndef arena_register_bots(register):\n"
            "    raise KeyboardInterrupt\n"
        )
    ran = hostile_run(tmp_path, {"ctrl_c.py": source}, None, "shared", games=2)
    assert ran.proc.returncode == 0, ran.proc.stderr
    warnings = [
        line for line in ran.proc.stderr.splitlines() if line.startswith("arena: warning: ")
    ]
    assert len(warnings) == 1 and "ctrl_c.py" in warnings[0], ran.proc.stderr
    assert set(ran.rows) == {"random", "first", "td-heuristic"}  # (bundled)


NOISY = bot_file(
    "noisy",
    """
    print("noise from act()")
    os.write(1, b"raw noise from act()\\n")
    return observation.legal_actions[0]
    """,
    header="import os",
)


@pytest.mark.parametrize(
    "where, mode",
    [
        ("act", "shared"),
        ("act", "process"),
        ("import", "shared"),
    ],
)
def test_bot_output_never_reaches_the_tables_on_stdout(tmp_path, where, mode):
    source = NOISY if where == "act" else "print('noise at import')\n" + NOISY
    ran = hostile_run(tmp_path, {"noisy.py": source}, "noisy,random", mode, games=2)
    assert ran.proc.returncode == 0, ran.proc.stderr
    assert set(ran.rows) == {"noisy", "random"}  # stdout is exactly the JSON document
    # A bot's own process writes nowhere: arena's output is arena's (docs/security.md).
    assert ("noise" in ran.proc.stderr) == (mode == "shared")


# A bot that loads in the run's own process, where a helper file loaded before it left a module
# behind, but not alone in its own process, where nothing else is loaded.
HELPER = """
import sys
import types

import arena

sys.modules["hostile_shared_helper"] = types.ModuleType("hostile_shared_helper")


@arena.hookimpl
def arena_register_bots(register):
    pass
"""

MIMIC = bot_file(
    "mimic", "return observation.legal_actions[0]", header="import hostile_shared_helper"
)


def test_bot_file_that_needs_another_to_load_is_a_load_warning_in_process_mode(tmp_path):
    """In process isolation each file is loaded alone
    (arena.execution.process.sandboxed_loading), as its bot process will load it: one that only
    works after another file has run is a load warning naming it, with the real reason, and the
    others play."""
    files = {"aa_helper.py": HELPER, "zz_mimic.py": MIMIC}
    ran = hostile_run(tmp_path, files, None, "process")
    assert_completed(ran)
    (warning,) = [line for line in ran.proc.stderr.splitlines() if "zz_mimic.py" in line]
    assert "No module named 'hostile_shared_helper'" in warning
    assert set(ran.rows) == {"random", "first", "td-heuristic"}  # (bundled)
    assert_others_untouched(ran, set())


# Loads once (in its loading process), then fails in every process that loads it again.
ONCE_ONLY = bot_file(
    "once-only",
    "return observation.legal_actions[0]",
    header=(
        "import os\nfrom pathlib import Path\n\n"
        "MARK = Path(__file__).with_name('loaded-once')\n"
        "if MARK.exists():\n    raise ImportError('loaded once already')\n"
        "MARK.write_text('x')"
    ),
)


def test_bot_that_cannot_start_in_its_own_process_forfeits_and_the_others_play(tmp_path):
    # (--sandbox none: the bot writes a file into its folder, which bubblewrap shows read-only)
    ran = hostile_run(
        tmp_path,
        {"once_only.py": ONCE_ONLY},
        "once-only,random,first",
        "process",
        extra=("--sandbox", "none"),
    )
    assert_completed(ran)
    assert_others_untouched(ran, {"once-only"})
    assert ran.rows["once-only"]["forfeits"] == len(ran.seats_of("once-only"))
    messages = {message for *_, message in ran.faults()}
    assert messages and all("loaded once already" in m for m in messages), messages


PARENT_KILLER = bot_file(
    "parent-killer", "os.kill(os.getppid(), signal.SIGKILL)", header="import os\nimport signal"
)
GRANDPARENT_KILLER = bot_file(
    "parent-killer",
    "os.kill(int(open(f'/proc/{os.getppid()}/stat').read().rsplit(')', 1)[1].split()[1]), "
    "signal.SIGKILL)",
    header="import os\nimport signal",
)


@pytest.mark.skipif(not sandbox.supported(), reason="the signal filter needs Linux x86-64 or arm64")
@pytest.mark.parametrize("victim", ["parent", "grandparent"])
def test_process_mode_bot_killing_its_game_worker_or_the_run_is_a_fault(tmp_path, victim):
    """A bot process may signal only itself (arena.execution.process.sandbox): killing its game worker (its parent)
    or the run (the worker's parent) fails with PermissionError, an exception fault."""
    files = {"parent_killer.py": PARENT_KILLER if victim == "parent" else GRANDPARENT_KILLER}
    ran = hostile_run(tmp_path, files, "parent-killer,random", "process", games=2)
    assert ran.proc.returncode == 0, ran.proc.stderr[-2000:]
    assert_others_untouched(ran, {"parent-killer"})
    assert ran.rows["parent-killer"]["faults"] >= 1
    assert {fault[4] for fault in ran.faults()} == {"exception"}
    assert "PermissionError" in " ".join(message for *_, message in ran.faults())


# --- one bot sabotaging the time limit of another -------------------------------------------------

# Answers at once, legally, after switching the alarm off both ways.
SABOTEUR = bot_file(
    "saboteur",
    """
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    return observation.legal_actions[0]
    """,
    header="import signal",
)

# Honest but slow once per seat: an ordinary timeout, interrupted at the move time.
SLOWPOKE = bot_file(
    "slowpoke",
    """
    self.calls = getattr(self, "calls", 0) + 1
    if self.calls == 3:
        time.sleep(10)
    return observation.legal_actions[0]
    """,
    header="import time",
)


@pytest.mark.slow
@pytest.mark.parametrize(
    "mode",
    ["shared", "process"],
)
def test_bot_switching_off_the_alarm_cannot_make_another_bot_forfeit(tmp_path, mode):
    files = {"saboteur.py": SABOTEUR, "slowpoke.py": SLOWPOKE}
    ran = hostile_run(tmp_path, files, "saboteur,slowpoke,random", mode, games=1)
    assert_completed(ran)
    assert_others_untouched(ran, {"slowpoke"})
    seats = faults_by_seat(ran, "slowpoke")
    assert seats, "slowpoke's slow decision was not a fault"
    row = ran.rows["slowpoke"]
    assert row["forfeits"] == 0, seats
    assert row["faults"] == len(ran.seats_of("slowpoke")), seats
    for faults in seats.values():
        assert [(kind, message) for _, kind, message in faults] == [
            ("timeout", "no answer within 0.2 s")
        ]


# --- determinism with crashes and hangs -----------------------------------------------------------

MIX = {
    # Ends its process once in the run: at its 7th decision, the one game it sits at seat 1.
    "crashy.py": bot_file(
        "crashy",
        """
        self.calls = getattr(self, "calls", 0) + 1
        if observation.seat == 1 and self.calls == 7:
            os._exit(3)
        legal = observation.legal_actions
        return legal[self.rng.randrange(len(legal))]
        """,
        header="import os",
    ),
    # Hangs where no signal reaches it once in the run: at seat 2, its 5th decision.
    "hangy.py": bot_file(
        "hangy",
        """
        self.calls = getattr(self, "calls", 0) + 1
        if observation.seat == 2 and self.calls == 5:
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
            while True:
                pass
        legal = observation.legal_actions
        return legal[self.rng.randrange(len(legal))]
        """,
        header="import signal",
    ),
    # Overruns the move time every 20th decision (interrupted), and forfeits after three.
    "sleepy.py": bot_file(
        "sleepy",
        """
        self.calls = getattr(self, "calls", 0) + 1
        if self.calls % 20 == 0:
            time.sleep(30)
        legal = observation.legal_actions
        return legal[self.rng.randrange(len(legal))]
        """,
        header="import time",
    ),
}


@pytest.mark.slow
def test_results_with_crashing_and_hanging_bots_are_the_same_whatever_jobs(
    tmp_path,
):
    runs = {}
    for mode, jobs in (("shared", 1), ("shared", 2), ("process", 2)):
        ran = hostile_run(tmp_path, MIX, "crashy,hangy,sleepy,random", mode, jobs=jobs, seed="mix")
        assert_completed(ran)
        runs[mode, jobs] = ran
    reference = runs["shared", 1]
    kinds = {kind for _, _, _, _, kind, _ in reference.faults()}
    assert kinds == {"crash", "timeout"}, reference.faults()
    assert reference.rows["random"]["faults"] == 0
    assert reference.rows["crashy"]["forfeits"] == 1 and reference.rows["hangy"]["forfeits"] == 1

    def comparable(ran: Ran):
        faults = [
            (bot, idx, seat, decision, kind) for bot, idx, seat, decision, kind, _ in ran.faults()
        ]
        return ran.board, faults, ran.seat_table()

    assert comparable(runs["shared", 2]) == comparable(reference)
    # In its own process a bot that dies or hangs forfeits every game it was playing, where each
    # game was, and nothing is played again (issue 13): which games those are depends on timing,
    # so only the shape is the same. Nothing is blamed on the honest bot.
    isolated = runs["process", 2]
    assert {kind for *_, kind, _ in isolated.faults()} == {"crash", "timeout"}
    assert isolated.rows["random"]["faults"] == 0
    for bot in ("crashy", "hangy"):
        assert isolated.rows[bot]["forfeits"] >= 1, isolated.rows[bot]
    # (sleepy overruns every 20th decision of a game: how long its games are depends on when
    # the others forfeited them)
    assert {kind for bot, *_, kind, _ in isolated.faults() if bot == "sleepy"} == {"timeout"}


# --- a bot process attacking arena's side of its pipes (found in review) --------------------------

# Each reaches into the bot host that runs it (Host.act, two frames up: it calls the referee's
# timed_act, which calls act) to forge what arena reads: the worker must blame the bot (a crash,
# its process killed), never die or hang.
FORGERS = {
    "extra-answers": """
        host = sys._getframe(2).f_locals["self"]
        host.codes.extend([0] * 5000)
        host.seconds.extend([0.0] * 5000)
        return observation.legal_actions[0]
    """,
    "overflowing-fault": """
        host = sys._getframe(2).f_locals["self"]
        described = b'[[1e999,"a","b"]]'
        os.write(host.reply_fd, struct.pack("<II", 0, len(described)) + described)
        return observation.legal_actions[0]
    """,
    "busy-forever": """
        host = sys._getframe(2).f_locals["self"]
        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGALRM])
        while True:  # looks busy to a worker that trusts the progress counter
            host.progress[0] += 1
    """,
    # Not answers (a count far above what it owes), then the end of its process: what came
    # before the end of the pipe is read first, and is forgery however the process ended.
    "garbage-then-exit": """
        host = sys._getframe(2).f_locals["self"]
        os.write(host.reply_fd, b"\\xff" * 64)
        os._exit(0)
    """,
}


@pytest.mark.parametrize("attack", sorted(FORGERS))
def test_process_mode_bot_forging_answers_or_progress_is_blamed_and_the_run_goes_on(
    tmp_path, attack
):
    source = bot_file(
        "forger", FORGERS[attack], header="import os\nimport signal\nimport struct\nimport sys"
    )
    ran = hostile_run(tmp_path, {"forger.py": source}, "forger,random,first", "process", games=3)
    assert ran.proc.returncode == 0, ran.proc.stderr[-2000:]
    assert "Traceback" not in ran.proc.stderr
    assert_others_untouched(ran, {"forger"})
    assert ran.rows["forger"]["forfeits"] == len(ran.seats_of("forger"))
    found = {(kind, message) for *_, kind, message in ran.faults()}
    # (if its games' seats met more than one of its processes, the third failure excludes it)
    excluded = (
        "crash",
        "bot 'forger' is excluded from the rest of this run: its process failed 3 times",
    )
    assert ("crash", FORGERY) in found and found <= {("crash", FORGERY), excluded}


# Each would make the kernel stop the bot's game worker, where the run could not blame the bot;
# the filter refuses the call: a PermissionError, an exception fault.
WORKER_SABOTEURS = {
    "signal-by-file-owner": """
        r, w = os.pipe()
        fcntl.fcntl(r, fcntl.F_SETOWN, os.getppid())  # SIGIO to the worker on the next write
        fcntl.fcntl(r, fcntl.F_SETFL, fcntl.fcntl(r, fcntl.F_GETFL) | os.O_ASYNC)
        os.write(w, b"x")
        return observation.legal_actions[0]
    """,
    "cpu-limit-on-the-worker": """
        resource.prlimit(os.getppid(), resource.RLIMIT_CPU, (1, 1))  # SIGXCPU, then SIGKILL
        return observation.legal_actions[0]
    """,
}


@pytest.mark.skipif(not sandbox.supported(), reason="the signal filter needs Linux x86-64 or arm64")
@pytest.mark.parametrize("attack", sorted(WORKER_SABOTEURS))
def test_process_mode_bot_making_the_kernel_stop_its_worker_is_a_fault(tmp_path, attack):
    source = bot_file(
        "stopper", WORKER_SABOTEURS[attack], header="import fcntl\nimport os\nimport resource"
    )
    ran = hostile_run(tmp_path, {"stopper.py": source}, "stopper,random", "process", games=2)
    assert ran.proc.returncode == 0, ran.proc.stderr[-2000:]
    assert_others_untouched(ran, {"stopper"})
    assert {fault[4] for fault in ran.faults()} == {"exception"}


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def test_process_mode_what_a_bot_starts_ends_with_its_process(tmp_path):
    pids = tmp_path / "pids"
    spawner = bot_file(
        "spawner",
        f"""
        if not getattr(self, "started_child", False):
            self.started_child = True
            child = subprocess.Popen(
                [sys.executable, "-c", "import time; time.sleep(600)"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            with open({str(pids)!r}, "a") as f:
                f.write(f"{{child.pid}}\\n")
            try:
                os.setsid()  # refused: the child stays in the bot's process group
            except OSError:
                pass
        return observation.legal_actions[0]
        """,
        header="import os\nimport subprocess\nimport sys",
    )
    # (--sandbox none: the bot reports through a file outside its folder, which bubblewrap hides;
    # under bubblewrap as root it may start no process at all: test_sandbox_caps_processes)
    ran = hostile_run(
        tmp_path,
        {"spawner.py": spawner},
        "spawner,random",
        "process",
        games=2,
        extra=("--sandbox", "none"),
    )
    assert ran.proc.returncode == 0, ran.proc.stderr[-2000:]
    started = [int(line) for line in pids.read_text().split()]
    assert started
    time.sleep(0.5)
    assert not [pid for pid in started if _alive(pid)]


@pytest.mark.parametrize("mode", MODES)
def test_bot_cannot_learn_the_deal_seed_from_its_generator_or_attributes(tmp_path, mode):
    """HL-18, TD-18: nobody sees another player's hand or the stock. The deals come from the game's
    seed alone, so a bot holding that seed could deal every hand: its generator is seeded from a
    one-way digest instead (a Mersenne Twister's state gives back the string it was seeded with),
    and nothing else it is given contains the seed."""
    seen = tmp_path / "seen"
    peeker = bot_file(
        "peeker",
        f"""
        if not getattr(self, "reported", False):
            self.reported = True
            with open({str(seen)!r}, "a") as f:
                f.write(json.dumps([repr(vars(self)), repr(self.rng.getstate())]) + "\\n")
        return observation.legal_actions[0]
        """,
        header="import json",
    )
    # (--sandbox none: the bot reports through a file outside its folder, which bubblewrap hides)
    extra = ("--sandbox", "none") if mode == "process" else ()
    ran = hostile_run(tmp_path, {"peeker.py": peeker}, "peeker,random", mode, games=2, extra=extra)
    assert_completed(ran)
    reports = [json.loads(line) for line in seen.read_text().splitlines()]
    seeds = {seed for _, _, seed, *_ in ran.seat_table()}
    assert len(reports) == 4 and len(seeds) == 1  # both seats of both rotations of one board
    (seed,) = seeds
    naive = {repr(random.Random(f"{seed}/seat-{seat}").getstate()) for seat in range(4)}
    for attributes, state in reports:
        assert seed not in attributes
        assert state not in naive  # the generator was not seeded with a string holding the seed
