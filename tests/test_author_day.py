"""Issue 16, a bot author's day: fast feedback and no traps. One test (at least) per point.

1. baseline bots ship in the package · 2. search bots known by name, not fielded by default ·
3. fault tracebacks, `arena faults`, the fault summary, --fail-fast · 4. --variant/--param ·
5. set answers in any order · 6. bot packages · 7. a bot name registered twice ·
8. tournament-file paths relative to the file · 9. unknown names everywhere alike ·
10. `arena play` (forced moves, changes only, colour, the winning card, rules on `?`).
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from conftest import RANDOM_BOT, assert_one_line_error, bot_file, write_bots

from arena.plugins.loading import BUNDLED, load_registry

pytestmark = pytest.mark.usefixtures("isolated")


# --- 1. the baseline bots ship inside the package ---------------------------------------------


def test_new_bot_then_the_suggested_run_works_in_an_empty_folder(cli):
    made = cli("new-bot", "foo", "--game", "td")
    assert made.exit_code == 0, made.output
    assert "arena run --bots foo,random" in made.stdout
    ran = cli("run", "--bots", "foo,random", "--games", 4, "-j", 1, "-q", "--format", "json")
    assert ran.exit_code == 0, ran.output
    assert {r["bot"] for r in json.loads(ran.stdout)["twenty-down"]} == {"foo", "random"}


def test_bundled_bots_are_registered_through_the_hook_and_run_in_their_own_process(cli):
    registry = load_registry([], entry_points=False)
    for name in ("random", "td-heuristic", "hl-heuristic"):
        assert registry.bot(name).source == BUNDLED
        assert registry.bot(name).origin == ("module", "arena.plugins.builtin")
    ran = cli("run", "--game", "td", "--bots", "random,td-heuristic", "--games", 2, "-j", 1,
              "--isolation", "process", "-q", "--format", "json")  # fmt: skip
    assert ran.exit_code == 0, ran.output
    rows = json.loads(ran.stdout)["twenty-down"]
    assert all(r["faults"] == 0 for r in rows) and len(rows) == 2


def test_a_run_that_cannot_be_built_leaves_no_database_behind(cli):
    failed = cli("run", "--game", "td", "--bots", "td-search-small", "--games", 2)
    assert failed.exit_code == 2
    assert not Path("leaderboard").exists()


def test_a_bot_file_may_replace_a_bundled_bot(tmp_path):
    mine = RANDOM_BOT.replace("class RandomBot", "class MyRandom")
    folder = write_bots(tmp_path / "bots", {"my_random.py": mine.replace("RandomBot", "MyRandom")})
    registry = load_registry(folder, entry_points=False)
    assert registry.errors == []
    assert registry.bot("random").source == str(folder / "my_random.py")


# --- 2. the search bots: known by name everywhere, fielded only when named ---------------------


def test_search_bots_are_known_by_name_but_not_fielded_by_default(cli):
    listing = cli("bots")
    assert listing.exit_code == 0, listing.output
    assert "td-search-small" in listing.stdout and "hl-search-large" in listing.stdout
    assert "fielded only when named (--bots, a tournament file): hl-search-large" in listing.stdout
    plain = cli(
        "run", "--game", "td", "--games", 2, "-j", 1, "-q", "--format", "json", "--db", "a.db"
    )
    assert plain.exit_code == 0, plain.output
    assert not [r for r in json.loads(plain.stdout)["twenty-down"] if "search" in r["bot"]]
    named = cli("run", "--game", "td", "--bots", "td-search-small,random", "--games", 2, "-j", 1,
                "-q", "--format", "json", "--db", "b.db", "--move-time", "5")  # fmt: skip
    assert named.exit_code == 0, named.output
    assert {r["bot"] for r in json.loads(named.stdout)["twenty-down"]} == {
        "td-search-small",
        "random",
    }


# --- 6. a bot may be a package ----------------------------------------------------------------

HELPER_PACKAGE = {
    "__init__.py": "import arena\n\nfrom .choice import pick\n\n\n"
    "class Pkg(arena.Bot):\n    name = 'pkg'\n\n    def act(self, obs):\n"
    "        return pick(obs.legal_actions)\n\n\n"
    "@arena.hookimpl\ndef arena_register_bots(register):\n    register(Pkg)\n",
    "choice.py": "def pick(actions):\n    return actions[-1]\n",
}


@pytest.mark.parametrize("isolation", ["shared", "process"])
def test_a_bot_package_imports_its_own_modules(tmp_path, cli, isolation):
    write_bots(tmp_path / "bots" / "pkg_bot", HELPER_PACKAGE)
    registry = load_registry(tmp_path / "bots", entry_points=False)
    assert registry.errors == []
    assert registry.bot("pkg").origin == ("file", str((tmp_path / "bots" / "pkg_bot").resolve()))
    ran = cli("run", "--bots-dir", tmp_path / "bots", "--game", "td", "--bots", "pkg,random",
              "--games", 2, "-j", 1, "-q", "--format", "json",
              "--isolation", isolation)  # fmt: skip
    assert ran.exit_code == 0, ran.output
    assert all(r["faults"] == 0 for r in json.loads(ran.stdout)["twenty-down"])


def test_new_bot_package_writes_a_package_that_loads_and_plays(cli):
    made = cli("new-bot", "mine", "--game", "hl", "--package")
    assert made.exit_code == 0, made.output
    assert Path("bots/mine/__init__.py").is_file() and Path("bots/mine/helpers.py").is_file()
    ran = cli("run", "--bots", "mine,random", "--games", 2, "-j", 1, "-q", "--format", "json")
    assert ran.exit_code == 0, ran.output
    assert cli("new-bot", "mine", "--game", "hl").exit_code == 2  # bots/mine/ is taken


# --- 7. a bot name registered twice ------------------------------------------------------------


def test_a_bot_name_registered_by_two_files_is_an_error_naming_both_and_neither_plays(
    tmp_path, cli
):
    folder = write_bots(
        tmp_path / "bots",
        {
            "a_twin.py": bot_file("twin", "return observation.legal_actions[0]"),
            "b_twin.py": bot_file("twin", "return observation.legal_actions[-1]"),
        },
    )
    registry = load_registry(folder, entry_points=False)
    assert "twin" not in registry.bots
    (error,) = registry.errors
    assert str(folder / "a_twin.py") in str(error) and str(folder / "b_twin.py") in str(error)
    ran = cli("run", "--bots-dir", folder, "--bots", "twin,random", "--games", 2)
    assert ran.exit_code == 2
    warning, error_line = ran.stderr.strip().splitlines()
    assert "a_twin.py" in warning and "b_twin.py" in warning and "neither" in warning
    assert error_line.startswith("arena: error: unknown bot 'twin'")


# --- 8. paths in a tournament file are relative to the file -----------------------------------


def test_tournament_file_paths_are_relative_to_the_file(tmp_path, cli):
    cup = tmp_path / "cups"
    write_bots(cup / "mybots", {"mine.py": bot_file("mine", "return observation.legal_actions[0]")})
    (cup / "cup.toml").write_text(
        'games = 2\nseed = "rel"\ndb = "results/cup.db"\nbots_dir = "mybots"\n'
        '[game.td]\nbots = ["mine", "random"]\n'
    )
    ran = cli("run", cup / "cup.toml", "-j", 1, "-q")  # run from elsewhere
    assert ran.exit_code == 0, ran.output
    assert (cup / "results" / "cup.db").exists() and not Path("results").exists()


def test_the_repository_example_runs_from_inside_tournaments(tmp_path, cli, monkeypatch):
    from conftest import REPO

    (tmp_path / "tournaments").mkdir()
    example = (REPO / "tournaments" / "example.toml").read_text(encoding="utf-8")
    (tmp_path / "tournaments" / "example.toml").write_text(
        example.replace("games = 200", "games = 2")
    )
    monkeypatch.chdir(tmp_path / "tournaments")
    ran = cli("run", "example.toml", "-j", 1, "-q")
    assert ran.exit_code == 0, ran.output
    assert (tmp_path / "leaderboard" / "example.db").exists()
    assert not (tmp_path / "tournaments" / "leaderboard").exists()


# --- 3. faults are debuggable: tracebacks, `arena faults`, the summary, --fail-fast -------------

BOOM = bot_file(
    "boomer",
    """
    if len(observation.legal_actions) > 1:
        return helper(observation)
    return observation.legal_actions[0]
    """,
    header="def helper(observation):\n    raise ValueError('boom')\n",
)


def _boom_run(cli, tmp_path, *options):
    folder = write_bots(tmp_path / "bots", {"boomer.py": BOOM})
    return cli("run", "--bots-dir", folder, "--game", "td", "--bots", "boomer,random",
               "--games", 4, "--seed", 1, "-j", 1, "-q", *options)  # fmt: skip


@pytest.mark.parametrize("isolation", ["shared", "process"])
def test_an_exception_fault_keeps_its_traceback_and_arena_faults_shows_it(cli, tmp_path, isolation):
    ran = _boom_run(cli, tmp_path, "--isolation", isolation)
    assert ran.exit_code == 0, ran.output
    shown = cli("faults", "--bot", "boomer", "--limit", 1)
    assert shown.exit_code == 0, shown.output
    head, *traceback = shown.stdout.strip().splitlines()
    assert "seat" in head and "boomer" in head and "exception: ValueError: boom" in head
    text = "\n".join(traceback)
    assert "Traceback (most recent call last)" in text
    assert "boomer.py" in text and "in helper" in text and "timed_act" not in text
    listed = cli("faults", "--run", 1).stdout.splitlines()
    assert len([line for line in listed if line.startswith("game ")]) == 10  # the default --limit


def test_a_traceback_is_bounded(tmp_path):
    from arena.referee.faults import MAX_TRACEBACK, with_traceback

    def deep(n):
        if n == 0:
            raise RuntimeError("deep")
        deep(n - 1)

    try:
        deep(500)
    except RuntimeError as exc:
        text = with_traceback(exc, "RuntimeError: deep")
    assert len(text) < MAX_TRACEBACK + 100 and text.endswith("RuntimeError: deep")


def test_a_run_ends_with_a_fault_summary_naming_the_command_that_shows_them(cli, tmp_path):
    ran = _boom_run(cli, tmp_path, "--db", tmp_path / "x.db")
    assert ran.exit_code == 0, ran.output
    lines = ran.stderr.splitlines()
    (summary,) = [line for line in lines if line.startswith("faults in run 1: ")]
    assert summary.startswith("faults in run 1: boomer ") and "exception" in summary
    assert f"see them, with tracebacks: arena faults --run 1 --db {tmp_path / 'x.db'}" in lines
    assert "random" not in summary


def test_fail_fast_stops_at_the_first_fault_with_traceback_and_observation(cli, tmp_path):
    ran = _boom_run(cli, tmp_path, "--fail-fast")
    assert ran.exit_code == 1, ran.output
    assert "stopped at the first fault (--fail-fast): game 1 (run 1, twenty-down)" in ran.stderr
    assert "in helper" in ran.stderr and "ValueError: boom" in ran.stderr
    assert "the observation it was answering:" in ran.stderr
    assert "    legal_actions: [" in ran.stderr
    history = cli("history", "--format", "json")
    assert len(json.loads(history.stdout)) == 1  # the game of the fault is stored, no more
    again = _boom_run(cli, tmp_path)  # the bot fixed (or not), the same command: a new run
    assert "faults in run 2: boomer" in again.stderr


def test_an_older_database_gets_the_traceback_table_in_place_and_loses_nothing(cli, tmp_path):
    import sqlite3

    assert _boom_run(cli, tmp_path, "--db", "old.db").exit_code == 0
    with sqlite3.connect("old.db") as con:  # as an arena before issue 16 made it
        con.execute("DROP TABLE fault_tracebacks")
        faults = con.execute("SELECT COUNT(*) FROM faults").fetchone()[0]
    read = cli("faults", "--db", "old.db")  # read only: no table, no tracebacks, no error
    assert read.exit_code == 0 and "ValueError: boom" in read.stdout
    assert "Traceback" not in read.stdout
    assert _boom_run(cli, tmp_path, "--db", "old.db", "--seed", 2).exit_code == 0
    with sqlite3.connect("old.db") as con:
        assert con.execute("SELECT COUNT(*) FROM faults").fetchone()[0] > faults
        assert con.execute("SELECT COUNT(*) FROM fault_tracebacks").fetchone()[0] > 0
    assert "Traceback" in cli("faults", "--db", "old.db", "--run", 2).stdout


# --- 5. a set answer in any order is the same answer (HL-19, TD-19) -----------------------------

SHUFFLED_EXCHANGE = bot_file(
    "shuffler",
    """
    choice = observation.legal_actions[-1]
    if isinstance(choice, tuple):  # a set of cards: given reversed, as a list or as a set
        return [list(reversed(choice)), set(choice), tuple(reversed(choice))][len(choice) % 3]
    return choice
    """,
)
SORTED_EXCHANGE = bot_file("shuffler", "return observation.legal_actions[-1]")


@pytest.mark.parametrize("game", ["td", "hl"])
@pytest.mark.parametrize("isolation", ["shared", "process"])
def test_HL_19_TD_19_an_exchange_in_any_order_is_the_same_answer(cli, tmp_path, game, isolation):
    boards = []
    for name, source in (("any-order", SHUFFLED_EXCHANGE), ("sorted", SORTED_EXCHANGE)):
        folder = write_bots(tmp_path / name, {"shuffler.py": source})
        ran = cli("run", "--bots-dir", folder, "--game", game, "--bots", "shuffler,random",
                  "--games", 4, "--seed", 5, "-j", 1, "-q", "--format", "json",
                  "--isolation", isolation, "--db", tmp_path / f"{name}.db")  # fmt: skip
        assert ran.exit_code == 0, ran.output
        boards.append(json.loads(ran.stdout))
    (rows,) = boards[0].values()
    assert all(row["faults"] == 0 for row in rows)
    assert boards[0] == boards[1]  # the same games, answer for answer


def test_a_set_with_a_card_twice_or_too_many_cards_is_still_illegal():
    from arena.cards import parse_card
    from arena.games.twenty_down.rules import TwentyDownObservation

    q, k = parse_card("QH"), parse_card("KH")
    assert TwentyDownObservation.canonical_action([k, q]) == (q, k)
    assert TwentyDownObservation.canonical_action([q, q]) == (q, q)  # no legal action has it
    assert TwentyDownObservation.canonical_action([q, k, q, k]) is None
    assert TwentyDownObservation.canonical_action("QH") is None


# --- 9. unknown names: the same rules in every command ------------------------------------------

UNKNOWN_NAMES = {
    "history-bot": (["history", "--bot", "rndom"], "unknown bot 'rndom'; did you mean 'random'?"),
    "history-game": (["history", "--game", "twenty-dwn"], "did you mean 'twenty-down'?"),
    "faults-bot": (["faults", "--bot", "rndom"], "unknown bot 'rndom'; did you mean 'random'?"),
    "faults-run": (["faults", "--run", "99"], "no run 99"),
    "leaderboard-game": (["leaderboard", "--game", "twenty-dwn"], "did you mean 'twenty-down'?"),
    "run-bot": (["run", "--bots", "rndom", "-q"], "unknown bot 'rndom'; did you mean 'random'?"),
    "run-game": (["run", "--game", "twenty-dwn", "-q"], "did you mean 'twenty-down'?"),
    "play-game": (["play", "twenty-dwn"], "did you mean 'twenty-down'?"),
    "play-bot": (["play", "td", "--bots", "rndom"], "unknown bot 'rndom'; did you mean 'random'?"),
    "new-bot-game": (["new-bot", "x", "--game", "twenty-dwn"], "did you mean 'twenty-down'?"),
    # (these three said "unknown game" or "no results" with no closest name; found by review)
    "export-game": (["export", "--game", "twenty-dwn"], "did you mean 'twenty-down'?"),
    "report-game": (["report", "--game", "twenty-dwn"], "did you mean 'twenty-down'?"),
    "compare-game": (
        ["compare", "random", "td-heuristic", "--game", "twenty-dwn"],
        "did you mean 'twenty-down'?",
    ),
}


@pytest.fixture
def one_run(cli):
    ran = cli("run", "--game", "td", "--games", 2, "-j", 1, "-q")
    assert ran.exit_code == 0, ran.output


@pytest.mark.parametrize("case", sorted(UNKNOWN_NAMES))
def test_an_unknown_name_is_one_line_exit_2_with_the_closest_match_in_every_command(
    cli, one_run, case
):
    args, fragment = UNKNOWN_NAMES[case]
    assert_one_line_error(cli(*args), fragment)


def test_a_bare_arena_prints_the_help(capsys):
    from arena.cli import main

    assert main([]) == 0
    out = capsys.readouterr()
    assert "Usage: arena" in out.out and "faults" in out.out and "error" not in out.err


# --- 4. --variant and --param on arena run and arena play ---------------------------------------


def test_run_takes_a_variant_and_game_parameters_from_the_command_line(cli):
    ran = cli("run", "--game", "hl", "--variant", "whalen", "--param", "max_deals=3",
              "--param", "starting_chips=4", "--games", 2, "-j", 1, "-q")  # fmt: skip
    assert ran.exit_code == 0, ran.output
    import sqlite3

    with sqlite3.connect("leaderboard/arena.db") as con:
        (config,) = con.execute("SELECT config FROM runs").fetchone()
    (plan,) = json.loads(config)["plans"]
    assert plan["variant"] == "whalen"
    assert plan["params"] == {"max_deals": 3, "starting_chips": 4}


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--variant", "nope"], "--variant nope: how-low-can-you-go has no variant 'nope'"),
        (["--param", "max_deal=3"], "has no parameter 'max_deal'"),
        (["--param", "max_deals"], "--param max_deals: write KEY=VALUE"),
        (["--param", "max_deals=x"], "--param max_deals=x: write KEY=VALUE"),
        (["--param", "max_deals=10000000000"], "write KEY=VALUE with a whole number between"),
    ],
)
@pytest.mark.parametrize("command", ["run", "play"])
def test_a_bad_variant_or_parameter_is_one_line_before_anything_starts(
    cli, command, args, fragment
):
    if command == "run":
        result = cli("run", "--game", "hl", "--games", 2, *args)
    else:
        result = cli("play", "hl", "--bots", "random", *args, input="q\n")
    if command == "play" and fragment.startswith("--variant nope"):
        fragment = "how-low-can-you-go has no variant 'nope'"
    assert_one_line_error(result, fragment)
    assert not Path("leaderboard").exists()


def test_play_takes_a_variant_and_game_parameters(cli):
    import sqlite3

    played = cli("play", "hl", "--bots", "random", "--variant", "whalen", "--param",
                 "starting_chips=1", "--param", "max_deals=2", "--seed", 3, "--rated",
                 input="1\n" * 400)  # fmt: skip
    assert played.exit_code == 0, played.output
    with sqlite3.connect("leaderboard/arena.db") as con:
        (config,) = con.execute("SELECT config FROM runs").fetchone()
    assert '"variant": "whalen"' in config and '"starting_chips": 1' in config


# --- 10. arena play: forced moves, what changed, colour, the winning card, the rules, 80 columns --


def _play(cli, *options, answers="1\n" * 800):
    played = cli("play", "td", "--bots", "random", "--seed", 4, "--seat", 0, *options,
                 input=answers)  # fmt: skip
    assert played.exit_code == 0, played.output
    return played.stdout


def test_play_plays_forced_moves_for_you_unless_asked(cli):
    out = _play(cli)
    assert "(your only move)" in out and "(1-1," not in out
    asked = _play(cli, "--ask-forced")
    assert "(your only move)" not in asked and "your move (1-1, ? help, q leave)" in asked
    assert asked.count("your move (") > out.count("your move (")


def test_play_shows_the_table_once_then_only_what_changed(cli):
    out = _play(cli)
    prompts = out.count("your move (")
    assert prompts > 10
    # The header of a deal is shown once a deal, not at every decision.
    headers = [line for line in out.splitlines() if line.startswith("Deal 1 · trump")]
    assert len(headers) == 1
    assert len(out.splitlines()) < 30 * prompts


def test_play_colours_red_suits_on_a_colour_terminal_only(cli):
    from arena.cards import parse_card, parse_suit
    from arena.games.narration import RED, Style

    colour = Style(colour=True)
    assert colour.card(parse_card("QH")).startswith(RED)
    assert colour.card(parse_card("QD")).startswith(RED)
    assert colour.card(parse_card("QS")) == "Q♠" and colour.suit(parse_suit("C")) == "♣"
    assert RED in colour.suit(parse_suit("H"))
    assert "\033[" not in _play(cli)  # not a terminal: no colour codes


def test_play_marks_the_card_winning_the_trick_in_progress():
    from arena.cards import parse_card, parse_suit
    from arena.games.twenty_down.view import winning

    c = parse_card
    trick = [(1, c("KS")), (2, c("AS")), (3, c("7H"))]
    assert winning(trick, parse_suit("H")) == (3, c("7H"))  # TD-10: the trump
    assert winning(trick, parse_suit("D")) == (2, c("AS"))  # else the highest of the suit led
    assert winning([(0, c("7S")), (1, c("AC"))], parse_suit("D")) == (0, c("7S"))


def test_play_question_mark_shows_the_rules_of_the_game_being_played(cli):
    out = _play(cli, answers="?\n" + "1\n" * 800)
    assert "Five tricks: follow the suit led" in out and "docs/rules/twenty-down.md" in out
    hl = cli("play", "hl", "--bots", "random", "--seed", 2, input="?\nq\n")
    assert "Card values: K 13" in hl.stdout


def test_play_stays_readable_at_80_columns(cli):
    out = cli("play", "hl", "--bots", "random,hl-heuristic", "--players", 10, "--seed", 4,
              "--seat", 0, "--param", "max_deals=5", input="1\n" * 800).stdout  # fmt: skip
    assert out.count("your move (") > 5
    assert max(len(line) for line in out.splitlines()) <= 80


# --- the newcomer's walkthrough in the README, run as written, in a fresh folder ----------------

EDIT = re.compile(r"[Ii]n `([^`]+)`, change\s+`([^`]+)`\s+to\s+`([^`]+)`")
SHELL = re.compile(r"```sh\n(.*?)```", re.S)


def walkthrough_steps() -> list[tuple[str, ...]]:
    """The README's walkthrough in order: ("run", command) and ("edit", file, old, new)."""
    from conftest import REPO

    text = (REPO / "README.md").read_text(encoding="utf-8")
    text = text[text.index("<!-- walkthrough -->") : text.index("<!-- /walkthrough -->")]
    found = [(m.start(), ("edit", *m.groups())) for m in EDIT.finditer(text)]
    for block in SHELL.finditer(text):
        lines = [line for line in block.group(1).splitlines() if line.strip()]
        found += [(block.start() + i, ("run", line)) for i, line in enumerate(lines)]
    return [step for _, step in sorted(found)]


def test_the_readme_walkthrough_works_as_written_in_a_fresh_folder(cli):
    outputs = []
    for step in walkthrough_steps():
        if step[0] == "edit":
            _, path, old, new = step
            source = Path(path).read_text(encoding="utf-8")
            assert old in source, (path, old)
            Path(path).write_text(source.replace(old, new, 1), encoding="utf-8")
            continue
        words = shlex.split(step[1])
        assert words[0] == "arena", step
        result = cli(*words[1:])
        assert result.exit_code == 0, (step, result.output)
        outputs.append((words[1], result))
    runs = [r for command, r in outputs if command == "run"]
    (shown,) = [r for command, r in outputs if command == "faults"]
    assert len(runs) == 3
    assert "faults in run" not in runs[0].stderr  # the new bot plays cleanly
    # broken (and a new version of the bot, as the README says): the summary says so
    assert "faults in run 2: mine@2 " in runs[1].stderr
    assert "see them, with tracebacks: arena faults --run 2" in runs[1].stderr
    assert "Traceback (most recent call last)" in shown.stdout
    assert "bots/mine.py" in shown.stdout and "ValueError" in shown.stdout
    assert "faults in run" not in runs[2].stderr  # fixed


def test_a_plugin_game_shows_its_own_rules_on_question_mark(tally):
    from arena.games.narration import Style
    from arena.views.human_seat import HumanSeat

    class Ruled(tally):
        rules_summary = "Tally: pick numbers; the highest total wins."

    game = Ruled(players=2)
    lines: list[str] = []
    answers = iter(["?", "3"])
    seat = HumanSeat(game, ["you", "x"], Style(ascii=True), lambda _: next(answers), lines.append)
    assert seat.act(game.new_state(1).observation(0)) == 2  # move 3 of 0, 1, 2, ...
    assert "Tally: pick numbers; the highest total wins." in lines
