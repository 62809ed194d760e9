"""Twenty Down (Zwanzig ab): the rule engine, as docs/rules/twenty-down.md numbers the rules.

Four players, a 32-card pack, five tricks a deal; every trick won takes a point off, a deal without
a trick adds five, and the first to reach 0 points or fewer ends the game. The engine is a plain
state machine in the vocabulary of ``base.State``; the hot path (playing cards) works on plain
ints and a precomputed suit table, because random playouts and search bots call it millions of
times.

Seats are numbered clockwise: the player on seat ``s``'s left is ``s + 1`` (mod 4). A deal's
whole deck order comes from ``chance.shuffled(f"deal-{n}", pack)`` and is dealt as TD-5 says
(see ``TwentyDownState._start_deal``), so a record lets anyone re-deal every hand.

Observations are made once per decision by the referee, so they are cheap too: the public tuples
that change at most once a trick (points, exchanged, tricks, tricks won, playing) are built on the
first observation after a change and shared by the observations until the next one (``_pub``,
reset by every action that changes them); ``apply_action`` and ``apply_legal`` are written out
with ``State``'s checks, errors and messages.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence
from itertools import combinations
from operator import itemgetter
from typing import Any, ClassVar, NamedTuple

import arena.games.base as base
from arena.cards import ASCII_NAMES, DIAMONDS, HEARTS, SUITS, Card, piquet_pack
from arena.games.base import TERMINAL, Chance, GameResult, competition_ranks
from arena.games.discards import MAX_DISCARD, STANDARD_COUNT, StandardDiscards, as_discard
from arena.games.discards import discards_up_to
from arena.games.discards import PAIR as _PAIR  # (the wire memorises a module's tables)
from arena.games.discards import SINGLE as _SINGLE
from arena.games.twenty_down.bot_template import TEMPLATE
from arena.games.twenty_down.drawing import table_drawing
from arena.games.twenty_down.encoding import TwentyDownEncoding
from arena.games.twenty_down.phases import (
    DECIDE,
    DROP,
    EXCHANGE,
    OVER,
    PHASE_NAMES,
    PLAY,
    STAY,
    TRUMP,
)
from arena.games.twenty_down.sampling import (
    placement_bounds,
    proven_by_play,
    sample_in_bounds,
    sample_placement,
)
from arena.games.twenty_down.view import RULES, TwentyDownNarrator, prompt_line, table_lines

PACK: tuple[Card, ...] = tuple(piquet_pack())
_SUIT: tuple[int, ...] = tuple(c // 13 for c in range(52))  # plain ints: faster than Suit objects
# A sorted hand holds each suit as one run: ids suit*13 .. suit*13+12.
_SUIT_LO: tuple[int, ...] = (0, 13, 26, 39)
_SUIT_HI: tuple[int, ...] = (13, 26, 39, 52)

# TD-10 as one comparison: _POWER[trump][led][card] ranks the cards a trick may hold, a trump
# above every card of the suit led, and a card of neither suit (-1) below both.
_POWER: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(
        tuple(100 + c if c // 13 == trump else c if c // 13 == led else -1 for c in range(52))
        for led in range(4)
    )
    for trump in range(4)
)

# A deal's points by tricks won (TD-11 .. TD-13), _DELTA[2] when hearts are trump (TD-14).
_DELTA = (None, (5, -1, -2, -3, -4, -10), (10, -2, -4, -6, -8, -20))

_STAY_OR_DROP = (STAY, DROP)
_PHASE_INDEX = {name: i for i, name in enumerate(PHASE_NAMES)}
_NEXT_SEAT = (1, 2, 3, 0)


class Trick(NamedTuple):
    """A finished trick: who led, the cards as ``(seat, card)`` pairs in play order, the winner.

    A tuple, so it is immutable and can be shared by a state, its clones and its observations.
    """

    leader: int
    cards: tuple[tuple[int, Card], ...]
    winner: int

    def to_json(self) -> dict:
        return {
            "leader": self.leader,
            "cards": [[seat, ASCII_NAMES[card]] for seat, card in self.cards],
            "winner": self.winner,
        }


_new_tuple = tuple.__new__  # builds a Trick without NamedTuple's Python-level __new__


class TwentyDownObservation(base.Observation):
    """What one seat may see (TD-18), as a snapshot of tuples.

    ``hand`` sorted; ``trump`` a ``Suit`` or ``None`` before it is named; ``deal`` the deal number
    (1-based); ``points`` per seat; ``phase`` one of ``PHASE_NAMES``; ``exchanged`` per seat the
    number of cards exchanged this deal or ``None`` before that seat's turn; ``tricks`` the finished
    tricks of this deal (``Trick``); ``current_trick`` the ``(seat, card)`` pairs played to the
    trick in progress; ``tricks_won`` per seat this deal; ``playing`` (variant ``brostedt`` only,
    else ``None``) per seat ``True`` staying in, ``False`` dropped out, ``None`` not yet decided;
    ``last_tricks`` the tricks of the previous deal (empty in the first): the next deal starts as
    its fifth trick ends, and a seat that played early to that trick sees the rest only here.
    """

    canonical_action = staticmethod(as_discard)  # a set of cards in any order

    __slots__ = (
        "hand",
        "dealer",
        "forehand",
        "trump",
        "deal",
        "points",
        "phase",
        "exchanged",
        "tricks",
        "current_trick",
        "tricks_won",
        "playing",
        "last_tricks",
    )
    fields: ClassVar[tuple[str, ...]] = base.Observation.fields + __slots__
    grows_from: ClassVar[dict[str, str]] = {"last_tricks": "tricks"}

    def to_json(self) -> dict:
        plain = super().to_json()
        plain["tricks"] = [trick.to_json() for trick in self.tricks]  # objects, not bare lists
        plain["last_tricks"] = [trick.to_json() for trick in self.last_tricks]
        return plain


_new_observation = object.__new__


def _options_of_five_table():
    """``discards_of_five`` for the 32-card pack from tables made once: every discard is a tuple
    made here (singles and pairs the shared ones of ``arena.games.discards``), so that listing a
    hand's 26 discards allocates only the list. The table is closed over, not a module global:
    the process wire memorises a rules module's tuple tables, and this one need not go there."""
    index = [-1] * 52
    for i, c in enumerate(PACK):
        index[c] = i
    index = tuple(index)
    triples = tuple(
        tuple(
            tuple((a, b, c) if i < j < k else None for k, c in enumerate(PACK))
            for j, b in enumerate(PACK)
        )
        for i, a in enumerate(PACK)
    )
    single = _SINGLE
    pair = _PAIR

    def options(hand: list[Card]) -> list[tuple[Card, ...]]:
        a, b, c, d, e = hand
        ia, ib, ic, id_, ie = index[a], index[b], index[c], index[d], index[e]
        ta = triples[ia]
        tab, tac, tad = ta[ib], ta[ic], ta[id_]
        tb = triples[ib]
        tbc, tbd = tb[ic], tb[id_]
        tcd = triples[ic][id_]
        pa, pb, pc = pair[a], pair[b], pair[c]
        return [
            (), single[a], single[b], single[c], single[d], single[e],
            pa[b], pa[c], pa[d], pa[e], pb[c], pb[d], pb[e], pc[d], pc[e], pair[d][e],
            tab[ic], tab[id_], tab[ie], tac[id_], tac[ie], tad[ie],
            tbc[id_], tbc[ie], tbd[ie], tcd[ie],
        ]  # fmt: skip

    return options


_options_of_five = _options_of_five_table()


def _exchange_options(hand: list[Card]) -> list[tuple[Card, ...]]:
    """Every set of 0-3 cards of a sorted hand, each once, as sorted tuples (TD-7, TD-19)."""
    if len(hand) != 5:
        return discards_up_to(hand, MAX_DISCARD)
    return _options_of_five(hand)  # always the case in play


class _Exchanges(StandardDiscards):
    """A five-card hand's 26 exchanges, listed (``_options_of_five``) only if read: random play
    and playouts need their number, and ``apply_legal`` plays an index from the hand
    (``_exchange_at``). Holds its own copy of the hand, which ``_exchange`` changes in place."""

    __slots__ = ()
    listing = staticmethod(_options_of_five)


_new_object = object.__new__


def _exchanges(hand: list[Card]) -> Sequence[tuple[Card, ...]]:
    """``_exchange_options(hand)``, unlisted for a hand of five (always the case in play)."""
    if len(hand) != 5:
        return discards_up_to(hand, MAX_DISCARD)
    legal = _new_object(_Exchanges)
    legal.hand = tuple(hand)
    legal._items = None
    return legal


# The hand positions of ``_exchange_options(hand)[i]`` for a hand of five (the same order).
_EXCHANGE_POSITIONS = (
    (),
    *((i,) for i in range(5)),
    *combinations(range(5), 2),
    *combinations(range(5), 3),
)


def _exchange_at(hand: Sequence[Card], index: int) -> tuple[Card, ...]:
    """``_exchange_options(hand)[index]`` for a hand of five and 0 <= index < 26, without listing
    the others: the same objects for a single or a pair (``SINGLE``, ``PAIR``: the wire sends
    them as references), an equal tuple for three cards."""
    positions = _EXCHANGE_POSITIONS[index]
    n = len(positions)
    if n == 2:
        return _PAIR[hand[positions[0]]][hand[positions[1]]]
    if n == 1:
        return _SINGLE[hand[positions[0]]]
    if n == 3:
        a, b, c = positions
        return (hand[a], hand[b], hand[c])
    return ()


# ``_exchange_options(hand)[i] == _DISCARD_AT[i](hand)`` for a hand of five (the same order).
_DISCARD_AT: tuple[Callable[[list[Card]], tuple[Card, ...]], ...] = (
    lambda hand: (),
    *(lambda hand, i=i: (hand[i],) for i in range(5)),
    *(itemgetter(*positions) for k in (2, 3) for positions in combinations(range(5), k)),
)

# The flat lists a clone copies; it copies the hands itself, and shares every other slot:
# immutable values, and lists and tuples that are only ever replaced, never changed in place.
_COPIED_FIELDS = (
    "history",
    "points",
    "_talon",
    "discards",
    "exchanged",
    "playing",
    "tricks",
    "trick",
    "tricks_won",
)


class TwentyDownState(base.State):
    """One game of Twenty Down in progress.

    Public fields (read them, never change them): ``points``, ``dealer``, ``forehand``, ``deal``,
    ``trump``, ``phase`` (an index into ``PHASE_NAMES``), ``hands`` (sorted lists), ``talon``
    (top first), ``discards``, ``exchanged``, ``playing``, ``tricks``, ``trick`` (the trick in
    progress), ``tricks_won``, ``leader``.
    """

    __slots__ = (
        "chance",
        "_hands",
        *_COPIED_FIELDS,
        # the rest a clone shares with its original (_SHARED_FIELDS)
        "game",
        "dealer",
        "forehand",
        "deal",
        "trump",
        "phase",
        "leader",
        "_player",
        "_legal",
        "_trump",
        "_led",
        "_power",
        "_best",
        "_best_seat",
        "_next",
        "_trick_size",
        "_name",
        "_brostedt",
        "_pub",
        "_pub_prev",
        "_pending",
        "_lazy",
        "last_tricks",
    )

    def __init__(self, game: TwentyDown, chance: Chance):
        super().__init__(game, chance)
        self._name = game.name
        self._brostedt = game.variant == "brostedt"
        self._pub = None
        self._pub_prev = None
        self._pending = False
        self._lazy = False
        self._hands = [[], [], [], []]  # the cards come with the first deal's draw
        self._talon = []
        self.last_tricks = ()
        self.points = [game.params["start_points"]] * 4
        self.dealer = chance.randrange("dealer", 4)  # TD-4
        self.deal = 0
        self._start_deal()

    # --- the vocabulary of base.State -------------------------------------------------------

    def current_player(self) -> int:
        return self._player

    def legal_actions(self) -> list:
        """The state's own list (kept per decision for speed): read it, do not change it."""
        return self._legal

    @property
    def hands(self) -> list[list[Card]]:
        if self._pending:
            self._draw_deal()
        return self._hands

    @property
    def talon(self) -> list[Card]:
        if self._pending:
            self._draw_deal()
        return self._talon

    def record(self) -> dict:
        if self._pending:
            self._draw_deal()
        return super().record()

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def result(self) -> GameResult:
        if self.phase != OVER:
            raise base.GameError(f"{self.game.name}: the game is not over; there is no result yet")
        points = tuple(self.points)
        return GameResult(scores=points, ranks=competition_ranks(points), better="lower")

    def observation(self, seat: int) -> TwentyDownObservation:
        if type(seat) is not int or not 0 <= seat < 4:  # (the fast test first: a plain int)
            if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < 4:
                raise base.GameError(f"{self._name}: there is no seat {seat!r} (seats are 0-3)")
        if self._pending:
            self._draw_deal()
        pub = self._pub
        if pub is None:
            # The public tuples change at most once a trick: built once, shared until then. One
            # equal to its predecessor is that very object, so that a seat's next observation
            # shows it unchanged at a glance (``arena.execution.process.wire`` sends observations
            # as changes).
            points = tuple(self.points)
            exchanged = tuple(self.exchanged)
            tricks_won = tuple(self.tricks_won)
            prev = self._pub_prev
            if prev is not None:
                if points == prev[0]:
                    points = prev[0]
                if exchanged == prev[1]:
                    exchanged = prev[1]
                if tricks_won == prev[3]:
                    tricks_won = prev[3]
            pub = self._pub = self._pub_prev = (
                points,
                exchanged,
                tuple(self.tricks),
                tricks_won,
                tuple(self.playing) if self._brostedt else None,
                self.last_tricks,
            )
        obs = _new_observation(TwentyDownObservation)
        obs.game = self._name
        obs.seat = seat
        obs.legal_actions = self._legal[:] if seat == self._player else []
        obs.hand = tuple(self._hands[seat])
        obs.dealer = self.dealer
        obs.forehand = self.forehand
        obs.trump = self.trump
        obs.deal = self.deal
        obs.phase = PHASE_NAMES[self.phase]
        obs.current_trick = tuple(self.trick)
        obs.points, obs.exchanged, obs.tricks, obs.tricks_won, obs.playing, obs.last_tricks = pub
        return obs

    def write_observation(self, encoding, seat: int, out) -> None:
        """``State.write_observation`` straight from the engine's fields (the environments'
        fast path; ``TwentyDownEncoding.write_state``)."""
        if type(encoding) is not TwentyDownEncoding or type(seat) is not int or not 0 <= seat < 4:
            base.State.write_observation(self, encoding, seat, out)  # (its checks and errors)
            return
        if self._pending:
            self._draw_deal()
        encoding.write_state(self, seat, out)

    def legal_numbers(self, encoding) -> list[int]:
        if type(encoding) is not TwentyDownEncoding or self._player == TERMINAL:
            return base.State.legal_numbers(self, encoding)
        if self._pending:
            self._draw_deal()
        return encoding.legal_numbers(self.phase, self._legal, self._hands[self._player])

    def clone(self) -> TwentyDownState:
        """A copy to play on: the flat lists and the hands copied, every other slot shared
        (immutable values, and lists and tuples that are only ever replaced), written out slot by
        slot because search bots clone at every playout (a test checks that no slot is missed)."""
        o = _new_state(TwentyDownState)
        o.game = self.game
        o.chance = self.chance.copy()
        h = self._hands
        o._hands = [h[0][:], h[1][:], h[2][:], h[3][:]]
        o.history = self.history[:]
        o.points = self.points[:]
        o._talon = self._talon[:]
        o.discards = self.discards[:]
        o.exchanged = self.exchanged[:]
        o.playing = self.playing[:]
        o.tricks = self.tricks[:]
        o.trick = self.trick[:]
        o.tricks_won = self.tricks_won[:]
        o.dealer = self.dealer
        o.forehand = self.forehand
        o.deal = self.deal
        o.trump = self.trump
        o.phase = self.phase
        o.leader = self.leader
        o._player = self._player
        o._legal = self._legal
        o._trump = self._trump
        o._led = self._led
        o._power = self._power
        o._best = self._best
        o._best_seat = self._best_seat
        o._next = self._next
        o._trick_size = self._trick_size
        o._name = self._name
        o._brostedt = self._brostedt
        o._pub = self._pub
        o._pub_prev = self._pub_prev
        o._pending = self._pending
        o._lazy = self._lazy
        o.last_tricks = self.last_tricks
        return o

    def __repr__(self) -> str:
        return (
            f"TwentyDownState(deal={self.deal}, phase={PHASE_NAMES[self.phase]!r}, "
            f"player={self._player}, points={self.points})"
        )

    # --- applying actions -------------------------------------------------------------------

    def apply_action(self, action: Any, seat: int | None = None) -> None:
        """``State.apply_action``: the same checks, errors and messages, then ``apply_legal``."""
        player = self._player
        if player == TERMINAL or (seat is not None and seat != player):
            raise base.wrong_turn(self._name, player, seat)
        try:
            index = self._legal.index(action)
        except (ValueError, TypeError):
            raise base.illegal_action(self._name, action, player) from None
        self.apply_legal(index)

    def _apply(self, action: Any) -> None:
        self.apply_legal(self._legal.index(action))
        self.history.pop()

    def apply_legal(self, index: int) -> None:
        """Play ``legal_actions()[index]``: every action goes through here, and playing a card
        (TD-8 .. TD-10), the hot path, is written out in it."""
        if self.phase != PLAY:
            legal = self._legal
            if type(legal) is _Exchanges and 0 <= index < STANDARD_COUNT:
                self._apply_other(_exchange_at(legal.hand, index))
            else:
                self._apply_other(legal[index])
            return
        action = self._legal[index]
        p = self._player
        move = (p, action)  # one tuple for the history and the trick: both only read it
        self.history.append(move)
        self._hands[p].remove(action)
        trick = self.trick
        trick.append(move)
        n = len(trick)
        if n == 1:
            led = self._led = _SUIT[action]
            power = self._power = _POWER[self._trump][led]
            self._best = power[action]
            self._best_seat = p
        else:
            led = self._led
            power = self._power[action]  # TD-10 (``_POWER``)
            if power > self._best:
                self._best = power
                self._best_seat = p
        if n < self._trick_size:
            p = self._next[p]
            self._player = p
            hand = self._hands[p]
            # TD-9: follow suit, else trump, else anything (the suit's run in the sorted hand)
            lo = bisect_left(hand, _SUIT_LO[led])
            hi = bisect_left(hand, _SUIT_HI[led], lo)
            if lo == hi:
                t = self._trump
                lo = bisect_left(hand, _SUIT_LO[t])
                hi = bisect_left(hand, _SUIT_HI[t], lo)
                if lo == hi:
                    self._legal = hand[:]
                    return
            self._legal = hand[lo:hi]
            return
        winner = self._best_seat
        tricks = self.tricks
        tricks.append(_new_tuple(Trick, (self.leader, tuple(trick), winner)))
        self.tricks_won[winner] += 1
        self.trick = []
        self._pub = None
        if len(tricks) == 5:
            self._score_deal()
            return
        self.leader = winner
        self._player = winner
        self._legal = self._hands[winner][:]

    def _apply_other(self, action: Any) -> None:
        """Every decision but playing a card: naming trump, exchanging, staying or dropping."""
        self.history.append((self._player, action))
        self._pub = None  # every one changes a public tuple (or the phase)
        phase = self.phase
        if phase == EXCHANGE:
            self._exchange(action)
        elif phase == DECIDE:
            self._decide(action)
        else:  # TRUMP
            self._set_trump(action)

    def apply_stored(self, index: int) -> None:
        """``apply_legal(index)`` for a replay of stored indices: ``apply_stored_all``."""
        self.apply_stored_all((index,))

    def apply_stored_all(self, indices: Sequence[int]) -> None:
        """``apply_legal`` of each of ``indices`` in turn, for a replay of a stored game
        (``arena.games.record``, ``arena export``): cards are played in runs (``_play_run``) that
        read each card straight from the hand, without a call or a list of legal cards per
        decision; an exchange's discard is read from the hand by its index (``_DISCARD_AT``),
        and the seats' 26 discards are listed only for the decision the replay stops at."""
        self._lazy = True  # (_set_trump and _exchange leave the next seat's discards unlisted)
        try:
            k = 0
            n = len(indices)
            while k < n:
                if self.phase == PLAY:
                    done = self._play_run(indices, k)
                    if done > k:
                        k = done
                        continue
                index = indices[k]
                if self._legal is None:  # an exchange (any index out of range raises here)
                    hand = self._hands[self._player]
                    if len(hand) == 5 and 0 <= index < len(_DISCARD_AT):
                        self._apply_other(_DISCARD_AT[index](hand))
                    else:
                        self._apply_other(_exchange_options(hand)[index])
                else:
                    self.apply_legal(index)
                k += 1
        finally:
            self._lazy = False
            if self._legal is None:
                self._legal = _exchanges(self._hands[self._player])

    def _play_run(self, indices: Sequence[int], k: int) -> int:
        """Play ``indices[k:]`` while they are cards of this deal (TD-8 .. TD-10, as
        ``apply_legal``); stop before an index out of range, after the deal's last trick or at
        the end. The position where it stopped."""
        hands = self._hands
        history = self.history
        trick = self.trick
        trump = self._trump
        nxt = self._next
        size = self._trick_size
        p = self._player
        led, power, best, best_seat = self._led, self._power, self._best, self._best_seat
        n = len(indices)
        while k < n:
            hand = hands[p]
            index = indices[k]
            if not trick:  # a lead: any card (TD-8)
                if index >= len(hand):
                    break
                card = hand.pop(index)
                move = (p, card)
                history.append(move)
                trick.append(move)
                k += 1
                led = _SUIT[card]
                power = _POWER[trump][led]
                best, best_seat = power[card], p
                if size > 1:
                    p = nxt[p]
                    continue
            else:  # TD-9: follow suit, else trump, else anything
                lo = bisect_left(hand, _SUIT_LO[led])
                hi = bisect_left(hand, _SUIT_HI[led], lo)
                if lo == hi:
                    lo = bisect_left(hand, _SUIT_LO[trump])
                    hi = bisect_left(hand, _SUIT_HI[trump], lo)
                    if lo == hi:
                        lo, hi = 0, len(hand)
                if index >= hi - lo:
                    break
                card = hand.pop(lo + index)
                move = (p, card)
                history.append(move)
                trick.append(move)
                k += 1
                if power[card] > best:
                    best, best_seat = power[card], p
                if len(trick) < size:
                    p = nxt[p]
                    continue
            tricks = self.tricks
            tricks.append(_new_tuple(Trick, (self.leader, tuple(trick), best_seat)))
            self.tricks_won[best_seat] += 1
            trick = self.trick = []
            self._pub = None
            if len(tricks) == 5:
                self._score_deal()  # the next deal's decision (or the end) is set there
                return k
            self.leader = p = best_seat
        self._player = p
        self._led, self._power, self._best, self._best_seat = led, power, best, best_seat
        self._legal = self._cards_to_play(p)
        self._pub = None
        return k

    def _cards_to_play(self, p: int) -> list[Card]:
        """Seat ``p``'s legal cards now (TD-9), as ``apply_legal`` lists them."""
        hand = self._hands[p]
        if not self.trick:
            return hand[:]
        for suit in (self._led, self._trump):
            lo = bisect_left(hand, _SUIT_LO[suit])
            hi = bisect_left(hand, _SUIT_HI[suit], lo)
            if lo != hi:
                return hand[lo:hi]
        return hand[:]

    def _start_deal(self) -> None:
        """Deal from the deck order of chance event ``deal-n`` (TD-5).

        Order ``d[0..31]``: two cards to each player clockwise from forehand (forehand ``d[0:2]``,
        the next ``d[2:4]``, then ``d[4:6]``, the dealer ``d[6:8]``); trump is named; then three to
        each the same way (forehand ``d[8:11]`` ... dealer ``d[17:20]``); the talon is
        ``d[20:32]``, top card ``d[20]``. In fixed-trump deals (TD-6) the same positions are dealt
        at once.
        """
        self.deal += 1
        self._pub = None
        fh = self.forehand = _NEXT_SEAT[self.dealer]
        self.discards = []
        self.exchanged = [None, None, None, None]
        self.playing = [None] * 4 if self._brostedt else [True] * 4
        self.tricks = []
        self.trick = []
        self.tricks_won = [0, 0, 0, 0]
        self.leader = fh
        self._led = -1
        self._power = None
        self._best = -1
        self._best_seat = -1
        self._next = _NEXT_SEAT
        self._trick_size = 4
        self._player = fh
        self._pending = True
        if self.deal > self.game.params["fixed_trump_after"]:  # TD-6
            self._draw_deal(sort=False)  # _set_trump sorts the five cards
            self._set_trump(HEARTS)
        else:
            self.trump = None
            self._trump = -1
            self.phase = TRUMP
            self._legal = list(SUITS)  # TD-19: any of the four suits, whatever the two cards
            if type(self.chance) is not Chance:
                self._draw_deal()  # another source of chance (arena.envs' chance nodes) sees it now

    def _draw_deal(self, sort: bool = True) -> None:
        """The cards of the deal ``_start_deal`` began. Drawn when first needed (trump named, an
        observation, the hands read, a record): a playout that stops as a deal ends, as a search
        bot's do, never shuffles for the next one. The deal's chance stream is its own, so when
        it is drawn changes nothing in it."""
        self._pending = False
        order = self.chance.shuffled(f"deal-{self.deal}", PACK)
        h = [order[0:2], order[2:4], order[4:6], order[6:8]]  # forehand's first, clockwise
        k = 4 - self.forehand
        hands = self._hands = h[k:] + h[:k]
        self._talon = order[8:]  # the undealt rest: three each follow once trump is known
        if sort:
            for hand in hands:
                hand.sort()

    def _set_trump(self, suit: Any) -> None:
        if self._pending:
            self._draw_deal()
        self.trump = SUITS[suit]
        self._trump = int(suit)
        fh = self.forehand
        talon = self._talon
        hands = self._hands
        for k in range(4):
            hand = hands[(fh + k) % 4]
            hand.extend(talon[3 * k : 3 * k + 3])
            hand.sort()
        del talon[:12]
        self.phase = EXCHANGE
        self._player = fh
        self._legal = None if self._lazy else _exchanges(hands[fh])

    def _exchange(self, discard: tuple[Card, ...]) -> None:
        p = self._player
        n = len(discard)
        if n:
            hand = self._hands[p]
            for c in discard:
                hand.remove(c)
            self.discards.extend(discard)
            talon = self._talon
            hand.extend(talon[:n])
            del talon[:n]
            hand.sort()
        self.exchanged[p] = n
        p = _NEXT_SEAT[p]
        if p != self.forehand:
            self._player = p
            self._legal = None if self._lazy else _exchanges(self._hands[p])
        elif self._brostedt and self._trump != DIAMONDS:
            self.phase = DECIDE
            self.playing[p] = True  # forehand must stay: not asked
            self._player = _NEXT_SEAT[p]
            self._legal = list(_STAY_OR_DROP)
        else:
            self.playing = [True] * 4
            self._start_play()

    def _decide(self, choice: str) -> None:
        p = self._player
        self.playing[p] = choice == STAY
        p = _NEXT_SEAT[p]
        if p != self.forehand:
            self._player = p
            self._legal = list(_STAY_OR_DROP)
        elif self.playing.count(True) == 1:
            # Everyone but forehand dropped: forehand takes all five tricks without play.
            self.tricks_won[p] = 5
            self._score_deal()
        else:
            self._start_play()

    def _start_play(self) -> None:
        playing = self.playing
        if False in playing:  # brostedt: tricks go round the players still in
            seats = [s for s in range(4) if playing[s]]
            nxt = [0, 0, 0, 0]
            for i, s in enumerate(seats):
                nxt[s] = seats[(i + 1) % len(seats)]
            self._next = tuple(nxt)
            self._trick_size = len(seats)
        else:
            self._next = _NEXT_SEAT
            self._trick_size = 4
        self.phase = PLAY
        fh = self.forehand
        self.leader = fh
        self._player = fh
        self._legal = self._hands[fh][:]

    def _score_deal(self) -> None:
        """TD-11 .. TD-14, then TD-15 / TD-16."""
        mult = 2 if self._trump == HEARTS else 1  # TD-14
        points = self.points
        playing = self.playing
        if not self._brostedt:
            delta = _DELTA[mult]
            won = self.tricks_won
            points[0] += delta[won[0]]
            points[1] += delta[won[1]]
            points[2] += delta[won[2]]
            points[3] += delta[won[3]]
        elif playing.count(True) == 1:
            points[self.forehand] -= 5 * mult  # brostedt: all but forehand dropped
        else:
            for p, t in enumerate(self.tricks_won):
                if not playing[p]:
                    continue  # brostedt: a player who dropped out scores nothing
                if t == 5:
                    delta = -10  # TD-11 and TD-12
                elif t == 0:
                    delta = 5  # TD-13
                else:
                    delta = -t  # TD-11
                points[p] += delta * mult
        if min(points) <= 0 or self.deal >= self.game.params["max_deals"]:
            self.phase = OVER
            self._player = TERMINAL
            self._legal = []
            return
        self.last_tricks = tuple(self.tricks)  # TD-18: the fifth trick is seen whole
        self.dealer = _NEXT_SEAT[self.dealer]  # TD-4
        self._start_deal()

    # --- resuming from a position (determinize) ---------------------------------------------

    def _resume(self) -> None:
        """Set the player to act, the legal actions and the trick bookkeeping from the fields."""
        self._name = self.game.name
        self._brostedt = self.game.variant == "brostedt"
        self._pub = None
        self._pub_prev = None
        self._pending = False
        self._lazy = False
        phase = self.phase
        fh = self.forehand
        self._trump = -1 if self.trump is None else int(self.trump)
        self._led, self._power, self._best, self._best_seat = -1, None, -1, -1
        self._next, self._trick_size = _NEXT_SEAT, 4
        if phase == OVER:
            self._player, self._legal = TERMINAL, []
        elif phase == TRUMP:
            self._player, self._legal = fh, list(SUITS)
        elif phase == EXCHANGE:
            p = fh
            while self.exchanged[p] is not None:
                p = _NEXT_SEAT[p]
            self._player, self._legal = p, _exchanges(self._hands[p])
        elif phase == DECIDE:
            p = _NEXT_SEAT[fh]
            while self.playing[p] is not None:
                p = _NEXT_SEAT[p]
            self._player, self._legal = p, list(_STAY_OR_DROP)
        else:
            trick = self.trick
            self._start_play()
            self.leader = trick[0][0] if trick else (self.tricks[-1].winner if self.tricks else fh)
            self._player = self.leader
            self._legal = self._hands[self.leader][:]
            self.trick = []
            for seat, card in trick:
                # the trick so far goes through the hot path again, which sets the bookkeeping
                if seat != self._player:
                    raise base.GameError(f"{self.game.name}: seat {seat} played out of turn")
                self._hands[seat].append(card)
                self._legal = [card]
                self.apply_legal(0)
                self.history.pop()


_SHARED_FIELDS = base.other_slots(TwentyDownState, _COPIED_FIELDS, ("chance", "_hands"))
_new_state = object.__new__


class TwentyDown(base.Game):
    """Twenty Down for exactly four players; lower points are better."""

    name = "twenty-down"
    aliases = ("td", "twenty")
    title = "Twenty Down"
    min_players = 4
    max_players = 4
    default_players = 4
    parameters: ClassVar[dict[str, int]] = {
        "start_points": 20,
        "fixed_trump_after": 8,
        "max_deals": 100,
    }
    variants = ("brostedt",)
    score_name = "points"
    better = "lower"
    state_class = TwentyDownState
    # A score built over a dozen deals of trick play, where skill tells: trueskill's default β
    # (σ/2). 1.5 % of pairs tie (equal points) in 2,000 random games: 2 %, never 0.
    rating_defaults: ClassVar[dict[str, float]] = {"beta": 25 / 3 / 2, "draw_probability": 0.02}
    bot_template = TEMPLATE
    rules_summary = RULES
    encoding_class = TwentyDownEncoding
    narrator_class = TwentyDownNarrator

    def table_view(self, observation: TwentyDownObservation, names, style) -> list[str]:
        return table_lines(observation, names, style)

    def prompt_title(self, observation: TwentyDownObservation) -> str:
        return prompt_line(observation)

    def table_drawing(self, state, seat: int | None = None) -> dict:
        return table_drawing(state, seat)

    def check_parameters(self) -> None:
        p = self.params
        if p["start_points"] < 1:
            raise base.InvalidParametersError(
                f"{self.name}: start_points must be at least 1, not {p['start_points']}"
            )
        if p["fixed_trump_after"] < 0:
            raise base.InvalidParametersError(
                f"{self.name}: fixed_trump_after must be 0 or more, not {p['fixed_trump_after']}"
            )
        if p["max_deals"] < 1:
            raise base.InvalidParametersError(
                f"{self.name}: max_deals must be at least 1, not {p['max_deals']}"
            )

    def determinize(
        self, observation: TwentyDownObservation, rng: Any, discarded: Any = ()
    ) -> TwentyDownState:
        """A full state consistent with ``observation``, hidden cards sampled uniformly.

        The observer's hand and everything public (points, dealer, deal number, trump, exchanged
        counts, who plays, the tricks so far) are as observed. The other hands get the right
        sizes, drawn uniformly from all placements of the unseen cards that respect what play
        proves: a player who did not follow suit holds none of it, and one who also did not trump
        holds no trump. The rest are the talon (random order) and the discards. ``discarded``:
        cards the observer remembers discarding this deal (the observation does not show them,
        TD-18); they go to the discards instead of to other hands. ``rng`` is a ``random.Random``.

        Limits: no inference from bidding-like choices (what was named trump, how many were
        exchanged); the state's ``history`` is empty and its chance a fresh ``Chance`` seeded
        from ``rng``, so later deals differ from the real ones and ``record()`` does not replay.
        ``hidden_cards(observation, discarded).state(rng)`` is the same, with the reading of the
        observation done once for many samples.
        """
        hidden = self.__dict__.get("_hidden")  # the last observation's, for many samples of it
        if hidden is None or not hidden.reads(observation, discarded):
            hidden = self._hidden = HiddenCards(self, observation, discarded)
        return hidden.state(rng)

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state.pop("_hidden", None)  # determinize's memo: not a fact of the game
        return state

    def hidden_cards(self, observation: TwentyDownObservation, discarded: Any = ()) -> HiddenCards:
        """What ``observation`` proves about the cards it does not show, read once: ``state(rng)``
        is ``determinize(observation, rng, discarded)``, ``deal(rng)`` only its cards, as ints."""
        return HiddenCards(self, observation, discarded)


class HiddenCards:
    """The cards one observation does not show, ready to be dealt many times (a search bot's
    samples): ``state(rng)`` a full state (``TwentyDown.determinize``), ``deal(rng)`` the cards
    alone. Both make the same random draws, the same as ``determinize`` always made: the
    placement's shuffles, then one ``rng.random()`` that seeds the state's chance."""

    __slots__ = (
        "game",
        "obs",
        "read",
        "discarded_key",
        "phase",
        "own",
        "others",
        "unseen",
        "slots",
        "bounds",
        "discarded",
        "need",
        "playing",
    )

    def __init__(self, game: TwentyDown, obs: TwentyDownObservation, discarded: Any = ()):
        name = game.name
        if obs.game != name:
            raise base.GameError(f"{name}: cannot determinize an observation of {obs.game!r}")
        seat = obs.seat
        phase = _PHASE_INDEX[obs.phase]
        played_by, voids, seen = proven_by_play(obs.hand, obs.tricks, obs.current_trick, obs.trump)
        playing = list(obs.playing) if game.variant == "brostedt" else [True] * 4
        hand_size = 2 if phase == TRUMP else 5
        sizes = [hand_size - played_by[p] if playing[p] else hand_size for p in range(4)]
        if len(obs.hand) != sizes[seat]:
            raise base.GameError(f"{name}: the observation's hand does not fit its phase")
        discarded = list(discarded)
        n_discards = 0 if phase == TRUMP else sum(n for n in obs.exchanged if n is not None)
        if len(discarded) > n_discards or any(c in seen for c in discarded):
            raise base.GameError(f"{name}: the remembered discards do not fit the observation")
        self.discarded_key = tuple(discarded)
        seen.update(discarded)
        self.game = game
        self.obs = obs
        self.read = _observed(obs)
        self.phase = phase
        self.own = sorted(obs.hand)
        self.others = [p for p in range(4) if p != seat]
        self.unseen = [c for c in PACK if c not in seen]
        self.slots = [(p, sizes[p], voids[p]) for p in self.others]
        self.bounds = placement_bounds(self.slots)
        self.discarded = discarded
        self.need = n_discards - len(discarded)
        self.playing = playing

    def reads(self, obs: TwentyDownObservation, discarded: Any) -> bool:
        """Whether this was read from an observation with these very facts, and these discards."""
        return (
            obs is self.obs
            and _observed(obs) == self.read
            and tuple(discarded) == self.discarded_key
        )

    def _draw(self, rng: Any) -> tuple[list[list[Card]], list[Card], float]:
        hands_out, rest = sample_in_bounds(self.unseen, self.slots, self.bounds, rng)
        if hands_out is None:
            name = self.game.name
            raise base.GameError(f"{name}: no deal of the unseen cards fits the observation")
        hands = [self.own, self.own, self.own, self.own]
        for p, cards in zip(self.others, hands_out, strict=True):
            cards.sort()
            hands[p] = cards
        hands[self.obs.seat] = self.own[:]
        return hands, rest, rng.random()

    def deal(self, rng: Any) -> tuple[list[list[int]], list[int]]:
        """A sample of the cards as plain ints: the four hands (sorted) and the talon (top
        first). The discard pile is what is left."""
        hands, rest, _ = self._draw(rng)
        return [list(map(int, hand)) for hand in hands], list(map(int, rest[self.need :]))

    def state(self, rng: Any) -> TwentyDownState:
        """A full state of a sample (``TwentyDown.determinize``)."""
        hands, rest, seed = self._draw(rng)
        obs = self.obs
        state = _new_state(TwentyDownState)
        state.game = self.game
        state.chance = Chance(seed=seed)
        state.history = []
        state.points = list(obs.points)
        state.dealer = obs.dealer
        state.forehand = obs.forehand
        state.deal = obs.deal
        state.trump = obs.trump
        state.phase = self.phase
        state._hands = hands
        need = self.need
        state.discards = self.discarded + rest[:need]
        state._talon = rest[need:]
        state.exchanged = list(obs.exchanged)
        state.playing = self.playing[:]
        state.tricks = list(obs.tricks)
        state.trick = list(obs.current_trick)
        state.tricks_won = list(obs.tricks_won)
        state.last_tricks = tuple(obs.last_tricks)
        state.leader = obs.forehand
        state._resume()
        return state


def _observed(obs: TwentyDownObservation) -> tuple:
    """The facts of an observation ``HiddenCards`` reads (compared to tell a changed one)."""
    return (
        obs.game,
        obs.seat,
        obs.hand,
        obs.phase,
        obs.trump,
        obs.tricks,
        obs.current_trick,
        obs.exchanged,
        obs.playing,
        obs.points,
        obs.dealer,
        obs.forehand,
        obs.deal,
        obs.tricks_won,
        obs.last_tricks,
    )


_sample_placement = sample_placement  # (the name the property tests know it by)


__all__ = [
    "PACK",
    "HiddenCards",
    "Trick",
    "TwentyDown",
    "TwentyDownObservation",
    "TwentyDownState",
]
