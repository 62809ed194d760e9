"""TrueSkill ratings: one rating per bot per game, updated from each game's full ranking.

A game is a free-for-all of the distinct bots at the table. A bot holding several seats (fewer bots
than seats) is placed by the mean rank of its seats; bots with equal places draw. A game with a
single distinct bot teaches nothing and is not rated.

Each game has its own TrueSkill environment: trueskill's defaults, changed by the game's
``rating_defaults`` (``Game.rating_defaults``; each bundled game says why it picks its ``beta``,
the skill gap that gives a 76 % chance to finish ahead, and its ``draw_probability``, how often two
bots share a place — never 0, which would make a tie impossible to rate).

Both can be set per game in a tournament file. The update itself is ``fast_trueskill``: the
package's own algorithm without its object graph, equal to ``trueskill.TrueSkill.rate`` to the last
bit (tested) and ten times faster; a hundred times with its optional C extension.
"""

from __future__ import annotations

from dataclasses import dataclass

import trueskill

from arena.games.base import Game
from arena.ratings.fast_trueskill import rate_ratings

DEFAULT_MU = 25.0
DEFAULT_SIGMA = DEFAULT_MU / 3


@dataclass(frozen=True)
class Environment:
    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA
    beta: float = DEFAULT_SIGMA / 2
    tau: float = DEFAULT_SIGMA / 100
    draw_probability: float = 0.10

    def trueskill(self) -> trueskill.TrueSkill:
        return trueskill.TrueSkill(
            mu=self.mu,
            sigma=self.sigma,
            beta=self.beta,
            tau=self.tau,
            draw_probability=self.draw_probability,
            backend=None,
        )


DEFAULT_ENVIRONMENT = Environment()


def environment_for(game: type[Game], overrides: dict | None = None) -> Environment:
    """The environment of ``game``: its ``rating_defaults``, then ``overrides`` (a tournament
    file's settings for it)."""
    settings = {**game.rating_defaults, **(overrides or {})}
    return Environment(**settings) if settings else DEFAULT_ENVIRONMENT


class RatingTable:
    """The ratings of one game's bots, updated game by game in schedule order."""

    def __init__(
        self, environment: Environment, states: dict[str, tuple[float, float]] | None = None
    ):
        """``states`` maps each bot to its rating's exact (π, τ), as the store keeps them."""
        self.environment = environment
        self.env = environment.trueskill()
        self.ratings: dict[str, trueskill.Rating] = {
            bot: rating_from_state(pi, tau) for bot, (pi, tau) in (states or {}).items()
        }

    def rating(self, bot: str) -> trueskill.Rating:
        rating = self.ratings.get(bot)
        if rating is None:
            rating = self.ratings[bot] = self.env.create_rating()
        return rating

    def update(self, placings: dict[str, float]) -> bool:
        """Rate one game from ``{bot: place}`` (smaller is better). False if not rated."""
        if len(placings) < 2:
            return False
        ratings = self.ratings
        bots = list(placings)
        current = [ratings.get(b) or self.rating(b) for b in bots]
        ratings.update(zip(bots, rate_ratings(self.env, current, list(placings.values()))))
        return True

    def states(self) -> dict[str, tuple[float, float, float, float]]:
        """Each bot's (π, τ, μ, σ): π and τ rebuild the rating exactly, μ and σ are for people."""
        return {bot: (r.pi, r.tau, r.mu, r.sigma) for bot, r in self.ratings.items()}


def rating_from_state(pi: float, tau: float) -> trueskill.Rating:
    """The rating with exactly this precision and precision-adjusted mean.

    Rebuilding from (μ, σ) would lose the last bit of 2 % of ratings, and a resumed run would then
    drift from an uninterrupted one.
    """
    rating = trueskill.Rating.__new__(trueskill.Rating)
    rating.pi = pi
    rating.tau = tau
    return rating
