"""How Low Can You Go?: a full state from one seat's observation, hidden cards drawn at random
(``HowLowCanYouGo.determinize``, the first step of every playout of a search bot)."""

from __future__ import annotations

import random

import arena.games.base as base
from arena.cards import Card
from arena.games.base import TERMINAL, Chance
from arena.games.discards import MAX_DISCARD
from arena.games.how_low.hands import HAND_SIZE
from arena.games.shuffle import shuffle


def _unseen(pack: tuple, known) -> list | None:
    """``pack`` without ``known`` (each card taken where ``list.remove`` would take it: the first
    copy still there), or None if ``known`` holds a card the pack does not. The pack is the
    52-card pack in card order, once or twice (``HowLowCanYouGo.pack``), so card ``c`` is at
    ``c`` and ``c + 52``."""
    at = []
    for c in known:
        if type(c) is not Card and not (isinstance(c, int) and 0 <= c < 52):
            return None
        i = c
        while i in at:
            i += 52
        if i >= len(pack):
            return None
        at.append(i)
    at.sort(reverse=True)
    pool = list(pack)
    for i in at:
        del pool[i]
    return pool


def determinize(game, obs, rng: random.Random):
    """See ``HowLowCanYouGo.determinize``."""
    n = game.players
    if getattr(obs, "game", None) != game.name:
        raise base.GameError(
            f"{game.name}: cannot determinize an observation of {getattr(obs, 'game', None)!r}"
        )
    if len(obs.chips) != n or len(obs.active) != n:
        raise base.GameError(f"{game.name}: the observation is for {len(obs.chips)} seats, not {n}")
    state = _public_part(game, obs, rng)
    _set_turn(state, obs)
    _deal_unseen(state, obs, rng)
    return state


def _public_part(game, obs, rng: random.Random):
    """A state with every public fact of ``obs`` and a fresh ``Chance``; no cards, no turn yet."""
    n = game.players
    showdown = obs.last_showdown
    cls = game.state_class
    state = cls.__new__(cls)
    state.game = game
    state.chance = Chance(seed=rng.random())
    state.history = []
    whalen = state._whalen = game.variant == "whalen"
    state._dups = game.packs > 1
    state._name = game.name
    state.chips = list(obs.chips)
    active = state.active = list(obs.active)
    state._in = n - active.count(False)
    state._chips_t = tuple(obs.chips)
    state._active_t = tuple(obs.active)
    if state._in == n:
        state.out_deal = [0] * n
    else:
        state.out_deal = [
            0 if a else (showdown.deal if showdown and s in showdown.eliminated else 0)
            for s, a in enumerate(active)
        ]
    state.bank = obs.bank
    state.deal = obs.deal
    state.dealer = obs.dealer
    state.order = tuple(obs.order)
    state._k = len(state.order)
    state.round = obs.round
    state.discards = list(obs.discards)
    state.shown = list(obs.shown)
    state._shown_t = tuple(obs.shown)
    if whalen:
        state.redrawn = [False] * n
        for s, count in obs.discards:
            if count == HAND_SIZE:
                state.redrawn[s] = True
    else:
        state.redrawn = game.no_redraws
    state.restocks = 0
    state._sd = (
        None
        if showdown is None
        else (
            showdown.deal,
            showdown.dealer,
            showdown.hands,
            showdown.totals,
            showdown.chip_changes,
            showdown.eliminated,
            tuple(showdown.discards),
        )
    )
    state._sd_view = None
    state._std = False
    return state


def _is_over(obs) -> bool:
    """The game ended with the observation's deal (its showdown is the last one)."""
    return obs.last_showdown is not None and obs.last_showdown.deal == obs.deal


def _set_turn(state, obs) -> None:
    """Whose turn it is, from the turns taken this deal; the observation must agree."""
    name = state._name
    order = state.order
    k = len(order)
    discards = obs.discards
    if state._whalen:  # (a redraw, ``(seat, 5)``, is no turn)
        turns = sum(1 for _, count in discards if count <= MAX_DISCARD)
    else:
        turns = len(discards)
    if _is_over(obs):
        state._cur = TERMINAL
        state.pos = k - 1
    else:
        if turns // k + 1 != obs.round:
            raise base.GameError(
                f"{name}: {turns} turns this deal do not fit exchange round {obs.round}"
            )
        state.pos = turns % k
        state._cur = order[state.pos]
    if obs.legal_actions and state._cur != obs.seat:
        raise base.GameError(
            f"{name}: the observation has actions but it is not seat {obs.seat}'s turn"
        )


def _deal_unseen(state, obs, rng: random.Random) -> None:
    """The hands the seat cannot see, the discard pile and the stock: a uniform random split of
    the cards it has not seen."""
    name = state._name
    order = state.order
    hands: list[list] = [[]] * state.game.players  # (never changed in place: replaced)
    seat = obs.seat
    if _is_over(obs):
        known = [c for s in order for c in obs.last_showdown.hands[s]]
        for s in order:
            hands[s] = sorted(obs.last_showdown.hands[s])
        others = []
    else:
        known = obs.hand
        hands[seat] = sorted(known)
        others = [s for s in order if s != seat]
    pool = _unseen(state.game.pack, known)
    if pool is None:
        raise base.GameError(f"{name}: the observation shows cards that are not in play")
    stock_size = obs.stock_size
    discard_size = obs.discard_size
    if HAND_SIZE * len(others) + stock_size + discard_size != len(pool):
        raise base.GameError(
            f"{name}: {len(pool)} unseen cards cannot fill {len(others)} hands, "
            f"a stock of {stock_size} and a discard pile of {discard_size}"
        )
    shuffle(rng, pool)
    i = 0
    for s in others:
        hand = pool[i : i + HAND_SIZE]
        hand.sort()
        hands[s] = hand
        i += HAND_SIZE
    state.hands = hands
    state.pile = pool[i : i + discard_size]
    state.stock = pool[i + discard_size :]
    state._set_cap()
    state._legal = None
