"""``play_game``: one game refereed in this process, bots asked directly, on the referee's clock.

The hottest code of arena (a few hundred thousand decisions a second): the loop keeps what it
needs in local variables and leaves every rule — forfeits due, fallbacks, faults, the record — to
the ``Table``, which the other modes drive too.
"""

from __future__ import annotations

from typing import Any

from arena.bot import seat_seed
from arena.games.base import Game
from arena.referee.clock import timed_act, timed_call
from arena.referee.faults import describe
from arena.referee.interrupt import Interrupt
from arena.referee.outcome import GameOutcome, SeatForfeit
from arena.referee.table import Table
from arena.referee.watchdog import Watchdog, get_watchdog


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
    interrupt: Interrupt | None = None,
) -> GameOutcome:
    """Play one game. ``bots`` holds one zero-argument factory per seat (often ``BotSpec.create``).

    ``seat_move_time`` overrides ``move_time`` for some seats (``arena play``: a person has no
    time limit, ``{seat: math.inf}``). ``interrupt``: the run's Ctrl-C flag; a KeyboardInterrupt
    in bot code is then passed on as ``UserInterrupt`` instead of being the bot's fault.

    ``tracker``, when given, is told ``enter(seat, decision)`` before and ``leave()`` after every
    call into bot code, so that a process watching this one knows who was playing if it dies.
    """
    n = game.players
    if len(bots) != n:
        raise ValueError(f"{game.name} needs {n} bots, got {len(bots)}")
    watchdog = get_watchdog(move_time)
    table = Table(game, names, seed, move_time, max_faults, keep_record, forfeits)
    limits = [move_time] * n
    for seat, limit in (seat_move_time or {}).items():
        limits[seat] = limit
    players: list[Any] = [None] * n
    acts: list[Any] = [None] * n
    for seat, factory in enumerate(bots):
        if table.forfeits_at_start(seat):
            continue
        if tracker is not None:
            tracker.enter(seat, 0)
        bot, act = _seat_up(table, seat, factory, limits[seat], watchdog, interrupt)
        players[seat] = bot
        acts[seat] = act
        if tracker is not None:
            tracker.leave()
    _play(table, acts, limits, watchdog, tracker, interrupt)
    result = table.result()
    for seat, bot in enumerate(players):
        # Looked up on the class: arena.Bot.__getattr__ makes a miss on the object costly.
        if bot is None or getattr(type(bot), "end", None) is None or not table.ends(seat):
            continue
        if tracker is not None:
            tracker.enter(seat, -1)
        kind, message, _ = timed_call(watchdog, limits[seat], bot.end, result, interrupt)
        if tracker is not None:
            tracker.leave()
        if kind is not None:
            table.fault_at_end(seat, kind, message)
    return table.outcome(result)


def _seat_up(table: Table, seat, factory, limit, watchdog, interrupt) -> tuple[Any, Any]:
    """Create the bot of one seat and call its start() -> (the bot, its act), or (None, None) if
    it forfeits."""
    kind, bot, _ = timed_call(watchdog, limit, factory, None, interrupt)
    if kind is not None:
        table.fault_at_start(seat, kind, f"could not be created: {bot}", forfeit=True)
        return None, None
    try:
        bot._arena_seed = seat_seed(table.seed, seat)  # bot.rng is seeded from it (arena.Bot)
        act = bot.act
    except BaseException as exc:
        if interrupt is not None:
            interrupt.pass_on(exc)
        table.fault_at_start(seat, "exception", describe(exc), forfeit=True)
        return None, None
    if getattr(type(bot), "start", None) is not None:
        kind, message, _ = timed_call(watchdog, limit, bot.start, table.info(seat), interrupt)
        if kind is not None:
            table.fault_at_start(seat, kind, f"in start(): {message}", forfeit=False)
    return bot, act


def _play(table: Table, acts, limits, watchdog: Watchdog, tracker, interrupt) -> None:
    """The decisions of the game, from the first to the last."""
    state = table.state
    forfeited = table.forfeited
    times = table.times
    indices = table.indices
    current_player = state.current_player
    legal_actions = state.legal_actions
    observe = state.observation
    apply_legal = state.apply_legal
    next_due = table.next_due
    decision = 0
    while (player := current_player()) >= 0:
        decision += 1
        legal = legal_actions()
        if decision == next_due or forfeited[player]:
            table.decision = decision
            table.legal = legal
            if decision == next_due:
                table.impose_due()
                next_due = table.next_due
            if forfeited[player]:
                table.fallback_move()
                continue
        observation = observe(player)
        if tracker is not None:
            tracker.enter(player, decision)
        kind, index, elapsed = timed_act(
            watchdog, limits[player], acts[player], observation, legal, interrupt
        )
        if tracker is not None:
            tracker.leave()
            # Watched closely: whatever a bot did to the alarm is undone before the next one.
            watchdog.restore()
        if kind is not None:
            watchdog.restore()
            table.player = player
            table.decision = decision
            table.legal = legal
            table.fault(kind, index, elapsed)
            continue
        if times is not None:
            times.append(elapsed)
            indices.append(index)
        apply_legal(index)
    table.decision = decision
