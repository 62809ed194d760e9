"""What ``arena run`` does, decided from its options, its tournament file and the stored runs.

``plan_run`` is pure: options + tournament file + the database's unfinished runs give one checked
``RunPlan`` — which database and bot folders, how many jobs, and how the bot files are loaded —
before any bot file is loaded. With ``--isolation process`` no bot file may run in arena's own
process, not even to be loaded, so how they are loaded must be known first: from this command
line, else from the run being continued (it keeps its isolation), else from the file.

``arena.tournament.settle`` then loads the registry as planned and settles the run: it builds the
tournament (or takes the resumed run's) and finds the stored run it continues. Only when an
unfinished process-isolated run might be the one this command continues, and telling needs the
bot files (which games they register, which bots play each), is the loading a guess, which
settling may prove wrong; ``RunPlan.loading_is_a_guess`` says so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from pathlib import Path

from arena.limits import PlanError, check_setting
from arena.plugins.loading import Registry
from arena.store.database import RunInfo
from arena.tournament.file import GameSection, TournamentFile
from arena.tournament.plan import Tournament, build_tournament, check_settings

# How bots run when neither the command line, nor a continued run, nor the file says.
BOT_DEFAULTS = {"isolation": "shared", "bot_memory": 1024, "bot_cpu": None}
# Settings of the tournament that an error names as the file's key when they came from it.
BACKENDS = ("local", "ray")
FILE_NAMED = ("games", "move_time", "time_bank", "max_faults", "bots", "pairing", "gauntlet")


@dataclass(frozen=True)
class RunOptions:
    """What the command line of ``arena run`` said; None: not given."""

    games_per_game: int | None = None
    game_names: list[str] | None = None
    bots: list[str] | None = None
    players: int | None = None
    seed: str | None = None
    jobs: int | None = None
    move_time: float | None = None
    time_bank: float | None = None
    max_faults: int | None = None
    isolation: str | None = None
    bot_memory: int | None = None
    bot_cpu: int | None = None
    db: Path | None = None
    bots_dirs: list[Path] | None = None
    records: bool = True
    duplicate: bool | None = None
    resume: bool = False
    again: bool = False  # play a finished run's very games once more
    match: dict | None = None  # ``arena match``: the SPRT's settings (Tournament.match)
    variant: str | None = None  # --variant, for every game of the run (over the file's)
    params: dict[str, int] | None = None  # --param KEY=VALUE, likewise
    pairing: str | None = None
    gauntlet: list[str] | None = None
    backend: str | None = None  # local or ray (None: the file's, else local)
    ray_address: str | None = None  # the Ray cluster to join (implies --backend ray)


@dataclass(frozen=True)
class TournamentRequest:
    """The arguments of ``build_tournament`` this run asks for."""

    games_per_game: int
    game_names: list[str] | None
    bots: list[str] | None
    players: int | None
    seed: str | None
    move_time: float
    max_faults: int
    records: bool
    sections: list[GameSection] | None
    duplicate: bool
    source: Path | None
    from_file: frozenset[str]
    match: dict | None = None
    variant: str | None = None
    params: dict[str, int] | None = None
    pairing: str | None = None  # None: each game's default
    gauntlet: list[str] | None = None
    time_bank: float | None = None

    def build(self, registry: Registry) -> Tournament:
        return build_tournament(registry, **{f.name: getattr(self, f.name) for f in fields(self)})

    def check(self) -> None:
        """What ``build`` checks before it needs the bots: before the database is opened."""
        check_settings(
            self.games_per_game, self.move_time, self.max_faults, self.bots,
            self.sections or [], self.source, self.from_file, self.pairing, self.gauntlet,
            self.time_bank,
        )  # fmt: skip


@dataclass(frozen=True)
class RunPlan:
    db: Path
    bots_dirs: list[Path]  # as given (empty: the default folders)
    jobs: int | None  # None: as many as the isolation wants
    resume: bool
    request: TournamentRequest
    given: dict  # isolation, bot_memory, bot_cpu as this command line says (None: not said)
    in_file: dict  # the same as the tournament file says
    load_isolated: bool  # the bot files are loaded by sandboxed loading processes
    loading_is_a_guess: bool  # only a stored run said to load them isolated; settling decides
    loading_memory: int  # MiB of a loading process
    again: bool = False  # a finished run's very games may be played once more
    backend: str = "local"  # where the games are played: local, ray (never part of the results)
    ray_address: str | None = None  # with ray: the cluster to join (None: a local instance)

    def isolation_kept_from_run(self, isolation: str) -> bool:
        """Whether a run played with ``isolation`` plays so because the run it continues did."""
        return self.given["isolation"] is None and isolation != self.in_file.get(
            "isolation", BOT_DEFAULTS["isolation"]
        )


def plan_run(
    options: RunOptions,
    tournament_file: TournamentFile | None,
    unfinished_runs: Callable[[Path], Sequence[RunInfo]],
    default_db: Path,
) -> RunPlan:
    """The checked plan of a run. ``unfinished_runs(db)`` gives the database's unfinished runs,
    newest first; it is called only when how the bot files are loaded depends on them. Raises
    ``PlanError``."""
    settings = tournament_file.settings if tournament_file is not None else {}
    source = tournament_file.path if tournament_file is not None else None
    given = {key: getattr(options, key) for key in BOT_DEFAULTS}
    for key, value in given.items():
        _check_given(key, value, settings, source)
    _check_given("jobs", options.jobs, settings, source)
    if options.bots == []:
        raise PlanError("--bots names no bot; leave it out to play every bot")
    request = _request(options, tournament_file)
    if not options.resume:  # (a resumed run is played as it was stored)
        request.check()
    in_file = {key: settings[key] for key in BOT_DEFAULTS if key in settings}
    db = Path(options.db or settings.get("db") or default_db)
    load_isolated, guess = _loading(options, request, in_file, lambda: unfinished_runs(db))
    memory = _default(options.bot_memory, settings.get("bot_memory", BOT_DEFAULTS["bot_memory"]))
    backend, address = _backend(options, settings, source)
    return RunPlan(
        db=db,
        bots_dirs=_bots_dirs(options.bots_dirs, settings.get("bots_dir")),
        jobs=_default(options.jobs, settings.get("jobs")),
        resume=options.resume,
        request=request,
        given=given,
        in_file=in_file,
        load_isolated=load_isolated,
        loading_is_a_guess=guess,
        loading_memory=memory,
        again=options.again,
        backend=backend,
        ray_address=address,
    )


def _backend(options: RunOptions, settings: dict, source: Path | None) -> tuple[str, str | None]:
    """(local or ray, the Ray address): the command line's, else the file's; an address alone
    means ray."""
    address = options.ray_address or settings.get("ray_address") or None
    given = options.backend if options.backend is not None else settings.get("backend")
    name = "--backend" if options.backend is not None else f"{source}: backend"
    if given is None:
        given = "ray" if address else "local"
    if given not in BACKENDS:
        raise PlanError(f"{name} must be local or ray, not {given!r}")
    if given == "local" and options.ray_address:
        raise PlanError("--ray-address needs --backend ray (the games are played locally)")
    return given, address if given == "ray" else None


def _check_given(key: str, value, settings: dict, source: Path | None) -> None:
    """Check a setting given on the command line, else in the file (named as the file's key)."""
    if value is not None:
        check_setting(key, value)
    elif settings.get(key) is not None:
        check_setting(key, settings[key], f"{source}: {key}")


def _bots_dirs(given: list[Path] | Path | None, in_file: str | list[str] | None) -> list[Path]:
    if given is None and in_file is not None:
        # (folders in a tournament file are relative to it: resolved when the file was read)
        return [Path(d) for d in ([in_file] if isinstance(in_file, str) else in_file)]
    return [given] if isinstance(given, Path | str) else list(given or [])


def _request(options: RunOptions, tournament_file: TournamentFile | None) -> TournamentRequest:
    settings = tournament_file.settings if tournament_file is not None else {}
    given = {
        "games": options.games_per_game,
        "move_time": options.move_time,
        "time_bank": options.time_bank,
        "max_faults": options.max_faults,
        "bots": options.bots,
        "seed": options.seed,
        "duplicate": options.duplicate,
        "pairing": options.pairing,
        "gauntlet": options.gauntlet,
    }
    picked = {k: v if v is not None else settings.get(k) for k, v in given.items()}
    if options.pairing not in (None, "gauntlet") and options.gauntlet is None:
        picked["gauntlet"] = None  # --pairing on the command line wins over the file's gauntlet
    records = options.records
    if records and tournament_file is not None:
        records = settings.get("records", True)  # --no-records wins over the file
    return TournamentRequest(
        games_per_game=_default(picked["games"], 100),
        game_names=options.game_names,
        bots=picked["bots"],
        players=options.players,
        seed=picked["seed"],
        move_time=_default(picked["move_time"], 1.0),
        max_faults=_default(picked["max_faults"], 3),
        records=records,
        sections=tournament_file.sections if tournament_file is not None else None,
        duplicate=_default(picked["duplicate"], True),
        source=tournament_file.path if tournament_file is not None else None,
        from_file=frozenset(key for key in FILE_NAMED if given[key] is None and key in settings),
        match=options.match,
        variant=options.variant,
        params=options.params,
        pairing=picked["pairing"],
        gauntlet=picked["gauntlet"],
        time_bank=picked["time_bank"],
    )


def _default(value, default):
    return value if value is not None else default


def _loading(
    options: RunOptions,
    request: TournamentRequest,
    in_file: dict,
    unfinished_runs: Callable[[], Sequence[RunInfo]],
) -> tuple[bool, bool]:
    """(whether the bot files are loaded isolated, whether that is a guess)."""
    if options.isolation is not None:
        return options.isolation == "process", False
    if in_file.get("isolation") == "process":
        return True, False
    runs = unfinished_runs()
    if options.resume:
        # The run continued is the latest unfinished one: it says how its bots run.
        if not runs:
            return False, False
        chosen = chosen_settings({"isolation": None}, runs[0].settings, in_file)
        return chosen["isolation"] == "process", False
    guess = any(
        run.settings.get("isolation") == "process" and _may_continue(run, request) for run in runs
    )
    return guess, guess


def _may_continue(run: RunInfo, request: TournamentRequest) -> bool:
    """Whether the tournament requested may be ``run``'s, as far as it can be told without the
    registry (which games exist and which bots play each are not known yet)."""
    config = run.config
    try:
        same = (
            config["games"] == request.games_per_game
            and config["move_time"] == request.move_time
            and config.get("time_bank") == request.time_bank
            and config["max_faults"] == request.max_faults
            and config["records"] == request.records
            and config.get("duplicate", True) == request.duplicate
        )
        if same and request.bots is not None and not request.sections:
            # Without game sections, the bots named are exactly the bots of the run's games.
            # (a run stores bots by version, name@2: the command names them by name)
            stored = {_unversioned(bot) for plan in config["plans"] for bot in plan["bots"]}
            same = stored == {_unversioned(bot) for bot in request.bots}
    except (KeyError, TypeError):
        return True  # an identity of a shape this arena does not know: settling decides
    return same and (request.seed is None or config["seed"] == str(request.seed))


def _unversioned(bot: str) -> str:
    base, at, number = bot.rpartition("@")
    return base if at and number.isdigit() else bot


def chosen_settings(given: dict, kept: dict, in_file: dict) -> dict:
    """How bots run: as given on the command line, else as the continued run was played (a
    setting it kept that this arena can use), else as the file says, else the default."""
    chosen = {}
    for key, default in BOT_DEFAULTS.items():
        if given.get(key) is not None:
            chosen[key] = given[key]
        elif key in kept and _usable(key, kept[key]):
            chosen[key] = kept[key]
        else:
            chosen[key] = in_file.get(key, default)
    return chosen


def _usable(key: str, value) -> bool:
    """A setting stored with a run that this arena can use."""
    if key == "bot_cpu" and value is None:
        return True
    try:
        check_setting(key, value)
    except PlanError:
        return False
    return True
