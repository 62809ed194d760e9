"""The bot process of a program bot (``--isolation process``): a relay run by arena, not by the bot.

A game worker starts it as it starts a Python bot's host (``execution.process.bot_process``) and
sends it the same batches of commands; it answers them as ``bot_host.Host`` does, each bot object
being a ``ProgramPlayer`` that speaks JSON lines with the program (``program_bot``). It imports no
bot code, so it is not sandboxed itself: the programs it starts are, each under the limits of a bot
process (memory, CPU time, bubblewrap, the signal filter), and it kills them when they breach the
protocol or its time. They end with it.
"""

from __future__ import annotations

import json
import os
import sys
from array import array

from arena.execution.child_process import die_with_parent
from arena.execution.process.bot_host import CONFIG_ENV, Host
from arena.execution.process.bubblewrap import SandboxSettings
from arena.execution.process.program_bot import ProgramLimits, ProgramPool
from arena.execution.process.wire import FAULT, MAX_DESCRIPTION, encode_answers
from arena.referee.faults import describe


class _Programs:
    """What ``Host`` calls a bot spec: ``create`` makes a seat's player."""

    def __init__(self, pool: ProgramPool):
        self.create = pool.factory


class ProgramHost(Host):
    def __init__(self, config: dict):
        super().__init__(config)
        mode, hidden = config["sandbox"]
        limits = ProgramLimits(
            float(config["move_time"]),
            int(config.get("memory", 0)),
            config.get("cpu"),
            SandboxSettings(mode, tuple(hidden)),
        )
        self.pool = ProgramPool(self.spec.cls.manifest, limits)
        self.spec = _Programs(self.pool)


def main() -> None:
    config = json.loads(os.environ.pop(CONFIG_ENV))
    die_with_parent()
    command_fd = int(config["command_fd"])
    os.dup2(2, 1)  # (nothing here prints; the programs' output is their pipes')
    sys.stdout = sys.stderr
    try:
        host = ProgramHost(config)
    except BaseException as exc:
        data = encode_answers(
            array("i", [FAULT]), array("d", [0.0]), [[0, "broken", describe(exc)[:MAX_DESCRIPTION]]]
        )
        os.write(int(config["reply_fd"]), data)
        return
    host.reply("ready", None, 0.0)
    host.flush()
    try:
        host.serve(command_fd)
    finally:
        host.pool.close()


if __name__ == "__main__":
    main()
