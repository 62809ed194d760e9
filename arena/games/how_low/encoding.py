"""How Low Can You Go? as numbered actions and a flat vector (``arena.games.encoding``;
documented in ``docs/research.md``). Seats are counted from the observer: relative seat r is
seat ``(observer + r) % players``, so one policy serves every seat of a table size."""

from __future__ import annotations

from array import array
from typing import Any

from arena.games.encoding import Encoding, exchange_index, exchange_name
from arena.games.how_low.hands import REDRAW, ROUNDS, VALUE

REDRAW_ACTION = 26
_TOTAL_SCALE = 65.0  # five kings
_FULL_EXCHANGE = list(range(26))


class HowLowEncoding(Encoding):
    """Actions: 0-25 exchange (by hand position), 26 redraw (variant ``whalen``)."""

    num_actions = 27

    def __init__(self, game):
        n = self.players = game.players
        self.packs = game.packs
        self.chip_scale = float(game.params["starting_chips"] * n)
        self.max_deals = game.params["max_deals"]
        self.pack_size = 52 * game.packs
        self.parts = (
            ("hand", 52),
            ("hand_total", 1),
            ("dealer", n),
            ("active", n),
            ("chips", n),
            ("bank", 1),
            ("deal", 1),
            ("round", ROUNDS),
            ("stock_size", 1),
            ("discard_size", 1),
            ("discarded", n * ROUNDS),
            ("redrawn", n),
            ("last_totals", n),
            ("last_chip_changes", n),
        )
        self._layout()
        self._tables()
        # seat -> (the public tuples or the last showdown, their entries): they change at most
        # once a turn, so most calls reuse what the last call of that seat worked out.
        self._seats: dict[int, tuple] = {}
        self._showdown: dict[int, tuple] = {}
        # The engine's fast path (``write_state``): per seat, the state, its deal and last
        # showdown, the vector of what changes only at a showdown or grows within a deal (the
        # discards), how many discards it holds and their count per seat.
        self._zeros = array("f", bytes(4 * self.observation_size))
        self._bases: list = [None] * n
        self._shared = None
        at = self.at
        self._fixed = (
            at["hand"],
            at["hand_total"],
            at["round"] - 1,
            at["stock_size"],
            at["discard_size"],
        )

    def _tables(self) -> None:
        """Every position a fact can land on, per observing seat by acting seat (relative seats
        are looked up, not computed)."""
        at = self.at
        n = self.players
        self._by_seat = []
        for seat in range(n):
            rel = [(s - seat) % n for s in range(n)]
            self._by_seat.append(
                {
                    name: [at[name] + r for r in rel]
                    for name in ("dealer", "active", "chips", "redrawn", "last_totals")
                }
                | {
                    "discarded": [at["discarded"] + ROUNDS * r for r in rel],
                    "last_chip_changes": [at["last_chip_changes"] + r for r in rel],
                }
            )

    def write(self, obs, out) -> None:
        at = self.at
        t = self._by_seat[obs.seat]
        h = at["hand"]
        copy = 1.0 / self.packs
        total = 0
        for c in obs.hand:
            out[h + c] += copy
            total += VALUE[c]
        out[at["hand_total"]] = total / _TOTAL_SCALE
        out[t["dealer"][obs.dealer]] = 1.0
        out[at["bank"]] = obs.bank / self.chip_scale
        out[at["deal"]] = obs.deal / self.max_deals
        out[at["round"] + obs.round - 1] = 1.0
        out[at["stock_size"]] = obs.stock_size / self.pack_size
        out[at["discard_size"]] = obs.discard_size / self.pack_size
        for i, v in self._seat_entries(obs.seat, obs.active, obs.chips, t):
            out[i] = v
        if obs.discards:
            turns = [0] * self.players
            discarded = t["discarded"]
            for s, count in obs.discards:
                if count == 5:  # a whalen redraw, not one of the three exchanges
                    out[t["redrawn"][s]] = 1.0
                elif turns[s] < ROUNDS:
                    out[discarded[s] + turns[s]] = count / 3
                    turns[s] += 1
        if obs.last_showdown is not None:
            for i, v in self._showdown_entries(obs.seat, obs.last_showdown, t):
                out[i] = v

    def write_state(self, state, seat: int, out, active: tuple, chips: tuple) -> None:
        """``write`` of ``state.observation(seat)``, read from the engine's own fields (its
        ``write_observation``; ``active`` and ``chips`` as the observation shows them): the same
        vector, without building the observation.
        ``arena/envs/_encode_c.c`` repeats this and ``legal_numbers`` in C: a change of meaning
        here is made there too, and bumps its ``TRANSCRIPTION`` (arena/envs/observations.py)."""
        showdown = state.last_showdown
        cached = self._bases[seat]
        if (
            cached is None
            or cached[0] is not state
            or cached[1] != state.deal
            or (cached[2] is not showdown)
        ):
            base = self._base_of(state, seat, showdown, active, chips)
            cached = self._bases[seat] = [state, state.deal, showdown, base, 0, [0] * self.players]
        discards = state.discards
        if cached[4] != len(discards):  # the discards since: they only grow within a deal
            base = cached[3]
            turns = cached[5]
            t = self._by_seat[seat]
            discarded = t["discarded"]
            for s, count in discards[cached[4] :]:
                if count == 5:  # a whalen redraw, not one of the three exchanges
                    base[t["redrawn"][s]] = 1.0
                elif turns[s] < ROUNDS:
                    base[discarded[s] + turns[s]] = count / 3
                    turns[s] += 1
            cached[4] = len(discards)
        out[:] = cached[3]
        h, hand_total, round_at, stock_at, pile_at = self._fixed
        total = 0
        if self.packs == 1:
            for c in state.hands[seat]:
                out[h + c] = 1.0
                total += VALUE[c]
        else:
            copy = 1.0 / self.packs
            for c in state.hands[seat]:
                out[h + c] += copy
                total += VALUE[c]
        out[hand_total] = total / _TOTAL_SCALE
        out[round_at + state.round] = 1.0
        out[stock_at] = len(state.stock) / self.pack_size
        out[pile_at] = len(state.pile) / self.pack_size

    def _base_of(self, state, seat: int, showdown, active: tuple, chips: tuple):
        """A new vector of what changes only at a showdown, for ``seat``; the values are worked
        out once for every seat (per state, deal and showdown)."""
        shared = self._shared
        if (
            shared is None
            or shared[0] is not state
            or shared[1] is not showdown
            or (shared[2] != state.deal)
        ):
            scale = self.chip_scale
            seats = [(s, chips[s] / scale) for s in range(self.players) if active[s]]
            shown = []
            if showdown is not None:
                for s, total in enumerate(showdown.totals):
                    if total is not None:
                        change = showdown.chip_changes[s] or 0
                        shown.append((s, total / _TOTAL_SCALE, change / 5))
            values = (state.bank / scale, state.deal / self.max_deals, seats, shown)
            shared = self._shared = (state, showdown, state.deal, values)
        bank, deal, seats, shown = shared[3]
        t = self._by_seat[seat]
        at = self.at
        base = self._zeros[:]
        base[t["dealer"][state.dealer]] = 1.0
        base[at["bank"]] = bank
        base[at["deal"]] = deal
        active_at, chips_at = t["active"], t["chips"]
        for s, v in seats:
            base[active_at[s]] = 1.0
            base[chips_at[s]] = v
        totals_at, changes_at = t["last_totals"], t["last_chip_changes"]
        for s, total, change in shown:
            base[totals_at[s]] = total
            base[changes_at[s]] = change
        return base

    def legal_numbers(self, legal: list, hand, standard: bool) -> list[int]:
        """``legal_indices`` from the engine's legal actions and the acting hand; ``standard``:
        the first 26 are the standard discards in ``EXCHANGE_MASKS`` order."""
        if standard:
            return _FULL_EXCHANGE + [REDRAW_ACTION] * (len(legal) - 26)
        return [REDRAW_ACTION if a == REDRAW else exchange_index(hand, a) for a in legal]

    def _seat_entries(self, seat: int, active, chips, t) -> list[tuple[int, float]]:
        """Who is still in and their chips, kept while they equal those of the last call for this
        seat (a quick test: they are mostly the very same tuples)."""
        cached = self._seats.get(seat)
        if cached is not None and cached[0] == active and cached[1] == chips:
            return cached[2]
        scale = self.chip_scale
        entries = []
        for s in range(self.players):
            if active[s]:
                entries += ((t["active"][s], 1.0), (t["chips"][s], chips[s] / scale))
        self._seats[seat] = (active, chips, entries)
        return entries

    def _showdown_entries(self, seat: int, showdown, t) -> list[tuple[int, float]]:
        cached = self._showdown.get(seat)
        if cached is not None and cached[0] == showdown:
            return cached[1]
        entries = []
        for s, total in enumerate(showdown.totals):
            if total is not None:
                change = showdown.chip_changes[s] or 0
                entries += ((t["last_totals"][s], total / _TOTAL_SCALE),)
                entries += ((t["last_chip_changes"][s], change / 5),)
        self._showdown[seat] = (showdown, entries)
        return entries

    def action_index(self, obs, action: Any) -> int:
        if action == REDRAW:
            return REDRAW_ACTION
        return exchange_index(obs.hand, action)

    def action_name(self, index: int) -> str:
        return REDRAW if index == REDRAW_ACTION else exchange_name(index)

    def legal_indices(self, obs) -> list[int]:
        legal = obs.legal_actions
        if len(legal) >= 26 and len(set(obs.hand)) == 5:  # all 26 exchanges, in mask order
            return _FULL_EXCHANGE + [REDRAW_ACTION] * (len(legal) - 26)
        return [self.action_index(obs, a) for a in legal]
