"""A sensible Twenty Down player: every trick won is a point off, so win cheaply and duck cheaply.

- Trump: the suit of the stronger of its two first cards.
- Exchange: throw away side cards below the queen, lowest first (up to three).
- Stay or drop (variant ``brostedt``): stay with a trump or an ace.
- Play: when it can still take the trick, with the lowest card that does; otherwise with its lowest
  card. Leading, it plays its highest trump while it holds two or more, else its highest card.
"""

import arena
from arena.cards import QUEEN, RANK_OF, SUIT_OF


def trick_winner_card(trick, trump):
    """The card currently winning a trick given as (seat, card) pairs."""
    best = trick[0][1]
    for _, card in trick[1:]:
        suit, best_suit = SUIT_OF[card], SUIT_OF[best]
        if suit == best_suit and card > best:
            best = card
        elif suit == trump and best_suit != trump:
            best = card
    return best


def beats(card, best, trump):
    if SUIT_OF[card] == SUIT_OF[best]:
        return card > best
    return SUIT_OF[card] == trump


class TwentyDownHeuristic(arena.Bot):
    name = "td-heuristic"
    games = {"twenty-down"}

    def act(self, obs):
        legal = obs.legal_actions
        phase = obs.phase
        if phase == "trump":
            best = max(obs.hand, key=lambda c: RANK_OF[c])
            return best.suit if best.suit in legal else legal[0]
        if phase == "exchange":
            trump = obs.trump
            weak = sorted(
                (c for c in obs.hand if SUIT_OF[c] != trump and RANK_OF[c] < QUEEN),
                key=lambda c: RANK_OF[c],
            )[:3]
            wanted = tuple(sorted(weak))
            return wanted if wanted in legal else legal[0]
        if phase == "stay-or-drop":
            strong = any(SUIT_OF[c] == obs.trump or RANK_OF[c] == 12 for c in obs.hand)
            choice = "stay" if strong else "drop"
            return choice if choice in legal else legal[0]
        trump = obs.trump
        trick = obs.current_trick
        if not trick:
            trumps = [c for c in legal if SUIT_OF[c] == trump]
            if len(trumps) >= 2:
                return max(trumps)
            return max(legal, key=lambda c: (RANK_OF[c], SUIT_OF[c] == trump))
        best = trick_winner_card(trick, trump)
        winners = [c for c in legal if beats(c, best, trump)]
        if winners:
            return min(winners, key=lambda c: (SUIT_OF[c] == trump, RANK_OF[c]))
        return min(legal, key=lambda c: (SUIT_OF[c] == trump, RANK_OF[c]))


@arena.hookimpl
def arena_register_bots(register):
    register(TwentyDownHeuristic)
