"""``openspiel-ismcts``: OpenSpiel's own Information Set MCTS (``open_spiel.python.algorithms.
ismcts``, Cowling, Powley and Whitehouse 2011) playing either game, as a baseline nobody here
wrote. Registered only when OpenSpiel is installed (``pip install 'arena[rl]'``).

At each decision the bot rebuilds a state of its information set from the observation (the
game's ``determinize``, with the cards it discarded this deal, which no observation shows) and
hands it to ``ISMCTSBot``, which resamples the hidden cards at every simulation through the
OpenSpiel game's ``resample_from_infostate`` (``arena.envs.openspiel``). The search runs to the
end of the current deal (``deal_horizon=1``): a simulation is scored by the deal's score change,
evaluated with one random rollout. Settings: UCT constant 2 (OpenSpiel's examples use about
that for returns of this size), the final move by visit count.

**Budget**: ``simulations`` per decision, a fixed number so that a seed gives the same games
(OpenSpiel's ISMCTS has no clock). ``openspiel-ismcts`` has 20: about the CPU time of a decision
of ``td-search-large`` and ``hl-search-large`` here (``benchmarks/search_cpu_per_move.py``;
README, "For researchers"), so that ``tournaments/ismcts.toml`` compares them at equal time.
``openspiel-ismcts-large`` has 200, ten times that.
"""

from __future__ import annotations

import importlib.util
import threading

import arena

# Registered only with OpenSpiel installed; imported only when it plays (importing OpenSpiel takes
# a while, and every arena command registers the bundled bots).
HAS_OPENSPIEL = importlib.util.find_spec("pyspiel") is not None


class _Loader:
    """Imports OpenSpiel once a process, in a thread of its own. On a busy machine the import
    takes longer than a bot's ``start()`` may, and the referee stops a late ``start()`` with an
    exception: an import stopped midway leaves pyspiel unusable in that process for good ("type
    already registered"), so every later game would fault. In its own thread the import always
    completes; a ``start()`` that waited too long faults once, and the next games find it done."""

    def __init__(self):
        self._lock = threading.Lock()
        self._thread = None
        self._error = None

    def _run(self) -> None:
        try:
            import open_spiel.python.algorithms.ismcts  # noqa: F401
            import open_spiel.python.algorithms.mcts  # noqa: F401
            import pyspiel  # noqa: F401

            from arena.envs import register_openspiel_games

            register_openspiel_games()
        except BaseException as exc:  # told to every start() instead of lost in the thread
            self._error = exc

    def wait(self) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="openspiel-import")
                self._thread.daemon = True
                self._thread.start()
        self._thread.join()
        if self._error is not None:
            raise ImportError(f"OpenSpiel did not load: {self._error!r}")


_LOADER = _Loader()


class OpenSpielISMCTS(arena.Bot):
    name = "openspiel-ismcts"
    by_default = False  # a search bot: fielded only when named
    simulations = 20
    uct_c = 2.0

    _memory = None  # (deal, the discard it chose): see _discarded

    def start(self, info):
        from arena.envs.games import make_game

        _LOADER.wait()
        game = make_game(info.game, players=info.players, variant=info.variant, **info.params)
        self._setup(game)

    def _setup(self, game) -> None:
        import numpy as np
        import pyspiel
        from open_spiel.python.algorithms import ismcts, mcts

        from arena.envs.openspiel import SHORT_NAMES

        params = {"players": game.players, "variant": game.variant or "", **game.params}
        self._os_game = pyspiel.load_game(SHORT_NAMES[type(game)], {**params, "deal_horizon": 1})
        self._game = game
        self._encoding = game.encoding()
        self._np_rng = np.random.RandomState(self.rng.getrandbits(32))
        evaluator = mcts.RandomRolloutEvaluator(1, self._np_rng)
        self._search = ismcts.ISMCTSBot(
            self._os_game, evaluator, self.uct_c, self.simulations, random_state=self._np_rng
        )
        self._memory = None

    def act(self, obs):
        legal = obs.legal_actions
        if len(legal) == 1:
            return legal[0]
        if "_search" not in self.__dict__:
            raise RuntimeError("start() did not finish (OpenSpiel was still loading): no search")
        discarded = self._discarded(obs)
        if getattr(self._os_game, "takes_discards", False):
            engine = self._game.determinize(obs, self.rng, discarded=discarded)
        else:
            engine = self._game.determinize(obs, self.rng)
        state = self._os_game.state_from(engine)
        state._core.discards = {obs.seat: list(discarded)}
        choice = self._encoding.action_of(obs, int(self._search.step(state)))
        if isinstance(choice, tuple) and choice:
            self._memory = (obs.deal, choice)
        return choice

    def _discarded(self, obs) -> tuple:
        """The cards this bot discarded this deal, if its memory still fits the observation."""
        memory = self._memory
        if memory is None or memory[0] != obs.deal:
            return ()
        if any(c in obs.hand for c in memory[1]):
            return ()  # the referee played another discard for this bot: forget it
        return memory[1]


@arena.hookimpl
def arena_register_bots(register):
    if HAS_OPENSPIEL:
        register(OpenSpielISMCTS)
        register(OpenSpielISMCTS, name="openspiel-ismcts-large", simulations=200)
