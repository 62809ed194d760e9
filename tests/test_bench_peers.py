"""``arena bench --peers``: arena's engines beside OpenSpiel's card games, in one table.

Needs OpenSpiel (``arena[rl]``, pulled in by ``.[test]``): skipped without it, FAILS when ``CI``
is set."""

from __future__ import annotations

import importlib
import os
import sys

import pytest

from arena.bench.peers import MISSING, arena_playout, openspiel_playout, peers_table
from arena.games import TwentyDown


def need_pyspiel():
    try:
        return importlib.import_module("pyspiel")
    except ImportError:
        if os.environ.get("CI"):
            raise
        pytest.skip("pyspiel is not installed (pip install -e '.[rl]')")


def test_peers_prints_the_table_of_all_five_engines_with_ratios_to_euchre(cli):
    need_pyspiel()
    result = cli("bench", "--peers", "--games", 1, "--repeats", 1)
    assert result.exit_code == 0, result.output
    rows = [line for line in result.stdout.splitlines() if line.startswith("| ")][1:]
    engines = [row.split("|")[1].strip() for row in rows]
    assert engines == [
        "OpenSpiel euchre (C++, via Python)",
        "OpenSpiel hearts",
        "OpenSpiel oh_hell",
        "arena Twenty Down",
        "arena How Low Can You Go?",
    ]
    cells = [[cell.strip() for cell in row.split("|")[2:4]] for row in rows]
    assert cells[0][1] == "1.00×"
    for rate, ratio in cells:
        assert int(rate.replace(",", "")) > 0
        assert float(ratio.rstrip("×")) > 0


def test_a_peer_playout_counts_player_decisions_of_whole_games_not_chance_nodes():
    pyspiel = need_pyspiel()
    game = pyspiel.load_game("hearts")
    # One whole game: 52 cards played (and 12 passed, unless the deal is not passed), none of
    # the 53 chance nodes of the deal and the passing direction.
    made, seconds = openspiel_playout(game, 1, seed=3)
    assert seconds > 0
    assert made in (52, 64)
    made, _ = openspiel_playout(game, made + 1, seed=3)
    assert made in (104, 116, 128)  # a second whole game when the first falls short


def test_arena_playout_plays_whole_games_until_the_budget():
    made, _ = arena_playout(TwentyDown(), 1, seed=1)
    assert made > 20  # one whole game: more than one deal's five tricks of four cards


def test_the_ratio_is_to_the_first_row():
    table = peers_table([("euchre", 200_000.0), ("arena Twenty Down", 500_000.0)])
    assert "| euchre" in table and "200,000" in table and "1.00×" in table
    assert "500,000" in table and "2.50×" in table


def test_without_openspiel_one_line_names_the_extra(cli, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # import pyspiel raises ImportError
    result = cli("bench", "--peers", "--games", 1, "--repeats", 1)
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == MISSING
    assert "pip install 'arena[rl]'" in MISSING
