"""A bot file for an equal-CPU ladder of td-search before and after a change: ``td-old`` is the
search bot and the engine of another checkout of arena (its ``determinize`` included), ``td-new``
this checkout's, both on the same CPU time a decision and an iteration budget that never binds.

    ARENA_OLD_CHECKOUT=/path/to/old/checkout arena match td-new td-old -g twenty-down -n 200 \\
        --bots-dir benchmarks/td_ladder --db /tmp/ladder.db -j 2 --move-time 5

``ARENA_LADDER_CPU``: CPU seconds a decision (default 0.003).
"""

import importlib.util
import os
import sys

import arena
from arena.plugins.baseline.td_search import TwentyDownSearch

OLD = os.environ.get("ARENA_OLD_CHECKOUT")
CPU = float(os.environ.get("ARENA_LADDER_CPU", "0.003"))


def _load(name, path):
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


class New(TwentyDownSearch):
    name = "td-new"


@arena.hookimpl
def arena_register_bots(register):
    register(New, name="td-new", iterations=100_000, time_budget=CPU)
    if not OLD:
        raise RuntimeError("set ARENA_OLD_CHECKOUT to the arena checkout td-old comes from")
    rules = _load("td_old_rules", f"{OLD}/arena/games/twenty_down/rules.py")
    search = _load("td_old_search", f"{OLD}/arena/plugins/baseline/td_search.py")
    search.TwentyDown = rules.TwentyDown  # the old bot samples with the old engine

    class Old(search.TwentyDownSearch):
        name = "td-old"

    register(Old, name="td-old", iterations=100_000, time_budget=CPU)
