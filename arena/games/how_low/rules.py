"""How Low Can You Go? — the rule engine (rules: ``docs/rules/how-low-can-you-go.md``, HL-1..HL-19).

Each deal: five cards to every player still in, three rounds of exchanges (discard 0-3 cards, draw
as many), a showdown where the lowest total wins chips from the bank and the highest pays into it.
Players with no chips drop out; the game ends when at most one player has chips or after
``max_deals`` deals.

Actions are what the bots see in ``legal_actions``: an exchange is a tuple of the cards to discard,
sorted ascending (``()`` is a stand); the ``whalen`` variant adds the string ``"redraw"``.

Random events, all through ``Chance`` (each has its own key, so a replay can feed them back):

* ``dealer``                    — the first dealer, ``randrange(players)``;
* ``deal-N``                    — the order of the whole pack(s) for deal N (dealt one card at a
  time from the front, the rest is the stock, its top being the first card after the hands);
* ``deal-N/restock-K``          — the K-th reshuffle of the discard pile in deal N (HL-8): the pile
  is sorted, then shuffled, and the result (top first) goes under the remaining stock.

Speed: every hand is kept as a sorted list, so the 26 sub-sets of up to three cards come out as
sorted tuples directly (singles and pairs from shared tables, triples built); the list is built
once per decision and cached, and de-duplicated only when a two-pack hand holds equal cards.
``apply_action`` repeats ``State.apply_action``'s checks inline (same errors, same messages).
``clone`` copies lists, never deep-copies. Observations share the public tuples that change only at
a showdown (chips, active, the last showdown) or a redraw (shown) instead of copying them each time.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, ClassVar

import arena.games.base as base
from arena.cards import ACE, CARDS, KING, RANK_OF, Card, full_pack, parse_card
from arena.games.base import TERMINAL, Chance, GameResult, clone_fields, competition_ranks, to_plain
from arena.games.discards import (  # noqa: F401 (the wire memorises a module's tables)
    MAX_DISCARD,
    PAIR,
    SINGLE,
    as_discard,
    discards_of_five,
    discards_up_to,
)
from arena.games.how_low.bot_template import TEMPLATE
from arena.games.how_low.drawing import table_drawing
from arena.games.how_low.encoding import HowLowEncoding
from arena.games.how_low.hands import HAND_SIZE, REDRAW, ROUNDS, VALUE
from arena.games.how_low.view import RULES, HowLowNarrator, prompt_line, table_lines

ACE_OF_HEARTS = CARDS[2 * 13 + ACE]
ACE_OF_DIAMONDS = CARDS[3 * 13 + ACE]
IS_KING: tuple[bool, ...] = tuple(RANK_OF[c] == KING for c in range(52))


def bank_prize(total: int, cards, tied: bool) -> int:
    """HL-11/HL-12: what the bank owes one lowest hand (before the bank's own limit, HL-4)."""
    if tied:
        return 2 if total < 0 else 1
    if total < 0 or cards.count(ACE_OF_HEARTS) + cards.count(ACE_OF_DIAMONDS) >= 2:
        return 5
    return 3 if total <= 10 else 2


@dataclass(frozen=True, slots=True)
class Showdown:
    """The public facts of one showdown (HL-10, HL-18). Per-seat tuples; ``None`` for seats that
    were not in the deal. ``chip_changes`` is what each seat received (+) or paid (-).
    ``discards`` is the deal's ``(seat, count)`` per turn, the last round's included: a seat that
    acted early in round 3 sees the counts of the turns after its own only here (HL-9, HL-18)."""

    deal: int
    dealer: int
    hands: tuple
    totals: tuple
    chip_changes: tuple
    eliminated: tuple
    discards: tuple = ()

    def to_json(self) -> dict:
        return {
            "deal": self.deal,
            "dealer": self.dealer,
            "hands": to_plain(self.hands),
            "totals": list(self.totals),
            "chip_changes": list(self.chip_changes),
            "eliminated": list(self.eliminated),
            "discards": [list(turn) for turn in self.discards],
        }


class HowLowObservation(base.Observation):
    """What one seat sees (HL-18). A snapshot made of tuples and immutable values.

    * ``game`` — the game's name; ``seat``; ``legal_actions`` (empty unless it is this seat's turn)
    * ``hand`` — own cards, sorted (empty once eliminated)
    * ``dealer``; ``order`` — the seats in turn order this deal (dealer's left first, dealer last)
    * ``chips``, ``active`` — per seat; ``bank``
    * ``deal`` (1..), ``round`` (exchange round 1..3)
    * ``stock_size``, ``discard_size``
    * ``discards`` — ``(seat, count)`` for every turn so far this deal, in order; a stand is
      ``(seat, 0)``; a ``whalen`` redraw is ``(seat, 5)``
    * ``shown`` — ``whalen`` only: ``(seat, hand)`` for every hand shown for a redraw this deal
    * ``last_showdown`` — the latest ``Showdown`` (revealed hands, totals, chip changes) or None
    """

    canonical_action = staticmethod(as_discard)  # a set of cards in any order

    __slots__ = (
        "hand",
        "dealer",
        "order",
        "chips",
        "active",
        "bank",
        "deal",
        "round",
        "stock_size",
        "discard_size",
        "discards",
        "shown",
        "last_showdown",
    )
    fields = base.Observation.fields + __slots__

    def __init__(self, **values: Any):
        missing = [name for name in self.fields if name not in values]
        extra = sorted(set(values) - set(self.fields))
        if missing or extra:
            raise base.GameError(
                f"HowLowObservation: missing fields {missing}, unknown fields {extra}"
            )
        for name, value in values.items():
            setattr(self, name, value)

    @classmethod
    def from_json(cls, data: dict) -> HowLowObservation:
        """The observation back from its ``to_json`` form (e.g. in a bot's own process)."""
        try:
            showdown = data["last_showdown"]
            if showdown is not None:
                showdown = Showdown(
                    deal=showdown["deal"],
                    dealer=showdown["dealer"],
                    hands=tuple(None if h is None else _cards(h) for h in showdown["hands"]),
                    totals=tuple(showdown["totals"]),
                    chip_changes=tuple(showdown["chip_changes"]),
                    eliminated=tuple(showdown["eliminated"]),
                    discards=tuple((seat, count) for seat, count in showdown["discards"]),
                )
            return cls(
                game=data["game"],
                seat=data["seat"],
                legal_actions=[REDRAW if a == REDRAW else _cards(a) for a in data["legal_actions"]],
                hand=_cards(data["hand"]),
                dealer=data["dealer"],
                order=tuple(data["order"]),
                chips=tuple(data["chips"]),
                active=tuple(data["active"]),
                bank=data["bank"],
                deal=data["deal"],
                round=data["round"],
                stock_size=data["stock_size"],
                discard_size=data["discard_size"],
                discards=tuple((seat, count) for seat, count in data["discards"]),
                shown=tuple((seat, _cards(h)) for seat, h in data["shown"]),
                last_showdown=showdown,
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise base.GameError(f"not a how-low-can-you-go observation: {exc!s}") from None


def _cards(names) -> tuple[Card, ...]:
    if isinstance(names, str):
        raise base.GameError(f"expected a list of cards, not {names!r}")
    return tuple(parse_card(n) for n in names)


# The flat lists a clone copies; it copies the hands itself, and shares every other slot:
# immutable values, and lists and tuples that are only ever replaced, never changed in place.
_COPIED_FIELDS = (
    "history",
    "chips",
    "active",
    "out_deal",
    "stock",
    "pile",
    "discards",
    "shown",
    "redrawn",
)


class HowLowState(base.State):
    """One game of How Low Can You Go? in progress."""

    __slots__ = (
        "chance",
        "hands",
        *_COPIED_FIELDS,
        # the rest a clone shares with its original (_SHARED_FIELDS)
        "game",
        "bank",
        "deal",
        "dealer",
        "order",
        "pos",
        "round",
        "restocks",
        "_sd",
        "_sd_view",
        "_cur",
        "_legal",
        "_cap",
        "_free",
        "_dups",
        "_whalen",
        "_name",
        "_chips_t",
        "_active_t",
        "_shown_t",
    )

    def __init__(self, game: HowLowCanYouGo, chance: Chance):
        super().__init__(game, chance)
        self._dups = game.packs > 1
        self._whalen = game.variant == "whalen"
        self._name = game.name
        n = game.players
        params = game.params
        self.chips = [params["starting_chips"] - params["buy_in"]] * n  # HL-3
        self.bank = params["buy_in"] * n
        self.active = [True] * n
        self._chips_t = tuple(self.chips)  # what observations show: changed at showdowns only
        self._active_t = tuple(self.active)
        self.out_deal = [0] * n  # the deal a player was eliminated in; 0 while still in
        self.deal = 0
        self._sd = None
        self._sd_view = None
        self.dealer = chance.randrange("dealer", n)  # HL-5
        self._start_deal()

    # -- the deal ------------------------------------------------------------------------------

    def _start_deal(self) -> None:
        game = self.game
        n = game.players
        self.deal += 1
        deck = self.chance.shuffled(f"deal-{self.deal}", game.pack)  # HL-6 (read-only: logged)
        active = self.active
        order = game.rotations[self.dealer]  # every seat, from the dealer's left to the dealer
        if active.count(True) != n:
            order = tuple([s for s in order if active[s]])
        k = len(order)
        dealt = HAND_SIZE * k
        hands = [[]] * n  # seats out of the game share one empty hand that is never changed
        j = 0
        for seat in order:
            hand = deck[j:dealt:k]  # one card at a time, clockwise from the dealer's left
            hand.sort()
            hands[seat] = hand
            j += 1
        stock = deck[dealt:]
        stock.reverse()  # the top of the stock is the end of the list
        self.order = order
        self.hands = hands
        self.stock = stock
        self.pile = []
        self.discards = []
        self.shown = []
        self._shown_t = ()
        self.redrawn = [False] * n
        self.restocks = 0
        self.round = 1
        self.pos = 0
        self._cur = order[0]
        self._legal = None
        self._set_cap()

    def _restock(self) -> None:
        """HL-8: shuffle the discard pile (as it was before this turn) under the stock."""
        self.restocks += 1
        order = self.chance.shuffled(f"deal-{self.deal}/restock-{self.restocks}", sorted(self.pile))
        self.stock[:0] = order[::-1]  # (never change the list Chance returns: it is the log's)
        self.pile = []

    def _set_cap(self) -> None:
        """HL-8: no discard larger than stock + discard pile (as before the turn) can replace.
        Cards in hands are 5 per player all deal long, so this is fixed for a deal."""
        self._free = free = len(self.stock) + len(self.pile)
        self._cap = MAX_DISCARD if free >= MAX_DISCARD else free

    # -- the interface -------------------------------------------------------------------------

    def current_player(self) -> int:
        return self._cur

    def is_terminal(self) -> bool:
        return self._cur == TERMINAL

    def legal_actions(self) -> list:
        legal = self._legal
        if legal is not None:
            return legal
        seat = self._cur
        if seat == TERMINAL:
            legal = self._legal = []
            return legal
        hand = self.hands[seat]
        if self._cap == MAX_DISCARD:
            legal = discards_of_five(hand)
            if self._dups:
                a, b, c, d, e = hand
                if a == b or b == c or c == d or d == e:
                    legal = list(dict.fromkeys(legal))  # equal cards give equal sets (HL-19)
        else:
            legal = list(dict.fromkeys(discards_up_to(hand, self._cap)))
        if (
            self._whalen
            and self.round == 1
            and not self.redrawn[seat]
            and self._free >= HAND_SIZE
            and (
                IS_KING[hand[0]]
                or IS_KING[hand[1]]
                or IS_KING[hand[2]]
                or IS_KING[hand[3]]
                or IS_KING[hand[4]]
            )
        ):
            legal.append(REDRAW)
        self._legal = legal
        return legal

    def apply_action(self, action: Any, seat: int | None = None) -> None:
        """``State.apply_action`` with the same checks, errors and messages, written out because
        it is the hot path; also accepts a discard given in another order, or as a list or set of
        cards, as the same set (HL-19)."""
        player = self._cur
        if player == TERMINAL or (seat is not None and seat != player):
            raise base.wrong_turn(self._name, player, seat)
        legal = self._legal
        if legal is None:
            legal = self.legal_actions()
        try:
            action = legal[legal.index(action)]
        except (ValueError, TypeError):
            alt = _as_card_tuple(action)
            if alt is None or alt not in legal:
                raise base.illegal_action(self._name, action, player) from None
            action = legal[legal.index(alt)]
        self.history.append((player, action))
        self._apply(action)

    def apply_legal(self, index: int) -> None:
        """Play ``legal_actions()[index]`` (``State.apply_legal`` without its repeated calls)."""
        legal = self._legal
        if legal is None:
            legal = self.legal_actions()
        action = legal[index]
        self.history.append((self._cur, action))
        self._apply(action)

    def _apply(self, action: Any) -> None:
        self._legal = None
        seat = self._cur
        if action:
            if action is REDRAW:
                self._redraw(seat)
                return
            count = len(action)
            stock = self.stock
            if len(stock) < count:  # (before anything changes: a broken record stops here)
                self._restock()
                stock = self.stock
            hand = self.hands[seat]
            for c in action:
                hand.remove(c)
            hand += stock[-count:]
            del stock[-count:]
            hand.sort()
            self.pile += action
            self.discards.append((seat, count))
        else:
            self.discards.append((seat, 0))
        pos = self.pos + 1
        order = self.order
        if pos == len(order):
            if self.round == ROUNDS:
                self._showdown()
                return
            self.round += 1
            pos = 0
        self.pos = pos
        self._cur = order[pos]

    def _redraw(self, seat: int) -> None:
        """whalen: show the original hand, discard all five, draw five; the same player then
        makes the first exchange (the redraw is not one of the three)."""
        if len(self.stock) < HAND_SIZE:
            self._restock()
        hand = self.hands[seat]
        shown = tuple(hand)
        self.shown.append((seat, shown))
        self._shown_t = tuple(self.shown)
        self.redrawn[seat] = True
        stock = self.stock
        hand[:] = stock[-HAND_SIZE:]
        del stock[-HAND_SIZE:]
        hand.sort()
        self.pile += shown
        self.discards.append((seat, HAND_SIZE))

    def _showdown(self) -> None:
        """HL-10..HL-16."""
        game = self.game
        n = game.players
        order = self.order
        hands = self.hands
        chips = self.chips
        value = VALUE
        totals: list = [None] * n
        low = high = None
        for seat in order:
            a, b, c, d, e = hands[seat]
            total = value[a] + value[b] + value[c] + value[d] + value[e]  # HL-2, HL-10
            totals[seat] = total
            if low is None:
                low = high = total
            elif total < low:
                low = total
            elif total > high:
                high = total
        change = [0] * n
        eliminated: tuple = ()
        if low != high:  # HL-14: all equal, nothing moves
            eliminated = self._settle(totals, low, high, change)
        self._sd = (
            self.deal,
            self.dealer,
            hands,
            tuple(totals),
            tuple(change),
            eliminated,
            tuple(self.discards),
        )
        self._sd_view = None
        self._legal = None
        active = self.active
        self._chips_t = tuple(chips)
        self._active_t = tuple(active)
        if self.deal >= game.params["max_deals"] or active.count(True) <= 1:  # HL-16
            self._cur = TERMINAL
            return
        seat = self.dealer  # HL-5: the deal passes left, skipping eliminated players
        while True:
            seat = (seat + 1) % n
            if active[seat]:
                break
        self.dealer = seat
        self._start_deal()

    def _settle(self, totals: list, low: int, high: int, change: list) -> tuple:
        """HL-11..HL-15: the highest hands pay the bank, the bank pays the lowest; ``change``
        gets what each seat received (+) or paid (-). Returns the seats that ran out of chips."""
        order = self.order
        chips = self.chips
        bank = self.bank
        losers = [s for s in order if totals[s] == high]
        fee = 2 if len(losers) == 1 else 1  # HL-13
        for seat in losers:  # HL-4: payments in first; HL-15: no more than one holds
            paid = fee if chips[seat] >= fee else chips[seat]
            chips[seat] -= paid
            bank += paid
            change[seat] = -paid
        winners = [s for s in order if totals[s] == low]  # seat order from dealer's left
        if len(winners) == 1:  # HL-11
            seat = winners[0]
            owed = bank_prize(low, self.hands[seat], False)
            paid = owed if bank >= owed else bank
            chips[seat] += paid
            bank -= paid
            change[seat] = paid
        else:  # HL-12, and HL-4: one chip at a time while the bank holds any
            for _ in range(bank_prize(low, (), True)):
                for seat in winners:
                    if bank:
                        bank -= 1
                        chips[seat] += 1
                        change[seat] += 1
        self.bank = bank
        out = tuple(s for s in losers if not chips[s])  # only the highest hands pay (HL-15)
        for seat in out:
            self.active[seat] = False
            self.out_deal[seat] = self.deal
        return out

    @property
    def last_showdown(self) -> Showdown | None:
        """The latest showdown (public, HL-18), or None before the first one."""
        showdown = self._sd_view
        if showdown is None:
            raw = self._sd
            if raw is None:
                return None
            # Built once per showdown (when first asked for): it never changes.
            deal, dealer, hands, totals, change, eliminated, discards = raw
            showdown = self._sd_view = Showdown(
                deal,
                dealer,
                tuple([tuple(h) if h else None for h in hands]),
                totals,
                change,
                eliminated,
                discards,
            )
        return showdown

    def observation(self, seat: int) -> HowLowObservation:
        chips = self._chips_t
        if type(seat) is not int or not 0 <= seat < len(chips):  # (the fast test: a plain int)
            n = self.game.players
            if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
                raise base.GameError(f"{self._name}: no seat {seat!r} at a table of {n}")
        obs = _new_observation(HowLowObservation)
        obs.game = self._name
        obs.seat = seat
        if seat == self._cur:
            legal = self._legal
            obs.legal_actions = legal[:] if legal is not None else self.legal_actions()[:]
        else:
            obs.legal_actions = []
        obs.hand = tuple(self.hands[seat])
        obs.dealer = self.dealer
        obs.order = self.order
        obs.chips = chips
        obs.active = self._active_t
        obs.bank = self.bank
        obs.deal = self.deal
        obs.round = self.round
        obs.stock_size = len(self.stock)
        obs.discard_size = len(self.pile)
        obs.discards = tuple(self.discards)
        obs.shown = self._shown_t
        showdown = self._sd_view
        if showdown is None and self._sd is not None:  # (None until the first showdown)
            showdown = self.last_showdown
        obs.last_showdown = showdown
        return obs

    def result(self) -> GameResult:
        """HL-17: survivors by chips, then the eliminated, later eliminations first."""
        if self._cur != TERMINAL:
            raise base.GameError(f"{self.game.name}: the game is not over; there is no result yet")
        keys = [
            (0, -chips) if active else (1, -out)
            for chips, active, out in zip(self.chips, self.active, self.out_deal, strict=True)
        ]
        return GameResult(
            scores=tuple(self.chips), ranks=competition_ranks(keys), better=self.game.better
        )

    def clone(self) -> HowLowState:
        other = clone_fields(self, _SHARED_FIELDS, _COPIED_FIELDS)
        other.hands = [h[:] for h in self.hands]
        return other

    def __repr__(self) -> str:
        where = "over" if self._cur == TERMINAL else f"round {self.round}, seat {self._cur} to act"
        return f"HowLowState(deal {self.deal}, {where}, chips {self.chips}, bank {self.bank})"


_SHARED_FIELDS = base.other_slots(HowLowState, _COPIED_FIELDS, ("chance", "hands"))

_new_observation = object.__new__


_as_card_tuple = as_discard


class HowLowCanYouGo(base.Game):
    """How Low Can You Go? (Jack Whalen), 2-10 players; scores are chips, higher is better."""

    name = "how-low-can-you-go"
    aliases = ("hl", "how-low")
    title = "How Low Can You Go?"
    min_players = 2
    max_players = 10
    default_players = 4
    parameters = {"starting_chips": 7, "buy_in": 5, "max_deals": 50}
    variants = ("whalen",)
    score_name = "chips"
    better = "higher"
    state_class = HowLowState
    # Decided mostly by the cards drawn, so a single game says less: β = σ. 0.06 % of pairs tie
    # (equal chips, or out in the same deal) in 2,000 random games: 1 %, never 0.
    rating_defaults: ClassVar[dict[str, float]] = {"beta": 25 / 3, "draw_probability": 0.01}
    bot_template = TEMPLATE
    rules_summary = RULES
    encoding_class = HowLowEncoding
    narrator_class = HowLowNarrator

    def table_view(self, observation: HowLowObservation, names, style) -> list[str]:
        return table_lines(observation, names, style)

    def prompt_title(self, observation: HowLowObservation) -> str:
        return prompt_line(observation)

    def table_drawing(self, state, seat: int | None = None) -> dict:
        return table_drawing(state, seat)

    def __init__(self, players: int | None = None, variant: str | None = None, **params: int):
        if variant == "whalen" and "buy_in" not in params:
            params["buy_in"] = 0  # the variant's default; an explicit buy_in still wins
        super().__init__(players, variant, **params)
        self.packs = 1 if self.players <= 4 else 2  # HL-1
        n = self.players
        self.rotations = tuple(tuple((d + i) % n for i in range(1, n + 1)) for d in range(n))
        self.pack: tuple[Card, ...] = tuple(full_pack() * self.packs)

    def check_parameters(self) -> None:
        p = self.params
        name = self.name
        if p["starting_chips"] < 1:
            raise base.InvalidParametersError(
                f"{name}: starting_chips must be at least 1, not {p['starting_chips']}"
            )
        if p["buy_in"] < 0:
            raise base.InvalidParametersError(f"{name}: buy_in cannot be negative ({p['buy_in']})")
        if p["buy_in"] > p["starting_chips"]:
            raise base.InvalidParametersError(
                f"{name}: buy_in ({p['buy_in']}) cannot exceed "
                f"starting_chips ({p['starting_chips']})"
            )
        if p["buy_in"] == p["starting_chips"]:
            raise base.InvalidParametersError(
                f"{name}: buy_in ({p['buy_in']}) must leave each player at least one of the "
                f"{p['starting_chips']} starting chips"
            )
        if p["max_deals"] < 1:
            raise base.InvalidParametersError(
                f"{name}: max_deals must be at least 1, not {p['max_deals']}"
            )

    def determinize(self, observation: HowLowObservation, rng: random.Random) -> HowLowState:
        """A full state consistent with ``observation``, hidden cards drawn uniformly.

        Own hand as shown; every other hand, the discard pile and the stock are a uniform random
        split of the cards this seat cannot see (the pack(s) minus its own hand — and, once the
        game is over, minus the revealed hands). Public facts (chips, bank, deal, round, dealer,
        order, whose turn, discards so far, shown hands, last showdown) are copied. Limits: it
        uses nothing but the observation — not the seat's memory of its own earlier discards, not
        a ``whalen`` hand shown earlier this deal, not inferences from other players' play; the
        deal in which players eliminated before the last showdown went out is not in the
        observation, so they all get deal 0 (sharing the lowest rank — this never changes the
        rank of a player still in). The new state has an empty history and a fresh ``Chance``
        seeded from ``rng``, so it can be played on but its ``record()`` does not replay.
        """
        obs = observation
        n = self.players
        if getattr(obs, "game", None) != self.name:
            raise base.GameError(
                f"{self.name}: cannot determinize an observation of {getattr(obs, 'game', None)!r}"
            )
        if len(obs.chips) != n or len(obs.active) != n:
            raise base.GameError(
                f"{self.name}: the observation is for {len(obs.chips)} seats, not {n}"
            )
        state = _public_part(self, obs, rng)
        _set_turn(state, obs)
        _deal_unseen(state, obs, rng)
        return state


def _public_part(game: HowLowCanYouGo, obs: HowLowObservation, rng: random.Random) -> HowLowState:
    """A state with every public fact of ``obs`` and a fresh ``Chance``; no cards, no turn yet."""
    n = game.players
    showdown = obs.last_showdown
    state = HowLowState.__new__(HowLowState)
    state.game = game
    state.chance = Chance(seed=rng.random())
    state.history = []
    state._dups = game.packs > 1
    state._whalen = game.variant == "whalen"
    state._name = game.name
    state.chips = list(obs.chips)
    state.active = list(obs.active)
    state._chips_t = tuple(state.chips)
    state._active_t = tuple(state.active)
    state.out_deal = [
        0 if a else (showdown.deal if showdown and s in showdown.eliminated else 0)
        for s, a in enumerate(obs.active)
    ]
    state.bank = obs.bank
    state.deal = obs.deal
    state.dealer = obs.dealer
    state.order = tuple(obs.order)
    state.round = obs.round
    state.discards = list(obs.discards)
    state.shown = list(obs.shown)
    state._shown_t = tuple(state.shown)
    state.redrawn = [False] * n
    for s, count in obs.discards:
        if count == HAND_SIZE:
            state.redrawn[s] = True
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
    return state


def _is_over(obs: HowLowObservation) -> bool:
    """The game ended with the observation's deal (its showdown is the last one)."""
    return obs.last_showdown is not None and obs.last_showdown.deal == obs.deal


def _set_turn(state: HowLowState, obs: HowLowObservation) -> None:
    """Whose turn it is, from the turns taken this deal; the observation must agree."""
    name = state._name
    order = state.order
    k = len(order)
    turns = sum(1 for _, count in obs.discards if count <= MAX_DISCARD)
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


def _deal_unseen(state: HowLowState, obs: HowLowObservation, rng: random.Random) -> None:
    """The hands the seat cannot see, the discard pile and the stock: a uniform random split of
    the cards it has not seen."""
    name = state._name
    order = state.order
    pool = list(state.game.pack)
    hands: list[list] = [[] for _ in range(state.game.players)]
    known = [obs.seat]
    if _is_over(obs):
        known = list(order)
        for s in order:
            hands[s] = sorted(obs.last_showdown.hands[s])
    else:
        hands[obs.seat] = sorted(obs.hand)
    try:
        for s in known:
            for c in hands[s]:
                pool.remove(c)
    except ValueError:
        raise base.GameError(f"{name}: the observation shows cards that are not in play") from None
    others = [s for s in order if s not in known]
    needed = HAND_SIZE * len(others) + obs.stock_size + obs.discard_size
    if needed != len(pool):
        raise base.GameError(
            f"{name}: {len(pool)} unseen cards cannot fill {len(others)} hands, "
            f"a stock of {obs.stock_size} and a discard pile of {obs.discard_size}"
        )
    rng.shuffle(pool)
    i = 0
    for s in others:
        hand = pool[i : i + HAND_SIZE]
        hand.sort()
        hands[s] = hand
        i += HAND_SIZE
    state.hands = hands
    state.pile = pool[i : i + obs.discard_size]
    state.stock = pool[i + obs.discard_size :]
    state._set_cap()
    state._legal = None


__all__ = ["HowLowCanYouGo", "HowLowObservation", "HowLowState", "Showdown", "bank_prize"]
