"""How Low Can You Go? as numbered actions and a flat vector (``arena.games.encoding``;
documented in ``docs/research.md``). Seats are counted from the observer: relative seat r is
seat ``(observer + r) % players``, so one policy serves every seat of a table size."""

from __future__ import annotations

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

    def features(self, obs) -> tuple[list[int], list[float]]:
        at = self.at
        n = self.players
        seat = obs.seat
        hand_at = at["hand"]
        counts: dict[int, float] = {}
        for card in obs.hand:
            counts[hand_at + card] = counts.get(hand_at + card, 0.0) + 1.0 / self.packs
        idx = list(counts)
        val = list(counts.values())
        idx += (at["hand_total"], at["dealer"] + (obs.dealer - seat) % n, at["bank"], at["deal"])
        val += (
            sum(VALUE[c] for c in obs.hand) / _TOTAL_SCALE,
            1.0,
            obs.bank / self.chip_scale,
            obs.deal / self.max_deals,
        )
        idx += (at["round"] + obs.round - 1, at["stock_size"], at["discard_size"])
        val += (1.0, obs.stock_size / self.pack_size, obs.discard_size / self.pack_size)
        active, chips = obs.active, obs.chips
        for r in range(n):
            s = (seat + r) % n
            if active[s]:
                idx += (at["active"] + r, at["chips"] + r)
                val += (1.0, chips[s] / self.chip_scale)
        turns = [0] * n
        for s, count in obs.discards:
            r = (s - seat) % n
            if count == 5:  # a whalen redraw, not one of the three exchanges
                idx.append(at["redrawn"] + r)
                val.append(1.0)
            elif turns[r] < ROUNDS:
                idx.append(at["discarded"] + ROUNDS * r + turns[r])
                val.append(count / 3)
                turns[r] += 1
        showdown = obs.last_showdown
        if showdown is not None:
            for r in range(n):
                s = (seat + r) % n
                if showdown.totals[s] is not None:
                    idx += (at["last_totals"] + r, at["last_chip_changes"] + r)
                    val += (showdown.totals[s] / _TOTAL_SCALE, (showdown.chip_changes[s] or 0) / 5)
        return idx, val

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
