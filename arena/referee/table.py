"""The referee: plays one game between bots, and nothing a bot does can stop it.

It asks the seat to move with that seat's observation only, checks the answer against the legal
actions the engine computed, and times every decision. A *fault* — an exception of any kind, an
answer that is not a legal action, an answer past the time limit — is recorded against the bot and
the referee plays a fallback action for it: a uniformly random legal action from the referee's own
generator (seeded from the game seed, so the game stays reproducible). After ``max_faults`` faults in
one game the bot forfeits: it is asked nothing more, its seat is played by the fallback, and it is
ranked last whatever its score. The referee knows nothing about any game's rules.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from operator import call
from typing import Any

from arena.bot import seat_seed
from arena.games.base import Game, GameResult
from arena.games.record import pack
from arena.referee.clock import INF, MoveTimeout, get_watchdog


class UserInterrupt(KeyboardInterrupt):
    """A real Ctrl-C from the person running arena (a bot raising KeyboardInterrupt is a fault)."""


interrupt_requested = False
_NO_ANSWER = object()


@dataclass(frozen=True, slots=True)
class Fault:
    seat: int
    decision: int  # 0 for start(), -1 for end(), else the game's decision number
    kind: str  # "exception", "illegal", "timeout", "crash", "memory"
    message: str

    def to_json(self) -> dict:
        return {
            "seat": self.seat,
            "decision": self.decision,
            "kind": self.kind,
            "message": self.message,
        }


@dataclass(frozen=True, slots=True)
class GameInfo:
    """What ``Bot.start(info)`` receives."""

    game: str
    seat: int
    players: int
    variant: str | None
    params: dict
    move_time: float

    def __reduce__(self):
        # Sent to a bot process for every seat of every game (see GameResult.__reduce__).
        fields = (self.game, self.seat, self.players, self.variant, self.params, self.move_time)
        return GameInfo, fields

    def to_json(self) -> dict:
        return {
            "game": self.game,
            "seat": self.seat,
            "players": self.players,
            "variant": self.variant,
            "params": dict(self.params),
            "move_time": self.move_time,
        }


@dataclass
class GameOutcome:
    """One finished game as the referee saw it: engine result adjusted for forfeits."""

    game: str
    seed: str
    bots: tuple[str, ...]
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    engine_ranks: tuple[int, ...]
    faults: tuple[int, ...]
    forfeits: tuple[bool, ...]
    fault_log: list[Fault]
    decisions: int
    seconds: float
    record: bytes | None = None  # compact, see arena.games.record
    better: str = "higher"
    extra: dict = field(default_factory=dict)

    def placings(self) -> dict[str, float]:
        """Each distinct bot's place in this game: the mean rank of its seats."""
        bots = self.bots
        if len(set(bots)) == len(bots):  # one seat each (r / 1 is float(r))
            return dict(zip(bots, map(float, self.ranks)))
        sums: dict[str, list[int]] = {}
        for bot, rank in zip(self.bots, self.ranks, strict=True):
            sums.setdefault(bot, []).append(rank)
        return {bot: sum(r) / len(r) for bot, r in sums.items()}


def ranks_with_forfeits(ranks: tuple[int, ...], forfeits: list[bool]) -> tuple[int, ...]:
    """Forfeited seats share the last place; the others keep their order among themselves."""
    if not any(forfeits):
        return tuple(ranks)
    kept = sorted(r for r, f in zip(ranks, forfeits, strict=True) if not f)
    first_place = {}
    for i, r in enumerate(kept):
        first_place.setdefault(r, i + 1)
    last = len(kept) + 1
    return tuple(last if f else first_place[r] for r, f in zip(ranks, forfeits, strict=True))


def _describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    detail = f": {text[0][:200]}" if text and text[0] else ""
    return f"{type(exc).__name__}{detail}"


def _safe_repr(value: Any) -> str:
    try:
        text = repr(value)
    except BaseException:
        text = f"<unprintable {type(value).__name__}>"
    return text if len(text) <= 80 else text[:77] + "..."


class _Seats:
    """Bookkeeping of faults and forfeits for one game."""

    def __init__(self, n: int, max_faults: int):
        self.faults = [0] * n
        self.forfeited = [False] * n
        self.log: list[Fault] = []
        self.max_faults = max_faults

    def fault(self, seat: int, decision: int, kind: str, message: str) -> None:
        self.faults[seat] += 1
        self.log.append(Fault(seat, decision, kind, message))
        if self.faults[seat] >= self.max_faults:
            self.forfeited[seat] = True


class _Fallback:
    """The referee's own generator for fallback actions, seeded only when first needed."""

    def __init__(self, seed: str):
        self.seed = seed
        self.rng: random.Random | None = None

    def choose(self, n: int) -> int:
        if self.rng is None:
            self.rng = random.Random(self.seed)
        return self.rng.randrange(n)


def _check_interrupt(exc: BaseException) -> None:
    if interrupt_requested and isinstance(exc, KeyboardInterrupt):
        raise UserInterrupt() from None


def classify(exc: BaseException, answer: Any, move_time: float) -> tuple[str, str]:
    """The fault kind and message of what a bot's call raised (``answer``: what it returned,
    ``_NO_ANSWER`` if nothing). Call it while the deadline is still armed: describing an exception
    runs the bot's own ``__str__``, which may never return."""
    try:
        if isinstance(exc, MoveTimeout):
            return "timeout", f"no answer within {move_time:g} s"
        if isinstance(exc, ValueError) and answer is not _NO_ANSWER:
            return "illegal", f"{_safe_repr(answer)} is not a legal action"
        return ("memory" if isinstance(exc, MemoryError) else "exception"), _describe(exc)
    except BaseException:
        return "exception", f"{type(exc).__name__} (its message could not be read)"


def _call_timed(watchdog, move_time: float, function, argument) -> tuple[str | None, Any, float]:
    """Run ``function(argument)`` under the time limit -> (fault kind or None, value, seconds)."""
    clock = time.perf_counter
    start = clock()
    watchdog.deadline = start + move_time
    try:
        value = function(argument)
        watchdog.deadline = INF
    except BaseException as exc:
        kind, message = classify(exc, _NO_ANSWER, move_time)
        watchdog.deadline = INF
        _check_interrupt(exc)
        return kind, message, clock() - start
    seconds = clock() - start
    if seconds > move_time:
        return "timeout", f"answered after {seconds:.3f} s (limit {move_time:g} s)", seconds
    return None, value, seconds


def _seat_up(game, seat, factory, seed, move_time, watchdog, seats, players, acts) -> None:
    """Create the bot of one seat and call its start(); any failure is a fault."""
    kind, bot, _ = _call_timed(watchdog, move_time, call, factory)
    if kind is not None:
        seats.fault(seat, 0, kind, f"could not be created: {bot}")
        seats.forfeited[seat] = True
        return
    try:
        bot._arena_seed = seat_seed(seed, seat)  # bot.rng is seeded from it (arena.Bot)
        act = bot.act
    except BaseException as exc:
        _check_interrupt(exc)
        seats.fault(seat, 0, "exception", _describe(exc))
        seats.forfeited[seat] = True
        return
    players[seat] = bot
    acts[seat] = act
    # Looked up on the class: arena.Bot.__getattr__ makes a miss on the object costly.
    if getattr(type(bot), "start", None) is not None:
        info = GameInfo(game.name, seat, game.players, game.variant, dict(game.params), move_time)
        kind, message, _ = _call_timed(watchdog, move_time, bot.start, info)
        if kind is not None:
            seats.fault(seat, 0, kind, f"in start(): {message}")


@dataclass(frozen=True, slots=True)
class SeatForfeit:
    """A seat to forfeit when the game reaches ``decision`` (0: before it is created; -1: at the
    end), with the fault to record: how the tournament replays a game whose bot process died."""

    decision: int
    kind: str
    message: str


def play_game(
    game: Game,
    bots: list[Any],
    names: tuple[str, ...],
    seed: str,
    move_time: float = 1.0,
    max_faults: int = 3,
    keep_record: bool = False,
    forfeits: dict[int, SeatForfeit] | None = None,
    tracker: Any = None,
    seat_move_time: dict[int, float] | None = None,
) -> GameOutcome:
    """Play one game. ``bots`` holds one zero-argument factory per seat (usually ``BotSpec.create``).

    ``seat_move_time`` overrides ``move_time`` for some seats (``arena play``: a person has no
    time limit, ``{seat: math.inf}``).

    ``tracker``, when given, is told ``enter(seat, decision)`` before and ``leave()`` after every
    call into bot code, so that a process watching this one knows who was playing if it dies.
    """
    n = game.players
    if len(bots) != n:
        raise ValueError(f"{game.name} needs {n} bots, got {len(bots)}")
    began = time.perf_counter()
    watchdog = get_watchdog(move_time)
    state = game.new_state(seed)
    fallback = _Fallback(f"{seed}/referee")
    seats = _Seats(n, max_faults)
    players: list[Any] = [None] * n
    acts: list[Any] = [None] * n
    times: list[float] | None = [] if keep_record else None
    indices: list[int] = []
    forfeits = forfeits or {}
    limits = [move_time] * n
    for seat, limit in (seat_move_time or {}).items():
        limits[seat] = limit
    # Forfeits during play, by decision number: one int comparison per decision finds them.
    pending = {f.decision: (seat, f) for seat, f in forfeits.items() if f.decision > 0}
    next_forfeit = min(pending, default=-2)

    for seat, factory in enumerate(bots):
        early = forfeits.get(seat)
        if early is not None and early.decision == 0:
            seats.fault(seat, 0, early.kind, early.message)
            seats.forfeited[seat] = True
            continue
        if tracker is not None:
            tracker.enter(seat, 0)
        _seat_up(game, seat, factory, seed, limits[seat], watchdog, seats, players, acts)
        if tracker is not None:
            tracker.leave()

    forfeited = seats.forfeited
    clock = time.perf_counter
    decision = 0
    while True:
        player = state.current_player()
        if player < 0:
            break
        decision += 1
        legal = state.legal_actions()
        if decision == next_forfeit:
            seat, forfeit = pending.pop(decision)
            next_forfeit = min(pending, default=-2)
            seats.fault(seat, decision, forfeit.kind, forfeit.message)
            forfeited[seat] = True
        if forfeited[player]:
            index = fallback.choose(len(legal))
            if times is not None:
                times.append(0.0)
                indices.append(index)
            state.apply_legal(index)
            continue
        observation = state.observation(player)
        if tracker is not None:
            tracker.enter(player, decision)
        answer = _NO_ANSWER
        limit = limits[player]
        start = clock()
        watchdog.deadline = start + limit
        try:
            answer = acts[player](observation)
            # Inside the timer: a hostile __eq__ could loop forever.
            index = legal.index(answer)
            watchdog.deadline = INF
        except BaseException as exc:
            kind, message = classify(exc, answer, limit)
            watchdog.deadline = INF
            _check_interrupt(exc)
            index = None
            seats.fault(player, decision, kind, message)
        elapsed = clock() - start
        if tracker is not None:
            tracker.leave()
            # Watched closely: whatever a bot did to the alarm is undone before the next one.
            watchdog.restore()
        if index is not None and elapsed > limit:
            index = None
            seats.fault(
                player,
                decision,
                "timeout",
                f"answered after {elapsed:.3f} s (limit {limit:g} s)",
            )
        if index is None:
            watchdog.restore()
            index = fallback.choose(len(legal))
        if times is not None:
            times.append(elapsed)
            indices.append(index)
        state.apply_legal(index)

    result = state.result()
    for seat, bot in enumerate(players):
        if bot is None or forfeited[seat] or getattr(type(bot), "end", None) is None:
            continue
        late = forfeits.get(seat)
        if late is not None and late.decision == -1:
            kind, message = late.kind, late.message
        else:
            if tracker is not None:
                tracker.enter(seat, -1)
            kind, message, _ = _call_timed(watchdog, limits[seat], bot.end, result)
            if tracker is not None:
                tracker.leave()
        if kind is not None:
            # A fault in end() is counted but cannot forfeit a game already over.
            seats.faults[seat] += 1
            seats.log.append(Fault(seat, -1, kind, f"in end(): {message}"))

    return _outcome(state, names, seed, seats, decision, clock() - began, indices, times, result)


def _outcome(
    state, names, seed, seats: _Seats, decisions, seconds, indices, times, result=None
) -> GameOutcome:
    if result is None:
        result = state.result()
    record = None
    if times is not None:
        record = pack(state, tuple(names), [f.to_json() for f in seats.log], indices, times)
    return GameOutcome(
        game=state.game.name,
        seed=seed,
        bots=tuple(names),
        scores=tuple(result.scores),
        ranks=ranks_with_forfeits(result.ranks, seats.forfeited),
        engine_ranks=tuple(result.ranks),
        faults=tuple(seats.faults),
        forfeits=tuple(seats.forfeited),
        fault_log=seats.log,
        decisions=decisions,
        seconds=seconds,
        record=record,
        better=result.better,
    )


class Table:
    """One game under the referee, driven from outside, one decision at a time.

    Process isolation steps many tables at once and sends the bots' decisions to their processes
    in batches; the rules of refereeing — forfeits, fallbacks, faults, records — are the same as in
    ``play_game``: ``advance()`` plays forfeited seats and returns the seat whose bot must decide
    (or ``None`` at the end), ``resolve(index, elapsed)`` or ``fault(kind, message)`` settles it.
    """

    def __init__(
        self,
        game: Game,
        names: tuple[str, ...],
        seed: str,
        move_time: float = 1.0,
        max_faults: int = 3,
        keep_record: bool = False,
        forfeits: dict[int, SeatForfeit] | None = None,
    ):
        self.began = time.perf_counter()
        self.names = tuple(names)
        self.seed = seed
        self.move_time = move_time
        self.state = game.new_state(seed)
        self.seats = _Seats(game.players, max_faults)
        self.forfeited = self.seats.forfeited  # by seat, changed in place
        self.fallback = _Fallback(f"{seed}/referee")
        self.times: list[float] | None = [] if keep_record else None
        self.indices: list[int] = []
        self.forfeits = dict(forfeits or {})
        self.decision = 0
        self.legal: list = []
        self.player = -1
        for seat, forfeit in self.forfeits.items():
            if forfeit.decision == 0:
                self.seats.fault(seat, 0, forfeit.kind, forfeit.message)
                self.seats.forfeited[seat] = True

    def info(self, seat: int) -> GameInfo:
        game = self.state.game
        return GameInfo(
            game.name, seat, game.players, game.variant, dict(game.params), self.move_time
        )

    def advance(self) -> int | None:
        state = self.state
        forfeited = self.seats.forfeited
        forfeits = self.forfeits
        while True:
            player = state.current_player()
            if player < 0:
                self.player = -1
                return None
            self.decision += 1
            self.legal = state.legal_actions()
            if forfeits:  # (rarely any: the look-up is skipped)
                forfeit = forfeits.get(player)
                if forfeit is not None and forfeit.decision == self.decision:
                    self.seats.fault(player, self.decision, forfeit.kind, forfeit.message)
                    forfeited[player] = True
            if not forfeited[player]:
                self.player = player
                return player
            self._apply(self.fallback.choose(len(self.legal)), 0.0)

    def observation(self):
        return self.state.observation(self.player)

    def resolve(self, index: int, elapsed: float) -> None:
        """The bot chose ``legal[index]`` in ``elapsed`` seconds (checked here once more)."""
        if not (isinstance(index, int) and 0 <= index < len(self.legal)):
            self.fault("illegal", f"answer {index!r} is not a legal action")
        elif elapsed > self.move_time:
            self.fault("timeout", f"answered after {elapsed:.3f} s (limit {self.move_time:g} s)")
        else:
            self._apply(index, elapsed)

    def fault(self, kind: str, message: str, elapsed: float = 0.0) -> None:
        self.seats.fault(self.player, self.decision, kind, message)
        self._apply(self.fallback.choose(len(self.legal)), elapsed)

    def fallback_move(self) -> None:
        """Play the pending decision of a forfeited seat."""
        self._apply(self.fallback.choose(len(self.legal)), 0.0)

    def fault_at_start(self, seat: int, kind: str, message: str, forfeit: bool) -> None:
        self.seats.fault(seat, 0, kind, message)
        if forfeit:
            self.seats.forfeited[seat] = True

    def fault_at_end(self, seat: int, kind: str, message: str) -> None:
        self.seats.faults[seat] += 1
        self.seats.log.append(Fault(seat, -1, kind, f"in end(): {message}"))

    def _apply(self, index: int, elapsed: float) -> None:
        if self.times is not None:
            self.times.append(elapsed)
            self.indices.append(index)
        self.state.apply_legal(index)

    def is_forfeited(self, seat: int) -> bool:
        return self.seats.forfeited[seat]

    def result(self) -> GameResult:
        return self.state.result()

    def outcome(self) -> GameOutcome:
        return _outcome(
            self.state,
            self.names,
            self.seed,
            self.seats,
            self.decision,
            time.perf_counter() - self.began,
            self.indices,
            self.times,
        )
