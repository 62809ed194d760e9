"""What starting one bot process costs (``--isolation process``), with bubblewrap and without.

A bot process is started whenever a worker begins a game's schedule and whenever one is replaced
after a fault; each start is timed from ``Popen`` to the bot's "ready" (its file imported), the
median of ``repeats`` starts, bubblewrap's and the bare ones taken in turn so that both meet the
same load.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from arena.execution.context import PlayContext
from arena.execution.process import bubblewrap
from arena.execution.process.bot_process import BotProcess
from arena.execution.process.bubblewrap import SandboxSettings
from arena.plugins.loading import load_registry

BOT = """
import arena


class Idle(arena.Bot):
    name = "idle"

    def act(self, observation):
        return observation.legal_actions[0]


@arena.hookimpl
def arena_register_bots(register):
    register(Idle)
"""


def start_seconds(context: PlayContext) -> float:
    """Seconds from starting one bot process to its being ready."""
    began = time.perf_counter()
    process = BotProcess(context, "idle", [])
    process.wait_ready()
    seconds = time.perf_counter() - began
    process.kill()
    return seconds


def bot_start_line(repeats: int = 15) -> str:
    """One line: the median start of a bot process, with bubblewrap (if it works) and without."""
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "idle.py").write_text(BOT, encoding="utf-8")
        registry = load_registry(bots_dir=Path(folder), entry_points=False)
        modes = ["bwrap", "none"] if bubblewrap.active(SandboxSettings()) else ["none"]
        contexts = {m: PlayContext(registry, {}, sandbox=SandboxSettings(m)) for m in modes}
        times: dict[str, list[float]] = {m: [] for m in modes}
        for _ in range(repeats):
            for mode in modes:
                times[mode].append(start_seconds(contexts[mode]))
    medians = {m: statistics.median(t) * 1000 for m, t in times.items()}
    line = f"bot process start (to ready), median of {repeats}: {medians['none']:.0f} ms bare"
    if "bwrap" in medians:
        extra = medians["bwrap"] - medians["none"]
        line += f", {medians['bwrap']:.0f} ms under bubblewrap (+{extra:.0f} ms)"
    return line
