"""Time banks (``--time-bank``): each seat has a bank of seconds for the whole game; a decision may
run past the move time by drawing on it, and one past its move time and what is left of its bank
is a ``timeout``. The same in both isolation modes, recorded in the game record, kept by a
resumed run."""

from __future__ import annotations

import json
import sqlite3

import pytest
from conftest import RANDOM_BOT, assert_one_line_error, record_of, write_bots
from hypothesis import given, settings
from hypothesis import strategies as st

import arena
import arena.referee.clock
from arena.execution.backend import InProcess, IsolatedBots
from arena.execution.context import PlayContext, ScheduledGame
from arena.games import TwentyDown
from arena.plugins.loading import load_registry
from arena.referee.clock import TimeBanks
from arena.referee.inline import play_game
from arena.referee.outcome import GameInfo

pytestmark = pytest.mark.usefixtures("isolated")

MOVE_TIME = 0.1

# ``sleeper`` sleeps 0.15 s in its first two decisions (0.05 s past the move time each), then
# answers at once; ``drainer`` sleeps 0.2 s in every decision.
SLEEPERS = """
import time

import arena


class Sleeper(arena.Bot):
    name = "sleeper"
    games = {"twenty-down"}
    sleep = 0.15
    times = 2

    def start(self, info):
        self.decisions = 0

    def act(self, observation):
        self.decisions += 1
        if self.decisions <= self.times:
            time.sleep(self.sleep)
        return observation.legal_actions[0]


@arena.hookimpl
def arena_register_bots(register):
    register(Sleeper)
    register(Sleeper, name="drainer", sleep=0.2, times=10**6)
"""


def _outcomes(tmp_path, bot: str, time_bank: float | None) -> list:
    """One game of Twenty Down with ``bot`` at seat 1, played in this process and with every bot
    in its own process."""
    folder = write_bots(tmp_path / "bots", {"random.py": RANDOM_BOT, "sleepers.py": SLEEPERS})
    registry = load_registry(bots_dir=folder, entry_points=False)
    assert not registry.errors
    context = PlayContext(
        registry, {"twenty-down": TwentyDown()}, move_time=MOVE_TIME, records=True,
        time_bank=time_bank,
    )  # fmt: skip
    seats = ("random", bot, "random", "random")
    item = ScheduledGame(0, "twenty-down", "banked", seats, 0)
    outcomes = []
    for backend in (InProcess(context), IsolatedBots(context, 1)):
        with backend:
            ((_, outcome),) = list(backend.outcomes([item]))
        outcomes.append(outcome)
    return outcomes


def test_a_decision_past_the_move_time_but_within_the_bank_is_no_fault_in_both_modes(tmp_path):
    outcomes = _outcomes(tmp_path, "sleeper", 1.0)
    for mode, outcome in zip(("shared", "process"), outcomes, strict=True):
        assert outcome.fault_log == [], (mode, outcome.fault_log)
        record = record_of(outcome, TwentyDown)
        bank = record["time_bank"]
        assert bank["seconds"] == 1.0
        # Two decisions of 0.15 s drew about 0.05 s each from seat 1's bank.
        used = bank["used"]
        assert 0.08 <= used[1] <= 0.6, (mode, used)
        timed = zip(record["decision_ms"], record["actions"], strict=True)
        slow = [ms for ms, (seat, _) in timed if seat == 1 and ms > MOVE_TIME * 1000]
        assert len(slow) >= 2, (mode, slow)


def test_the_same_bot_without_a_bank_times_out(tmp_path):
    for outcome in _outcomes(tmp_path, "sleeper", None):
        assert [(f.seat, f.kind) for f in outcome.fault_log] == [(1, "timeout"), (1, "timeout")]
        assert "time_bank" not in record_of(outcome, TwentyDown)


def test_a_bot_that_drains_its_bank_gets_timeouts_in_both_modes(tmp_path):
    outcomes = _outcomes(tmp_path, "drainer", 0.35)
    for mode, outcome in zip(("shared", "process"), outcomes, strict=True):
        faults = [(f.seat, f.kind) for f in outcome.fault_log]
        # Three timeouts, the first once its bank ran out, and it forfeits (--max-faults 3).
        assert faults == [(1, "timeout")] * 3, (mode, outcome.fault_log)
        assert outcome.forfeits == (False, True, False, False)
        first = outcome.fault_log[0]
        record = record_of(outcome, TwentyDown)
        # Its first two decisions (0.1 s past the move time each) drew on the bank.
        before = [seat for seat, _ in record["actions"][: first.decision - 1] if seat == 1]
        assert len(before) >= 2, (mode, first)
        assert "time bank" in first.message, first.message
        assert outcome.fault_log[-1].message.endswith("its time bank is empty"), outcome.fault_log
        assert record["time_bank"]["used"][1] == 0.35, (mode, record["time_bank"])


# Its process reports every call as taking no time (the clock the bot host times it with, replaced
# when the file is imported), while its first two decisions sleep 0.3 s.
LIAR = """
import time

import arena
import arena.referee.clock

arena.referee.clock._clock = lambda: 1e12


class Liar(arena.Bot):
    name = "liar"
    calls = 0

    def act(self, observation):
        self.calls += 1
        if self.calls <= 2:
            time.sleep(0.3)
        return observation.legal_actions[0]


@arena.hookimpl
def arena_register_bots(register):
    register(Liar)
"""


def test_a_process_understating_its_time_is_charged_by_the_workers_clock(tmp_path, monkeypatch):
    # (loading the file here replaces this process's clock too: put back after the test)
    monkeypatch.setattr(arena.referee.clock, "_clock", arena.referee.clock._clock)
    folder = write_bots(tmp_path / "bots", {"random.py": RANDOM_BOT, "liar.py": LIAR})
    registry = load_registry(bots_dir=folder, entry_points=False)
    context = PlayContext(
        registry, {"twenty-down": TwentyDown()}, move_time=MOVE_TIME, records=True, time_bank=1.0
    )
    item = ScheduledGame(0, "twenty-down", "liar", ("random", "liar", "random", "random"), 0)
    with IsolatedBots(context, 1) as backend:
        ((_, outcome),) = list(backend.outcomes([item]))
    assert outcome.fault_log == []
    used = record_of(outcome, TwentyDown)["time_bank"]["used"]
    # About 0.2 s a decision past the move time, less the batch allowance (0.01 s), though the
    # process said it took none.
    assert 0.1 <= used[1] <= 0.8, used


class _Watcher(arena.Bot):
    """Sleeps 0.15 s in its first two decisions, noting ``time_left()`` as each begins."""

    name = "watcher"
    seen: list

    def start(self, info):
        self.info = info
        self.seen = []

    def act(self, observation):
        self.seen.append(self.time_left())
        if len(self.seen) <= 2:
            import time

            time.sleep(0.15)
        return observation.legal_actions[0]


class _Quick(arena.Bot):
    name = "quick"

    def act(self, observation):
        return observation.legal_actions[0]


def test_a_python_bot_reads_the_time_left_and_its_bank_in_its_info():
    made = []

    def factory():
        made.append(_Watcher())
        return made[-1]

    outcome = play_game(
        TwentyDown(), [factory, _Quick, _Quick, _Quick], ("watcher", "quick", "quick", "quick"),
        "time-left", move_time=MOVE_TIME, time_bank=1.0,
    )  # fmt: skip
    assert outcome.fault_log == []
    (bot,) = made
    assert bot.info.time_bank == 1.0 and bot.info.to_json()["time_bank"] == 1.0
    first, second, third = bot.seen[:3]
    assert 1.0 < first <= 1.1  # the move time and the whole bank
    assert 0.5 < second < first - 0.03  # about 0.05 s drawn by the first decision
    assert 0.3 < third < second - 0.03
    assert bot.time_left() == float("inf")  # no decision in progress


def test_without_a_bank_the_info_and_its_json_are_as_before():
    info = GameInfo("twenty-down", 0, 4, None, {}, 1.0)
    assert info.time_bank is None and "time_bank" not in info.to_json()


@settings(max_examples=60, deadline=None)
@given(
    seconds=st.floats(0.001, 100.0),
    times=st.lists(st.floats(0.0, 50.0), max_size=30),
)
def test_a_bank_never_goes_below_zero_and_counts_every_second_drawn(seconds, times):
    banks = TimeBanks(2, MOVE_TIME, seconds)
    for elapsed in times:
        before = banks.left(0)
        limit = banks.limit(0)
        banks.charge(0, elapsed)
        assert limit == MOVE_TIME + before
        assert 0.0 <= banks.left(0) <= before
        assert banks.left(0) == pytest.approx(before - min(before, max(0.0, elapsed - MOVE_TIME)))
        assert banks.left(0) + banks.used[0] == pytest.approx(seconds)
    assert banks.left(1) == seconds and banks.used[1] == 0.0


# --- the command line -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, shown", [("0", "0"), ("-1", "-1"), ("nan", "nan"), ("inf", "inf"), ("1e5", "100000")]
)
def test_an_invalid_time_bank_is_a_one_line_error(cli, tmp_path, value, shown):
    result = cli("run", "--time-bank", value, "--db", tmp_path / "x.db", "-q")
    line = assert_one_line_error(result, "--time-bank must be a number of seconds above 0")
    assert line.endswith(f"and at most 86400, not {shown}"), line


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("time_bank = 0\n", "cup.toml: time_bank must be a number of seconds above 0"),
        ('time_bank = "lots"\n', "time_bank"),
        ("time_bank = true\n", "cup.toml: time_bank must be a whole number or a number, not True"),
    ],
)
def test_an_invalid_time_bank_in_a_tournament_file_is_one_line(cli, tmp_path, text, fragment):
    cup = tmp_path / "cup.toml"
    cup.write_text(text)
    result = cli("run", cup, "--db", tmp_path / "x.db", "-q")
    assert_one_line_error(result, fragment)


def test_match_checks_its_time_bank_too(cli, tmp_path):
    result = cli("match", "random", "td-heuristic", "--time-bank", "-2", "--db", tmp_path / "m.db")
    assert_one_line_error(result, "--time-bank must be a number of seconds above 0", "not -2")


def _game_ids(db) -> list[int]:
    con = sqlite3.connect(db)
    try:
        ids = [row[0] for row in con.execute("SELECT id FROM games ORDER BY id")]
    finally:
        con.close()
    return ids


def test_a_resumed_run_keeps_its_time_bank(cli, tmp_path):
    bots = write_bots(tmp_path / "bots", {"random.py": RANDOM_BOT})
    db = tmp_path / "cup.db"
    common = ["--db", db, "--bots-dir", bots, "-j", 1, "-q"]
    played = cli("run", "--game", "td", "--games", 3, "--seed", "bank", "--time-bank", 2.5, *common)
    assert played.exit_code == 0, played.output
    con = sqlite3.connect(db)
    ((config,),) = con.execute("SELECT config FROM runs").fetchall()
    assert json.loads(config)["time_bank"] == 2.5
    # Stopped after 3 of 6 games: a resumed run has games to play.
    config = json.dumps({**json.loads(config), "games": 6}, sort_keys=True)
    con.execute("UPDATE runs SET status='interrupted', config=?", (config,))
    con.commit()
    con.close()
    resumed = cli("run", "--resume", *common)
    assert resumed.exit_code == 0, resumed.output
    assert "isolation shared, time bank 2.5 s, results in" in resumed.stderr
    ids = _game_ids(db)
    assert len(ids) == 6
    for game_id in ids:
        shown = cli("replay", game_id, "--db", db, "--format", "json")
        assert shown.exit_code == 0, shown.output
        assert json.loads(shown.stdout)["time_bank"]["seconds"] == 2.5, game_id


def test_a_run_without_a_bank_stores_no_bank(cli, tmp_path):
    bots = write_bots(tmp_path / "bots", {"random.py": RANDOM_BOT})
    db = tmp_path / "plain.db"
    played = cli("run", "--game", "td", "--games", 1, "--db", db, "--bots-dir", bots, "-j", 1, "-q")
    assert played.exit_code == 0, played.output
    con = sqlite3.connect(db)
    ((config,),) = con.execute("SELECT config FROM runs").fetchall()
    con.close()
    assert "time_bank" not in json.loads(config)
    shown = cli("replay", _game_ids(db)[0], "--db", db, "--format", "json")
    assert "time_bank" not in json.loads(shown.stdout)
