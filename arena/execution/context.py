"""What a backend is given: the games to play (``ScheduledGame``), and ``PlayContext``, everything
it needs to play them, fixed for the run. A schedule (``tournament.schedule``) is handed to a
backend as rounds, lists of ``ScheduledGame``; the backends know nothing of how it was drawn up."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from arena.execution.process.bubblewrap import SandboxSettings
from arena.execution.process.program_bot import ProgramLimits, ProgramPools
from arena.games.base import Game
from arena.plugins.loading import Registry
from arena.plugins.manifests import is_program
from arena.referee.inline import play_game
from arena.referee.interrupt import Interrupt
from arena.referee.outcome import GameOutcome, SeatForfeit


@dataclass(frozen=True, slots=True)
class ScheduledGame:
    """One game of a run's schedule: which game, which deal, which bot in each seat."""

    index: int  # position in this run's schedule for this game: results are rated in this order
    game: str
    seed: str
    seats: tuple[str, ...]
    board: int  # games with the same board share the seed (duplicate format)

    def __reduce__(self):
        # Sent to the workers by the thousand: a dataclass's own pickling calls fields() each time.
        return ScheduledGame, (self.index, self.game, self.seed, self.seats, self.board)


@dataclass(frozen=True)
class PlayContext:
    """The registry of loaded bots, the game objects by name, and the referee's settings.

    ``interrupt`` is the run's Ctrl-C flag: set by the run's SIGINT handler, read by the referee
    when bot code is interrupted in this process (worker processes ignore SIGINT).
    """

    registry: Registry
    games: Mapping[str, Game]
    move_time: float = 1.0
    time_bank: float | None = None  # seconds of each seat's bank for a game (--time-bank)
    max_faults: int = 3
    records: bool = False
    bot_memory: int = 0  # bytes of address space for a bot's own process; 0: no limit
    bot_cpu: int | None = None  # CPU seconds for a bot's own process
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)  # around a bot's process
    interrupt: Interrupt = field(default_factory=Interrupt)
    # The processes of the program bots (manifests) played in this process, made on first use.
    programs: ProgramPools | None = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        limits = ProgramLimits(self.move_time, self.bot_memory, self.bot_cpu, self.sandbox)
        object.__setattr__(self, "programs", ProgramPools(limits))

    def factory(self, name: str):
        """What makes the bot ``name`` for one seat: its class, or its program's player."""
        spec = self.registry.bots[name]
        if is_program(spec):
            return self.programs.factory(spec.name, spec.cls.manifest)
        return spec.create

    def play(
        self, item: ScheduledGame, forfeits: dict[int, SeatForfeit] | None = None, tracker=None
    ) -> GameOutcome:
        """Play one scheduled game in this process, its bots made from the registry."""
        return play_game(
            self.games[item.game],
            [self.factory(name) for name in item.seats],
            item.seats,
            item.seed,
            move_time=self.move_time,
            max_faults=self.max_faults,
            keep_record=self.records,
            forfeits=forfeits,
            tracker=tracker,
            interrupt=self.interrupt,
            time_bank=self.time_bank,
        )
