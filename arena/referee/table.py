"""The referee: the rules of one game between bots, and nothing a bot does can stop it.

It asks the seat to move with that seat's observation only, checks the answer against the legal
actions the engine computed, and times every decision. A *fault* — an exception of any kind, an
answer that is not a legal action, an answer past the time limit — is recorded against the bot and
the referee plays a fallback action for it: a uniformly random legal action from the referee's own
generator (seeded from the game seed, so the game stays reproducible). After ``max_faults`` faults
in one game the bot forfeits: it is asked nothing more, its seat is played by the fallback, and it
is ranked last whatever its score. The referee knows nothing about any game's rules.

``Table`` holds these rules for every mode, and the one loop of a game's decisions
(``Table.turns``). It is driven from outside: ``play_game`` (``referee.inline``) asks bots in this
process, one decision after another; a game worker of ``--isolation process`` steps many tables
at once and sends the decisions to the bots' processes in batches
(``execution.process.isolated_play``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from arena.games.base import Game, GameResult
from arena.games.record import pack
from arena.referee.clock import time_banks
from arena.referee.faults import Fallback, FaultBook, late, not_legal, past_bank
from arena.referee.outcome import GameInfo, GameOutcome, SeatForfeit, ranks_with_forfeits


class Table:
    """One game under the referee, one decision at a time.

    ``advance()`` (or iterating ``turns``) plays forfeited seats and returns the seat whose bot
    must decide (or ``None`` at the end); ``apply(index, elapsed)`` (an answer the caller checked),
    ``resolve(index, elapsed)`` (an answer to check) or ``fault(kind, message)`` settles it.
    ``forfeits`` impose forfeits found when the game was played before (a bot's process died at a
    decision). ``time_bank``: each seat's bank of seconds for the game (``banks``; None: none),
    drawn on by ``resolve`` and ``fault`` (a caller that checked an answer itself and calls
    ``apply`` charges the bank first: ``banks.charge``).
    """

    # Slots: the in-process loop reads and writes some of these at every decision.
    __slots__ = (
        "began", "names", "seed", "move_time", "state", "book", "forfeited", "fallback", "times",
        "indices", "forfeits", "decision", "legal", "player", "due", "next_due", "turns",
        "banks",
    )  # fmt: skip

    def __init__(
        self,
        game: Game,
        names: tuple[str, ...],
        seed: str,
        move_time: float = 1.0,
        max_faults: int = 3,
        keep_record: bool = False,
        forfeits: dict[int, SeatForfeit] | None = None,
        time_bank: float | None = None,
    ):
        self.began = time.perf_counter()
        self.names = tuple(names)
        self.seed = seed
        self.move_time = move_time
        self.state = game.new_state(seed)
        self.book = FaultBook(game.players, max_faults)
        self.forfeited = self.book.forfeited  # by seat, changed in place
        self.fallback = Fallback(f"{seed}/referee")
        self.times: list[float] | None = [] if keep_record else None
        self.indices: list[int] = []
        self.forfeits = dict(forfeits or {})
        self.decision = 0
        self.legal: list = []
        self.player = -1
        # Forfeits during play, by decision number: one int comparison per decision finds them.
        self.due = {f.decision: seat for seat, f in self.forfeits.items() if f.decision > 0}
        self.next_due = min(self.due, default=-2)
        self.turns = self._turns()
        self.banks = time_banks(game.players, move_time, time_bank)

    # --- the start ---------------------------------------------------------------------------
    def forfeits_at_start(self, seat: int) -> bool:
        """Whether the seat forfeits before its bot is made (recorded here)."""
        forfeit = self.forfeits.get(seat)
        if forfeit is None or forfeit.decision != 0:
            return False
        self.book.forfeit(seat, 0, forfeit.kind, forfeit.message)
        return True

    def info(self, seat: int) -> GameInfo:
        game = self.state.game
        banks = self.banks
        return GameInfo(
            game.name, seat, game.players, game.variant, dict(game.params), self.move_time,
            None if banks is None else banks.seconds,
        )  # fmt: skip

    def fault_at_start(self, seat: int, kind: str, message: str, forfeit: bool) -> None:
        """A fault in making the bot (``forfeit``: it does not exist) or in its ``start()``."""
        if forfeit:
            self.book.forfeit(seat, 0, kind, message)
        else:
            self.book.fault(seat, 0, kind, message)

    # --- play --------------------------------------------------------------------------------
    def advance(self) -> int | None:
        """Move on to the next decision a bot must make -> its seat (``legal`` holds the legal
        actions), or None at the end of the game (see ``turns``)."""
        return next(self.turns, None)

    def _turns(self) -> Iterator[int]:
        """The seat of each decision a bot must make, the game's loop: forfeits due are imposed on
        the way, and the decisions of forfeited seats played by the fallback. (A generator: the
        in-process referee resumes it a few hundred thousand times a second, cheaper than a call.)
        """
        state = self.state
        current_player = state.current_player
        legal_actions = state.legal_actions
        forfeited = self.forfeited
        decision = 0
        while (player := current_player()) >= 0:
            self.decision = decision = decision + 1
            self.legal = legal_actions()
            if decision == self.next_due:
                self.impose_due()
            if forfeited[player]:
                self.fallback_move()
                continue
            self.player = player
            yield player
        self.player = -1

    def impose_due(self) -> None:
        """Forfeit the seat whose forfeit is due at this decision."""
        seat = self.due.pop(self.decision)
        self.next_due = min(self.due, default=-2)
        forfeit = self.forfeits[seat]
        self.book.forfeit(seat, self.decision, forfeit.kind, forfeit.message)

    def observation(self):
        return self.state.observation(self.player)

    def resolve(self, index: int, elapsed: float) -> None:
        """The bot chose ``legal[index]`` in ``elapsed`` seconds (checked here once more)."""
        banks = self.banks
        legal = isinstance(index, int) and 0 <= index < len(self.legal)
        if banks is not None:  # (a fault draws on the bank too: ``fault``)
            if not legal:
                self.fault("illegal", not_legal(index), elapsed)
            elif elapsed > banks.limit(self.player):
                self.fault(
                    "timeout", past_bank(elapsed, self.move_time, banks.left(self.player)), elapsed
                )
            else:
                banks.charge(self.player, elapsed)
                self.apply(index, elapsed)
        elif not legal:
            self.fault("illegal", not_legal(index))
        elif elapsed > self.move_time:
            self.fault("timeout", late(elapsed, self.move_time))
        else:
            self.apply(index, elapsed)

    def bank_left(self, seat: int) -> float | None:
        """Seconds left in the seat's time bank (None: the game has no bank): what it may take
        past the move time in its next decision."""
        return None if self.banks is None else self.banks.left(seat)

    def fault(self, kind: str, message: str, elapsed: float = 0.0) -> None:
        """The pending decision's bot faulted: record it, play the fallback for it. The time it
        took past the move time is drawn from its bank all the same (a ``timeout`` empties it)."""
        banks = self.banks
        if banks is not None:
            seat = self.player
            if kind == "timeout" and elapsed >= banks.limit(seat):
                message = past_bank(elapsed, self.move_time, banks.left(seat))
            banks.charge(seat, elapsed)
        self.book.fault(self.player, self.decision, kind, message)
        self.apply(self.fallback.choose(len(self.legal)), elapsed)

    def forfeit_now(self, seat: int, kind: str, message: str, decision: int | None = None) -> None:
        """The seat forfeits at the decision the game has reached (its bot is gone); a decision
        pending for it is then the caller's to play (``fallback_move``)."""
        if not self.forfeited[seat]:
            self.book.forfeit(seat, self.decision if decision is None else decision, kind, message)

    def fallback_move(self) -> None:
        """Play the pending decision of a forfeited seat."""
        self.apply(self.fallback.choose(len(self.legal)), 0.0)

    def apply(self, index: int, elapsed: float) -> None:
        if self.times is not None:
            self.times.append(elapsed)
            self.indices.append(index)
        self.state.apply_legal(index)

    # --- the end -----------------------------------------------------------------------------
    def ends(self, seat: int) -> bool:
        """Whether the seat's ``end()`` is to be called: not if it forfeited, nor if its end
        is known to have killed its process (that fault is recorded here instead)."""
        if self.forfeited[seat]:
            return False
        forfeit = self.forfeits.get(seat)
        if forfeit is not None and forfeit.decision == -1:
            self.fault_at_end(seat, forfeit.kind, forfeit.message)
            return False
        return True

    def fault_at_end(self, seat: int, kind: str, message: str) -> None:
        self.book.fault_at_end(seat, kind, message)

    def result(self) -> GameResult:
        return self.state.result()

    def outcome(self, result: GameResult | None = None) -> GameOutcome:
        if result is None:
            result = self.state.result()
        book = self.book
        record = None
        if self.times is not None:
            faults = [f.to_json() for f in book.log]
            bank = None if self.banks is None else self.banks.to_json()
            record = pack(self.state, self.names, faults, self.indices, self.times, bank)
        return GameOutcome(
            game=self.state.game.name,
            seed=self.seed,
            bots=self.names,
            scores=tuple(result.scores),
            ranks=ranks_with_forfeits(result.ranks, book.forfeited),
            engine_ranks=tuple(result.ranks),
            faults=tuple(book.faults),
            forfeits=tuple(book.forfeited),
            fault_log=book.log,
            decisions=self.decision,
            seconds=time.perf_counter() - self.began,
            record=record,
            better=result.better,
        )
