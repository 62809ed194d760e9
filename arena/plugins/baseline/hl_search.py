"""How Low Can You Go? search bots: the expected chips of each discard, from sampled draws.

A hand's total is a sum of card values, so of all discards of ``k`` cards the best throws the ``k``
highest (keeping a lower card instead of a higher one never helps). A decision is therefore how
many cards to throw: at most four choices (and ``redraw`` in the ``whalen`` variant).

For each decision the bot draws ``iterations`` samples of what it cannot see (``sample_hidden``):
the other hands, the discard pile, the stock. On each sample

- the opponents play the deal out with the threshold policy (throw every card worth more than a
  fresh draw, 6.77 on average; stand on a total of 5 or less), which gives their final totals;
- for each choice, the bot throws its cards, draws the replacements from the same sample, and
  plays its later rounds with its own thresholds, which gives its final total and whether it
  holds both red aces.

The bot's final totals (per choice) and the opponents' final totals (per sample) are then paired
in every combination, and each pair is scored as the showdown would pay it (HL-10..HL-15): the
prize band of a sole lowest hand, a shared prize, what the bank can still pay, the fee of the
highest hand — and what the chip situation makes of it: being knocked out costs ``elim_cost``
beyond the chips (with two chips left, being the sole highest hand ends the game for the bot),
each opponent knocked out is worth ``elim_gain``. The bot plays the choice with the best mean
score: the expected final hand value of each choice, in chips.

**Its own policy** (also the whole strategy with ``iterations = 0``) throws the cards worth more
than what the slot is expected to end up worth if redrawn: 6.77 in the last round (a fresh card),
5.03 in the second (a fresh card, redrawn once more if above 6.77), 4.02 in the first.

**What a sample respects.** Unseen cards are the pack (two packs for five players or more) minus
the bot's hand and minus the cards it knows lie in the discard pile: its own discards and the
hands shown for a ``whalen`` redraw, since the pile was last shuffled back under the stock (HL-8;
the bot replays the public discard counts to find when, ``replay_counts``). Those known cards go
to the pile; the other hands, the rest of the pile and the stock are dealt from the unseen cards.
The public discard counts say something about the hidden cards too: a player who last kept
``5 - k`` cards (discarded ``k < 3``) kept them because they were low, and what the others threw
since the last reshuffle was high. So — except with probability ``doubt``, for players who
choose otherwise — a player's kept cards are drawn from the unseen cards worth 6 or less, the
others' discards in the pile from those worth more, and the rest (the cards drawn blind, the
stock, in a fresh random order) from whatever is left.

**Budgets.** ``iterations`` samples per decision, cut short after ``time_budget`` seconds of CPU
time or half the move time on the clock, whichever comes first (``arena.Deadline``; anytime). A
decision with one sensible choice is answered at once. Every random draw comes from ``self.rng``.
"""

from __future__ import annotations

import arena
from arena.games.how_low import VALUE
from arena.games.how_low.determinize import shuffle

REDRAW = "redraw"
RED_ACES = (38, 51)  # A♥ and A♦ as card numbers (suit * 13 + rank)
LOW = 6  # under the exchange-count model a kept card is worth at most this


def _thresholds():
    """The value a card slot ends up worth if redrawn now, per round (optimal stopping)."""
    fresh = sum(VALUE) / 52  # last round: a fresh card, 6.77
    second = sum(min(v, fresh) for v in VALUE) / 52  # redrawn once more if above 6.77: 5.03
    first = sum(min(v, second) for v in VALUE) / 52  # 4.02
    return (first, second, fresh)


THRESHOLDS = _thresholds()
FRESH = THRESHOLDS[2]


def discard_choices(legal, hand):
    """The sensible actions: throw the ``k`` highest cards for each legal ``k``; ``redraw``."""
    by_value = sorted(hand, key=lambda c: (VALUE[c], c), reverse=True)
    options = {tuple(sorted(a)): a for a in legal if a != REDRAW}
    out = []
    for k in range(4):
        action = options.get(tuple(sorted(by_value[:k])))
        if action is not None:
            out.append(action)
    if REDRAW in legal:
        out.append(REDRAW)
    return out


def policy_discard(hand, threshold=FRESH, cap=3):
    """Stand on a total of 5 or less; else throw every card worth more than ``threshold``
    (the highest first, at most ``cap``)."""
    if sum(VALUE[c] for c in hand) <= 5:
        return []
    high = [c for c in hand if VALUE[c] > threshold]
    if len(high) > cap:
        high.sort(key=lambda c: VALUE[c], reverse=True)
        del high[cap:]
    return high


def replay_counts(obs, pack_size):
    """Replay this deal's public discard counts (HL-8): the index of the turn that last shuffled
    the pile back under the stock (-1 if none), or ``None`` when the counts do not add up."""
    stock = pack_size - 5 * len(obs.order)
    pile = 0
    last = -1
    for i, (_, count) in enumerate(obs.discards):
        if count and stock < count:
            stock += pile
            pile = 0
            last = i
        stock -= count
        pile += count
    if stock != obs.stock_size or pile != obs.discard_size:
        return None
    return last


def known_pile(obs, memory, pack_size):
    """The cards the bot knows lie in the discard pile: its own discards (``memory``: turn index
    -> cards) and hands shown for a redraw, from the turn that last reshuffled the pile on."""
    last = replay_counts(obs, pack_size)
    if last is None:
        return []
    cards = []
    for i, discarded in memory.items():
        if (
            last <= i < len(obs.discards)
            and obs.discards[i] == (obs.seat, len(discarded))
            and not any(c in obs.hand for c in discarded)  # else the referee played for the bot
        ):
            cards.extend(discarded)
    redraws = [i for i, (_, count) in enumerate(obs.discards) if count == 5]
    for i, (_, shown) in zip(redraws, obs.shown, strict=False):
        if i >= last:
            cards.extend(shown)
    return cards


def sample_hidden(obs, rng, pile_cards=(), doubt=1.0):
    """The other hands, the discard pile and the stock, consistent with ``obs``.

    Returns ``(hands, pile, stock)``: ``hands`` per seat (the bot's own as observed, ``[]`` for
    seats out of the deal), the pile (``pile_cards`` first, then unseen cards up to its size) and
    the stock (top last). Read through the exchange-count model (each player's reading ignored
    with probability ``doubt``; 1.0 makes every hidden card uniform over the unseen cards): a
    player who last kept ``5 - k`` cards holds that many cards worth at most ``LOW``, and the
    cards the others threw since the pile was last reshuffled are worth more than ``LOW``.
    """
    n = len(obs.chips)
    pack = list(range(52)) * (1 if n <= 4 else 2)
    unseen = pack[:]
    for c in obs.hand:
        unseen.remove(c)
    rest = unseen[:]
    for c in pile_cards:
        if c not in rest:  # cannot happen with a consistent memory: then ignore the memory
            pile_cards = ()
            break
        rest.remove(c)
    else:
        unseen = rest
    shuffle(rng, unseen)  # (rng.shuffle, faster: the same draws, the same order)

    def take(low: bool) -> int:
        """An unseen card worth at most LOW (or more than LOW), else any; removed."""
        for i in range(len(unseen) - 1, -1, -1):
            if (VALUE[unseen[i]] <= LOW) == low:
                return unseen.pop(i)
        return unseen.pop()

    hands = [[] for _ in range(n)]
    hands[obs.seat] = sorted(obs.hand)
    last_count = {}
    for seat, count in obs.discards:
        if count <= 3:
            last_count[seat] = count
    for seat in obs.order:
        if seat == obs.seat:
            continue
        k = last_count.get(seat)
        hand = []
        if k is not None and k < 3 and rng.random() >= doubt:
            hand = [take(True) for _ in range(5 - k)]
        while len(hand) < 5:
            hand.append(unseen.pop())
        hand.sort()
        hands[seat] = hand
    free = obs.discard_size - len(pile_cards)
    last = replay_counts(obs, len(pack))
    thrown = 0
    if last is not None:
        thrown = sum(
            count
            for i, (seat, count) in enumerate(obs.discards)
            if i >= last and seat != obs.seat and count <= 3
        )
    pile = list(pile_cards)
    for i in range(free):
        if i < thrown and rng.random() >= doubt:
            pile.append(take(False))
        else:
            pile.append(unseen.pop())
    shuffle(rng, unseen)  # take() and pop() worked from the end: the stock's order must be fresh
    return hands, pile, unseen


def _exchange(hand, out, pool):
    """Throw ``out`` and draw as many from the end of ``pool``."""
    for c in out:
        hand.remove(c)
    n = len(out)
    hand.extend(pool[-n:])
    del pool[-n:]


class HowLowSearch(arena.Bot):
    """Sampling search over the discard choices, scored in chips (see the module docstring)."""

    name = "hl-search"
    # Up to a fifth of a second a move: fielded only when named (--bots, a tournament file).
    by_default = False
    games = {"how-low-can-you-go"}
    iterations = 32  # samples per decision
    time_budget = 0.2  # CPU seconds per decision at most (and never half the move time of wall)
    doubt = 0.25  # chance a player's exchange count is not read as "kept low cards"
    elim_cost = 6.0  # score of being knocked out, beyond the chips lost
    elim_gain = 2.0  # score of each opponent knocked out
    thresholds = THRESHOLDS  # the bot's own policy, per exchange round

    def start(self, info):
        self._wall_cap = 0.5 * info.move_time

    def act(self, obs):
        legal = obs.legal_actions
        if len(legal) == 1:
            return legal[0]
        if not hasattr(self, "_wall_cap"):  # act() without start(): 1 s a move
            self._wall_cap = 0.5
        choices = discard_choices(legal, obs.hand)
        if self.iterations <= 0:
            out = tuple(sorted(policy_discard(list(obs.hand), self.thresholds[obs.round - 1])))
            choice = next((a for a in legal if a != REDRAW and tuple(sorted(a)) == out), ())
        elif len(choices) == 1:
            choice = choices[0]
        else:
            deadline = arena.Deadline(self.time_budget, self._wall_cap)
            choice = choices[self._search(obs, choices, deadline)]
        if choice and choice != REDRAW:
            self._memory_for(obs)[len(obs.discards)] = tuple(choice)
        return choice

    def _memory_for(self, obs):
        """Turn index -> cards the bot discarded, for this deal."""
        memory = getattr(self, "_memory", None)
        if memory is None or memory[0] != obs.deal:
            self._memory = memory = (obs.deal, {})
        return memory[1]

    def _search(self, obs, choices, deadline):
        """The index of the choice with the best expected score."""
        pile_cards = known_pile(obs, self._memory_for(obs), 52 if len(obs.chips) <= 4 else 104)
        rng = self.rng
        seat = obs.seat
        order = obs.order
        me = order.index(seat)
        rnd = obs.round
        thresholds = self.thresholds
        hand0 = sorted(obs.hand)
        # the turns each opponent still has this deal
        turns_left = [(q, (3 - rnd) + (i > me)) for i, q in enumerate(order) if q != seat]
        finals = []  # per sample: the opponents' final totals
        mine = [{} for _ in choices]  # per choice: (total, both red aces) -> how many samples
        for _ in range(self.iterations):
            hands, pile, stock = sample_hidden(obs, rng, pile_cards, self.doubt)
            pool = pile[len(pile_cards) :] + stock  # the stock's top last; then the pile (HL-8)
            totals = []
            for q, left in turns_left:
                hand = hands[q]
                for _ in range(left):
                    out = policy_discard(hand)
                    if out:
                        _exchange(hand, out, pool)
                totals.append(
                    (
                        q,
                        VALUE[hand[0]]
                        + VALUE[hand[1]]
                        + VALUE[hand[2]]
                        + VALUE[hand[3]]
                        + VALUE[hand[4]],
                    )
                )
            finals.append(totals)
            for i, choice in enumerate(choices):
                draw = pool[:]
                if choice == REDRAW:
                    hand = draw[-5:]
                    del draw[-5:]
                    out = policy_discard(hand, thresholds[rnd - 1])
                else:
                    hand = hand0[:]
                    out = choice
                if out:
                    _exchange(hand, out, draw)
                for r in range(rnd, 3):
                    out = policy_discard(hand, thresholds[r])
                    if out:
                        _exchange(hand, out, draw)
                key = (sum(VALUE[c] for c in hand), hand.count(38) + hand.count(51) >= 2)
                counts = mine[i]
                counts[key] = counts.get(key, 0) + 1
            if deadline.passed():
                break
        showdowns = self._showdowns(obs, finals)
        memo = {}
        best, best_value = 0, None
        for i in range(len(choices)):
            value = 0.0
            for key, count in mine[i].items():
                v = memo.get(key)
                if v is None:
                    v = memo[key] = self._expected_score(obs, key[0], key[1], showdowns)
                value += count * v
            if best_value is None or value > best_value:
                best, best_value = i, value
        return best

    def _showdowns(self, obs, finals):
        """Per sample, what the bot's score depends on besides its own total: the opponents'
        lowest total and how many hold it, their highest, and for the bot below the highest (A)
        and tied with it (B) how many opponents go out; below it (A) also the bank after the fees
        are paid."""
        chips = obs.chips
        bank = obs.bank
        out = []
        for totals in finals:
            low = min(t for _, t in totals)
            high = max(t for _, t in totals)
            at_low = sum(1 for _, t in totals if t == low)
            at_high = [chips[q] for q, t in totals if t == high]
            fee = 2 if len(at_high) == 1 else 1
            bank_a = bank + sum(min(fee, c) for c in at_high)
            out_a = sum(1 for c in at_high if c <= fee)
            out_b = sum(1 for c in at_high if c <= 1)
            out.append((low, at_low, high, bank_a, out_a, out_b))
        return out

    def _expected_score(self, obs, total, red_pair, showdowns):
        """The mean over the samples of the showdown's score for a final ``total`` (HL-10..15)."""
        chips = obs.chips[obs.seat]
        gain = self.elim_gain
        knocked_out = -self.elim_cost
        sole_prize = 5 if total < 0 or red_pair else 3 if total <= 10 else 2  # HL-11
        tied_prize = 2 if total < 0 else 1  # HL-12
        pay_sole = -(2 if chips >= 2 else chips) + (knocked_out if chips <= 2 else 0.0)
        pay_tied = -1 + (knocked_out if chips <= 1 else 0.0)
        score = 0.0
        for low, at_low, high, bank_a, out_a, out_b in showdowns:
            if total < high:  # the bot does not pay (HL-13)
                score += gain * out_a
                if total < low:  # sole lowest (HL-11), after the fees came in (HL-4)
                    score += sole_prize if bank_a >= sole_prize else bank_a
                elif total == low:  # shared lowest (HL-12)
                    share = bank_a / (at_low + 1)
                    score += tied_prize if share >= tied_prize else share
            elif total == high:
                if low < high:  # tied highest: one chip each (HL-13)
                    score += pay_tied + gain * out_b
                # else every total is equal: nothing moves (HL-14)
            else:  # sole highest: two chips, or all it has (HL-15)
                score += pay_sole
        return score / len(showdowns)


@arena.hookimpl
def arena_register_bots(register):
    register(HowLowSearch, name="hl-search-small", iterations=20, time_budget=0.05)
    register(HowLowSearch, name="hl-search-large", iterations=200, time_budget=0.2)
