"""Progress of a run: a live bar on a terminal, a plain line every few seconds otherwise."""

from __future__ import annotations

import sys
import time


class Progress:
    def __init__(self, enabled: bool = True, stream=None, every: float = 5.0):
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.live = enabled and self.stream.isatty()
        self.every = every
        self._bar = None
        self._tasks: dict[str, int] = {}
        self._started: dict[str, tuple[float, int]] = {}
        self._last_line = 0.0

    def __enter__(self) -> Progress:
        if self.live:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TextColumn,
                TimeRemainingColumn,
            )
            from rich.progress import Progress as RichProgress

            self._bar = RichProgress(
                TextColumn("{task.description:<20}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]:>9} games/s"),
                TimeRemainingColumn(),
                console=Console(file=self.stream),
                transient=False,
            )
            self._bar.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.__exit__(*exc)
            self._bar = None

    def update(self, game: str, done: int, total: int, note: str = "") -> None:
        """``note``: shown after the game's name (a match's LLR and its bounds)."""
        if not self.enabled:
            return
        now = time.perf_counter()
        if game not in self._started:
            self._started[game] = (now, done)
        t0, d0 = self._started[game]
        rate = (done - d0) / (now - t0) if now > t0 else 0.0
        if self._bar is not None:
            if game not in self._tasks:
                self._tasks[game] = self._bar.add_task(game, total=total, completed=done, rate="")
            description = f"{game} {note}" if note else game
            self._bar.update(
                self._tasks[game], completed=done, rate=f"{rate:,.0f}", description=description
            )
            return
        if done < total and now - self._last_line < self.every:
            return
        self._last_line = now
        left = (total - done) / rate if rate > 0 else 0.0
        print(
            f"{game}: {done}/{total} games, {rate:,.0f} games/s, {left:,.0f} s left"
            + (f", {note}" if note else ""),
            file=self.stream,
            flush=True,
        )
