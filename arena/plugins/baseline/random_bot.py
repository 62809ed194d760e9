"""The baseline every bot should beat: a uniformly random legal action, from its seeded
generator."""

import arena


class RandomBot(arena.Bot):
    name = "random"

    def act(self, observation):
        legal = observation.legal_actions
        return legal[self.rng.randrange(len(legal))]


@arena.hookimpl
def arena_register_bots(register):
    register(RandomBot)
