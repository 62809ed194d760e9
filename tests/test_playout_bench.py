"""The playout benchmark (``arena bench --playouts``): fixed mid-deal positions, playouts that are
determinize + clone + random play to the end of that deal, a figure for every bundled game."""

from __future__ import annotations

import random

import pytest

from arena.bench.engines import bench_games
from arena.bench.playouts import measure_playouts, positions
from arena.games.base import TERMINAL

GAMES = {cls.name: cls for cls in bench_games()}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_positions_are_fixed_decisions_in_the_middle_of_the_second_deal(name):
    game = GAMES[name]()
    places = positions(game, count=3)
    again = positions(game, count=3)
    assert [p.observation.to_json() for p in places] == [p.observation.to_json() for p in again]
    for place in places:
        obs = place.observation
        assert obs.deal == place.deal == 2
        assert obs.legal_actions, "the seat of the observation is to act"
        assert place.game.params["max_deals"] == 2


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_playout_plays_the_position_to_the_end_of_its_deal(name):
    game = GAMES[name]()
    rng = random.Random(7)
    for place in positions(game, count=2):
        state = place.game.determinize(place.observation, rng).clone()
        assert state.observation(place.observation.seat).hand == place.observation.hand
        decisions = 0
        while state.current_player() != TERMINAL:
            state.apply_legal(rng.randrange(len(state.legal_actions())))
            decisions += 1
        assert decisions >= 1 and state.deal == 2


def test_measure_playouts_reports_playouts_a_second_of_every_game(cli):
    for cls in bench_games():
        row = measure_playouts(cls(), playouts=2, repeats=1)
        assert row["game"] == cls.name and row["positions"] == 8
        assert row["playouts_per_s"] > 0 and row["decisions_per_playout"] >= 1
    result = cli("bench", "--playouts", "--games", "2", "--repeats", "1")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == [cls.name for cls in bench_games()]
    assert all("playouts/s" in line for line in lines)
