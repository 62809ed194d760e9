"""The research environments (arena.envs, the extra ``arena[rl]``): PettingZoo's own api_test and
seed_test, OpenSpiel's own random-simulation checks, for both games at several table sizes and
variants; the encodings; no hidden card in a seat's tensor; resampling an information state;
OpenSpiel's ISMCTS as an arena bot.

Without the extra these tests are skipped, except under ``CI``, where they fail."""

from __future__ import annotations

import functools
import importlib
import os
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games import HowLowCanYouGo, TwentyDown
from arena.games.encoding import EXCHANGE_MASKS
from arena.plugins.loading import load_registry


def need(module: str):
    try:
        return importlib.import_module(module)
    except ImportError:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"{module} is not installed (pip install -e '.[rl]')")


# The tables and variants checked with the libraries' own tests (short games where it matters).
PZ_CASES = [
    ("twenty-down", {}),
    ("twenty-down", {"variant": "brostedt"}),
    ("how-low-can-you-go", {"players": 2}),
    ("how-low-can-you-go", {}),
    ("how-low-can-you-go", {"players": 7, "variant": "whalen"}),
    ("how-low-can-you-go", {"players": 10}),
]
OS_CASES = [
    ("python_arena_twenty_down", {"start_points": 6}),
    ("python_arena_twenty_down", {"variant": "brostedt", "start_points": 5}),
    ("python_arena_how_low", {"players": 2, "max_deals": 3}),
    ("python_arena_how_low", {"max_deals": 3}),
    ("python_arena_how_low", {"players": 6, "variant": "whalen", "max_deals": 2}),
]
GAMES = [
    TwentyDown(),
    TwentyDown(variant="brostedt"),
    HowLowCanYouGo(players=3),
    HowLowCanYouGo(players=6, variant="whalen"),
]


def random_state(game, seed: int, moves: int):
    """The game from ``seed`` after up to ``moves`` random legal moves (not finished)."""
    rng = random.Random(seed)
    state = game.new_state(seed)
    for _ in range(moves):
        if state.is_terminal():
            break
        before = state.clone()
        state.apply_legal(rng.randrange(len(state.legal_actions())))
        if state.is_terminal():
            return before
    return state


# --- the encodings --------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES, ids=repr)
def test_every_legal_action_has_its_own_number_and_comes_back_from_it(game):
    encoding = game.encoding()
    for seed in range(15):
        state = random_state(game, seed, 10_000)
        rng = random.Random(seed)
        while not state.is_terminal() and rng.random() < 0.999:
            obs = state.observation(state.current_player())
            numbers = encoding.legal_indices(obs)
            assert len(set(numbers)) == len(numbers) == len(obs.legal_actions)
            assert all(0 <= n < encoding.num_actions for n in numbers)
            assert all(
                encoding.action_of(obs, n) == a
                for n, a in zip(numbers, obs.legal_actions, strict=True)
            )
            vector = encoding.encode(obs)
            assert len(vector) == encoding.observation_size
            state.apply_legal(rng.randrange(len(numbers)))


def test_exchanges_are_numbered_by_hand_position_in_the_engines_order():
    game = TwentyDown()
    state = game.new_state(3)
    while state.legal_actions()[0] != ():
        state.apply_legal(0)
    obs = state.observation(state.current_player())
    for number, discard in enumerate(obs.legal_actions):
        positions = [p for p in range(5) if EXCHANGE_MASKS[number] >> p & 1]
        assert discard == tuple(obs.hand[p] for p in positions)
    assert game.encoding().legal_indices(obs) == [4 + n for n in range(26)]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(GAMES), st.integers(0, 10**6), st.integers(0, 400), st.data())
def test_no_hidden_card_reaches_a_seats_vector(game, seed, moves, data):
    """Two states that differ only in what a seat cannot see (the other hands, the stock or
    talon, the discards) give that seat the very same vector; its own hand changes it."""
    state = random_state(game, seed, moves)
    if state.is_terminal():
        return
    seat = data.draw(st.integers(0, game.players - 1))
    obs = state.observation(seat)
    if not obs.hand:
        return
    encoding = game.encoding()
    other = game.determinize(obs, random.Random(seed))  # every hidden card dealt again
    assert encoding.encode(other.observation(seat)) == encoding.encode(obs)
    swapped = other.clone()  # the vector does read the seat's own cards
    hand = swapped.hands[seat]
    hidden = [c for h in swapped.hands if h is not hand for c in h]
    for name in ("talon", "stock", "pile"):
        hidden += getattr(swapped, name, [])
    replacement = next((c for c in hidden if c not in hand), None)
    if replacement is None:  # nothing is hidden any more (the deal's last trick, its cards played)
        return
    hand[0] = replacement
    assert encoding.encode(swapped.observation(seat)) != encoding.encode(obs)


def test_the_hidden_cards_really_differ_between_the_states_compared():
    game = TwentyDown()
    obs = game.new_state(5).observation(1)
    other = game.determinize(obs, random.Random(1))
    real = game.new_state(5)
    assert [sorted(h) for h in other.hands] != [sorted(h) for h in real.hands]
    assert other.hands[1] == real.hands[1]


# --- PettingZoo -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("game", "params"), PZ_CASES)
def test_pettingzoo_api_test(game, params):
    need("pettingzoo")
    from pettingzoo.test import api_test

    from arena.envs import pettingzoo_env

    api_test(pettingzoo_env(game, **params), num_cycles=60)


@pytest.mark.parametrize(("game", "params"), PZ_CASES[::2])
def test_pettingzoo_seed_test(game, params):
    need("pettingzoo")
    from pettingzoo.test import seed_test

    from arena.envs import pettingzoo_env

    seed_test(lambda: pettingzoo_env(game, **params), num_cycles=60)


def play_env(env, seed: int) -> list:
    rng = random.Random(seed)
    env.reset(seed=seed)
    finals = []
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            finals.append((agent, reward))
            env.step(None)
            continue
        legal = obs["action_mask"].nonzero()[0]
        env.step(int(legal[rng.randrange(len(legal))]))
    return finals


def test_pettingzoo_rewards_are_the_ranks_at_the_end_and_seeds_repeat_games():
    need("pettingzoo")
    from arena.envs import pettingzoo_env

    env = pettingzoo_env("td")
    finals = play_env(env, 7)
    ranks = env.state.result().ranks
    assert dict(finals) == {f"player_{s}": 1 - 2 * (r - 1) / 3 for s, r in enumerate(ranks)}
    first = env.state.record()
    play_env(env, 7)
    assert env.state.record() == first
    play_env(env, 8)
    assert env.state.record()["chance"] != first["chance"]


def test_pettingzoo_steps_after_the_end_are_pettingzoos_dead_steps():
    """The environment's own step for the agents left after the game's end removes them and
    picks the next one as ``AECEnv._was_dead_step`` does, with the same rewards at each step."""
    need("pettingzoo")
    from pettingzoo import AECEnv

    from arena.envs import pettingzoo_env

    def finish(env, seed: int):
        env.reset(seed=seed)
        rng = random.Random(seed)
        while not all(env.terminations.values()):
            legal = env.last()[0]["action_mask"].nonzero()[0]
            env.step(int(legal[rng.randrange(len(legal))]))

    def ending(env, dead_step) -> list:
        seen = []
        while env.agents:
            agent = env.agent_selection
            seen.append((agent, env.last(observe=False), dict(env.rewards), list(env.agents)))
            dead_step(None)
        return seen + [env.agent_selection]

    for game, params in (("hl", {"players": 5, "max_deals": 2}), ("td", {"start_points": 3})):
        ours, theirs = pettingzoo_env(game, **params), pettingzoo_env(game, **params)
        finish(ours, 11)
        finish(theirs, 11)
        expected = ending(theirs, functools.partial(AECEnv._was_dead_step, theirs))
        assert ending(ours, ours.step) == expected
        finish(ours, 12)
        with pytest.raises(ValueError):
            ours.step(0)


def test_pettingzoo_deal_rewards_add_up_to_the_score_changes():
    """With rewards="deal", what each agent collects through ``last()`` is its chip change / 10
    plus the rank return at the end."""
    need("pettingzoo")
    from arena.envs import pettingzoo_env

    env = pettingzoo_env("hl", rewards="deal")
    rng = random.Random(3)
    env.reset(seed=3)
    total = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        total[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        legal = obs["action_mask"].nonzero()[0]
        env.step(int(legal[rng.randrange(len(legal))]))
    result = env.state.result()
    params = HowLowCanYouGo().params
    start = params["starting_chips"] - params["buy_in"]
    assert any(score != start for score in result.scores)
    for seat, agent in enumerate(env.possible_agents):
        rank = 1 - 2 * (result.ranks[seat] - 1) / 3
        assert total[agent] == pytest.approx((result.scores[seat] - start) / 10 + rank)


@settings(max_examples=12, deadline=None)
@given(st.sampled_from(PZ_CASES), st.integers(0, 10**6), st.data())
def test_pettingzoo_observations_are_the_encoding_of_what_the_seat_sees(case, seed, data):
    """The environment's vectors (filled item by item from tables and from what earlier calls
    worked out) are the encoding's vector of the seat's own ``Observation``, so the test above
    that no hidden card reaches it holds for them; the mask marks exactly the legal numbers. For
    the seat to act and for another seat, a whole game long."""
    need("pettingzoo")
    import numpy as np

    from arena.envs import pettingzoo_env

    game, params = case
    env = pettingzoo_env(game, **params)
    rng = random.Random(seed)
    env.reset(seed=seed)
    for agent in env.agent_iter():
        obs, _reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        seat = env.possible_agents.index(agent)
        other = data.draw(st.integers(0, env.game.players - 1))
        for s, got in ((seat, obs), (other, env.observe(env.possible_agents[other]))):
            seen = env.state.observation(s)
            fresh = env.game.encoding()  # nothing remembered from earlier calls
            expected = np.array(fresh.encode(seen), np.float32)
            assert np.array_equal(got["observation"], expected)
            legal = fresh.legal_indices(seen) if s == seat else []
            assert got["action_mask"].nonzero()[0].tolist() == sorted(legal)
        legal = obs["action_mask"].nonzero()[0]
        env.step(int(legal[rng.randrange(len(legal))]))


def test_pettingzoo_refuses_an_illegal_action():
    need("pettingzoo")
    from arena.envs import pettingzoo_env

    env = pettingzoo_env("td")
    env.reset(seed=1)
    obs = env.observe(env.agent_selection)
    illegal = int((obs["action_mask"] == 0).nonzero()[0][0])
    with pytest.raises(ValueError, match="not legal"):
        env.step(illegal)


# --- OpenSpiel ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "params"), OS_CASES)
def test_openspiel_random_simulation_checks(name, params):
    pyspiel = need("pyspiel")
    from arena.envs import register_openspiel_games

    register_openspiel_games()
    game = pyspiel.load_game(name, params)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def dealt_openspiel_state(name: str, params: dict, seed: int, moves: int):
    pyspiel = need("pyspiel")
    import numpy as np

    from arena.envs import register_openspiel_games

    register_openspiel_games()
    game = pyspiel.load_game(name, params)
    state = game.new_initial_state()
    rng = np.random.RandomState(seed)
    while state.is_chance_node() or (moves > 0 and not state.is_terminal()):
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.randint(len(legal))])
            moves -= 1
    return game, state


def test_openspiel_history_replays_to_the_same_game():
    _, state = dealt_openspiel_state("python_arena_twenty_down", {}, 1, 60)
    replayed = state.get_game().new_initial_state()
    for action in state.history():
        replayed.apply_action(action)
    assert str(replayed) == str(state)
    assert replayed.information_state_string(0) == state.information_state_string(0)


@pytest.mark.parametrize(
    ("name", "params"),
    [("python_arena_twenty_down", {}), ("python_arena_how_low", {"players": 5})],
)
def test_resample_from_infostate_keeps_the_information_state_and_changes_hidden_cards(name, params):
    pyspiel = need("pyspiel")
    for seed in range(4):
        _, state = dealt_openspiel_state(name, params, seed, 9)
        if state.is_terminal():
            continue
        player = state.current_player()
        sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
        samples = [state.resample_from_infostate(player, sampler) for _ in range(5)]
        for sample in samples:
            assert sample.information_state_string(player) == state.information_state_string(player)
            assert sample.information_state_tensor(player) == state.information_state_tensor(player)
            assert sample.legal_actions() == state.legal_actions()
        others = {
            str([s._core.engine.hands[p] for p in range(len(s._core.engine.hands)) if p != player])
            for s in samples
        }
        assert len(others) > 1


def test_openspiel_ismcts_is_registered_and_plays_both_games_as_an_arena_bot():
    need("pyspiel")
    from arena.plugins.baseline import openspiel_ismcts as module
    from arena.referee.inline import play_game

    registry = load_registry([], entry_points=False)  # a bundled bot: no folder needed
    assert registry.bot("openspiel-ismcts").plays("twenty-down")
    assert not registry.bot("openspiel-ismcts").cls.by_default  # fielded only when named
    for game in (TwentyDown(start_points=3), HowLowCanYouGo(players=3, max_deals=2)):
        names = tuple(f"ismcts-{seat}" for seat in range(game.players))
        factories = [lambda: module.OpenSpielISMCTS(simulations=8)] * game.players
        outcome = play_game(game, factories, names, seed="t", move_time=10.0)
        assert sum(outcome.faults) == 0, outcome.fault_log
        assert outcome.decisions > 0


def test_openspiel_is_imported_once_a_process_whatever_stops_a_start():
    """The bot imports OpenSpiel in a thread of its own: a start() stopped while it waits (the
    referee's clock) leaves the import running, and the next start() finds it done, run once;
    an import that fails is told to every start()."""
    need("pyspiel")
    import threading
    import time

    from arena.plugins.baseline.openspiel_ismcts import _Loader

    loader = _Loader()
    runs = []
    loader._run = lambda: (time.sleep(0.3), runs.append(1))
    waiter = threading.Thread(target=loader.wait, daemon=True)
    waiter.start()
    waiter.join(0.05)  # this start() gives up early
    loader.wait()
    loader.wait()
    assert runs == [1]

    failing = _Loader()

    def broken():
        failing._error = RuntimeError("no pyspiel here")

    failing._run = broken
    for _ in range(2):
        with pytest.raises(ImportError, match="no pyspiel here"):
            failing.wait()
