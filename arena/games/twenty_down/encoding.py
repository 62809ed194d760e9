"""Twenty Down as numbered actions and a flat vector (``arena.games.encoding``; documented in
``docs/research.md``). Seats are counted from the observer: relative seat r is seat
``(observer + r) % 4``, so one policy serves every seat."""

from __future__ import annotations

from array import array
from typing import Any

from arena.cards import ASCII_NAMES, SUIT_LETTERS, Suit
from arena.games.encoding import Encoding, exchange_index, exchange_name
from arena.games.twenty_down.phases import DROP, EXCHANGE, PHASE_NAMES, PLAY, STAY

PACK_SIZE = 32
TRUMP_BASE, EXCHANGE_BASE, CARD_BASE, STAY_ACTION, DROP_ACTION = 0, 4, 30, 62, 63
# The 32-card pack in card order: 7..A of clubs, spades, hearts, diamonds (None: not in it).
CARD_INDEX: tuple[int | None, ...] = tuple(
    (c // 13) * 8 + c % 13 - 5 if c % 13 >= 5 else None for c in range(52)
)
_PHASE = {name: i for i, name in enumerate(PHASE_NAMES)}
_PLAY_NUMBER = tuple(None if i is None else CARD_BASE + i for i in CARD_INDEX)
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
        self._tables()
        # seat -> (the finished tricks, their "played" positions): the tricks only grow within
        # a deal, so each call adds the tricks finished since the last call of that seat.
        self._played: dict[int, tuple] = {}
        # The engine's fast path (``write_state``): per seat, the state, its deal, the tricks
        # done and the vector of everything but the hand and the trick in progress; in the play
        # phase only finished tricks change it.
        self._brostedt = game.variant == "brostedt"
        self._zeros = array("f", bytes(4 * self.observation_size))
        self._bases: list = [None] * 4
        self._public = [
            tuple(t[name] for name in ("dealer", "forehand", "points", "exchanged", "tricks_won"))
            + (t["playing"], t["played"])
            for t in self._by_seat
        ]

    def _tables(self) -> None:
        """Every position a fact can land on, worked out once: by card, and per observing seat
        by acting seat (relative seats are looked up, not computed)."""
        at = self.at
        ci = CARD_INDEX
        self._hand = [None if i is None else at["hand"] + i for i in ci]
        self._phase = {name: at["phase"] + i for name, i in _PHASE.items()}
        self._led = [at["led_suit"] + c // 13 for c in range(52)]
        self._by_seat = []
        for seat in range(4):
            rel = [(s - seat) % 4 for s in range(4)]
            played = [
                [None if i is None else at["played"] + PACK_SIZE * r + i for i in ci] for r in rel
            ]
            current = [
                [None if i is None else at["current_trick"] + PACK_SIZE * r + i for i in ci]
                for r in rel
            ]
            self._by_seat.append(
                {
                    "dealer": [at["dealer"] + r for r in rel],
                    "forehand": [at["forehand"] + r for r in rel],
                    "points": [at["points"] + r for r in rel],
                    # by count (None: not yet) and by decision (None: undecided, True: stays)
                    "exchanged": [
                        {None: e, 0: e + 1, 1: e + 2, 2: e + 3, 3: e + 4}
                        for e in (at["exchanged"] + 5 * r for r in rel)
                    ],
                    "tricks_won": [at["tricks_won"] + r for r in rel],
                    "playing": [
                        {None: p, True: p + 1, False: p + 2}
                        for p in (at["playing"] + 3 * r for r in rel)
                    ],
                    "played": played,
                    "current": [
                        list(zip(p, c, strict=True)) for p, c in zip(played, current, strict=True)
                    ],
                }
            )

    def write(self, obs, out) -> None:
        seat = obs.seat
        t = self._by_seat[seat]
        hand = self._hand
        for c in obs.hand:
            out[hand[c]] = 1.0
        out[self._phase[obs.phase]] = 1.0
        if obs.trump is not None:
            out[self.at["trump"] + int(obs.trump)] = 1.0
        out[t["dealer"][obs.dealer]] = 1.0
        out[t["forehand"][obs.forehand]] = 1.0
        out[self.at["deal"]] = obs.deal / self.max_deals
        if obs.deal > self.fixed_trump_after:
            out[self.at["hearts_fixed"]] = 1.0
        scale = self.start_points
        for i, p in zip(t["points"], obs.points, strict=True):
            if p:
                out[i] = p / scale
        for positions, count in zip(t["exchanged"], obs.exchanged, strict=True):
            out[positions[count]] = 1.0
        for i, won in zip(t["tricks_won"], obs.tricks_won, strict=True):
            if won:
                out[i] = won / 5
        if obs.playing is not None:
            for positions, p in zip(t["playing"], obs.playing, strict=True):
                out[positions[p]] = 1.0
        tricks = obs.tricks
        cached = self._played.get(seat)
        if cached is None or cached[0] != tricks:
            # Finished tricks only grow within a deal: the new ones are added to what is known.
            known = cached[0] if cached is not None else ()
            k = len(known) if tricks[: len(known)] == known else 0
            played = t["played"]
            positions = cached[1][:] if k else []
            positions += [played[s][card] for trick in tricks[k:] for s, card in trick.cards]
            cached = self._played[seat] = (tricks, positions)
        for i in cached[1]:
            out[i] = 1.0
        current = obs.current_trick
        if current:
            table = t["current"]
            for s, card in current:
                i, j = table[s][card]
                out[i] = out[j] = 1.0
            out[self._led[current[0][1]]] = 1.0

    def write_state(self, state, seat: int, out) -> None:
        """``write`` of ``state.observation(seat)``, read from the engine's own fields (its
        ``write_observation``): the same vector, without building the observation.
        ``arena/envs/_encode_c.c`` repeats this and ``legal_numbers`` in C: a change of meaning
        here is made there too, and bumps its ``TRANSCRIPTION`` (arena/envs/observations.py)."""
        if state.phase == PLAY:
            tricks = state.tricks
            cached = self._bases[seat]
            if cached is None or cached[0] is not state or cached[1] != state.deal:
                base = self._zeros[:]
                self._write_public(state, seat, base)
                cached = self._bases[seat] = [state, state.deal, len(tricks), base]
            elif cached[2] != len(tricks):  # the tricks finished since: all that changed
                self._add_tricks(state, seat, tricks[cached[2] :], cached[3])
                cached[2] = len(tricks)
            out[:] = cached[3]
        else:
            self._write_public(state, seat, out)
        hand = self._hand
        for c in state.hands[seat]:
            out[hand[c]] = 1.0
        current = state.trick
        if current:
            table = self._by_seat[seat]["current"]
            for s, card in current:
                i, j = table[s][card]
                out[i] = out[j] = 1.0
            out[self._led[current[0][1]]] = 1.0

    def _write_public(self, state, seat: int, out) -> None:
        """What ``write`` writes but the hand and the trick in progress, from the engine."""
        dealer, forehand, points, exchanged, won, playing, played = self._public[seat]
        at = self.at
        out[at["phase"] + state.phase] = 1.0
        trump = state.trump
        if trump is not None:
            out[at["trump"] + trump] = 1.0
        out[dealer[state.dealer]] = 1.0
        out[forehand[state.forehand]] = 1.0
        deal = state.deal
        out[at["deal"]] = deal / self.max_deals
        if deal > self.fixed_trump_after:
            out[at["hearts_fixed"]] = 1.0
        scale = self.start_points
        values = state.points
        count = state.exchanged
        tricks_won = state.tricks_won
        for s in range(4):
            if values[s]:
                out[points[s]] = values[s] / scale
            out[exchanged[s][count[s]]] = 1.0
            if tricks_won[s]:
                out[won[s]] = tricks_won[s] / 5
        if self._brostedt:
            decided = state.playing
            for s in range(4):
                out[playing[s][decided[s]]] = 1.0
        for trick in state.tricks:
            for s, card in trick[1]:
                out[played[s][card]] = 1.0

    def _add_tricks(self, state, seat: int, tricks, out) -> None:
        """Add finished ``tricks`` of this deal to a vector of ``_write_public``'s."""
        played = self._public[seat][6]
        won = self._public[seat][4]
        for _leader, cards, winner in tricks:
            for s, card in cards:
                out[played[s][card]] = 1.0
            out[won[winner]] = state.tricks_won[winner] / 5

    def legal_numbers(self, phase: int, legal: list, hand) -> list[int]:
        """``legal_indices`` from the engine's phase, legal actions and the acting hand."""
        if phase == PLAY:
            return list(map(_PLAY_NUMBER.__getitem__, legal))
        if phase == EXCHANGE:
            if len(legal) == 26:
                return _FULL_EXCHANGE[:]
            return [EXCHANGE_BASE + exchange_index(hand, a) for a in legal]
        return [self.action_index(None, a) for a in legal]

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
