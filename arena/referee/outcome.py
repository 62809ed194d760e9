"""What the referee tells and is told: a game's outcome, a bot's game info, a forfeit to impose."""

from __future__ import annotations

from dataclasses import dataclass, field

from arena.referee.faults import Fault


@dataclass(frozen=True, slots=True)
class GameInfo:
    """What ``Bot.start(info)`` receives. ``time_bank``: each seat's bank of seconds for the
    game, on top of the move time (``--time-bank``), or None."""

    game: str
    seat: int
    players: int
    variant: str | None
    params: dict
    move_time: float
    time_bank: float | None = None

    def to_json(self) -> dict:
        info = {
            "game": self.game,
            "seat": self.seat,
            "players": self.players,
            "variant": self.variant,
            "params": dict(self.params),
            "move_time": self.move_time,
        }
        if self.time_bank is not None:  # (only then: the same JSON as before without a bank)
            info["time_bank"] = self.time_bank
        return info


@dataclass(frozen=True, slots=True)
class SeatForfeit:
    """A seat to forfeit when the game reaches ``decision`` (0: before it is created; -1: at the
    end), with the fault to record: how a game whose bot's process died is played again."""

    decision: int
    kind: str
    message: str


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
            return dict(zip(bots, map(float, self.ranks), strict=True))
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
