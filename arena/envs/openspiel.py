"""Both games as OpenSpiel Python games (``arena.envs.register_openspiel_games``).

``python_arena_twenty_down`` and ``python_arena_how_low`` (parameters: ``players``, ``variant``
— "" for none — and the game's own) are sequential, imperfect-information, explicit-chance games:
the first dealer is one chance node, each deal's order is one chance node per card
(``arena.envs.chance_nodes``). Player actions are the game's ``Encoding`` numbers; returns are
``arena.envs.returns`` (+1 first ... -1 last). Information-state and observation strings are the
seat's observation as JSON (plus, for the information state, the cards it discarded this deal,
which no observation shows); the tensors are the ``Encoding`` vector (plus those discards, 52
more entries). ``resample_from_infostate`` is the game's own ``determinize``: a state the seat
cannot tell from this one, every hidden card drawn again.

``deal_horizon=1`` ends the game when the current deal ends, with each seat's score change as
its return (± points / 10, better positive): what ``openspiel-ismcts`` searches, since a
simulation to the end of a whole game costs dozens of deals.
"""

from __future__ import annotations

import inspect
import json
import random

import numpy as np
import pyspiel

from arena.envs.chance_nodes import ChanceNodes, NeedChance, PendingEvent
from arena.envs.games import make_game
from arena.envs.returns import deal_scores, rank_returns
from arena.games import HowLowCanYouGo, TwentyDown
from arena.games.base import Game

SHORT_NAMES = {TwentyDown: "python_arena_twenty_down", HowLowCanYouGo: "python_arena_how_low"}
_CONSTRUCT = -1
_MOVES_PER_DEAL = {TwentyDown: 32 + 4 + 16 + 20, HowLowCanYouGo: 2 * 104 + 40}


def _game_type(cls: type[Game]) -> pyspiel.GameType:
    spec = {"players": cls.default_players, "variant": "", "deal_horizon": 0, **cls.parameters}
    return pyspiel.GameType(
        short_name=SHORT_NAMES[cls],
        long_name=f"arena {cls.title or cls.name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=cls.max_players,
        min_num_players=cls.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=spec,
    )


class ArenaGame(pyspiel.Game):
    """One arena game behind OpenSpiel's ``Game`` interface."""

    arena_class: type[Game]

    def __init__(self, params=None):
        params = dict(params or {})
        self.deal_horizon = bool(params.pop("deal_horizon", 0))
        variant = params.pop("variant", "") or None
        self.arena_game = make_game(self.arena_class, variant=variant, **params)
        self.encoding = self.arena_game.encoding()
        self.takes_discards = (
            "discarded" in inspect.signature(self.arena_game.determinize).parameters
        )
        max_deals = self.arena_game.params["max_deals"]
        bound = 2.0 if self.deal_horizon else 1.0
        info = pyspiel.GameInfo(
            num_distinct_actions=self.encoding.num_actions,
            max_chance_outcomes=52,
            num_players=self.arena_game.players,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=None,
            max_game_length=1 + max_deals * _MOVES_PER_DEAL[self.arena_class],
        )
        super().__init__(self.game_type, info, self._spiel_params(params, variant))

    def _spiel_params(self, params: dict, variant: str | None) -> dict:
        game = self.arena_game
        return {
            "players": game.players,
            "variant": variant or "",
            "deal_horizon": int(self.deal_horizon),
            **game.params,
        }

    def new_initial_state(self):
        return ArenaState(self)

    def state_from(self, engine) -> ArenaState:
        """An OpenSpiel state around an arena engine state (e.g. from ``determinize``)."""
        return ArenaState(self, engine)

    def make_py_observer(self, iig_obs_type=None, params=None):
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return ArenaObserver(self, perfect_recall)


class _Core:
    """Everything an ``ArenaState`` changes, in one object whose deep copy is the engine's own
    cheap ``clone`` (OpenSpiel clones a Python state by deep-copying its attributes)."""

    __slots__ = (
        "engine",
        "pending",
        "retry",
        "action",
        "discards",
        "deal",
        "root_deal",
        "over",
        "start_scores",
        "game",
        "legal",
    )

    def __deepcopy__(self, memo) -> _Core:
        other = _Core.__new__(_Core)
        other.engine = None if self.engine is None else self.engine.clone()
        other.pending = None if self.pending is None else self.pending.copy()
        retry = self.retry
        other.retry = (
            retry[:] if isinstance(retry, list) else None if retry is None else retry.clone()
        )
        other.action = self.action
        other.discards = {seat: cards[:] for seat, cards in self.discards.items()}
        other.deal, other.root_deal, other.over = self.deal, self.root_deal, self.over
        other.start_scores = self.start_scores
        other.game = self.game  # shared: immutable
        other.legal = self.legal  # shared: never changed, only replaced
        return other


class ArenaState(pyspiel.State):
    def __init__(self, game: ArenaGame, engine=None):
        super().__init__(game)
        core = self._core = _Core()
        core.game = game
        core.legal = None
        core.pending = core.retry = None
        core.action = _CONSTRUCT
        core.discards = {}
        core.over = False
        core.deal = core.root_deal = core.start_scores = None
        core.engine = engine
        if engine is None:
            self._construct([])
        else:
            core.deal = core.root_deal = engine.deal
            core.start_scores = deal_scores(engine)

    # -- the engine behind chance nodes ----------------------------------------------------------

    def _construct(self, events: list) -> None:
        """Build the engine from the chance events drawn so far (the first dealer, the deal)."""
        core = self._core
        game = core.game.arena_game
        try:
            core.engine = game.state_class(game, ChanceNodes(events))
        except NeedChance as need:
            core.pending, core.retry = PendingEvent(need), list(events)
            return
        core.deal = core.root_deal = core.engine.deal
        core.start_scores = deal_scores(core.engine)

    def _step(self, engine, index: int) -> None:
        """Apply legal action ``index`` to ``engine``, becoming a chance node if it needs one."""
        core = self._core
        core.legal = None
        before = engine.clone()
        try:
            engine.apply_legal(index)
        except NeedChance as need:
            if core.game.deal_horizon and need.key.startswith("deal-") and "/" not in need.key:
                core.engine, core.over = engine, True  # the deal is scored; the next not needed
                return
            core.engine, core.pending, core.retry, core.action = (
                None,
                PendingEvent(need),
                before,
                index,
            )
            return
        core.engine = engine
        self._after_move()

    def _after_move(self) -> None:
        core = self._core
        deal = getattr(core.engine, "deal", None)
        if deal != core.deal:
            core.deal = deal
            core.discards = {}
            if core.game.deal_horizon:
                core.over = True

    def _apply_chance(self, outcome: int) -> None:
        core = self._core
        value = core.pending.draw(outcome)
        if value is None:
            return
        core.pending = None
        retry, core.retry = core.retry, None
        if core.action == _CONSTRUCT:
            self._construct([*retry, value])
            return
        retry.chance.supplied.append(value)
        self._step(retry, core.action)

    # -- the OpenSpiel interface -------------------------------------------------------------------

    def current_player(self):
        core = self._core
        if core.pending is not None:
            return pyspiel.PlayerId.CHANCE
        if core.over or core.engine.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        return core.engine.current_player()

    def is_terminal(self):
        core = self._core
        return core.pending is None and (core.over or core.engine.is_terminal())

    def _observation(self, seat: int):
        return self._core.engine.observation(seat)

    def _legal_ids(self) -> list[int]:
        """The encoding's numbers of the engine's legal actions, in the engine's order."""
        core = self._core
        if core.legal is None:
            engine = core.engine
            obs = engine.observation(engine.current_player())
            core.legal = core.game.encoding.legal_indices(obs)
        return core.legal

    def _legal_actions(self, player):
        if player == pyspiel.PlayerId.CHANCE:
            return [outcome for outcome, _ in self._core.pending.outcomes()]
        if player != self.current_player():
            return []
        return sorted(self._legal_ids())

    def chance_outcomes(self):
        return self._core.pending.outcomes()

    def _apply_action(self, action):
        core = self._core
        if core.pending is not None:
            self._apply_chance(int(action))
            return
        engine = core.engine
        seat = engine.current_player()
        index = self._legal_ids().index(int(action))
        move = engine.legal_actions()[index]
        if isinstance(move, tuple) and move:
            core.discards.setdefault(seat, []).extend(move)
        self._step(engine, index)

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            need = self._core.pending.need if self._core.pending else None
            if need is not None and need.cards is None:
                return f"{need.key}:{action}"
            from arena.cards import ASCII_NAMES

            return f"card:{ASCII_NAMES[action]}"
        return self._core.game.encoding.action_name(int(action))

    def returns(self):
        core = self._core
        if not self.is_terminal():
            return [0.0] * self._core.game.arena_game.players
        if self._core.game.deal_horizon:
            sign = 1.0 if self._core.game.arena_game.better == "higher" else -1.0
            now = deal_scores(core.engine)
            return [sign * (a - b) / 10.0 for a, b in zip(now, core.start_scores, strict=True)]
        return rank_returns(core.engine.result())

    def resample_from_infostate(self, player_id, probability_sampler):
        """A state ``player_id`` cannot tell from this one: the game's ``determinize``."""
        core = self._core
        game = self._core.game
        rng = random.Random(float(probability_sampler()) if callable(probability_sampler) else None)
        obs = core.engine.observation(player_id)
        if game.takes_discards:
            engine = game.arena_game.determinize(
                obs, rng, discarded=core.discards.get(player_id, ())
            )
        else:
            engine = game.arena_game.determinize(obs, rng)
        state = ArenaState(game, engine)
        state._core.discards = {player_id: list(core.discards.get(player_id, ()))}
        state._core.start_scores = core.start_scores
        return state

    def __str__(self):
        core = self._core
        if core.pending is not None:
            return f"chance: {core.pending.need.key} ({len(core.pending.drawn)} drawn)"
        return repr(core.engine)


class ArenaObserver:
    """OpenSpiel's observer of an ``ArenaState``: the seat's ``Encoding`` vector (and for the
    information state, the cards it discarded this deal)."""

    def __init__(self, game: ArenaGame, perfect_recall: bool):
        self.game = game
        self.perfect_recall = perfect_recall
        size = game.encoding.observation_size
        self.tensor = np.zeros(size + (52 if perfect_recall else 0), np.float32)
        self.dict = {"observation": self.tensor[:size]}
        if perfect_recall:
            self.dict["discarded"] = self.tensor[size:]

    def set_from(self, state: ArenaState, player: int) -> None:
        self.tensor.fill(0)
        if state._core.engine is None:  # before the first deal
            return
        self.game.encoding.write(state._observation(player), self.dict["observation"])
        if self.perfect_recall:
            for card in state._core.discards.get(player, ()):
                self.dict["discarded"][card] = 1.0

    def string_from(self, state: ArenaState, player: int) -> str:
        """The seat's observation as JSON; the information state adds the seat, its legal
        actions, the encoding's entries and its discards in the fast form ISMCTS keys on."""
        core = state._core
        if core.engine is None:
            return f"seat {player}: before the deal"
        obs = state._observation(player)
        if not self.perfect_recall:
            return json.dumps(obs.to_json(), sort_keys=True)
        positions, values = self.game.encoding.features(obs)
        mine = sorted(int(c) for c in core.discards.get(player, ()))
        legal = core.game.encoding.legal_indices(obs)
        return repr((player, positions, values, legal, mine, getattr(obs, "hand", None)))


class OpenSpielTwentyDown(ArenaGame):
    arena_class = TwentyDown
    game_type = _game_type(TwentyDown)


class OpenSpielHowLow(ArenaGame):
    arena_class = HowLowCanYouGo
    game_type = _game_type(HowLowCanYouGo)


def register() -> tuple[str, ...]:
    """Register both games with OpenSpiel (once a process); return their short names."""
    known = set(pyspiel.registered_names())
    for game_class in (OpenSpielTwentyDown, OpenSpielHowLow):
        if game_class.game_type.short_name not in known:
            pyspiel.register_game(game_class.game_type, game_class)
    return tuple(SHORT_NAMES.values())
