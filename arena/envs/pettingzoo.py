"""A game as a PettingZoo AEC environment (``arena.envs.pettingzoo_env``).

Agents ``player_0``..``player_{n-1}`` are the seats. Each observation is a dict:
``observation`` (float32, the game's ``Encoding`` of what that seat may see) and ``action_mask``
(int8 over the fixed action space; all zero when it is not that seat's turn). Rewards come at the
end of the game (``arena.envs.returns``: +1 first … -1 last); with ``rewards="deal"`` each seat
also gets its score change at every deal's end, as ± points / 10 (sign: better is positive).
``reset(seed=s)`` makes the game seeds a ``random.Random(s)`` draws, one per reset after it.
"""

from __future__ import annotations

import random
from array import array

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from arena.envs import observations
from arena.envs.games import make_game
from arena.envs.returns import deal_scores, rank_returns
from arena.games.base import TERMINAL


class ArenaAECEnv(AECEnv):
    metadata = {"name": "arena_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, game, render_mode: str | None = None, rewards: str = "game", **params):
        super().__init__()
        if rewards not in ("game", "deal"):
            raise ValueError(f"rewards must be 'game' or 'deal', not {rewards!r}")
        self.game = make_game(game, **params)
        self.encoding = self.game.encoding()
        self.render_mode = render_mode
        self.per_deal = rewards == "deal"
        self.metadata = {**self.metadata, "name": f"arena_{self.game.name.replace('-', '_')}_v0"}
        n = self.game.players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        size, actions = self.encoding.observation_size, self.encoding.num_actions
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(-np.inf, np.inf, (size,), np.float32),
                    "action_mask": spaces.Box(0, 1, (actions,), np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(actions) for agent in self.possible_agents}
        self._seeds = random.Random()
        self.state = None
        # Zeros to copy: a fresh vector per observation in a C-level copy, filled item by item
        # (numpy's per-item overhead costs more than the encoding itself).
        self._zeros = array("f", bytes(4 * size))
        self._no_actions = np.zeros(actions, np.int8)
        self._no_bytes = bytes(actions)
        self._masks: dict[tuple, np.ndarray] = {}  # legal numbers -> their mask (``_new_mask``)
        self._float32 = np.dtype(np.float32)
        self._attach_observer()
        self._acting = None  # the seat to act; None when the game is over
        self._turn = None  # its legal numbers, once asked for
        self._rewarded = False

    def _attach_observer(self, use_c: bool | None = None) -> None:
        """The C extension's writer of the arrays (``arena.envs.observations``), or None; and
        its writers of a bundled game's vector and legal numbers (None: the Python encoding's)."""
        state_class = self.game.state_class
        self._observer = observations.observer(self.game, self.encoding, state_class, use_c)
        self._c_observe, self._c_legal = observations.engine_writers(self._observer)
        if type(self).observe is not ArenaAECEnv.observe:  # a subclass's own observe() is used
            self._c_observe = None

    def __getstate__(self) -> dict:
        """A copy or pickle leaves out the C writer: the copy makes its own, of the same kind."""
        state = self.__dict__.copy()
        state["_observer"] = self._observer is not None
        state["_c_observe"] = state["_c_legal"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._attach_observer(use_c=state.get("_observer"))  # (absent from older pickles)

    def agent_iter(self, max_iter: int = 2**63):
        """``AECEnv.agent_iter`` as a generator (PettingZoo's iterator is a Python-level
        ``__next__``, a noticeable part of a step here)."""
        return _Agents(self, max_iter)

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._seeds = random.Random(seed)
        self.state = self.game.new_state(self._seeds.getrandbits(63))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._deal_scores = self._scores() if self.per_deal else None
        self._turn = None
        self._rewarded = False
        self._acting = self.state.current_player()
        self.agent_selection = self.agents[self._acting]

    def _legal(self) -> list[int]:
        """The acting seat's legal action numbers, in the engine's order (kept for the turn)."""
        legal = self._turn
        if legal is None:
            if self._c_legal is not None:  # (None where the C code leaves it to the engine)
                legal = self._c_legal(self.state)
            if legal is None:
                legal = self.state.legal_numbers(self.encoding)
            self._turn = legal
        return legal

    def observe(self, agent):
        seat = self._seat[agent]
        observer = self._observer
        if observer is None:
            return self._observe_in_python(seat)
        legal = (self._turn or self._legal()) if seat == self._acting else None
        if self._c_observe is not None:
            return self._c_observe(self.state, seat, legal)
        vector = self._zeros[:]
        self.state.write_observation(self.encoding, seat, vector)
        return observer.observe(vector, legal)

    def _observe_in_python(self, seat: int) -> dict:
        """``observe`` without the C extension: the same values in two new numpy arrays."""
        vector = self._zeros[:]
        self.state.write_observation(self.encoding, seat, vector)
        if seat == self._acting:
            key = tuple(self._turn or self._legal())
            kept = self._masks.get(key)
            mask = kept.copy() if kept is not None else self._new_mask(key)
        else:
            mask = self._no_actions.copy()
        # fresh arrays each time: what a user keeps never changes under them
        return {"observation": np.frombuffer(vector, self._float32), "action_mask": mask}

    def _new_mask(self, legal: tuple) -> np.ndarray:
        """A new mask of these legal numbers, and a copy kept while there is room (numpy's copy
        of a small array costs half of making one from a buffer; How Low's exchanges and Twenty
        Down's single cards come back all the time, its sets of cards to follow suit less)."""
        made = bytearray(self._no_bytes)
        for i in legal:
            made[i] = 1
        mask = np.frombuffer(made, np.int8)
        if len(self._masks) < 4096:
            self._masks[legal] = mask.copy()
        return mask

    def last(self, observe: bool = True):
        """``AECEnv.last``, without its extra call and assertion (and with ``observe`` and
        ``_legal`` written out for the C extension's writers: a step's only calls of them)."""
        agent = self.agent_selection
        write = self._c_observe
        if write is not None and observe:
            seat = self._seat[agent]
            if seat == self._acting:
                legal = self._turn
                if legal is None:
                    legal = self._c_legal(self.state)
                    if legal is None:
                        legal = self.state.legal_numbers(self.encoding)
                    self._turn = legal
                obs = write(self.state, seat, legal)
            else:
                obs = write(self.state, seat, None)
        else:
            obs = self.observe(agent) if observe else None
        return (
            obs,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def step(self, action) -> None:
        agent = self.agent_selection
        if self._acting is None:  # the game is over: every agent is terminated
            self._dead_step(action)
            return
        try:
            index = (self._turn or self._legal()).index(int(action))
        except (ValueError, TypeError):
            message = f"action {action} is not legal for {agent} (see its action_mask)"
            raise ValueError(message) from None
        self._cumulative_rewards[agent] = 0.0
        self._turn = None
        state = self.state
        state.apply_legal(index)
        if self._rewarded:  # (rewards are all zero but after a deal's or the game's end)
            rewards = self.rewards
            for a in rewards:
                rewards[a] = 0.0
            self._rewarded = False
        if self.per_deal:
            self._deal_rewards()
        seat = state.current_player()
        if seat == TERMINAL:
            for a, value in zip(self.agents, rank_returns(state.result()), strict=True):
                self.rewards[a] += value
                self.terminations[a] = True
            self._rewarded = True
            self._acting = None
        else:
            self._acting = seat
            self.agent_selection = self.agents[seat]
        if self._rewarded:
            self._accumulate_rewards()

    def _dead_step(self, action) -> None:
        """``AECEnv._was_dead_step`` once the game is over, when every agent left is dead: the
        same removals and the same next ``agent_selection``, without its search for the dead."""
        if action is not None:
            raise ValueError("when an agent is dead, the only valid action is None")
        agent = self.agent_selection
        del self.terminations[agent]
        del self.truncations[agent]
        del self.rewards[agent]
        del self._cumulative_rewards[agent]
        del self.infos[agent]
        agents = self.agents
        agents.remove(agent)
        if agents:
            if getattr(self, "_skip_agent_selection", None) is None:
                self._skip_agent_selection = agent
            self.agent_selection = agents[0]
        else:
            if getattr(self, "_skip_agent_selection", None) is not None:
                self.agent_selection = self._skip_agent_selection
            self._skip_agent_selection = None
        rewards = self.rewards
        for a in rewards:
            rewards[a] = 0

    def _scores(self) -> tuple:
        return deal_scores(self.state)

    def _deal_rewards(self) -> None:
        scores = self._scores()
        if scores != self._deal_scores:
            sign = 1.0 if self.game.better == "higher" else -1.0
            for a, new, old in zip(self.agents, scores, self._deal_scores, strict=True):
                self.rewards[a] += sign * (new - old) / 10.0
            self._deal_scores = scores
            self._rewarded = True

    def render(self):
        if self.render_mode is None:
            return None
        return repr(self.state)

    def close(self) -> None:
        pass


class _Agents:
    """What ``agent_iter`` returns: each ``iter`` yields ``agent_selection`` until no agent is
    left or ``max_iter`` are given, as PettingZoo's ``AECIterable``."""

    __slots__ = ("env", "max_iter")

    def __init__(self, env: ArenaAECEnv, max_iter: int):
        self.env = env
        self.max_iter = max_iter

    def __iter__(self):
        env = self.env
        left = self.max_iter
        while env.agents and left > 0:
            left -= 1
            yield env.agent_selection
