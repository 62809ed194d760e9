"""A sensible How Low Can You Go? player: throw away the cards worth more than a fresh draw.

A card drawn from the stock is worth about 6.8 on average (K 13 ... 2, black aces 1, red aces -5),
so every card above that is worth changing: it discards the highest such cards, up to three, and
keeps red aces always. Holding the lowest hand with chips to lose (few chips left, last round), it
stands rather than risk a good hand.
"""

import arena
from arena.cards import ACE, CLUBS, RANK_OF, SPADES, SUIT_OF

AVERAGE_DRAW = 352 / 52


def value(card):
    rank = RANK_OF[card]
    if rank == ACE:
        return 1 if SUIT_OF[card] in (CLUBS, SPADES) else -5
    return rank + 2


class HowLowHeuristic(arena.Bot):
    name = "hl-heuristic"
    games = {"how-low-can-you-go"}
    threshold = AVERAGE_DRAW

    def act(self, obs):
        legal = obs.legal_actions
        exchanges = [a for a in legal if isinstance(a, tuple)]
        if "redraw" in legal and sum(value(c) for c in obs.hand) > 45:
            return "redraw"
        if not exchanges:
            return legal[0]
        total = sum(value(c) for c in obs.hand)
        if total <= 5:
            return () if () in legal else exchanges[0]

        def gain(action):
            return sum(value(c) - self.threshold for c in action)

        return max(exchanges, key=lambda a: (gain(a), -len(a)))


@arena.hookimpl
def arena_register_bots(register):
    register(HowLowHeuristic)
