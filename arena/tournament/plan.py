"""Turning what the user asked for (options or a tournament file) into a checked ``Tournament``.

Every mistake — an unknown game or bot, a bot asked for a game it does not play, a table size the
game does not allow, too few bots, a number that is not one or out of range — becomes one
``PlanError`` line before any game is played. A value from the command line is named as its option
(``--move-time``); one from a tournament file as the file and its key (``cup.toml: move_time``).
"""

from __future__ import annotations

import secrets
from collections.abc import Collection
from dataclasses import asdict, dataclass, field
from pathlib import Path

from arena.games.base import Game, InvalidParametersError
from arena.limits import OPTIONS, PlanError, check_setting
from arena.plugins.loading import Registry, UnknownNameError
from arena.ratings.trueskill import Environment, RatingTable, environment_for
from arena.tournament.file import GameSection


@dataclass
class GamePlan:
    """One game of a tournament: which table, which bots, which rating environment."""

    game: str
    players: int
    bots: list[str]
    variant: str | None = None
    params: dict = field(default_factory=dict)
    environment: Environment = field(default_factory=Environment)


@dataclass
class Tournament:
    """A checked run: its games' plans and the settings that decide its results."""

    plans: list[GamePlan]
    games_per_game: int  # games of each game (--games); stored in the identity as "games"
    seed: str
    move_time: float = 1.0
    max_faults: int = 3
    records: bool = True
    duplicate: bool = True  # seat rotations of a group replay one deal (see schedule)
    # How bots run; not part of the identity: it changes how safe a run is, not its results.
    # Stored with the run all the same (``settings``), so that a resumed run keeps them.
    isolation: str = "shared"  # "shared": inside the game workers; "process": each its own
    bot_memory: int = 1024  # MiB per bot process (process isolation)
    bot_cpu: int | None = None  # CPU seconds per bot process over its life (process isolation)

    def settings(self) -> dict:
        """How the run is played, stored with it but not part of its identity."""
        return {"isolation": self.isolation, "bot_memory": self.bot_memory, "bot_cpu": self.bot_cpu}

    def identity(self) -> dict:
        """What decides the results: two runs with the same identity play the same games."""
        identity = {
            "games": self.games_per_game,
            "seed": self.seed,
            "move_time": self.move_time,
            "max_faults": self.max_faults,
            "records": self.records,
            "plans": [
                {**asdict(p), "environment": asdict(p.environment), "bots": sorted(p.bots)}
                for p in self.plans
            ],
        }
        if not self.duplicate:  # only then: runs stored before the setting existed still resume
            identity["duplicate"] = False
        return identity


def new_seed() -> str:
    """A run's seed when none is given: 128 random bits, as 32 hex digits. Every deal and every
    bot's generator comes from it (``arena.bot.seat_seed`` is a one-way digest of a game's seed):
    a seed a bot could search through (it had about 30 bits) would give it every hand."""
    return secrets.token_hex(16)


def build_tournament(
    registry: Registry,
    games_per_game: int,
    game_names: list[str] | None = None,
    bots: list[str] | None = None,
    players: int | None = None,
    seed: str | None = None,
    move_time: float = 1.0,
    max_faults: int = 3,
    records: bool = True,
    sections: list[GameSection] | None = None,
    duplicate: bool = True,
    source: str | Path | None = None,
    from_file: Collection[str] = (),
) -> Tournament:
    """``sections`` come from the tournament file ``source``, and so do the settings named in
    ``from_file`` (``games``, ``move_time``, ``max_faults``, ``bots``); the rest from the
    command line. Errors name each value where it came from."""
    where = _Where(source, from_file)
    sections = sections or []
    check_settings(games_per_game, move_time, max_faults, bots, sections, source, from_file)
    try:
        for bot in bots or ():
            registry.bot(bot)
    except UnknownNameError as exc:
        raise PlanError(f"{where.bots()}{exc}") from None
    by_game = _sections_by_game(registry, sections, where)
    chosen = _chosen_games(registry, game_names, by_game)
    plans = _plans(registry, chosen, by_game, bots, players, game_names, where)
    _check_every_bot_plays(registry, bots, plans, where)
    if not plans:
        raise PlanError("no game has at least 2 bots to play it; add bot files to bots/")
    return Tournament(
        plans=plans,
        games_per_game=games_per_game,
        seed=str(seed) if seed is not None else new_seed(),
        move_time=float(move_time),
        max_faults=max_faults,
        records=records,
        duplicate=duplicate,
    )


def check_settings(
    games_per_game: int,
    move_time: float,
    max_faults: int,
    bots: list[str] | None,
    sections: list[GameSection],
    source: str | Path | None = None,
    from_file: Collection[str] = (),
) -> None:
    """The checks of ``build_tournament`` that need no bot file loaded: numbers in range, no empty
    list of bots, sections well formed. Errors name each value where it came from."""
    where = _Where(source, from_file)
    check_setting("games", games_per_game, where.setting("games"))
    check_setting("move_time", move_time, where.setting("move_time"))
    check_setting("max_faults", max_faults, where.setting("max_faults"))
    if bots is not None and not bots:
        raise PlanError(f"{where.setting('bots')} names no bot; leave it out to play every bot")
    for section in sections:
        _check_section(section, where)


def _plans(
    registry: Registry,
    chosen: list[str],
    by_game: dict[str, GameSection],
    bots: list[str] | None,
    players: int | None,
    game_names: list[str] | None,
    where: _Where,
) -> list[GamePlan]:
    """The plan of each chosen game with at least 2 bots; a game asked for by name (--game or a
    file section) with fewer is an error, another is left out."""
    explicit_games = bool(game_names or by_game)
    plans = []
    for game_name in chosen:
        section = by_game.get(game_name, GameSection(game_name))
        table_bots = _table_bots(registry, game_name, section, bots, explicit_games, where)
        # --players sizes every game whose table size can vary; a fixed-size game only objects
        # when it was asked for by name with --game.
        game = _table(registry.games[game_name].cls, section, players, bool(game_names), where)
        if len(table_bots) < 2:
            if explicit_games:
                have = ", ".join(table_bots) or "none"
                raise PlanError(
                    f"{where.section_bots(section)}{game_name} needs at least 2 bots that play "
                    f"it (have: {have})"
                )
            continue
        plans.append(_game_plan(game, table_bots, section, where))
    return plans


@dataclass(frozen=True)
class _Where:
    """How an error names where a value came from: the command line or the tournament file."""

    source: str | Path | None
    from_file: Collection[str]

    def setting(self, key: str) -> str:
        return f"{self.source}: {key}" if key in self.from_file else OPTIONS[key]

    def in_file(self, where: str) -> str:
        """The start of a message about ``where`` in the tournament file."""
        return f"{self.source}: {where}" if self.source is not None else where

    def bots(self) -> str:
        """The start of a message about the run's bots (the file's, or --bots: not named)."""
        return "" if "bots" not in self.from_file else f"{self.setting('bots')}: "

    def section(self, section: GameSection) -> str:
        return self.in_file(f"game.{section.name}: ")

    def section_bots(self, section: GameSection) -> str:
        """Where a game's bots came from: its section, the top of the file, the command line."""
        return self.in_file(f"game.{section.name}.bots: ") if section.bots else self.bots()


def _check_section(section: GameSection, where: _Where) -> None:
    start = where.in_file(f"game.{section.name}.")
    if section.bots is not None and not section.bots:
        raise PlanError(f"{start}bots names no bot; leave it out to play every bot that plays it")
    env = section.environment
    for key in ("mu", "sigma", "beta", "tau"):
        value = env.get(key)
        if value is None:
            continue
        if not (0 < value < float("inf") or (key == "tau" and value == 0)):
            least = "0 or more" if key == "tau" else "above 0"
            raise PlanError(f"{start}{key} must be a finite number {least}, not {value:g}")
    if "draw_probability" in env and not 0 < env["draw_probability"] < 1:
        raise PlanError(
            f"{start}draw_probability must be between 0 and 1 (exclusive), "
            f"not {env['draw_probability']:g}"
        )


def _sections_by_game(
    registry: Registry, sections: list[GameSection], where: _Where
) -> dict[str, GameSection]:
    """The file's game sections by the canonical name of their game; a game described twice is
    an error."""
    by_game: dict[str, GameSection] = {}
    for section in sections:
        try:
            canonical = registry.game(section.name).name
        except UnknownNameError as exc:
            raise PlanError(f"{where.section(section)}{exc}") from None
        if canonical in by_game:
            raise PlanError(
                f"{where.in_file('')}game {canonical!r} is described twice "
                f"([game.{by_game[canonical].name}] and [game.{section.name}])"
            )
        by_game[canonical] = section
    return by_game


def _chosen_games(
    registry: Registry, game_names: list[str] | None, by_game: dict[str, GameSection]
) -> list[str]:
    """The games of the run: --game, else the file's sections, else every registered game."""
    try:
        if game_names:
            chosen = [registry.game(n).name for n in game_names]
        elif by_game:
            chosen = list(by_game)
        else:
            chosen = sorted(registry.games)
    except UnknownNameError as exc:
        raise PlanError(str(exc)) from None
    return list(dict.fromkeys(chosen))


def _table_bots(
    registry: Registry,
    game_name: str,
    section: GameSection,
    bots: list[str] | None,
    explicit_games: bool,
    where: _Where,
) -> list[str]:
    """The bots at a game's tables: its section's, else the run's, else every bot that plays it.
    A bot named for a game it does not play is an error when the game was asked for by name."""
    wanted = section.bots or bots
    if not wanted:
        return [b.name for b in registry.bots_for(game_name)]
    named = where.section_bots(section)
    for bot in wanted:
        try:
            spec = registry.bot(bot)
        except UnknownNameError as exc:  # (the run's bots were checked before)
            raise PlanError(f"{named}{exc}") from None
        if not spec.plays(game_name) and (explicit_games or section.bots):
            raise PlanError(
                f"{named}bot {bot!r} does not play {game_name} (it plays: "
                f"{', '.join(sorted(spec.games or ()))})"
            )
    return [b for b in dict.fromkeys(wanted) if registry.bots[b].plays(game_name)]


def _table(
    game_class: type[Game],
    section: GameSection,
    players: int | None,
    named_by_option: bool,
    where: _Where,
) -> Game:
    """The game as it is played: the command line's --players wins over the file's."""
    table_players = section.players
    players_named = (
        where.in_file(f"game.{section.name}.players: ") if section.players is not None else ""
    )
    variable = game_class.min_players != game_class.max_players
    if players is not None and (variable or named_by_option):
        table_players = players
        players_named = ""
    try:
        game_class(players=table_players)
    except InvalidParametersError as exc:
        raise PlanError(f"{players_named}{exc}") from None
    try:
        return game_class(players=table_players, variant=section.variant, **section.params)
    except InvalidParametersError as exc:
        raise PlanError(f"{where.section(section)}{exc}") from None


def _game_plan(game: Game, bots: list[str], section: GameSection, where: _Where) -> GamePlan:
    environment = environment_for(type(game), section.environment)
    if section.environment:
        problem = _unratable(environment, bots)
        if problem:
            raise PlanError(f"{where.section(section)}{problem}")
    return GamePlan(
        game=game.name,
        players=game.players,
        bots=bots,
        variant=section.variant,
        params=dict(section.params),
        environment=environment,
    )


def _check_every_bot_plays(
    registry: Registry, bots: list[str] | None, plans: list[GamePlan], where: _Where
) -> None:
    """Each bot named for the run plays at least one of its games."""
    used = {b for p in plans for b in p.bots}
    for bot in bots or ():
        if bot not in used:
            spec = registry.bots[bot]
            raise PlanError(
                f"{where.bots()}bot {bot!r} plays none of the games of this run (it plays: "
                f"{', '.join(sorted(spec.games or ())) or 'every game'})"
            )


def tournament_from_identity(config: dict) -> Tournament:
    """The tournament a stored run plays, from its identity (``Tournament.identity()``)."""
    plans = [
        GamePlan(
            game=p["game"],
            players=p["players"],
            bots=list(p["bots"]),
            variant=p.get("variant"),
            params=dict(p.get("params", {})),
            environment=Environment(**p["environment"]),
        )
        for p in config["plans"]
    ]
    return Tournament(
        plans=plans,
        games_per_game=config["games"],
        seed=config["seed"],
        move_time=config["move_time"],
        max_faults=config["max_faults"],
        records=config["records"],
        duplicate=config.get("duplicate", True),
    )


def _unratable(environment: Environment, bots: list[str]) -> str | None:
    """Why TrueSkill cannot rate games in this environment (values too far apart for its
    floating-point arithmetic), found by rating two games of these bots; None if it can."""
    table = RatingTable(environment)
    try:
        table.update({bot: float(place) for place, bot in enumerate(bots)})
        table.update(dict.fromkeys(bots, 1.0))  # a draw
    except (ArithmeticError, ValueError) as exc:
        values = ", ".join(f"{k}={v:g}" for k, v in environment.__dict__.items())
        return f"TrueSkill cannot rate a game with {values} ({_detail(exc)})"
    return None


def _detail(exc: BaseException) -> str:
    """What an arithmetic error says, without its errno: ``OverflowError(34, 'Numerical result
    out of range')`` says "Numerical result out of range"."""
    return str(exc.args[-1]) if exc.args else type(exc).__name__
