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

Speed (the hot path of every playout): every hand is a sorted list of cards (ints), so a hand with
no two equal cards always has the 26 standard discards, in one fixed order. ``legal_actions()``
then returns them as a ``legal.StandardDiscards``: its length is known without listing them, and
the list (``discards_of_five``) is made only if something reads it (an observation, ``in``,
iteration). ``apply_legal(index)`` plays a standard discard from the tables by its index, whether
or not they were listed: ``tables.KEEP[index]`` picks the cards kept, ``COUNT[index]`` cards are
popped off the stock, ``THROWN[index]`` (a single: ``SINGLE``) is the action recorded — so a random
playout, a search bot's playout and ``arena export``'s replay (``apply_stored``, the same method)
never make the 26 tuples. Equal cards (two packs: de-duplicated, HL-19), a cap below three (HL-8)
and the ``whalen`` redraw take the general path with plain lists. Hands are replaced, never changed
in place, and the public ``(seat, count)`` entries come from a table. ``apply_action`` repeats
``State.apply_action``'s checks inline (same errors, same messages). ``clone`` is written out field
by field. Observations share the public tuples that change only at a showdown (chips, active, the
last showdown) or a redraw (shown) instead of copying them each time. The showdown's payments are
``showdown.settle``; ``determinize.determinize`` builds a state from an observation.
"""

from __future__ import annotations

import random
from bisect import insort
from dataclasses import dataclass
from typing import Any, ClassVar

import arena.games.base as base
from arena.cards import KING, RANK_OF, Card, full_pack, parse_card
from arena.games.base import TERMINAL, Chance, GameResult, competition_ranks, to_plain
from arena.games.discards import (  # noqa: F401 (the wire memorises a module's tables)
    MAX_DISCARD,
    PAIR,
    SINGLE,
    as_discard,
    discards_of_five,
    discards_up_to,
)
from arena.games.how_low.bot_template import TEMPLATE
from arena.games.how_low.determinize import determinize
from arena.games.how_low.drawing import table_drawing
from arena.games.how_low.encoding import HowLowEncoding
from arena.games.how_low.hands import HAND_SIZE, REDRAW, ROUNDS, VALUE
from arena.games.how_low.legal import StandardDiscards as _Discards
from arena.games.how_low.showdown import bank_prize, settle
from arena.games.how_low.tables import COUNT, ENTRY, KEEP, STANDARD, THROWN
from arena.games.how_low.view import RULES, HowLowNarrator, prompt_line, table_lines

IS_KING: tuple[bool, ...] = tuple(RANK_OF[c] == KING for c in range(52))
DEAL_KEYS: tuple[str, ...] = tuple(f"deal-{n}" for n in range(101))  # Chance's keys, made once


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


# Every field of a state. ``clone`` copies the lists of the first line (and each hand), shares the
# rest: immutable values, and lists and tuples that are only ever replaced, never changed in place.
_STATE_FIELDS = (
    "chance", "history", "hands", "chips", "active", "out_deal", "stock", "pile", "discards",
    "shown", "redrawn",
    "game", "bank", "deal", "dealer", "order", "pos", "round", "restocks", "_sd", "_sd_view",
    "_cur", "_legal", "_std", "_cap", "_free", "_fast", "_dups", "_whalen", "_name", "_chips_t",
    "_active_t", "_shown_t", "_in", "_k",
)  # fmt: skip


class HowLowState(base.State):
    """One game of How Low Can You Go? in progress.

    ``hands`` (per seat, a sorted list of cards; one shared empty list for the seats out),
    ``stock`` (top last) and ``pile`` are plain lists; ``_legal`` caches the legal actions of the
    decision (a lazy ``StandardDiscards`` or a plain list), ``_std`` says they are the 26 standard
    discards in their standard order (so that an index says which hand positions go:
    ``tables.KEEP``), ``_fast`` that every decision of this deal has them (one pack, no variant,
    the HL-8 cap at 3), so that ``apply_legal`` need not ask.
    """

    __slots__ = _STATE_FIELDS

    def __init__(self, game: HowLowCanYouGo, chance: Chance):
        self.game = game
        self.chance = chance
        self.history = []
        self._dups = game.packs > 1
        self._whalen = game.variant == "whalen"
        self._name = game.name
        n = game.players
        params = game.params
        self.chips = [params["starting_chips"] - params["buy_in"]] * n  # HL-3
        self.bank = params["buy_in"] * n
        self.active = [True] * n
        self._in = n  # how many are still in
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
        self.deal = deal = self.deal + 1
        key = DEAL_KEYS[deal] if deal < len(DEAL_KEYS) else f"deal-{deal}"
        deck = self.chance.shuffled(key, game.pack)  # HL-6 (read-only: logged)
        order = game.rotations[self.dealer]  # every seat, from the dealer's left to the dealer
        n = game.players
        if self._in != n:
            active = self.active
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
        self.order = order
        self._k = k
        self.hands = hands
        self.stock = deck[: dealt - 1 : -1]  # the rest, its top (the first card left) last
        self.pile = []
        self.discards = []
        self.shown = []
        self._shown_t = ()
        self.redrawn = [False] * n if self._whalen else game.no_redraws
        self.restocks = 0
        self.round = 1
        self.pos = 0
        self._cur = order[0]
        self._legal = None
        self._std = False
        # _set_cap, written out: the pile is empty
        self._free = free = len(self.stock)
        self._cap = MAX_DISCARD if free >= MAX_DISCARD else free
        self._fast = self._cap == MAX_DISCARD and not self._dups and not self._whalen

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
        self._fast = self._cap == MAX_DISCARD and not self._dups and not self._whalen

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
        if self._fast and seat >= 0:
            # The 26 standard discards, listed only if read: a playout needs just their number.
            legal = self._legal = _new_discards(_Discards)
            legal.hand = self.hands[seat]
            legal._items = None
            self._std = True
            return legal
        return self._other_legal_actions(seat)

    def _other_legal_actions(self, seat: int) -> list:
        """The legal actions when they may not be the 26 standard discards: two packs (equal
        cards), a cap below three (HL-8), the redraw (whalen), or the end of the game."""
        self._std = False
        if seat == TERMINAL:
            legal = self._legal = []
            return legal
        hand = self.hands[seat]
        redraw = (
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
        )
        if self._cap == MAX_DISCARD:
            a, b, c, d, e = hand
            if a == b or b == c or c == d or d == e:
                # equal cards give equal sets (HL-19)
                legal = list(dict.fromkeys(discards_of_five(hand)))
            else:
                self._std = True
                if not redraw:  # two packs, no equal cards: the 26, listed if read
                    legal = self._legal = _new_discards(_Discards)
                    legal.hand = hand
                    legal._items = None
                    return legal
                legal = discards_of_five(hand)
        else:
            legal = list(dict.fromkeys(discards_up_to(hand, self._cap)))
        if redraw:
            legal.append(REDRAW)  # (after the 26: the standard indices still hold)
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
            index = legal.index(action)
        except (ValueError, TypeError):
            alt = _as_card_tuple(action)
            if alt is None or alt not in legal:
                raise base.illegal_action(self._name, action, player) from None
            index = legal.index(alt)
        self.apply_legal(index)

    def apply_legal(self, index: int) -> None:
        """Play ``legal_actions()[index]`` (``State.apply_legal`` without its repeated calls). A
        standard discard is played from the tables by its index, without listing the others:
        the hand positions ``KEEP[index]`` stay, ``COUNT[index]`` cards are drawn (HL-7)."""
        seat = self._cur
        if self._legal is not None:
            std = self._std
        elif self._fast and seat >= 0:
            std = True  # (the standard discards, as legal_actions() would say: not made)
        else:
            self.legal_actions()
            std = self._std
        if not (std and 0 <= index < STANDARD):
            self._apply_listed(self.legal_actions(), index)
            return
        count = COUNT[index]
        if count:
            stock = self.stock
            if len(stock) < count:  # (before anything changes: a broken record stops here)
                self._restock()
                stock = self.stock
            held = self.hands[seat]
            pop = stock.pop  # (the top of the stock is its end; the order drawn is sorted away)
            if count == 1:  # indices 1-5: the card at position index - 1
                action = SINGLE[held[index - 1]]
                hand = held[:]
                del hand[index - 1]
                insort(hand, pop())
            else:
                action = THROWN[index](held)
                if count == 2:
                    hand = [*KEEP[index](held), pop(), pop()]
                else:
                    hand = [*KEEP[index](held), pop(), pop(), pop()]
                hand.sort()
            self.hands[seat] = hand
            self.pile += action
        else:
            action = ()
        self.history.append((seat, action))
        self.discards.append(ENTRY[seat][count])
        self._legal = None
        pos = self.pos + 1  # (``_next_turn`` written out: one call less on every decision)
        if pos == self._k:
            if self.round == ROUNDS:
                self._showdown()
                return
            self.round += 1
            pos = 0
        self.pos = pos
        self._cur = self.order[pos]

    # (``arena export``'s replay: a standard discard is played without making the legal actions)
    apply_stored = apply_legal

    def _apply_listed(self, legal, index: int) -> None:
        """``apply_legal`` of an action read from the list: not one of the standard discards at
        its standard index (two packs with equal cards, a cap below three, the redraw), or a
        negative index."""
        if index < 0 and self._std:
            index += len(legal)
            if 0 <= index < STANDARD:
                self.apply_legal(index)
                return
        action = legal[index]
        seat = self._cur
        self.history.append((seat, action))
        self._legal = None
        if not action:
            self.discards.append(ENTRY[seat][0])  # a stand
        else:
            self._apply_other(seat, action)
            if action is REDRAW:  # the same player acts again
                return
        self._next_turn()

    def _next_turn(self) -> None:
        pos = self.pos + 1
        if pos == self._k:
            if self.round == ROUNDS:
                self._showdown()
                return
            self.round += 1
            pos = 0
        self.pos = pos
        self._cur = self.order[pos]

    def _apply_other(self, seat: int, action: Any) -> None:
        """A discard not at its standard index (two packs with equal cards, a cap below three)
        or the redraw: the cards by value, not by hand position."""
        if action is REDRAW:
            self._redraw(seat)
            return
        count = len(action)
        stock = self.stock
        if len(stock) < count:
            self._restock()
            stock = self.stock
        hand = self.hands[seat][:]
        for c in action:
            hand.remove(c)
        hand += stock[-count:]
        del stock[-count:]
        hand.sort()
        self.hands[seat] = hand
        self.pile += action
        self.discards.append(ENTRY[seat][count])

    def _apply(self, action: Any) -> None:
        """``State``'s hook for a legal action: played by its index."""
        self.apply_legal(self.legal_actions().index(action))

    def _redraw(self, seat: int) -> None:
        """whalen: show the original hand, discard all five, draw five; the same player then
        makes the first exchange (the redraw is not one of the three)."""
        if len(self.stock) < HAND_SIZE:
            self._restock()
        shown = tuple(self.hands[seat])
        self.shown.append((seat, shown))
        self._shown_t = tuple(self.shown)
        self.redrawn[seat] = True
        stock = self.stock
        hand = stock[-HAND_SIZE:]
        del stock[-HAND_SIZE:]
        hand.sort()
        self.hands[seat] = hand
        self.pile += shown
        self.discards.append(ENTRY[seat][HAND_SIZE])

    def _showdown(self) -> None:
        """HL-10..HL-16."""
        n = self.game.players
        order = self.order
        hands = self.hands
        value = VALUE
        totals: list = [None] * n
        low = 99
        high = -99
        for seat in order:
            a, b, c, d, e = hands[seat]
            total = value[a] + value[b] + value[c] + value[d] + value[e]  # HL-2, HL-10
            totals[seat] = total
            if total < low:
                low = total
            if total > high:
                high = total
        change = [0] * n
        eliminated: tuple = ()
        if low != high:  # HL-14: all equal, nothing moves
            self.bank, eliminated = settle(
                order, hands, totals, low, high, self.chips, self.bank, change
            )
            if eliminated:
                for seat in eliminated:
                    self.active[seat] = False
                    self.out_deal[seat] = self.deal
                self._in -= len(eliminated)
                self._active_t = tuple(self.active)
            self._chips_t = tuple(self.chips)
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
        game = self.game  # (read at each showdown: a narrator's probe stops at its deal)
        if self.deal >= game.params["max_deals"] or self._in <= 1:  # HL-16
            self._cur = TERMINAL
            return
        # HL-5: the deal passes left, skipping eliminated players
        self.dealer = game.next_dealer[self.dealer] if self._in == n else self._next_in()
        self._start_deal()

    def _next_in(self) -> int:
        """The next seat to the left of the dealer that is still in."""
        n = self.game.players
        active = self.active
        seat = self.dealer
        while True:
            seat = (seat + 1) % n
            if active[seat]:
                return seat

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
            if legal is None:
                if self._fast and seat >= 0:  # (listed now anyway: no lazy sequence first)
                    legal = self._legal = discards_of_five(self.hands[seat])
                    self._std = True
                else:
                    legal = self.legal_actions()
            obs.legal_actions = legal[:] if type(legal) is list else legal.as_list()
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

    def write_observation(self, encoding, seat: int, out) -> None:
        """``State.write_observation`` straight from the engine's fields (the environments'
        fast path; ``HowLowEncoding.write_state``)."""
        if (
            type(encoding) is not HowLowEncoding
            or type(seat) is not int
            or not 0 <= seat < len(self._chips_t)
        ):
            base.State.write_observation(self, encoding, seat, out)  # (its checks and errors)
            return
        encoding.write_state(self, seat, out, self._active_t, self._chips_t)

    def legal_numbers(self, encoding) -> list[int]:
        seat = self._cur
        if type(encoding) is not HowLowEncoding or seat == TERMINAL:
            return base.State.legal_numbers(self, encoding)
        legal = self.legal_actions()
        return encoding.legal_numbers(legal, self.hands[seat], self._std)

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
        """An independent copy: its own lists and chance (``Chance.copy``), written out field
        by field (a clone starts every playout of a search bot)."""
        other = _new_state(HowLowState)
        other.chance = self.chance.copy()
        other.hands = [h[:] for h in self.hands]
        other.history = self.history[:]
        other.chips = self.chips[:]
        other.active = self.active[:]
        other.out_deal = self.out_deal[:]
        other.stock = self.stock[:]
        other.pile = self.pile[:]
        other.discards = self.discards[:]
        other.shown = self.shown[:]
        other.redrawn = self.redrawn[:]
        other.game = self.game
        other.bank = self.bank
        other.deal = self.deal
        other.dealer = self.dealer
        other.order = self.order
        other.pos = self.pos
        other.round = self.round
        other.restocks = self.restocks
        other._sd = self._sd
        other._sd_view = self._sd_view
        other._cur = self._cur
        other._legal = self._legal
        other._std = self._std
        other._cap = self._cap
        other._free = self._free
        other._fast = self._fast
        other._dups = self._dups
        other._whalen = self._whalen
        other._name = self._name
        other._chips_t = self._chips_t
        other._active_t = self._active_t
        other._shown_t = self._shown_t
        other._in = self._in
        other._k = self._k
        return other

    def __repr__(self) -> str:
        where = "over" if self._cur == TERMINAL else f"round {self.round}, seat {self._cur} to act"
        return f"HowLowState(deal {self.deal}, {where}, chips {self.chips}, bank {self.bank})"


_new_observation = object.__new__
_new_discards = object.__new__
_new_state = object.__new__
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
        self.next_dealer = tuple((d + 1) % n for d in range(n))
        self.no_redraws = (False,) * n  # (the redraws of a deal without the variant)

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
        return determinize(self, observation, rng)


__all__ = ["HowLowCanYouGo", "HowLowObservation", "HowLowState", "Showdown", "bank_prize"]
