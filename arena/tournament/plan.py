"""Turning what the user asked for (options or a tournament file) into a checked ``Tournament``.

Every mistake — an unknown game or bot, a bot asked for a game it does not play, a table size the
game does not allow, too few bots, a number that is not one or out of range — becomes one
``PlanError`` line before any game is played. A value from the command line is named as its option
(``--move-time``); one from a tournament file as the file and its key (``cup.toml: move_time``).
"""

from __future__ import annotations

import secrets
from collections.abc import Collection
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from arena.games.base import Game, InvalidParametersError
from arena.limits import OPTIONS, PlanError, check_setting
from arena.plugins.loading import Registry, UnknownNameError
from arena.ratings.trueskill import Environment, RatingTable, environment_for
from arena.tournament.file import GameSection
from arena.tournament.schedule import (
    MAX_ROUND_ROBIN_GROUPS,
    PAIRINGS,
    default_pairing,
    round_robin_groups,
)


@dataclass
class GamePlan:
    """One game of a tournament: which table, which bots, which rating environment."""

    game: str
    players: int
    bots: list[str]
    variant: str | None = None
    params: dict = field(default_factory=dict)
    environment: Environment = field(default_factory=Environment)
    pairing: str = "round-robin"  # who plays whom (``schedule.PAIRINGS``)
    gauntlet: list[str] = field(default_factory=list)  # the bots under test of a gauntlet

    def identity(self) -> dict:
        """The plan as a run's identity stores it: a round robin without the pairing keys, as
        runs were stored before pairings existed, so that they still resume."""
        identity = {
            **asdict(self),
            "environment": asdict(self.environment),
            "bots": sorted(self.bots),
        }
        if self.pairing == "round-robin":
            del identity["pairing"]
        if not self.gauntlet:
            del identity["gauntlet"]
        return identity


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
    # A match of two bots (``arena match``): {"a", "b", "sprt": the test's settings or None};
    # it may stop before its last game (``tournament.match``). None: a plain run.
    match: dict | None = None
    # Each seat's bank of seconds for a game past the move time (--time-bank); None: none.
    time_bank: float | None = None

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
            "plans": [p.identity() for p in self.plans],
        }
        if not self.duplicate:  # only then: runs stored before the setting existed still resume
            identity["duplicate"] = False
        if self.time_bank is not None:  # likewise
            identity["time_bank"] = self.time_bank
        if self.match is not None:
            identity["match"] = self.match
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
    match: dict | None = None,
    variant: str | None = None,
    params: dict[str, int] | None = None,
    pairing: str | None = None,
    gauntlet: list[str] | None = None,
    time_bank: float | None = None,
) -> Tournament:
    """``sections`` come from the tournament file ``source``, and so do the settings named in
    ``from_file`` (``games``, ``move_time``, ``time_bank``, ``max_faults``, ``bots``, ``pairing``,
    ``gauntlet``); the rest from the command line. ``variant`` and ``params`` (--variant,
    --param) apply to every game of the run, over its section's. Errors name each value where it
    came from. ``pairing`` None: each game's default (``schedule.default_pairing``)."""
    where = _Where(source, from_file)
    sections = sections or []
    if seed is not None and not str(seed).strip():
        raise PlanError("the seed is empty: give one, or leave it out for a new random seed")
    check_settings(
        games_per_game, move_time, max_faults, bots, sections, source, from_file, pairing, gauntlet,
        time_bank,
    )  # fmt: skip
    if gauntlet and bots is not None:  # the bots under test play, whether --bots names them
        bots = list(dict.fromkeys([*bots, *gauntlet]))
    try:
        # (a bot's plain name is its current version; name@N a version: their stored names)
        bots = None if bots is None else [registry.bot(bot).name for bot in bots]
        gauntlet = None if gauntlet is None else [registry.bot(bot).name for bot in gauntlet]
    except UnknownNameError as exc:
        raise PlanError(f"{where.bots()}{exc}") from None
    by_game = _sections_by_game(registry, sections, where)
    chosen = _chosen_games(registry, game_names, by_game)
    explicit_games = bool(game_names or by_game)
    by_game = _with_options(registry, chosen, by_game, variant, params or {})
    plans = _plans(registry, chosen, by_game, bots, players, game_names, where, explicit_games)
    plans = _paired(
        registry, plans, games_per_game, pairing, gauntlet or [], by_game, bool(game_names), where
    )
    _check_every_bot_plays(registry, bots, plans, chosen, where)
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
        match=_match(registry, match, bots),
        time_bank=None if time_bank is None else float(time_bank),
    )


def _match(registry: Registry, match: dict | None, bots: list[str] | None) -> dict | None:
    """The match's settings with the stored names of its two bots (as ``bots`` has them)."""
    if match is None:
        return None
    a, b = (bots or [])[:2]
    return {**match, "a": registry.bots[a].name, "b": registry.bots[b].name}


def check_settings(
    games_per_game: int,
    move_time: float,
    max_faults: int,
    bots: list[str] | None,
    sections: list[GameSection],
    source: str | Path | None = None,
    from_file: Collection[str] = (),
    pairing: str | None = None,
    gauntlet: list[str] | None = None,
    time_bank: float | None = None,
) -> None:
    """The checks of ``build_tournament`` that need no bot file loaded: numbers in range, no empty
    list of bots, a known pairing, sections well formed. Errors name each value where it came
    from."""
    where = _Where(source, from_file)
    check_setting("games", games_per_game, where.setting("games"))
    check_setting("move_time", move_time, where.setting("move_time"))
    check_setting("max_faults", max_faults, where.setting("max_faults"))
    if time_bank is not None:
        check_setting("time_bank", time_bank, where.setting("time_bank"))
    if bots is not None and not bots:
        raise PlanError(f"{where.setting('bots')} names no bot; leave it out to play every bot")
    _check_pairing(pairing, gauntlet, where.setting("pairing"), where.setting("gauntlet"))
    for section in sections:
        _check_section(section, where)


def _check_pairing(
    pairing: str | None, gauntlet: list[str] | None, named: str, gauntlet_named: str
) -> None:
    if pairing is not None and pairing not in PAIRINGS:
        raise PlanError(f"{named} must be one of {', '.join(PAIRINGS)}, not {pairing!r}")
    if gauntlet is not None and not gauntlet:
        raise PlanError(f"{gauntlet_named} names no bot; name the bots under test")
    if pairing == "gauntlet" and not gauntlet:
        raise PlanError(f"{named} gauntlet needs the bots under test: {gauntlet_named} BOT[,BOT]")
    if gauntlet and pairing not in (None, "gauntlet"):
        raise PlanError(f"{gauntlet_named} is for {named} gauntlet, not {pairing}")


def _paired(
    registry: Registry,
    plans: list[GamePlan],
    games: int,
    pairing: str | None,
    gauntlet: list[str],
    by_game: dict[str, GameSection],
    named_by_option: bool,
    where: _Where,
) -> list[GamePlan]:
    """Each plan with its pairing: its section's, else the run's, else the default for its field
    and games. A gauntlet is played by the games its bots under test play (a game asked for by
    name that none of them plays is an error). A section's gauntlet alone makes its game a
    gauntlet, as --gauntlet alone does the run."""
    paired = []
    for plan in plans:
        section = by_game.get(plan.game, GameSection(plan.game))
        tested = _section_gauntlet(registry, section, where) or gauntlet
        chosen = (
            section.pairing
            or ("gauntlet" if section.gauntlet else None)
            or pairing
            or ("gauntlet" if gauntlet else None)
        )
        named = (
            where.section_key(section, "pairing") if section.pairing else where.setting("pairing")
        )
        if chosen is None:
            chosen = default_pairing(len(plan.bots), plan.players, games)
        if chosen == "gauntlet":
            if not tested:
                raise PlanError(f"{named} gauntlet needs the bots under test (gauntlet)")
            plan.gauntlet = [b for b in tested if b in plan.bots]
            if not plan.gauntlet:
                if named_by_option or plan.game in by_game:
                    raise PlanError(
                        f"{named} gauntlet: none of the bots under test ({', '.join(tested)}) "
                        f"plays {plan.game}"
                    )
                continue
            if len(plan.gauntlet) == len(plan.bots):
                raise PlanError(
                    f"{named} gauntlet: {plan.game} has no bot but the bots under test to play them"
                )
        if chosen == "round-robin":
            tables = round_robin_groups(len(plan.bots), plan.players)
            if tables > MAX_ROUND_ROBIN_GROUPS:
                raise PlanError(
                    f"{named} round-robin: {len(plan.bots)} bots at {plan.players} seats make "
                    f"{tables:,} tables a round; use random (rounds of tables drawn from the "
                    "field)"
                )
        plan.pairing = chosen
        paired.append(plan)
    return paired


def _section_gauntlet(registry: Registry, section: GameSection, where: _Where) -> list[str]:
    """The stored names of a section's bots under test (none if it names none)."""
    try:
        return [registry.bot(bot).name for bot in section.gauntlet or []]
    except UnknownNameError as exc:
        raise PlanError(f"{where.section_key(section, 'gauntlet')}: {exc}") from None


def _plans(
    registry: Registry,
    chosen: list[str],
    by_game: dict[str, GameSection],
    bots: list[str] | None,
    players: int | None,
    game_names: list[str] | None,
    where: _Where,
    explicit_games: bool,
) -> list[GamePlan]:
    """The plan of each chosen game with at least 2 bots; a game asked for by name
    (``explicit_games``: --game or a file section) with fewer is an error, another is left
    out."""
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

    def section_key(self, section: GameSection, key: str) -> str:
        return self.in_file(f"game.{section.name}.{key}")

    def section_bots(self, section: GameSection) -> str:
        """Where a game's bots came from: its section, the top of the file, the command line."""
        return self.in_file(f"game.{section.name}.bots: ") if section.bots else self.bots()


def _check_section(section: GameSection, where: _Where) -> None:
    start = where.in_file(f"game.{section.name}.")
    if section.bots is not None and not section.bots:
        raise PlanError(f"{start}bots names no bot; leave it out to play every bot that plays it")
    if section.pairing is not None and section.pairing not in PAIRINGS:
        raise PlanError(
            f"{start}pairing must be one of {', '.join(PAIRINGS)}, not {section.pairing!r}"
        )
    if section.gauntlet is not None and not section.gauntlet:
        raise PlanError(f"{start}gauntlet names no bot; name the bots under test")
    if section.gauntlet and section.pairing not in (None, "gauntlet"):
        raise PlanError(
            f"{start}gauntlet is for game.{section.name}.pairing gauntlet, not {section.pairing}"
        )
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
        return [b.name for b in registry.default_bots_for(game_name)]
    named = where.section_bots(section)
    canonical = []
    for bot in wanted:
        try:
            # (the run's bots are stored names already: build_tournament resolved them)
            spec = registry.bot(bot) if section.bots else registry.bots[bot]
        except UnknownNameError as exc:
            raise PlanError(f"{named}{exc}") from None
        canonical.append(spec.name)
        if not spec.plays(game_name) and (explicit_games or section.bots):
            raise PlanError(
                f"{named}bot {bot!r} does not play {game_name} (it plays: "
                f"{', '.join(sorted(spec.games or ()))})"
            )
    return [b for b in dict.fromkeys(canonical) if registry.bots[b].plays(game_name)]


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


def _with_options(
    registry: Registry,
    chosen: list[str],
    by_game: dict[str, GameSection],
    variant: str | None,
    params: dict[str, int],
) -> dict[str, GameSection]:
    """The game sections with --variant and --param applied (checked here: an error names the
    option, not the file)."""
    if variant is None and not params:
        return by_game
    options = " ".join(
        ([f"--variant {variant}"] if variant else [])
        + [f"--param {k}={v}" for k, v in params.items()]
    )
    out = dict(by_game)
    for name in chosen:
        section = by_game.get(name, GameSection(name))
        section = replace(
            section, variant=variant or section.variant, params={**section.params, **params}
        )
        try:
            registry.games[name].cls(variant=section.variant, **section.params)
        except InvalidParametersError as exc:
            raise PlanError(f"{options}: {exc}") from None
        out[name] = section
    return out


def _check_every_bot_plays(
    registry: Registry,
    bots: list[str] | None,
    plans: list[GamePlan],
    chosen: list[str],
    where: _Where,
) -> None:
    """Each bot named for the run plays at least one of its games."""
    used = {b for p in plans for b in p.bots}
    for bot in bots or ():
        if bot in used:
            continue
        spec = registry.bots[bot]
        # Games it plays that were left out for want of a second bot (no --game named them).
        alone = [game for game in chosen if spec.plays(game)]
        if alone:
            raise PlanError(
                f"{where.bots()}bot {bot!r} has nobody to play: no other bot named plays "
                f"{' or '.join(alone)} (a game needs at least 2 bots that play it)"
            )
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
            pairing=p.get("pairing", "round-robin"),
            gauntlet=list(p.get("gauntlet", [])),
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
        match=config.get("match"),
        time_bank=config.get("time_bank"),
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
