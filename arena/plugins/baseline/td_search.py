"""Twenty Down search bots: determinized Monte Carlo over the hidden cards, for every decision.

At each decision the bot samples deals consistent with everything it has seen (``sample_deal``;
as plain ints, ``sample_cards``) and scores each legal action on each sampled deal by playing the
rest of the deal out with a fast playout policy for all four seats; the same samples serve every
action, so they are compared on equal cards. It plays the action with the best mean score. Every
decision of a deal is searched:

- naming trump (forehand, holding two cards): each suit, on deals of the 30 unseen cards, then
  everyone's exchange and the play — a look-ahead over the whole deal;
- the exchange: each discard worth trying (within a suit only the lowest cards go: throwing a card
  away and keeping a lower one of its suit never wins more tricks), drawing from the sampled
  talon, then the later players exchange and everyone plays;
- stay or drop (variant ``brostedt``): staying against the nothing a drop scores;
- playing a card: each legal card, then the playout.

With more than four actions, the worse half is dropped after a quarter and again after half of
the samples (successive halving), so the budget goes to the actions still in contention.

**The playout policy** (also the bot's whole strategy with no budget): exchange the up to three
lowest side cards that are not aces; lead the highest trump with two or more trumps, else the
highest card; take a trick with the cheapest card that wins it so far, else throw the cheapest.

**What a sample respects** (``sample_deal``). The engine's ``TwentyDown.determinize`` deals the
unseen cards uniformly over the other hands (their sizes follow from the phase and the cards
played), the talon and the discard pile, with every hand void in the suits its play proved it
void in (it did not follow suit; nor trump, when it did not trump). The bot adds what only it
knows: the cards it discarded itself. TD-18 hides them even from their owner, so the bot
remembers them, checks the memory against each later observation (forgotten if the referee played
another discard for it) and passes them as ``discarded=``: they lie in the discard pile and in no
hand. How many cards each player exchanged fixes how many unseen cards lie in the discard pile
and how many in the talon. Nothing is inferred from how the others chose: they are unknown bots.

**Score of a deal** (``utility``). Fewer points are better, so a playout scores the points the
others lose this deal, on average, minus the points the bot loses. A deal that ends the game is
scored by places instead: ``FINAL_WEIGHT`` for each player the bot finishes ahead of.

**Budgets.** ``iterations`` samples per decision — deterministic: the same seed gives the same
answers — cut short after ``time_budget`` seconds of CPU time or half the move time on the clock,
whichever comes first (``arena.Deadline``); the best action so far is always ready (anytime). A
decision with one legal action is answered without search. Every random draw comes from
``self.rng``.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

import arena
from arena.games.twenty_down import TwentyDown

HEARTS = 2
DIAMONDS = 3
ACE = 12
FINAL_WEIGHT = 6.0  # score of finishing ahead of one more player, when the deal ends the game
_NEXT = (1, 2, 3, 0)


# --- the playout policy: plain ints, card = suit * 13 + rank -------------------------------------


def policy_exchange(hand, trump):
    """Cards to throw away: the lowest side cards that are not aces, at most three."""
    weak = [c for c in hand if c // 13 != trump and c % 13 != ACE]
    if len(weak) > 3:
        weak.sort(key=lambda c: c % 13)
        del weak[3:]
    return weak


def policy_card(hand, led, best, trump):
    """The playout's card from a sorted ``hand``: ``led`` is the suit led (-1 when leading),
    ``best`` the card winning the trick so far.

    Leading: the highest trump with two trumps or more, else the highest card. Following: the
    cheapest card that beats ``best``, else the cheapest card (side suits before trumps).
    """
    if led < 0:
        top = top_trump = -1
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
        return top_trump if n_trumps >= 2 else top
    lo = led * 13
    legal = [c for c in hand if lo <= c < lo + 13]
    bs = best // 13
    if legal:  # following suit (TD-9)
        if bs == led:
            for c in legal:  # ascending: the first higher card is the cheapest winner
                if c > best:
                    return c
        return legal[0]
    lo = trump * 13
    legal = [c for c in hand if lo <= c < lo + 13]
    if legal:  # void: must trump
        if bs == trump:
            for c in legal:
                if c > best:
                    return c
        return legal[0]
    low = hand[0]
    for c in hand:
        if c % 13 < low % 13:
            low = c
    return low


def play_out(hands, trump, leader, trick, won, nxt, size, first=None):
    """Play the rest of the deal by ``policy_card``; return ``won`` (tricks per seat).

    Changes ``hands`` and ``won`` in place. ``trick``: the ``(seat, card)`` pairs of the trick in
    progress; ``nxt``: the next seat of each seat; ``size``: cards in a trick; ``first``: the card
    the player to act plays instead of the policy's. The hot loop of the search: ``policy_card``
    is written out in it, finding a suit's cards in the sorted hand by bisection (a test checks
    that it plays the same cards).
    """
    cards_left = sum(map(len, hands))
    t_lo = trump * 13
    t_hi = t_lo + 13
    if trick:
        led = trick[0][1] // 13
        best = trick[0][1]
        best_seat = trick[0][0]
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
        elif led < 0:  # leading: the highest trump with two or more, else the highest card
            lo = bisect_left(hand, t_lo)
            hi = bisect_left(hand, t_hi, lo)
            if hi - lo >= 2:
                c = hand[hi - 1]
            else:
                c = -1
                top_key = -1
                for x in hand:
                    key = (x % 13) * 2 + (x // 13 == trump)
                    if key > top_key:
                        top_key = key
                        c = x
        else:
            bs = best // 13
            lo = bisect_left(hand, led * 13)
            hi = bisect_left(hand, led * 13 + 13, lo)
            if lo < hi:  # following suit: the cheapest winner, else the cheapest
                c = hand[lo]
                if bs == led:
                    i = bisect_right(hand, best, lo, hi)
                    if i < hi:
                        c = hand[i]
            else:
                lo = bisect_left(hand, t_lo)
                hi = bisect_left(hand, t_hi, lo)
                if lo < hi:  # void: must trump
                    c = hand[lo]
                    if bs == trump:
                        i = bisect_right(hand, best, lo, hi)
                        if i < hi:
                            c = hand[i]
                else:  # the cheapest card
                    c = hand[0]
                    for x in hand:
                        if x % 13 < c % 13:
                            c = x
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


def exchange_candidates(legal):
    """The discards worth searching: within each suit only the lowest cards go."""
    hand = sorted({c for discard in legal for c in discard})
    out = []
    for discard in legal:
        if all(
            not any(x // 13 == c // 13 and x < c and x not in discard for x in hand)
            for c in discard
        ):
            out.append(discard)
    return out


def deal_changes(won, playing, hearts):
    """TD-11..TD-14: each seat's change of points (0 for a seat that dropped out)."""
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


def utility(seat, points, changes):
    """The score of one played-out deal for ``seat`` (higher is better)."""
    after = [p + d for p, d in zip(points, changes, strict=True)]
    if min(after) <= 0:  # the deal ends the game (TD-15): what counts is the places
        mine = after[seat]
        ahead = sum(1 for s, p in enumerate(after) if s != seat and p > mine)
        tied = sum(1 for s, p in enumerate(after) if s != seat and p == mine)
        return FINAL_WEIGHT * (ahead + 0.5 * tied) - changes[seat]
    return (sum(changes) - changes[seat]) / 3 - changes[seat]


def next_table(playing):
    """The next seat of each seat among those playing (brostedt: some may have dropped)."""
    if all(playing):
        return _NEXT
    seats = [s for s in range(4) if playing[s]]
    nxt = [0, 0, 0, 0]
    for i, s in enumerate(seats):
        nxt[s] = seats[(i + 1) % len(seats)]
    return tuple(nxt)


def sample_deal(game, observation, rng, discarded=()):
    """A full deal consistent with ``observation`` and the bot's own ``discarded`` cards.

    The engine's ``determinize``: hidden hands void where play proved them void, ``discarded`` in
    the discard pile, every other unseen card spread uniformly over the other hands, the talon and
    the discard pile. Returns the engine state. (The bot itself reads the observation once a
    decision, ``game.hidden_cards``, and takes each sample's cards alone: ``sample_cards``.)
    """
    return game.determinize(observation, rng, discarded=discarded)


def sample_cards(hidden, rng):
    """``sample_deal``'s cards, from ``hidden = game.hidden_cards(observation, discarded)``: the
    four hands (sorted) and the talon (top first), as plain ints; the same random draws."""
    return hidden.deal(rng)


# --- the bot --------------------------------------------------------------------------------------


class TwentyDownSearch(arena.Bot):
    """Determinized Monte Carlo search for Twenty Down (see the module docstring)."""

    name = "td-search"
    # Up to a fifth of a second a move: fielded only when named (--bots, a tournament file).
    by_default = False
    games = {"twenty-down"}
    iterations = 32  # sampled deals per decision
    time_budget = 0.2  # CPU seconds per decision at most (and never half the move time of wall)

    def start(self, info):
        self._game = TwentyDown(players=info.players, variant=info.variant, **info.params)
        self._wall_cap = 0.5 * info.move_time

    def act(self, obs):
        legal = obs.legal_actions
        if not hasattr(self, "_game"):  # act() without start(): the standard game, 1 s a move
            self._game = TwentyDown(variant="brostedt" if obs.playing is not None else None)
            self._wall_cap = 0.5
        phase = obs.phase
        if len(legal) == 1:
            choice = legal[0]
        elif self.iterations <= 0:
            choice = self._policy_action(obs)
        else:
            deadline = arena.Deadline(self.time_budget, self._wall_cap)
            if phase == "play":
                actions, evaluate = legal, self._eval_play
            elif phase == "exchange":
                actions, evaluate = exchange_candidates(legal), self._eval_exchange
            elif phase == "trump":
                actions, evaluate = legal, self._eval_trump
            else:
                actions, evaluate = legal, self._eval_stay
            choice = actions[self._search(obs, actions, evaluate, deadline)]
        if phase == "exchange":
            self._memory = (obs.deal, tuple(choice))
        return choice

    def discarded(self, obs):
        """The cards this bot discarded this deal, if its memory fits the observation."""
        memory = getattr(self, "_memory", None)
        if memory is None or memory[0] != obs.deal or obs.phase == "trump":
            return ()
        cards = memory[1]
        played = {c for t in obs.tricks for _, c in t.cards} | {c for _, c in obs.current_trick}
        if obs.exchanged[obs.seat] != len(cards) or any(
            c in obs.hand or c in played for c in cards
        ):
            return ()  # the referee played another discard for this bot: forget it
        return cards

    def _policy_action(self, obs):
        legal = obs.legal_actions
        hand = [int(c) for c in obs.hand]
        if obs.phase == "trump":
            best = max(hand, key=lambda c: c % 13)
            return next((s for s in legal if s == best // 13), legal[0])
        if obs.phase == "stay-or-drop":
            return "stay" if "stay" in legal else legal[0]
        trump = int(obs.trump)
        if obs.phase == "exchange":
            out = tuple(sorted(policy_exchange(hand, trump)))
            return next((a for a in legal if a == out), legal[0])
        trick = obs.current_trick
        led = best = -1
        if trick:
            led = best = int(trick[0][1])
            led //= 13
            for _, c in trick[1:]:
                s = c // 13
                if (s == best // 13 and c > best) or (s == trump and best // 13 != trump):
                    best = int(c)
        c = policy_card(hand, led, best, trump)
        return next((a for a in legal if a == c), legal[0])

    def _search(self, obs, actions, evaluate, deadline):
        """The index of the action with the best mean score over the samples."""
        alive = list(range(len(actions)))
        totals = [0.0] * len(actions)
        counts = [0] * len(actions)
        discarded = self.discarded(obs)
        rng = self.rng
        n = self.iterations
        cuts = {max(1, n // 4), max(2, n // 2)}
        hidden = self._game.hidden_cards(obs, discarded)
        for it in range(1, n + 1):
            hands, talon = sample_cards(hidden, rng)
            scores = evaluate(obs, hands, talon, [actions[i] for i in alive])
            for i, v in zip(alive, scores, strict=True):
                totals[i] += v
                counts[i] += 1
            if deadline.passed():
                break
            if it in cuts and len(alive) > 4:
                alive.sort(key=lambda i: -totals[i] / counts[i])
                alive = sorted(alive[: max(4, len(alive) // 2)])
        return max(alive, key=lambda i: (totals[i] / counts[i], -i))

    # -- each evaluation scores a list of actions on one sampled deal --

    def _eval_play(self, obs, hands, talon, actions):
        seat = obs.seat
        trump = int(obs.trump)
        playing = list(obs.playing) if obs.playing is not None else [True] * 4
        nxt = next_table(playing)
        size = sum(playing)
        hands = [h if playing[p] else [] for p, h in enumerate(hands)]
        trick = [(s, int(c)) for s, c in obs.current_trick]
        hearts = trump == HEARTS
        out = []
        for card in actions:
            won = play_out(
                [h[:] for h in hands],
                trump,
                seat,
                trick,
                list(obs.tricks_won),
                nxt,
                size,
                first=int(card),
            )
            out.append(utility(seat, obs.points, deal_changes(won, playing, hearts)))
        return out

    def _eval_exchange(self, obs, hands0, talon0, actions):
        seat = obs.seat
        trump = int(obs.trump)
        exchanged = list(obs.exchanged)
        exchanged[seat] = 0
        out = []
        for discard in actions:
            hands = [h[:] for h in hands0]
            talon = talon0[:]
            if discard:
                _swap(hands[seat], [int(c) for c in discard], talon)
            self._finish_deal(obs, hands, talon, trump, exchanged, _NEXT[seat], out)
        return out

    def _eval_trump(self, obs, hands0, talon0, actions):
        fh = obs.forehand
        out = []
        for suit in actions:
            hands = [h[:] for h in hands0]
            talon = talon0[:]
            for k in range(4):  # TD-5: three more cards each, from forehand
                hand = hands[(fh + k) % 4]
                hand.extend(talon[3 * k : 3 * k + 3])
                hand.sort()
            del talon[:12]
            self._finish_deal(obs, hands, talon, int(suit), [None] * 4, fh, out)
        return out

    def _eval_stay(self, obs, hands0, talon0, actions):
        seat = obs.seat
        trump = int(obs.trump)
        out = []
        for choice in actions:
            playing = list(obs.playing)
            playing[seat] = choice == "stay"
            out.append(self._play(obs, [h[:] for h in hands0], trump, playing))
        return out

    def _finish_deal(self, obs, hands, talon, trump, exchanged, start, out):
        """The players from ``start`` to the end of the exchange round exchange by the policy;
        then (brostedt: the undecided decide) everyone plays. Appends the score to ``out``."""
        p = start
        fh = obs.forehand
        while True:
            if exchanged[p] is None:
                discard = policy_exchange(hands[p], trump)
                if discard:
                    _swap(hands[p], discard, talon)
            p = _NEXT[p]
            if p == fh:
                break
        playing = list(obs.playing) if obs.playing is not None else [True] * 4
        out.append(self._play(obs, hands, trump, playing))

    def _play(self, obs, hands, trump, playing):
        """Play the deal from forehand's lead; brostedt: the undecided stay with a trump or an
        ace (everyone plays when diamonds are trump; forehand always plays)."""
        playing = list(playing)
        if None in playing:
            playing[obs.forehand] = True
            for p in range(4):
                if playing[p] is None:
                    playing[p] = trump == DIAMONDS or any(
                        c // 13 == trump or c % 13 == ACE for c in hands[p]
                    )
        hearts = trump == HEARTS
        if sum(playing) == 1:  # brostedt: forehand alone takes five tricks, 5 points off
            changes = [-5 * (2 if hearts else 1) if on else 0 for on in playing]
            return utility(obs.seat, obs.points, changes)
        hands = [h if playing[p] else [] for p, h in enumerate(hands)]
        won = play_out(
            hands, trump, obs.forehand, [], [0, 0, 0, 0], next_table(playing), sum(playing)
        )
        return utility(obs.seat, obs.points, deal_changes(won, playing, hearts))


def _swap(hand, discard, talon):
    """Exchange ``discard`` for the top cards of the talon (TD-7)."""
    for c in discard:
        hand.remove(c)
    n = len(discard)
    hand.extend(talon[:n])
    del talon[:n]
    hand.sort()


@arena.hookimpl
def arena_register_bots(register):
    register(TwentyDownSearch, name="td-search-small", iterations=24, time_budget=0.05)
    register(TwentyDownSearch, name="td-search-large", iterations=160, time_budget=0.2)
