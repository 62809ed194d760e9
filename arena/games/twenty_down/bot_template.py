"""What `arena new-bot NAME --game twenty-down` writes: a commented bot that plays legally at once.

``{name}``, ``{cls}`` and ``{game}`` are filled in by ``arena.scaffold``.
"""

TEMPLATE = '''"""{name}: a Twenty Down bot (written by `arena new-bot`; make it yours).

Try it:   arena run --bots {name},random --games 200
Rules:    docs/rules/twenty-down.md        Guide: docs/writing-bots.md
"""

import arena
from arena.cards import RANK_OF, SUIT_OF  # card -> rank (0 = two ... 12 = ace), card -> suit


class {cls}(arena.Bot):
    name = "{name}"  # the name on the leaderboard: unique
    games = {{"{game}"}}  # the games it plays

    def start(self, info):
        """Optional: called once before the first decision of a game.

        info.game, info.seat, info.players, info.params (the game's parameters) and
        info.move_time (seconds allowed per decision; past it the referee plays a random move).
        """
        self.seat = info.seat

    def act(self, obs):
        """Return one element of obs.legal_actions. Called whenever it is this seat's turn.

        obs.phase is "trump", "exchange", "stay-or-drop" (variant brostedt) or "play".
        obs.hand: your cards (sorted); obs.trump: the trump suit (None until named);
        obs.points: points per seat (lower is better); obs.exchanged: cards exchanged per seat;
        obs.tricks: this deal's finished tricks (.leader, .cards as (seat, card), .winner);
        obs.current_trick: the (seat, card) pairs played to the trick in progress.
        Use self.rng for anything random: games then replay exactly.
        """
        legal = obs.legal_actions
        if obs.phase == "trump":  # forehand names trump from two cards: the suit of the higher
            best = max(obs.hand, key=lambda c: RANK_OF[c])
            return best.suit if best.suit in legal else legal[0]
        if obs.phase == "exchange":  # discard side cards below the ace, lowest first, up to 3
            weak = [c for c in obs.hand if SUIT_OF[c] != obs.trump and RANK_OF[c] < 12]
            weak = sorted(weak, key=lambda c: RANK_OF[c])[:3]
            choice = tuple(sorted(weak))  # an exchange is a sorted tuple of cards; () stands pat
            return choice if choice in legal else ()
        if obs.phase == "stay-or-drop":
            return "stay"
        # play: every trick won takes a point off, so take the trick when a card can
        if obs.current_trick:
            best = winning_card(obs.current_trick, obs.trump)
            winners = [c for c in legal if beats(c, best, obs.trump)]
            if winners:  # the cheapest card that wins for now
                return min(winners, key=lambda c: (SUIT_OF[c] == obs.trump, RANK_OF[c]))
        else:  # leading: the highest card
            return max(legal, key=lambda c: (RANK_OF[c], SUIT_OF[c] == obs.trump))
        return min(legal, key=lambda c: (SUIT_OF[c] == obs.trump, RANK_OF[c]))  # the cheapest

    def end(self, result):
        """Optional: called once after the game; result.scores and result.ranks per seat."""


def beats(card, best, trump):
    """Whether ``card`` beats ``best``, the card winning the trick so far (rule TD-10)."""
    if SUIT_OF[card] == SUIT_OF[best]:
        return RANK_OF[card] > RANK_OF[best]
    return SUIT_OF[card] == trump


def winning_card(trick, trump):
    best = trick[0][1]
    for _, card in trick[1:]:
        if beats(card, best, trump):
            best = card
    return best


@arena.hookimpl
def arena_register_bots(register):
    register({cls})
    # the same class again, with settings that become attributes:
    # register({cls}, name="{name}-v2", aggressive=True)
'''
