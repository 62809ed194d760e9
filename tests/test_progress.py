"""Progress is guaranteed in ``--isolation process`` (issue 13, attacks 1, 4 and 6).

Whatever a bot does to its own process — end it in ``end()``, hang there with its signals
blocked, stall it between commands with a thread or a ``__del__`` that holds the interpreter — the
run finishes, every game is stored once, and the fault is the bot's, of the right kind. A dead bot
process forfeits the seats it held where their games were; nothing is played again, so a bot never
sees a deal twice; and a bot whose processes keep failing is excluded from the rest of the run,
said in one line. Each run is guarded by a subprocess timeout: a regression fails, never hangs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import bot_file, write_bots
from test_cli import run_args
from test_hostile_bots import (
    HL,
    HONEST,
    TD,
    Ran,
    assert_completed,
    assert_others_untouched,
    faults_by_seat,
)

pytestmark = pytest.mark.usefixtures("isolated")

EXCLUDED = "is excluded from the rest of this run: its process failed 3 times"


def run_bounded(
    tmp_path: Path,
    files: dict[str, str],
    bots: str,
    games: int = 4,
    move_time: float = 0.2,
    extra: tuple = (),
    timeout: float = 60,
) -> tuple[Ran, float]:
    """``arena run --isolation process`` in a subprocess that may not outlive ``timeout``."""
    folder = write_bots(tmp_path / "bots", {**HONEST, **files})
    db = tmp_path / "run.db"
    options = ["--isolation", "process", "--move-time", move_time]
    options += ["--game", TD] if "--game" not in extra else []
    options += ["--format", "json", "--bots", bots, *extra]
    args = run_args(folder, db, *options, games=games, seed="progress")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    began = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "arena", *[str(a) for a in args]],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )
    return Ran(proc, db, TD, games), time.monotonic() - began


def assert_each_seat_blamed_once(ran: Ran, bot: str, allowed: set[tuple[int, str, str]]) -> None:
    """Every seat of ``bot`` has exactly one fault, each one of ``allowed`` (decision -1 stands for
    any decision of ``end()``, 1 for any decision of play, 0 for the start); the exclusion of
    the bot, a forfeit at the start, is allowed too."""
    seats = faults_by_seat(ran, bot)
    assert sorted(seats) == ran.seats_of(bot), seats
    for seat, found in seats.items():
        assert len(found) == 1, (seat, found)
        ((decision, kind, message),) = found
        if EXCLUDED in message:
            assert (decision, kind) == (0, "crash"), found
            continue
        assert (min(decision, 1), kind, message) in allowed, (seat, found)


def exclusions(ran: Ran) -> list[str]:
    return [line for line in ran.proc.stderr.splitlines() if EXCLUDED in line]


def with_end(name: str, end_body: str, header: str) -> str:
    """A bot playing its first legal action whose ``end()`` runs ``end_body``."""
    source = bot_file(name, "return observation.legal_actions[0]", header=header)
    end = "    def end(self, result):\n" + "".join(
        f"        {line}\n" for line in end_body.strip().splitlines()
    )
    return source.replace(
        "    def act(self, observation):", end + "\n    def act(self, observation):"
    )


# --- attack 1: a bot that hangs the run -----------------------------------------------------------


def test_end_ending_its_process_is_a_fault_at_the_end_and_the_run_finishes(tmp_path):
    """Before: the forfeit at decision -1 was never applied, the game replayed forever (513
    processes in 60 s, nothing stored)."""
    source = with_end("ender", "os._exit(3)", "import os")
    ran, seconds = run_bounded(tmp_path, {"ender.py": source}, "ender,random", games=40)
    assert_completed(ran)
    assert_others_untouched(ran, {"ender"})
    # At the end of the game whose end() it was; where they were, in the games it was still in.
    died = "its process ended (exit code 3)"
    assert_each_seat_blamed_once(
        ran, "ender", {(-1, "crash", f"in end(): {died}"), (1, "crash", died)}
    )
    assert ran.rows["ender"]["forfeits"] <= len(ran.seats_of("ender"))
    assert seconds < 30


def test_end_hanging_with_signals_blocked_is_a_timeout_at_the_end(tmp_path):
    source = with_end(
        "blocker",
        "signal.pthread_sigmask(signal.SIG_BLOCK, set(signal.Signals))\ntime.sleep(60)",
        "import signal\nimport time",
    )
    ran, seconds = run_bounded(tmp_path, {"blocker.py": source}, "blocker,random", games=4)
    assert_completed(ran)
    assert_others_untouched(ran, {"blocker"})
    message = "no answer within 0.2 s and could not be interrupted; its process was killed"
    stopped = {(-1, "timeout", f"in end(): {message}"), (1, "timeout", message)}
    assert_each_seat_blamed_once(ran, "blocker", stopped)
    assert seconds < 40


# A thread that holds the interpreter for seconds at a time: ``sum`` over a range runs in C
# without ever letting another thread run (``time.sleep`` would let it go).
HOG = "sum(range(60_000_000))  # about 1.5 s here, without a break"

STALLERS = {
    # between commands, or in one, whenever the thread gets going
    "thread": bot_file(
        "staller",
        """
        if not STARTED:
            STARTED.append(threading.Thread(target=hog, daemon=True))
            STARTED[0].start()
        return observation.legal_actions[0]
        """,
        header=f"""
        import threading
        import time

        STARTED = []

        def hog():
            while True:
                time.sleep(0.05)
                {HOG}
        """,
    ),
    # when the bot object is forgotten, at the end of its game
    "__del__": bot_file("staller", "return observation.legal_actions[0]").replace(
        "    def act(self, observation):",
        "    def __del__(self):\n        sum(range(2_000_000_000))  # 30 s and more\n\n"
        "    def act(self, observation):",
    ),
}


@pytest.mark.parametrize("how", sorted(STALLERS))
def test_bot_stalling_its_process_is_blamed_and_the_run_finishes(tmp_path, how):
    """Before: nobody was blamed (no command had begun), every game in flight restarted, forever
    (300 games, 100 s, none stored)."""
    # (enough games that the thread gets going before the run ends, however fast the machine)
    ran, seconds = run_bounded(tmp_path, {"staller.py": STALLERS[how]}, "staller,random", games=40)
    assert_completed(ran)
    assert_others_untouched(ran, {"staller"})
    faults = [fault for found in faults_by_seat(ran, "staller").values() for fault in found]
    assert faults, ran.faults()
    # A stall longer than the worker allows a command: killed; a shorter one (the thread's hog may
    # take less than a second on a fast machine): the command it held up answers late.
    stopped = "no answer within 0.2 s and could not be interrupted; its process was killed"
    late = "by arena's clock (limit 0.2 s)"
    for decision, kind, message in faults:
        assert kind == "timeout" or EXCLUDED in message, (decision, kind, message)
        assert stopped in message or late in message or EXCLUDED in message, message
    assert len(exclusions(ran)) <= 1
    assert seconds < 45


# --- attack 6: replays showing a deal again -------------------------------------------------------


def test_bot_ending_its_process_never_sees_a_deal_again_and_is_excluded_after_three(tmp_path):
    """Before: each ``os._exit`` replayed every game in flight, with the same seeds (about 50
    games shown again per crash; crashing repeatedly made a 1-second run take 50 s)."""
    seen = tmp_path / "seen"
    source = bot_file(
        "peeker",
        f"""
        with open({str(seen)!r}, "a") as f:
            f.write(json.dumps([self._arena_seed, observation.seat, len(self.moves)]) + "\\n")
        self.moves = self.moves + [0]
        if len(self.moves) == 2:
            os._exit(4)
        return observation.legal_actions[0]
        """,
        header="import json\nimport os",
    ).replace("    def act(", "    moves = []\n\n    def act(")
    ran, seconds = run_bounded(
        tmp_path,
        {"peeker.py": source},
        "peeker,random",
        games=200,
        extra=(
            "--no-duplicate",
            "--sandbox",
            "none",
        ),  # (it writes what it sees outside its folder)
    )
    assert_completed(ran)
    assert_others_untouched(ran, {"peeker"})
    decisions = [tuple(json.loads(line)) for line in seen.read_text().splitlines()]
    # No decision was ever asked twice: no game was played again.
    assert len(decisions) == len(set(decisions)), len(decisions) - len(set(decisions))
    died = "its process ended (exit code 4)"
    assert_each_seat_blamed_once(ran, "peeker", {(1, "crash", died), (0, "crash", died)})
    assert len(exclusions(ran)) == 1, ran.proc.stderr
    assert ran.rows["peeker"]["forfeits"] == len(ran.seats_of("peeker"))
    assert seconds < 40


def test_starting_a_bots_next_process_is_not_timed_as_its_first_command(tmp_path):
    """A process started again mid-run (its last one ended) is started while the worker sends a
    round's batches: the half second that takes (Python, the bot file's imports) must not count
    as time its first command ran. Before: that command was a ``timeout`` at --move-time 0.2
    (``still deciding after 0.7 s``), the seat's second fault; seen in CI as 13 faults for 12
    seats, when the machine was slow to start a process."""
    source = bot_file(
        "slow-starter",
        """
        self.moves = self.moves + [0]
        if len(self.moves) == 2:
            os._exit(4)
        return observation.legal_actions[0]
        """,
        header="import os\nimport time\n\ntime.sleep(0.5)  # imports that take a while",
    ).replace("    def act(", "    moves = []\n\n    def act(")
    ran, _ = run_bounded(tmp_path, {"slow_starter.py": source}, "slow-starter,random", games=8)
    assert_completed(ran)
    assert_others_untouched(ran, {"slow-starter"})
    died = "its process ended (exit code 4)"
    assert_each_seat_blamed_once(ran, "slow-starter", {(1, "crash", died), (0, "crash", died)})


# --- attack 4: the referee's clock ----------------------------------------------------------------

SLOW = """
    time.sleep(0.4)  # four times --move-time 0.1
    return observation.legal_actions[0]
"""


CLOCK_PATCHES = {
    "honest": "",
    "perf_counter": "time.perf_counter = lambda: 1000.0",
    # every clock its host times it with, in its own process: only the worker's clock is left
    "every clock": """
        time.perf_counter = lambda: 1000.0
        for module in list(sys.modules.values()):
            if getattr(module, "__name__", "").startswith("arena") and hasattr(module, "_clock"):
                module._clock = lambda: 1000.0
    """,
}


@pytest.mark.parametrize("patch", sorted(CLOCK_PATCHES))
def test_bot_stopping_its_own_clock_gets_timeouts_like_an_honest_slow_bot(tmp_path, patch):
    """Before: ``time.perf_counter = lambda: 1000.0`` gave a bot ten times the move time without
    a fault; the time of a decision is the game worker's to measure."""
    header = "import sys\nimport time\n" + textwrap.dedent(CLOCK_PATCHES[patch])
    source = bot_file("slow", SLOW, header=header)
    # (0.1 s: an honest bot's process must be held up 110 ms to be late, rare even on 2 busy cores)
    ran, _ = run_bounded(tmp_path, {"slow.py": source}, "slow,random", games=2, move_time=0.1)
    assert_completed(ran)
    assert_others_untouched(ran, {"slow"})
    seats = faults_by_seat(ran, "slow")
    assert sorted(seats) == ran.seats_of("slow")
    for found in seats.values():
        assert [kind for _, kind, _ in found] == ["timeout"] * 3, found  # --max-faults 3
    assert ran.rows["slow"]["forfeits"] == len(seats)


def test_bot_excluded_in_one_game_of_the_run_stays_excluded_in_the_next(tmp_path):
    seen = tmp_path / "seen"
    source = bot_file(
        "crasher",
        f"""
        with open({str(seen)!r}, "a") as f:
            f.write(observation.game + "\\n")
        self.moves = self.moves + [0]
        if len(self.moves) == 2:
            os._exit(4)
        return observation.legal_actions[0]
        """,
        header="import os",
    ).replace("    def act(", "    moves = []\n\n    def act(")
    extra = ("--game", TD, "--game", HL, "--no-duplicate", "--sandbox", "none")  # (writes `seen`)
    ran, seconds = run_bounded(tmp_path, {"crasher.py": source}, "crasher,random", 200, extra=extra)
    assert ran.proc.returncode == 0, ran.proc.stderr[-2000:]
    assert len(exclusions(ran)) == 1, ran.proc.stderr
    played = set(seen.read_text().split())
    assert len(played) == 1, played  # its processes ran in the first game's schedule only
    (other,) = {TD, HL} - played
    seats = ran.query(
        "SELECT COUNT(*) FROM seats s JOIN games g ON g.id = s.game_id WHERE s.bot=? AND g.game=?",
        "crasher",
        other,
    )
    faults = ran.query(
        """SELECT f.decision, f.kind, f.message FROM faults f JOIN games g ON g.id = f.game_id
           JOIN seats s ON s.game_id = f.game_id AND s.seat = f.seat
           WHERE s.bot = ? AND g.game = ?""",
        "crasher",
        other,
    )
    assert seats[0][0] >= 200 and len(faults) == seats[0][0]  # each seat, at its start
    for decision, kind, message in faults:
        assert (decision, kind) == (0, "crash") and EXCLUDED in message, (decision, kind, message)
    assert seconds < 50
