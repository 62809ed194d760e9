"""Twenty Down search bots: determinized Monte Carlo over the hidden cards, for every decision.

At each decision the bot samples ``iterations`` full deals consistent with everything it has seen
(``sample_deal``), and scores every legal action on each sample by playing the rest of the deal
out with a fast playout policy for all four seats (the same sample for every action, so the
comparison is fair). It plays the action with the best mean score. That covers the whole deal:

- naming trump (forehand, from two cards): each suit is tried on deals of the other 30 cards,
  followed by everyone's exchange and the play;
- the exchange: each of the 26 discards is tried, drawing from the sampled talon, then the players
  after it exchange and everyone plays;
- stay or drop (variant ``brostedt``): staying is compared with the 0 a drop scores;
- playing a card: each legal card, then the playout.

**What a sample respects.** The engine's ``TwentyDown.determinize`` deals the unseen cards
uniformly among the other hands (of the sizes the phase implies), the talon and the discard pile,
with the hidden hands void in every suit their play proved them void in (did not follow suit; did
not trump either). The bot adds what only it knows: the cards it discarded itself (TD-18 hides
them even from their owner, so it remembers them, checks the memory against later observations
and passes it as ``discarded=``). How many cards each player exchanged fixes how many unseen cards
are in the discard pile and how many are still in the talon. Nothing is inferred from how others
chose (their trump call or how many they exchanged): the opponents are unknown bots.

**Score of a deal.** Points are good when low, so a sample's score is the points the others lose
this deal minus the points the bot loses: ``mean(others' change) - own change``. A deal that ends
the game is scored by the places it leaves instead (``FINAL_WEIGHT`` per player beaten).

**Budgets.** ``iterations`` samples per decision (deterministic: same seed, same answers), cut
short by the wall clock at ``min(time_budget, 0.5 * move_time)`` seconds (anytime: the best
action so far is always ready). A decision with one legal action is answered without search.
All randomness comes from ``self.rng``.
"""

from __future__ import annotations

import time

import arena
from arena.games.twenty_down import TwentyDown

HEARTS = 2
QUEEN = 10
PHASES = ("trump", "exchange", "stay-or-drop", "play", "over")
FINAL_WEIGHT = 6.0  # score of beating one more player when the deal ends the game
_NEXT = (1, 2, 3, 0)


# --- the playout policy (also the heuristic the search improves on) ----------------------------


def policy_exchange(hand: list[int], trump: int) -> list[int]:
    """Cards to throw away: side cards below the queen, lowest first, at most three."""
    weak = [c for c in hand if c // 13 != trump and c % 13 < QUEEN]
    if len(weak) > 3:
        weak.sort(key=lambda c: c % 13)
        weak = weak[:3]
    return weak


def policy_card(hand: list[int], led: int, best: int, trump: int) -> int:
    """The playout's card: win as cheaply as possible, else throw the lowest card.

    ``hand`` sorted; ``led`` the suit led (-1 when leading); ``best`` the card winning so far.
    Leading: the highest trump with two or more trumps, else the highest card.
    """
    if led < 0:
        top = -1
        top_key = -1
        n_trumps = 0
        for c in hand:
            s = c // 13
            if s == trump:
                n_trumps += 1
                top_trump = c
            key = (c % 13) * 2 + (s == trump)
            if key > top_key:
                top_key = key
                top = c
        if n_trumps >= 2:
            return top_trump
        return top
    lo = led * 13
    hi = lo + 13
    legal = [c for c in hand if lo <= c < hi]
    bs = best // 13
    if legal:
        if bs == led:
            for c in legal:  # ascending: the first higher card is the cheapest winner
                if c > best:
                    return c
        return legal[0]
    lo = trump * 13
    hi = lo + 13
    legal = [c for c in hand if lo <= c < hi]
    if legal:
        if bs == trump:
            for c in legal:
                if c > best:
                    return c
            return legal[0]
        return legal[0]  # any trump wins: the lowest
    low = hand[0]
    for c in hand:
        if c % 13 < low % 13:
            low = c
    return low


def play_out(hands, trump, leader, trick, won, nxt, size, first=None):
    """Play the rest of the deal by the playout policy. Changes ``hands`` and ``won`` in place.

    ``trick`` is the trick in progress as ``(seat, card)`` pairs; ``first``, when given, is the
    card the player to act plays instead of the policy's choice. Returns ``won``.
    """
    cards_left = sum(len(h) for h in hands)
    if trick:
        lead_seat = trick[0][0]
        led = trick[0][1] // 13
        best = trick[0][1]
        best_seat = lead_seat
        for seat, c in trick[1:]:
            s = c // 13
            bs = best // 13
            if (s == bs and c > best) or (s == trump and bs != trump):
                best, best_seat = c, seat
        p = nxt[trick[-1][0]]
        n = len(trick)
    else:
        led, best, best_seat, p, n = -1, -1, -1, leader, 0
    while cards_left:
        hand = hands[p]
        if first is not None:
            c = first
            first = None
        else:
            c = policy_card(hand, led, best, trump)
        hand.remove(c)
        cards_left -= 1
        if n == 0:
            led, best, best_seat = c // 13, c, p
        else:
            s = c // 13
            bs = best // 13
            if (s == bs and c > best) or (s == trump and bs != trump):
                best, best_seat = c, p
        n += 1
        if n == size:
            won[best_seat] += 1
            p = best_seat
            n, led, best = 0, -1, -1
        else:
            p = nxt[p]
    return won


def deal_changes(won, playing, hearts: bool) -> list[int]:
    """TD-11..TD-14: each seat's change of points for tricks won (0 for a seat not playing)."""
    mult = 2 if hearts else 1
    out = []
    for t, on in zip(won, playing, strict=True):
        if not on:
            out.append(0)
        elif t == 5:
            out.append(-10 * mult)
        elif t == 0:
            out.append(5 * mult)
        else:
            out.append(-t * mult)
    return out


def utility(seat: int, points, changes) -> float:
    """The score of one played-out deal for ``seat`` (higher is better)."""
    after = [p + d for p, d in zip(points, changes, strict=True)]
    if min(after) <= 0:  # the deal ends the game: what counts is the places
        mine = after[seat]
        beaten = sum(1 for s, p in enumerate(after) if s != seat and p > mine)
        tied = sum(1 for s, p in enumerate(after) if s != seat and p == mine)
        return FINAL_WEIGHT * (beaten + 0.5 * tied) - changes[seat]
    others = [d for s, d in enumerate(changes) if s != seat]
    return sum(others) / len(others) - changes[seat]


def _next_table(playing) -> tuple[int, ...]:
    if all(playing):
        return _NEXT
    seats = [s for s in range(4) if playing[s]]
    nxt = [0, 0, 0, 0]
    for i, s in enumerate(seats):
        nxt[s] = seats[(i + 1) % len(seats)]
    return tuple(nxt)


# --- sampling ------------------------------------------------------------------------------------


def sample_deal(game: TwentyDown, observation, rng, discarded=()):
    """A full deal consistent with ``observation`` (and the bot's own ``discarded`` cards).

    Returns the engine state from ``TwentyDown.determinize``: hidden hands void where play proved
    them void, the bot's discards in the discard pile, the rest of the unseen cards spread
    uniformly over the other hands, the talon and the discard pile.
    """
    return game.determinize(observation, rng, discarded=discarded)


# --- the bot -------------------------------------------------------------------------------------


class TwentyDownSearch(arena.Bot):
    """Determinized Monte Carlo search for Twenty Down (see the module docstring)."""

    name = "td-search"
    games = {"twenty-down"}
    iterations = 16  # samples per decision
    time_budget = 0.25  # seconds per decision at most (and never over half the move time)

    def start(self, info):
        self._game = TwentyDown(players=info.players, variant=info.variant, **info.params)
        self._cap = min(self.time_budget, 0.5 * info.move_time)

    # -- memory of own discards, checked against what is observed --

    def _discarded(self, obs) -> tuple[int, ...]:
        memory = getattr(self, "_memory", None)
        if memory is None or memory[0] != obs.deal or obs.phase in ("trump",):
            return ()
        cards = memory[1]
        played = {c for t in obs.tricks for _, c in t.cards} | {c for _, c in obs.current_trick}
        if (
            obs.exchanged[obs.seat] != len(cards)
            or any(c in obs.hand or c in played for c in cards)
        ):
            return ()  # the referee played another discard for us: forget it
        return cards

    def act(self, obs):
        legal = obs.legal_actions
        if len(legal) == 1:
            return legal[0]
        if not hasattr(self, "_game"):  # act() without start(): the standard game, 1 s
            variant = "brostedt" if obs.playing is not None else None
            self._game = TwentyDown(variant=variant)
            self._cap = min(self.time_budget, 0.5)
        deadline = time.perf_counter() + self._cap
        phase = obs.phase
        if phase == "play":
            scores = self._search(obs, legal, self._eval_play, deadline)
        elif phase == "exchange":
            scores = self._search(obs, legal, self._eval_exchange, deadline)
        elif phase == "trump":
            scores = self._search(obs, legal, self._eval_trump, deadline)
        else:
            scores = self._search(obs, legal, self._eval_stay, deadline)
        best = max(range(len(legal)), key=lambda i: (scores[i], -i))
        choice = legal[best]
        if phase == "exchange":
            self._memory = (obs.deal, tuple(choice))
        return choice

    def _search(self, obs, legal, evaluate, deadline) -> list[float]:
        """Sum of each action's score over the samples (the same samples for every action)."""
        totals = [0.0] * len(legal)
        discarded = self._discarded(obs)
        rng = self.rng
        clock = time.perf_counter
        for _ in range(self.iterations):
            state = sample_deal(self._game, obs, rng, discarded)
            evaluate(obs, state, legal, totals)
            if clock() >= deadline:
                break
        return totals

    # -- evaluations of every legal action on one sampled deal --

    def _eval_play(self, obs, state, legal, totals):
        seat = obs.seat
        trump = int(state.trump)
        playing = list(state.playing)
        nxt = _next_table(playing)
        size = sum(1 for p in playing if p)
        base_hands = [[int(c) for c in h] if playing[p] else [] for p, h in enumerate(state.hands)]
        trick = [(s, int(c)) for s, c in obs.current_trick]
        hearts = trump == HEARTS
        for i, card in enumerate(legal):
            won = play_out(
                [h[:] for h in base_hands], trump, seat, trick, list(obs.tricks_won), nxt, size,
                first=int(card),
            )
            totals[i] += utility(seat, obs.points, deal_changes(won, playing, hearts))

    def _finish_exchanges(self, hands, talon, exchanged, forehand, trump, start):
        """The players from ``start`` up to the end of the exchange round exchange by policy."""
        p = start
        while True:
            if exchanged[p] is None:
                hand = hands[p]
                out = policy_exchange(hand, trump)
                if out:
                    for c in out:
                        hand.remove(c)
                    hand.extend(talon[: len(out)])
                    del talon[: len(out)]
                    hand.sort()
            p = _NEXT[p]
            if p == forehand:
                return

    def _play_deal(self, obs, hands, trump):
        """Policy play of a whole deal from forehand's lead; the bot's score."""
        playing = [True] * 4
        won = play_out(hands, trump, obs.forehand, [], [0, 0, 0, 0], _NEXT, 4)
        return utility(obs.seat, obs.points, deal_changes(won, playing, trump == HEARTS))

    def _eval_exchange(self, obs, state, legal, totals):
        seat = obs.seat
        trump = int(state.trump)
        hands0 = [[int(c) for c in h] for h in state.hands]
        talon0 = [int(c) for c in state.talon]
        exchanged = list(obs.exchanged)
        exchanged[seat] = 0
        brostedt = obs.playing is not None
        for i, discard in enumerate(legal):
            hands = [h[:] for h in hands0]
            talon = talon0[:]
            hand = hands[seat]
            n = len(discard)
            if n:
                for c in discard:
                    hand.remove(int(c))
                hand.extend(talon[:n])
                del talon[:n]
                hand.sort()
            self._finish_exchanges(hands, talon, exchanged, obs.forehand, trump, _NEXT[seat])
            if brostedt:
                totals[i] += self._stay_value(obs, hands, trump, [None] * 4)
            else:
                totals[i] += self._play_deal(obs, hands, trump)

    def _eval_trump(self, obs, state, legal, totals):
        fh = obs.forehand
        hands0 = [[int(c) for c in h] for h in state.hands]
        talon0 = [int(c) for c in state.talon]
        brostedt = obs.playing is not None
        for i, suit in enumerate(legal):
            trump = int(suit)
            hands = [h[:] for h in hands0]
            talon = talon0[:]
            for k in range(4):
                hand = hands[(fh + k) % 4]
                hand.extend(talon[3 * k : 3 * k + 3])
                hand.sort()
            del talon[:12]
            self._finish_exchanges(hands, talon, [None] * 4, fh, trump, fh)
            if brostedt:
                totals[i] += self._stay_value(obs, hands, trump, [None] * 4)
            else:
                totals[i] += self._play_deal(obs, hands, trump)

    def _stay_value(self, obs, hands, trump, playing):
        """brostedt: the deal's score when the undecided stay with a trump or an ace in hand."""
        playing = list(playing)
        fh = obs.forehand
        playing[fh] = True
        for p in range(4):
            if playing[p] is None:
                playing[p] = trump == 3 or any(c // 13 == trump or c % 13 == 12 for c in hands[p])
        return self._play_some(obs, hands, trump, playing)

    def _play_some(self, obs, hands, trump, playing):
        seat = obs.seat
        if sum(playing) == 1:
            won = [5 if p else 0 for p in playing]
            changes = [(-5 if p else 0) * (2 if trump == HEARTS else 1) for p in playing]
            return utility(seat, obs.points, changes)
        hands = [h if playing[p] else [] for p, h in enumerate(hands)]
        won = play_out(hands, trump, obs.forehand, [], [0, 0, 0, 0], _next_table(playing),
                       sum(playing))
        return utility(seat, obs.points, deal_changes(won, playing, trump == HEARTS))

    def _eval_stay(self, obs, state, legal, totals):
        seat = obs.seat
        trump = int(state.trump)
        hands0 = [[int(c) for c in h] for h in state.hands]
        for i, choice in enumerate(legal):
            playing = list(obs.playing)
            playing[seat] = choice == "stay"
            if choice == "stay":
                totals[i] += self._stay_value(obs, [h[:] for h in hands0], trump, playing)
            else:
                totals[i] += self._stay_value_dropped(obs, hands0, trump, playing)

    def _stay_value_dropped(self, obs, hands0, trump, playing):
        playing = list(playing)
        for p in range(4):
            if playing[p] is None:
                playing[p] = trump == 3 or any(
                    c // 13 == trump or c % 13 == 12 for c in hands0[p]
                )
        return self._play_some(obs, [h[:] for h in hands0], trump, playing)


@arena.hookimpl
def arena_register_bots(register):
    register(TwentyDownSearch, name="td-search-small", iterations=6, time_budget=0.1)
    register(TwentyDownSearch, name="td-search-large", iterations=48, time_budget=0.25)
