"""The C extension ``arena.envs._encode_c`` gives the PettingZoo environment the same observations
as its Python code, at every decision of random games of both games; ``ARENA_PURE_PYTHON_ENVS=1``
switches it off; the arrays it hands out are the caller's.

Without the extra ``arena[rl]`` these tests are skipped, except under ``CI``, where they fail."""

from __future__ import annotations

import copy
import os
import pickle
import random
import subprocess
import sys
from contextlib import contextmanager

import pytest
from conftest import require_c_extension
from hypothesis import given, settings
from hypothesis import strategies as st
from test_envs import PZ_CASES

try:
    import numpy as np
    import pettingzoo  # noqa: F401

    from arena.envs import observations, pettingzoo_env
    from arena.games import HowLowCanYouGo
    from arena.games.how_low.rules import HowLowState
except ImportError:
    if os.environ.get("CI"):
        raise
    pytest.skip("pettingzoo is not installed (pip install -e '.[rl]')", allow_module_level=True)

C_MISSING = "arena.envs._encode_c is not built (no C compiler at install time?) or out of date"


@contextmanager
def implementation(use_c: bool):
    """Environments made inside write their observations in C, or in pure Python."""
    was_c = observations._use_c
    assert observations.use_c_extension(use_c) == use_c
    try:
        yield
    finally:
        observations.use_c_extension(was_c)


def both_envs(game: str, params: dict) -> tuple:
    """(an environment of the Python code, one of the C extension)."""
    require_c_extension(observations._encode_c, C_MISSING)
    with implementation(False):
        python = pettingzoo_env(game, **params)
    with implementation(True):
        c = pettingzoo_env(game, **params)
    return python, c


def test_the_c_extension_is_built_when_required():
    """ARENA_REQUIRE_C_EXTENSION=1 (where a compiler exists): fail if the C code is not built."""
    require_c_extension(observations._encode_c, C_MISSING)
    if os.environ.get(observations.PURE_PYTHON_VARIABLE, "0") in ("", "0"):
        assert observations.implementation() == "C extension (arena.envs._encode_c)"
    for use_c in (True, False):
        with implementation(use_c):
            assert (pettingzoo_env("td")._observer is not None) == use_c
            assert (pettingzoo_env("hl")._observer is not None) == use_c
            expected = "C extension (arena.envs._encode_c)" if use_c else "pure Python"
            assert observations.implementation() == expected
    code = "from arena.envs import observations; print(observations.implementation())"
    env = {**os.environ, observations.PURE_PYTHON_VARIABLE: "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "pure Python"


class _PluginState(HowLowState):
    __slots__ = ()


class PluginGame(HowLowCanYouGo):
    """A game the C extension does not know (its vectors are its Python encoding's, copied)."""

    state_class = _PluginState


CASES = [
    *PZ_CASES,
    ("twenty-down", {"start_points": 3}),
    ("hl", {"players": 5, "max_deals": 3}),
    (PluginGame, {"players": 3, "max_deals": 4}),
]


@pytest.mark.parametrize("case", CASES)
@settings(max_examples=2, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_c_and_python_observations_are_the_same_at_every_decision(case, seed):
    """Every seat's vector and mask, at every decision of a random game and after its end, the
    same float32 and int8 bytes from both; so are the legal numbers the steps check."""
    python, c = both_envs(*case)
    assert (c._c_observe is None) == (case[0] is PluginGame)
    rng = random.Random(seed)
    python.reset(seed=seed)
    c.reset(seed=seed)
    for agent in c.agent_iter():
        for other in c.agents:
            got, expected = c.observe(other), python.observe(other)
            for key, dtype in (("observation", np.float32), ("action_mask", np.int8)):
                assert got[key].dtype == expected[key].dtype == dtype
                assert got[key].tobytes() == expected[key].tobytes(), (agent, other, key)
        obs, reward, terminated, truncated, _ = c.last()
        assert (reward, terminated, truncated) == python.last(observe=False)[1:4]
        if terminated or truncated:
            c.step(None)
            python.step(None)
            continue
        assert c._legal() == python._legal()
        legal = obs["action_mask"].nonzero()[0]
        action = int(legal[rng.randrange(len(legal))])
        c.step(action)
        python.step(action)
    assert python.agents == []


def test_each_observation_is_the_callers_own_arrays():
    """Rows of shared blocks, but each handed out once: writing into one changes no other, and
    one kept for many steps (its block long replaced) still holds what it held."""
    require_c_extension(observations._encode_c, C_MISSING)
    with implementation(True):
        env = pettingzoo_env("td")
    env.reset(seed=4)
    kept = []
    rng = random.Random(4)
    for _ in range(300):
        obs = env.last()[0]
        kept.append((obs, obs["observation"].copy(), obs["action_mask"].copy()))
        legal = obs["action_mask"].nonzero()[0]
        env.step(int(legal[rng.randrange(len(legal))]))
    first = kept[0][0]
    again = env.observe(env.agent_selection)
    for obs, _, _ in kept[1:]:
        for key in ("observation", "action_mask"):
            assert not np.shares_memory(obs[key], first[key])
            assert not np.shares_memory(obs[key], again[key])
    first["observation"][:] = 7.0
    first["action_mask"][:] = 1
    for obs, vector, mask in kept[1:]:
        assert obs["observation"].tobytes() == vector.tobytes()
        assert obs["action_mask"].tobytes() == mask.tobytes()
        assert obs["observation"].flags.writeable and obs["action_mask"].flags.writeable


def test_a_legal_number_out_of_range_is_refused_not_written():
    require_c_extension(observations._encode_c, C_MISSING)
    with implementation(True):
        env = pettingzoo_env("hl")
    vector = np.zeros(env.encoding.observation_size, np.float32)
    with pytest.raises(ValueError, match="out of range"):
        env._observer.observe(vector, [3, env.encoding.num_actions])
    with pytest.raises(ValueError, match="size"):
        env._observer.observe(vector[1:], [3])


@pytest.mark.parametrize("use_c", [True, False])
def test_an_environment_copied_or_pickled_goes_on_with_the_same_observations(use_c):
    """... written by the same code as the original's, whatever new environments use."""
    require_c_extension(observations._encode_c, C_MISSING)
    with implementation(use_c):
        env = pettingzoo_env("td")
    env.reset(seed=2)
    env.step(int(env.last()[0]["action_mask"].nonzero()[0][0]))
    with implementation(not use_c):
        copies = (copy.deepcopy(env), pickle.loads(pickle.dumps(env)))
    for other in copies:
        assert (other._c_observe is not None) == use_c
        for agent in env.agents:
            assert other.observe(agent)["observation"].tobytes() == (
                env.observe(agent)["observation"].tobytes()
            )
        assert other.last()[0]["action_mask"].tobytes() == env.last()[0]["action_mask"].tobytes()


def test_an_observation_asked_for_while_one_is_written_is_refused_not_corrupted():
    """A state whose field runs Python code that asks the same environment again (here a
    subclass's property) gets an error, never rows of the block shared with another array."""
    require_c_extension(observations._encode_c, C_MISSING)
    from arena.games import TwentyDown
    from arena.games.base import Chance
    from arena.games.twenty_down.rules import TwentyDownState

    asked = []

    class Reentrant(TwentyDownState):
        __slots__ = ()

        @property
        def tricks(self):
            if not asked:
                asked.append(env.observe("player_1"))
            return TwentyDownState.tricks.__get__(self)

        @tricks.setter
        def tricks(self, value):
            TwentyDownState.tricks.__set__(self, value)

    class Game(TwentyDown):
        def new_state(self, seed=0):
            return Reentrant(self, Chance(seed))

    with implementation(True):
        env = pettingzoo_env(Game)
    env.reset(seed=1)
    with pytest.raises(RuntimeError, match="while another was being written"):
        env.observe("player_0")
    asked.append("done")
    assert env.observe("player_0")["observation"].shape == (env.encoding.observation_size,)


def test_a_subclass_observe_is_what_last_returns():
    class Tagged(type(pettingzoo_env("td"))):
        def observe(self, agent):
            return {**super().observe(agent), "tag": agent}

    for use_c in (False, True):
        with implementation(use_c):
            env = Tagged("twenty-down")
        env.reset(seed=3)
        assert env.last()[0]["tag"] == env.agent_selection


def test_a_pickle_of_an_environment_without_the_writer_field_loads():
    """Pickles made before the C writer existed have no ``_observer`` entry."""
    env = pettingzoo_env("hl")
    env.reset(seed=2)
    state = env.__getstate__()
    del state["_observer"]
    old = type(env).__new__(type(env))
    old.__setstate__(state)
    assert np.array_equal(old.last()[0]["observation"], env.last()[0]["observation"])
