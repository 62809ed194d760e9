"""Twenty Down as numbered actions and a flat vector (``arena.games.encoding``; documented in
``docs/research.md``). Seats are counted from the observer: relative seat r is seat
``(observer + r) % 4``, so one policy serves every seat."""

from __future__ import annotations

from typing import Any

from arena.cards import ASCII_NAMES, SUIT_LETTERS, Suit
from arena.games.encoding import Encoding, exchange_index, exchange_name
from arena.games.twenty_down.phases import DROP, PHASE_NAMES, STAY

PACK_SIZE = 32
TRUMP_BASE, EXCHANGE_BASE, CARD_BASE, STAY_ACTION, DROP_ACTION = 0, 4, 30, 62, 63
# The 32-card pack in card order: 7..A of clubs, spades, hearts, diamonds (None: not in it).
CARD_INDEX: tuple[int | None, ...] = tuple(
    (c // 13) * 8 + c % 13 - 5 if c % 13 >= 5 else None for c in range(52)
)
_PHASE = {name: i for i, name in enumerate(PHASE_NAMES)}
_FULL_EXCHANGE = list(range(EXCHANGE_BASE, EXCHANGE_BASE + 26))


class TwentyDownEncoding(Encoding):
    """Actions: 0-3 name trump (♣ ♠ ♥ ♦), 4-29 exchange (by hand position), 30-61 play a card
    (``CARD_INDEX``), 62 stay, 63 drop (variant ``brostedt``)."""

    num_actions = 64
    parts = (
        ("hand", PACK_SIZE),
        ("phase", len(PHASE_NAMES)),
        ("trump", 4),
        ("dealer", 4),
        ("forehand", 4),
        ("deal", 1),
        ("hearts_fixed", 1),
        ("points", 4),
        ("exchanged", 4 * 5),
        ("tricks_won", 4),
        ("played", 4 * PACK_SIZE),
        ("current_trick", 4 * PACK_SIZE),
        ("led_suit", 4),
        ("playing", 4 * 3),
    )

    def __init__(self, game):
        self.start_points = game.params["start_points"]
        self.fixed_trump_after = game.params["fixed_trump_after"]
        self.max_deals = game.params["max_deals"]
        self._layout()
        # seat -> (the observation's tricks tuple, its "played" positions): engines share one
        # tuple of finished tricks until the next trick ends, so most calls reuse the positions.
        self._played: dict[int, tuple] = {}

    def features(self, obs) -> tuple[list[int], list[float]]:
        at = self.at
        seat = obs.seat
        ci = CARD_INDEX
        base = at["hand"]
        idx = [base + ci[c] for c in obs.hand]
        val = [1.0] * len(idx)
        idx.append(at["phase"] + _PHASE[obs.phase])
        val.append(1.0)
        if obs.trump is not None:
            idx.append(at["trump"] + int(obs.trump))
            val.append(1.0)
        idx += (at["dealer"] + (obs.dealer - seat) % 4, at["forehand"] + (obs.forehand - seat) % 4)
        val += (1.0, 1.0)
        idx.append(at["deal"])
        val.append(obs.deal / self.max_deals)
        if obs.deal > self.fixed_trump_after:
            idx.append(at["hearts_fixed"])
            val.append(1.0)
        points, exchanged, won, playing = obs.points, obs.exchanged, obs.tricks_won, obs.playing
        for r in range(4):
            s = (seat + r) % 4
            if points[s]:
                idx.append(at["points"] + r)
                val.append(points[s] / self.start_points)
            count = exchanged[s]
            idx.append(at["exchanged"] + 5 * r + (0 if count is None else count + 1))
            val.append(1.0)
            if won[s]:
                idx.append(at["tricks_won"] + r)
                val.append(won[s] / 5)
            if playing is not None:
                p = playing[s]
                idx.append(at["playing"] + 3 * r + (0 if p is None else 1 if p else 2))
                val.append(1.0)
        played = at["played"]
        tricks = obs.tricks
        cached = self._played.get(seat)
        if cached is None or cached[0] is not tricks:
            positions = [
                played + PACK_SIZE * ((s - seat) % 4) + ci[card]
                for trick in tricks
                for s, card in trick.cards
            ]
            cached = self._played[seat] = (tricks, positions)
        idx += cached[1]
        val += [1.0] * len(cached[1])
        current = obs.current_trick
        if current:
            at_current = at["current_trick"]
            for s, card in current:
                offset = PACK_SIZE * ((s - seat) % 4) + ci[card]
                idx += (played + offset, at_current + offset)
                val += (1.0, 1.0)
            idx.append(at["led_suit"] + current[0][1] // 13)
            val.append(1.0)
        return idx, val

    def action_index(self, obs, action: Any) -> int:
        if isinstance(action, Suit):
            return TRUMP_BASE + int(action)
        if isinstance(action, tuple):
            return EXCHANGE_BASE + exchange_index(obs.hand, action)
        if action == STAY:
            return STAY_ACTION
        if action == DROP:
            return DROP_ACTION
        return CARD_BASE + CARD_INDEX[action]

    def action_name(self, index: int) -> str:
        if index < EXCHANGE_BASE:
            return f"trump:{SUIT_LETTERS[index]}"
        if index < CARD_BASE:
            return exchange_name(index - EXCHANGE_BASE)
        if index < STAY_ACTION:
            return "play:" + ASCII_NAMES[CARD_INDEX.index(index - CARD_BASE)]
        return STAY if index == STAY_ACTION else DROP

    def legal_indices(self, obs) -> list[int]:
        legal = obs.legal_actions
        if obs.phase == "play":
            return [CARD_BASE + CARD_INDEX[c] for c in legal]
        if len(legal) == 26:  # every exchange of a five-card hand, in EXCHANGE_MASKS order
            return _FULL_EXCHANGE[:]
        return [self.action_index(obs, a) for a in legal]
