"""What `arena new-bot NAME --game how-low-can-you-go` writes: a commented bot that plays legally
at once.

``{name}``, ``{cls}`` and ``{game}`` are filled in by ``arena.scaffold``.
"""

TEMPLATE = '''"""{name}: a How Low Can You Go? bot (written by `arena new-bot`; make it yours).

Try it:   arena run --bots {name},random --games 200
Rules:    docs/rules/how-low-can-you-go.md        Guide: docs/writing-bots.md
"""

import arena
from arena.games.how_low import VALUE  # card -> value: K 13 ... 2, black aces 1, red aces -5


class {cls}(arena.Bot):
    name = "{name}"  # the name on the leaderboard: unique
    games = {{"{game}"}}  # the games it plays

    threshold = 6  # throw away cards worth more than this

    def start(self, info):
        """Optional: called once before the first decision of a game.

        info.game, info.seat, info.players (table size), info.params (the game's parameters) and
        info.move_time (seconds allowed per decision; past it the referee plays a random move).
        """
        self.seat = info.seat

    def act(self, obs):
        """Return one element of obs.legal_actions. Called whenever it is this seat's turn.

        obs.hand: your five cards (sorted); obs.round: exchange round 1-3; obs.chips, obs.active:
        per seat; obs.bank; obs.discards: (seat, count) for every turn so far this deal;
        obs.stock_size, obs.discard_size; obs.last_showdown: the last deal's revealed hands.
        An action is a sorted tuple of the cards to discard; () stands. Use self.rng for anything
        random: games then replay exactly.
        """
        legal = obs.legal_actions
        high = sorted((c for c in obs.hand if VALUE[c] > self.threshold), key=lambda c: -VALUE[c])
        choice = tuple(sorted(high[:3]))  # at most three cards a turn
        if choice in legal:
            return choice
        return ()  # standing is always legal

    def end(self, result):
        """Optional: called once after the game; result.scores (chips) and result.ranks."""


@arena.hookimpl
def arena_register_bots(register):
    register({cls})
    # the same class again, with settings that become attributes:
    # register({cls}, name="{name}-bold", threshold=5)
'''
