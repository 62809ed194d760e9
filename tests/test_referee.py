"""The referee (``arena.referee.inline.play_game``): nothing a bot does can stop a game.

Every bad answer is a fault of the right kind, a legal fallback is played for it, and after
``max_faults`` faults the bot forfeits: asked nothing more, ranked last whatever its score, while
the game ends normally for the others.
"""

from __future__ import annotations

import json
import random
import time

import pytest
from conftest import record_of

import arena
from arena.bot import seat_seed
from arena.games import HowLowCanYouGo, TwentyDown
from arena.games.base import GameResult, replay
from arena.games.record import unpack
from arena.referee.clock import timed_act, timed_call
from arena.referee.inline import play_game
from arena.referee.interrupt import Interrupt, UserInterrupt
from arena.referee.outcome import GameInfo, GameOutcome, SeatForfeit, ranks_with_forfeits
from arena.referee.seating import seat_up
from arena.referee.table import Table
from arena.referee.watchdog import get_watchdog

pytestmark = pytest.mark.usefixtures("isolated")

MOVE_TIME = 0.2


class RandomBot(arena.Bot):
    name = "random"

    def act(self, observation):
        legal = observation.legal_actions
        return legal[self.rng.randrange(len(legal))]


class Recorder:
    """Factories that keep every bot object they make, to look at afterwards."""

    def __init__(self, cls):
        self.cls = cls
        self.made = []

    def __call__(self):
        bot = self.cls()
        self.made.append(bot)
        return bot


def play(game, classes, seed="referee", **options):
    names = tuple(getattr(c, "name", None) or c.cls.name for c in classes)
    return play_game(game, list(classes), names, seed, **options)


def record(outcome, game_class=TwentyDown):
    return record_of(outcome, game_class)


def assert_replays(outcome, game_class=TwentyDown):
    """Every action the referee applied was legal: the record replays to the stated result."""
    state = replay(record(outcome, game_class), {game_class.name: game_class})
    result = state.result()
    assert result.scores == outcome.scores
    assert result.ranks == outcome.engine_ranks
    return state


# --- normal games ---------------------------------------------------------------------------------


@pytest.mark.parametrize("game", [TwentyDown(), HowLowCanYouGo(players=5)], ids=["td", "hl"])
def test_normal_game_outcome_matches_the_engine_result(game):
    bots = [RandomBot] * game.players
    outcome = play(game, bots, seed="normal", keep_record=True)

    assert outcome.game == game.name
    assert outcome.bots == ("random",) * game.players
    assert outcome.faults == (0,) * game.players
    assert outcome.forfeits == (False,) * game.players
    assert outcome.fault_log == []
    assert outcome.ranks == outcome.engine_ranks
    full = record(outcome, type(game))
    assert outcome.decisions == len(full["actions"]) > 0
    assert len(full["decision_ms"]) == outcome.decisions
    assert full["bots"] == list(outcome.bots)
    assert full["faults"] == []
    assert full["seed"] == "normal"
    state = assert_replays(outcome, type(game))
    assert outcome.better == state.result().better
    json.dumps(full)  # plain JSON


@pytest.mark.parametrize("game", [TwentyDown(), HowLowCanYouGo()], ids=["td", "hl"])
def test_same_seed_gives_identical_outcome_and_record(game):
    def run(seed):
        o = play(game, [RandomBot] * game.players, seed=seed, keep_record=True)
        full = dict(record(o, type(game)))
        full.pop("decision_ms")  # timings, not results
        return (o.scores, o.ranks, o.faults, o.decisions), full

    first, record1 = run("same")
    second, record2 = run("same")
    assert first == second
    assert record1 == record2
    other, record3 = run("different")
    assert record3["actions"] != record1["actions"]


class RngProbe(arena.Bot):
    name = "rng-probe"

    def start(self, info):
        self.at_start = self.rng.random()

    def act(self, observation):
        legal = observation.legal_actions
        return legal[self.rng.randrange(len(legal))]


def test_each_bot_gets_its_own_seeded_rng_before_start():
    def draws(seed):
        factory = Recorder(RngProbe)
        play(TwentyDown(), [factory] * 4, seed=seed)
        return [bot.at_start for bot in factory.made]

    first = draws("rng")
    assert len(set(first)) == 4  # one generator per seat, not a shared one
    assert draws("rng") == first  # seeded: the same seed gives the same numbers
    assert draws("rng-2") != first
    # Not the Bot default generator: the referee replaced it.
    assert random.Random(0).random() not in first


class Lifecycle(arena.Bot):
    name = "lifecycle"

    def __init__(self, **settings):
        super().__init__(**settings)
        self.events = []

    def start(self, info):
        self.events.append(("start", info))

    def act(self, observation):
        self.events.append(("act", observation.seat))
        return observation.legal_actions[0]

    def end(self, result):
        self.events.append(("end", result))


def test_start_and_end_are_called_once_with_info_and_result():
    factory = Recorder(Lifecycle)
    game = HowLowCanYouGo(players=3)
    outcome = play(game, [factory, RandomBot, factory], seed="life", move_time=0.5)
    assert outcome.faults == (0, 0, 0)
    bots = factory.made
    assert len(bots) == 2
    for seat, bot in zip((0, 2), bots, strict=True):
        kinds = [e[0] for e in bot.events]
        assert kinds[0] == "start" and kinds[-1] == "end"
        assert kinds.count("start") == 1 and kinds.count("end") == 1
        assert kinds.count("act") >= 1
        assert all(e[1] == seat for e in bot.events if e[0] == "act")
        info = bot.events[0][1]
        assert isinstance(info, GameInfo)
        assert (info.game, info.seat, info.players) == ("how-low-can-you-go", seat, 3)
        assert info.move_time == 0.5
        assert info.params == game.params
        json.dumps(info.to_json())
        result = bot.events[-1][1]
        assert isinstance(result, GameResult)
        assert result.scores == outcome.scores


# --- observations (contract 1) --------------------------------------------------------------------


class ObservationProbe(arena.Bot):
    name = "probe"
    seen: list = []

    def act(self, observation):
        ObservationProbe.seen.append(observation)
        return observation.legal_actions[0]


@pytest.mark.parametrize("game", [TwentyDown(), HowLowCanYouGo()], ids=["td", "hl"])
def test_observation_has_game_seat_legal_actions_and_converts_to_plain_json(game):
    ObservationProbe.seen = []
    play(game, [ObservationProbe] * game.players, seed="obs")
    assert ObservationProbe.seen
    for obs in ObservationProbe.seen[:50]:
        assert obs.game == game.name
        assert 0 <= obs.seat < game.players
        assert len(obs.legal_actions) >= 1
        data = json.loads(json.dumps(obs.to_json()))
        assert data["game"] == game.name and data["seat"] == obs.seat
        assert isinstance(data["legal_actions"], list)
        assert len(data["legal_actions"]) == len(obs.legal_actions)


@pytest.mark.parametrize(
    "game",
    [
        TwentyDown(),
        HowLowCanYouGo(),
    ],
    ids=["td", "hl"],
)
def test_observation_legal_actions_is_a_list(game):
    ObservationProbe.seen = []
    play(game, [ObservationProbe] * game.players, seed="list")
    assert all(type(obs.legal_actions) is list for obs in ObservationProbe.seen)


# --- faults ---------------------------------------------------------------------------------------


class EqRaises:
    def __eq__(self, other):
        raise RuntimeError("no comparing me")

    __hash__ = object.__hash__

    def __repr__(self):
        raise RuntimeError("no printing me either")


class EqLoops:
    def __eq__(self, other):
        while True:
            pass

    __hash__ = object.__hash__


def _raise(exc):
    raise exc


def _sleep_past(observation):
    time.sleep(5)
    return observation.legal_actions[0]


def _busy_loop(observation):
    n = 0
    while True:
        n += 1


def _swallow_first_timeout(observation):
    try:
        time.sleep(5)
    except BaseException:  # a bot that catches everything, even the referee's interruption
        time.sleep(5)
    return observation.legal_actions[0]


def _append_and_return(observation):
    sentinel = object()
    observation.legal_actions.append(sentinel)
    return sentinel


def _overwrite_and_return(observation):
    fake = "not-a-card"
    observation.legal_actions[:] = [fake] * len(observation.legal_actions)
    return fake


FAULTY = {
    # name: (act, fault kinds allowed, needs the clock)
    "raises-exception": (lambda o: _raise(ValueError("bad bot")), {"exception"}, False),
    "raises-runtime-error": (lambda o: _raise(RuntimeError("oops")), {"exception"}, False),
    "raises-system-exit": (lambda o: _raise(SystemExit(4)), {"exception"}, False),
    "raises-keyboard-interrupt": (lambda o: _raise(KeyboardInterrupt()), {"exception"}, False),
    "returns-none": (lambda o: None, {"illegal"}, False),
    "returns-string": (lambda o: "garbage", {"illegal"}, False),
    "returns-list-of-action": (lambda o: [o.legal_actions[0]], {"illegal"}, False),
    "returns-object-whose-eq-raises": (lambda o: EqRaises(), {"illegal", "exception"}, False),
    "returns-object-whose-eq-loops": (lambda o: EqLoops(), {"timeout"}, True),
    "appends-to-legal-actions": (_append_and_return, {"illegal"}, False),
    "overwrites-legal-actions": (_overwrite_and_return, {"illegal"}, False),
    "sleeps-past-limit": (_sleep_past, {"timeout"}, True),
    "busy-loops-past-limit": (_busy_loop, {"timeout"}, True),
    "swallows-first-timeout": (_swallow_first_timeout, {"timeout"}, True),
}


def faulty_class(act):
    class Faulty(arena.Bot):
        name = "faulty"

        def __init__(self, **settings):
            super().__init__(**settings)
            self.calls = 0
            self.ended = False

        def act(self, observation):
            self.calls += 1
            return act(observation)

        def end(self, result):
            self.ended = True

    return Faulty


@pytest.mark.parametrize("case", list(FAULTY))
def test_bot_fault_is_recorded_fallback_played_and_forfeit_after_max_faults(case):
    act, kinds, timed = FAULTY[case]
    factory = Recorder(faulty_class(act))
    max_faults = 2
    # An untimed fault must not wait out the move time: give it a long one, so that a whole game
    # on a loaded machine stays far below a single wait.
    move_time = MOVE_TIME if timed else 5.0
    began = time.perf_counter()
    outcome = play(
        TwentyDown(),
        [RandomBot, factory, RandomBot, RandomBot],
        seed=f"fault-{case}",
        move_time=move_time,
        max_faults=max_faults,
        keep_record=True,
    )
    elapsed = time.perf_counter() - began
    (bot,) = factory.made

    # Faulted on every call, then asked nothing more.
    assert bot.calls == max_faults
    assert outcome.faults == (0, max_faults, 0, 0)
    assert outcome.forfeits == (False, True, False, False)
    assert [f.seat for f in outcome.fault_log] == [1] * max_faults
    assert {f.kind for f in outcome.fault_log} <= kinds, outcome.fault_log
    assert all(f.decision >= 1 and "\n" not in f.message for f in outcome.fault_log)
    assert record(outcome)["faults"] == [f.to_json() for f in outcome.fault_log]
    assert bot.ended is False  # a forfeited bot is asked nothing more, not even end()

    # Ranked last whatever its score; the others keep their order among themselves.
    assert outcome.ranks[1] == 4
    others = [outcome.engine_ranks[s] for s in (0, 2, 3)]
    kept = [outcome.ranks[s] for s in (0, 2, 3)]
    assert sorted(kept)[0] == 1 and max(kept) <= 3
    for a in range(3):
        for b in range(3):
            if others[a] < others[b]:
                assert kept[a] < kept[b]
            if others[a] == others[b]:
                assert kept[a] == kept[b]

    # The game ended normally: every action applied was legal.
    assert_replays(outcome)
    if timed:
        for fault in outcome.fault_log:
            assert fault.kind == "timeout"
            assert f"{MOVE_TIME:g} s" in fault.message
        assert elapsed < max_faults * MOVE_TIME + 1.5  # interrupted, not waited out
    else:
        assert elapsed < move_time  # not waited out


def test_fault_messages_name_the_exception_and_the_illegal_answer():
    raiser = play(
        TwentyDown(),
        [faulty_class(lambda o: _raise(ValueError("bad bot\nmore")))] * 4,
        seed="msg",
        max_faults=1,
    )
    assert raiser.fault_log[0].message == "ValueError: bad bot"
    illegal = play(TwentyDown(), [faulty_class(lambda o: "garbage")] * 4, seed="msg", max_faults=1)
    assert illegal.fault_log[0].kind == "illegal"
    assert "'garbage'" in illegal.fault_log[0].message


def test_fewer_faults_than_max_faults_do_not_forfeit():
    class OnceFaulty(RandomBot):
        name = "once"
        faulted = False

        def act(self, observation):
            if not self.faulted:
                self.faulted = True
                return None
            return super().act(observation)

    outcome = play(
        TwentyDown(),
        [OnceFaulty, RandomBot, RandomBot, RandomBot],
        seed="once",
        max_faults=2,
        keep_record=True,
    )
    assert outcome.faults == (1, 0, 0, 0)
    assert outcome.forfeits == (False,) * 4
    assert outcome.ranks == outcome.engine_ranks
    assert [(f.seat, f.kind) for f in outcome.fault_log] == [(0, "illegal")]
    assert_replays(outcome)


def test_forfeited_bot_is_ranked_last_even_with_the_best_score(tally):
    """Tally: highest total wins. The bot picks 9 twice, then faults with max_faults=1."""

    class GreedyThenCrash(arena.Bot):
        name = "greedy"
        turns = 0

        def act(self, observation):
            self.turns += 1
            if self.turns == 3:
                raise RuntimeError("crash on the last turn")
            return 9

    class Zero(arena.Bot):
        name = "zero"

        def act(self, observation):
            return 0

    game = tally(players=4, rounds=3)
    outcome = play(
        game, [Zero, GreedyThenCrash, Zero, Zero], seed="tally", max_faults=1, keep_record=True
    )
    assert (
        outcome.scores[1] >= 18 and outcome.scores[0] == outcome.scores[2] == outcome.scores[3] == 0
    )
    assert outcome.engine_ranks == (2, 1, 2, 2)
    assert outcome.forfeits == (False, True, False, False)
    assert outcome.ranks == (1, 4, 1, 1)
    assert outcome.placings() == {"zero": 1.0, "greedy": 4.0}
    assert outcome.decisions == 12  # the game ran to its end for everybody
    assert_replays(outcome, tally)


def test_plugin_game_with_more_than_256_legal_actions_can_be_recorded(tally):
    class Highest(arena.Bot):
        name = "highest"

        def act(self, observation):
            return observation.legal_actions[-1]

    game = tally(players=2, rounds=2, choices=300)
    outcome = play(game, [Highest, Highest], seed="wide", keep_record=True)
    assert outcome.scores == (598, 598)
    assert outcome.faults == (0, 0)
    assert_replays(outcome, tally)


@pytest.mark.parametrize(
    "ranks, forfeits, expected",
    [
        ((1, 2, 3, 4), [False] * 4, (1, 2, 3, 4)),
        ((1, 2, 3, 4), [True, False, False, False], (4, 1, 2, 3)),
        ((4, 3, 2, 1), [False, False, False, True], (3, 2, 1, 4)),
        ((1, 1, 3, 4), [True, False, False, False], (4, 1, 2, 3)),
        ((2, 1, 2, 4), [False, True, False, False], (1, 4, 1, 3)),
        ((1, 2, 3, 4), [True, True, False, False], (3, 3, 1, 2)),
        ((1, 2), [True, True], (1, 1)),
    ],
)
def test_forfeited_seats_share_last_place_and_others_keep_their_order(ranks, forfeits, expected):
    assert ranks_with_forfeits(ranks, forfeits) == expected


def test_bot_whose_constructor_raises_forfeits_and_others_play_on():
    class Unbuildable(arena.Bot):
        name = "unbuildable"

        def __init__(self, **settings):
            raise RuntimeError("cannot build")

    outcome = play(
        TwentyDown(), [RandomBot, RandomBot, Unbuildable, RandomBot], seed="ctor", keep_record=True
    )
    assert outcome.forfeits == (False, False, True, False)
    assert outcome.ranks[2] == 4
    assert [(f.seat, f.decision, f.kind) for f in outcome.fault_log] == [(2, 0, "exception")]
    assert "cannot build" in outcome.fault_log[0].message
    assert_replays(outcome)


def test_start_that_raises_or_sleeps_is_a_fault_and_the_bot_still_plays():
    class BadStart(RandomBot):
        name = "bad-start"

        def start(self, info):
            raise ValueError("no start")

    class SlowStart(RandomBot):
        name = "slow-start"

        def start(self, info):
            time.sleep(5)

    outcome = play(
        TwentyDown(),
        [BadStart, SlowStart, RandomBot, RandomBot],
        seed="start",
        move_time=MOVE_TIME,
        max_faults=3,
        keep_record=True,
    )
    assert outcome.faults == (1, 1, 0, 0)
    assert outcome.forfeits == (False,) * 4
    assert outcome.ranks == outcome.engine_ranks
    log = {(f.seat, f.decision, f.kind) for f in outcome.fault_log}
    assert log == {(0, 0, "exception"), (1, 0, "timeout")}
    assert all("start()" in f.message for f in outcome.fault_log)


def test_end_that_raises_is_counted_but_cannot_forfeit_a_finished_game():
    class BadEnd(RandomBot):
        name = "bad-end"

        def end(self, result):
            raise RuntimeError("sore loser")

    outcome = play(
        TwentyDown(), [BadEnd, RandomBot, RandomBot, RandomBot], seed="end", max_faults=1
    )
    assert outcome.faults == (1, 0, 0, 0)
    assert outcome.forfeits == (False,) * 4
    assert outcome.ranks == outcome.engine_ranks
    assert [(f.seat, f.decision, f.kind) for f in outcome.fault_log] == [(0, -1, "exception")]


def test_bot_mutating_its_observation_cannot_change_the_game():
    class Vandal(arena.Bot):
        name = "vandal"

        def act(self, observation):
            choice = observation.legal_actions[self.rng.randrange(len(observation.legal_actions))]
            observation.legal_actions.clear()
            observation.legal_actions.append("anything")
            return choice

    vandals = play(TwentyDown(), [Vandal] * 4, seed="vandal", keep_record=True)
    assert vandals.faults == (0, 0, 0, 0)
    assert_replays(vandals)


def test_keyboard_interrupt_from_a_real_ctrl_c_stops_the_game():
    """A bot raising KeyboardInterrupt is a fault; a Ctrl-C of the user stops everything."""
    with pytest.raises(UserInterrupt):
        play(
            TwentyDown(),
            [faulty_class(lambda o: _raise(KeyboardInterrupt()))] * 4,
            seed="ctrl-c",
            interrupt=Interrupt(requested=True),
        )


def test_wrong_number_of_bots_is_refused():
    with pytest.raises(ValueError, match="needs 4 bots"):
        play(TwentyDown(), [RandomBot] * 3)


def test_referee_leaves_no_alarm_pending_after_a_timeout():
    """After a timed-out game, ordinary code in the same process is not interrupted."""
    play(TwentyDown(), [faulty_class(_sleep_past)] * 4, seed="alarm", move_time=0.05, max_faults=1)
    time.sleep(0.2)  # would raise MoveTimeout if the watchdog still fired


def test_hl19_an_exchange_in_another_order_is_the_same_answer():
    """docs/rules (HL-19, "What a bot returns"; issue 16): the same cards in reverse order, or as
    a list, are the listed set, not a fault; the game is the one the sorted answers play."""

    def reversed_exchange(observation):
        largest = max(observation.legal_actions, key=len)
        return tuple(reversed(largest)) if len(largest) > 1 else list(largest)

    def sorted_exchange(observation):
        return max(observation.legal_actions, key=len)

    outcomes = [
        play(
            HowLowCanYouGo(players=2),
            [faulty_class(answer), RandomBot],
            seed="hl19",
            max_faults=1,
            keep_record=True,
        )
        for answer in (reversed_exchange, sorted_exchange)
    ]
    assert not outcomes[0].fault_log and not any(outcomes[0].forfeits)
    answered, listed = (unpack(o.record)[1] for o in outcomes)  # the actions, as indices
    assert outcomes[0].scores == outcomes[1].scores and answered == listed
    assert_replays(outcomes[0], HowLowCanYouGo)


# --- one referee for every mode -------------------------------------------------------------------


class SloppyBot(arena.Bot):
    """Deterministic faults (exceptions, illegal answers) between random legal actions."""

    name = "sloppy"

    def act(self, observation):
        roll = self.rng.random()
        if roll < 0.1:
            raise ValueError("boom")
        if roll < 0.2:
            return "not an action"
        legal = observation.legal_actions
        return legal[self.rng.randrange(len(legal))]

    def end(self, result):
        pass


def _play_table_as_a_game_worker(game, classes, names, seed, forfeits) -> GameOutcome:
    """A ``Table`` driven as a game worker of ``--isolation process`` drives it: each bot made at
    its seat's first decision, each answer an index for ``resolve``, then the seats' ``end()``."""
    watchdog = get_watchdog(MOVE_TIME)
    table = Table(game, names, seed, MOVE_TIME, MANY_FAULTS, True, forfeits)
    for seat in forfeits:
        table.forfeits_at_start(seat)
    bots = {}
    while (seat := table.advance()) is not None:
        if seat not in bots:
            info = table.info(seat)
            seating = seat_up(watchdog, MOVE_TIME, classes[seat], seat_seed(seed, seat), info)
            bots[seat] = seating.bot
            if seating.kind is not None:
                table.fault_at_start(seat, seating.kind, seating.message, seating.bot is None)
        if table.forfeited[seat]:
            table.fallback_move()
            continue
        legal = list(table.legal)
        kind, value, elapsed = timed_act(
            watchdog, MOVE_TIME, bots[seat].act, table.observation(), legal
        )
        if kind is None:
            table.resolve(value, elapsed)
        else:
            table.fault(kind, value, elapsed)
    result = table.result()
    for seat in sorted(bots):
        if table.ends(seat) and getattr(type(bots[seat]), "end", None) is not None:
            kind, message, _ = timed_call(watchdog, MOVE_TIME, bots[seat].end, result)
            if kind is not None:
                table.fault_at_end(seat, kind, message)
    return table.outcome(result)


MANY_FAULTS = 1000  # a sloppy bot's faults do not make it forfeit (its end() is called)
FORFEITS = {
    "at its creation": {1: SeatForfeit(0, "crash", "its process was killed by SIGSEGV")},
    "during play": {2: SeatForfeit(9, "timeout", "no answer within 0.2 s; its process was killed")},
    "in end()": {0: SeatForfeit(-1, "memory", "its process ended (exit code 1)")},
    "all three": {
        0: SeatForfeit(-1, "crash", "its process ended (exit code 3)"),
        1: SeatForfeit(0, "cpu", "its process was killed by SIGXCPU"),
        2: SeatForfeit(30, "crash", "its process was killed by SIGKILL"),
    },
}


@pytest.mark.parametrize("game", [TwentyDown(), HowLowCanYouGo()], ids=lambda g: g.name)
@pytest.mark.parametrize("case", list(FORFEITS))
def test_play_game_and_a_table_driven_as_in_process_mode_give_the_same_outcome(game, case):
    """``play_game`` and a game worker of ``--isolation process`` drive the same ``Table``: with
    forfeits imposed at a seat's creation, during play and in ``end()``, the outcomes agree."""
    forfeits = FORFEITS[case]
    classes = [SloppyBot, RandomBot, SloppyBot, RandomBot][: game.players]
    names = tuple(f"{cls.name}-{seat}" for seat, cls in enumerate(classes))
    inline = play_game(
        game, classes, names, "seat-forfeits", MOVE_TIME, MANY_FAULTS, True, forfeits=forfeits
    )
    driven = _play_table_as_a_game_worker(game, classes, names, "seat-forfeits", forfeits)
    for outcome in (inline, driven):
        log = [(f.seat, f.decision, f.kind, f.message) for f in outcome.fault_log]
        for seat, forfeit in forfeits.items():
            message = forfeit.message if forfeit.decision >= 0 else f"in end(): {forfeit.message}"
            assert (seat, forfeit.decision, forfeit.kind, message) in log
            assert outcome.forfeits[seat] == (forfeit.decision >= 0)
        assert any(f.kind in ("exception", "illegal") for f in outcome.fault_log)

    def comparable(outcome):
        faults = [(f.seat, f.decision, f.kind, f.message) for f in outcome.fault_log]
        actions = record(outcome, type(game))["actions"]
        return (outcome.scores, outcome.ranks, outcome.forfeits, outcome.decisions, faults, actions)

    assert comparable(driven) == comparable(inline)
