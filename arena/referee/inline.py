"""``play_game``: one game refereed in this process, bots asked directly, on the referee's clock.

The hottest code of arena (a few hundred thousand decisions a second): the loop keeps what it
needs in local variables and leaves every rule — the next decision, forfeits due, fallbacks,
faults, the record — to the ``Table``, which the other modes drive too.
"""

from __future__ import annotations

from typing import Any

from arena.bot import seat_seed
from arena.games.base import Game
from arena.referee.clock import timed_act, timed_call
from arena.referee.interrupt import Interrupt
from arena.referee.outcome import GameOutcome, SeatForfeit
from arena.referee.seating import seat_up
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
    time_bank: float | None = None,
) -> GameOutcome:
    """Play one game. ``bots`` holds one zero-argument factory per seat (often ``BotSpec.create``).

    ``seat_move_time`` overrides ``move_time`` for some seats (``arena play``: a person has no
    time limit, ``{seat: math.inf}``). ``interrupt``: the run's Ctrl-C flag; a KeyboardInterrupt
    in bot code is then passed on as ``UserInterrupt`` instead of being the bot's fault.
    ``time_bank``: each seat's bank of seconds for the game, on top of its move time.

    ``tracker``, when given, is told ``enter(seat, decision)`` before and ``leave()`` after every
    call into bot code, so that a process watching this one knows who was playing if it dies.
    """
    n = game.players
    if len(bots) != n:
        raise ValueError(f"{game.name} needs {n} bots, got {len(bots)}")
    watchdog = get_watchdog(move_time)
    table = Table(game, names, seed, move_time, max_faults, keep_record, forfeits, time_bank)
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
        seating = seat_up(
            watchdog, limits[seat], factory, seat_seed(seed, seat), table.info(seat), interrupt
        )
        if tracker is not None:
            tracker.leave()
        if seating.kind is not None:
            table.fault_at_start(seat, seating.kind, seating.message, forfeit=seating.bot is None)
        players[seat] = seating.bot
        acts[seat] = seating.act
    if table.banks is None:
        _play(table, acts, limits, watchdog, tracker, interrupt)
    else:
        _play_banked(table, acts, limits, watchdog, tracker, interrupt)
    result = table.result()
    for seat, bot in enumerate(players):
        # Looked up on the class: arena.Bot.__getattr__ makes a miss on the object costly.
        if bot is None or not table.ends(seat) or getattr(type(bot), "end", None) is None:
            continue
        if tracker is not None:
            tracker.enter(seat, -1)
        kind, message, _ = timed_call(watchdog, limits[seat], bot.end, result, interrupt=interrupt)
        if tracker is not None:
            tracker.leave()
        if kind is not None:
            table.fault_at_end(seat, kind, message)
    return table.outcome(result)


def _play(table: Table, acts, limits, watchdog: Watchdog, tracker, interrupt) -> None:
    """The decisions of the game, from the first to the last, each asked of its bot here."""
    observe = table.state.observation
    apply = table.apply
    for player in table.turns:
        observation = observe(player)
        if tracker is not None:
            tracker.enter(player, table.decision)
        kind, index, elapsed = timed_act(
            watchdog, limits[player], acts[player], observation, table.legal, interrupt
        )
        if tracker is not None:
            tracker.leave()
            # Watched closely: whatever a bot did to the alarm is undone before the next one.
            watchdog.restore()
        if kind is None:
            apply(index, elapsed)
        else:
            watchdog.restore()
            table.fault(kind, index, elapsed)


def _play_banked(table: Table, acts, limits, watchdog: Watchdog, tracker, interrupt) -> None:
    """``_play`` with time banks: each decision's limit is its move time plus its seat's bank,
    and what it took past the move time is drawn from the bank. (Apart, to leave ``_play`` as
    lean as it is.)"""
    banks = table.banks
    for player in table.turns:
        observation = table.observation()
        if tracker is not None:
            tracker.enter(player, table.decision)
        limit = banks.limit(player, limits[player])
        kind, index, elapsed = timed_act(
            watchdog, limit, acts[player], observation, table.legal, interrupt
        )
        if tracker is not None:
            tracker.leave()
            watchdog.restore()
        if kind is None:
            banks.charge(player, elapsed)
            table.apply(index, elapsed)
        else:
            watchdog.restore()
            table.fault(kind, index, elapsed)
