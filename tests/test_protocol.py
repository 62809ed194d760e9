"""The JSON-lines protocol of bots in any language (docs/protocol.md): the document's examples are
what arena sends, manifests load (or say why they cannot start), the Python client plays, and
``arena check-bot`` finds what breaks the protocol."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import REPO, assert_one_line_error
from hypothesis import given, settings
from hypothesis import strategies as st
from test_cli import arena_process

from arena.execution.process.bubblewrap import SandboxSettings
from arena.execution.process.program_bot import ProgramLimits, ProgramPool
from arena.plugins.loading import load_registry
from arena.plugins.manifests import ManifestError, read_manifest
from arena.protocol import examples, messages
from arena.protocol.client import observation_from_json
from arena.referee.inline import play_game

pytestmark = pytest.mark.usefixtures("isolated")
DOC = REPO / "docs" / "protocol.md"
NO_SANDBOX = SandboxSettings("none")


def doc_blocks() -> dict[str, dict]:
    blocks: dict[str, dict] = {}
    for name, text in examples.MARKER.findall(DOC.read_text()):
        message = json.loads(text)
        assert blocks.setdefault(name, message) == message, name  # shown twice: the same
    return blocks


def test_the_documents_examples_are_the_messages_generated_from_real_games():
    shown = doc_blocks()
    generated = examples.examples()
    assert shown == generated  # python -m arena.protocol.examples --write docs/protocol.md


def test_every_documented_message_is_valid_and_every_decision_kind_is_shown():
    shown = doc_blocks()
    for name, message in shown.items():
        if name.startswith("bot-") or message["type"] in ("action", "error"):
            assert messages.parse_line(messages.dumps(message)) == message  # a program's line
            if message["type"] == "hello":
                assert messages.check_hello(message) == []
        else:
            assert messages.check_arena_message(message) == [], name
    # every action answers its request: it is one of the request's legal actions
    for name, message in shown.items():
        if "-action-" in name:
            request = shown[name.replace("-action-", "-act-")]
            if "count" in request:  # the compact form of a decision also shown whole
                whole = shown[name.replace("-compact-action-", "-act-")]
                fields = whole["observation"]
                assert request["count"] == len(fields["legal_actions"])
                assert request["observation"] == {
                    key: fields[key] for key in fields if key in request["observation"]
                }
                request = whole
            assert messages.action_index(message, request["observation"]["legal_actions"]) >= 0
    acts = [m["observation"] for m in shown.values() if m["type"] == "act" and "count" not in m]
    phases = {o["phase"] for o in acts if o["game"] == "twenty-down"}
    assert phases == {"trump", "exchange", "play", "stay-or-drop"}
    assert any("redraw" in o["legal_actions"] for o in acts), "the whalen redraw is shown"
    for game in ("twenty-down", "how-low-can-you-go"):
        assert {m["type"] for m in shown.values() if m.get("game") == game} == {"start"}
        assert any(o["game"] == game for o in acts)
    assert sum(m["type"] == "end" for m in shown.values()) == 4


def python_program(folder: Path, name: str = "py-random") -> Path:
    """A manifest running the bundled random bot through arena.protocol."""
    (folder / f"{name}.toml").write_text(
        textwrap.dedent(f"""
        name = "{name}"
        command = ["{{python}}", "-m", "arena.protocol", "{REPO}/arena/plugins/baseline/random_bot.py:RandomBot"]
        """)  # noqa: E501
    )
    return folder / f"{name}.toml"


def test_what_arena_sends_in_a_real_game_has_the_documented_shape(tmp_path):
    manifest = read_manifest(python_program(tmp_path))
    lines: list[tuple[str, dict]] = []
    pool = ProgramPool(
        manifest, ProgramLimits(5.0, 0, None, NO_SANDBOX),
        on_line=lambda who, line: lines.append((who, json.loads(line))),
    )  # fmt: skip
    registry = load_registry(bots_dir=[], entry_points=False)
    shown = doc_blocks()
    try:
        for game_name, prefix in (("twenty-down", "td"), ("how-low-can-you-go", "hl")):
            game = registry.games[game_name].cls()
            factories = [pool.factory] + [registry.bots["random"].create] * (game.players - 1)
            names = ("program",) + ("random",) * (game.players - 1)
            outcome = play_game(game, factories, names, f"shape/{game_name}", move_time=5.0)
            assert list(outcome.fault_log) == []
            sent = [m for who, m in lines if who == "arena"]
            assert {m["type"] for m in sent} >= {"start", "act", "end"}
            for message in sent:
                assert messages.check_arena_message(message) == []
                kind = message["type"]
                example = shown[{"hello": "arena-hello", "act": f"{prefix}-act-exchange"}.get(
                    kind, f"{prefix}-{kind}")]  # fmt: skip
                assert set(message) == set(example)
                if kind == "act":
                    assert set(message["observation"]) == set(example["observation"])
            lines.clear()
    finally:
        pool.close()


def test_the_python_client_rebuilds_observations_bots_can_use():
    shown = doc_blocks()
    from arena.plugins.baseline.hl_heuristic import HowLowHeuristic
    from arena.plugins.baseline.td_heuristic import TwentyDownHeuristic

    classes = {"how-low-can-you-go": None}
    for name, bot_class in (("td-act-play", TwentyDownHeuristic),
                            ("td-act-exchange", TwentyDownHeuristic),
                            ("hl-act-exchange", HowLowHeuristic)):  # fmt: skip
        data = shown[name]["observation"]
        observation = observation_from_json(data, {} if "td" in name else _hl_classes(classes))
        action = bot_class().act(observation)
        assert action in observation.legal_actions


def _hl_classes(_):
    from arena.protocol.client import _from_json_classes

    return _from_json_classes()


# --- manifests ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, problem",
    [
        ('name = "x"\n', "command must be"),
        ('name = "x@2"\ncommand = ["sh"]\n', "may not contain '@'"),
        ('command = ["sh"]\n', "name must be"),
        ('name = "x"\ncommand = ["sh"]\nflavour = 1\n', "unknown key(s) flavour"),
        ('name = "x"\ncommand = ["sh"]\ngames = "twenty-down"\n', "games must be a list"),
        ("name = [", "not a readable TOML file"),
    ],
)
def test_a_wrong_manifest_is_one_line_naming_the_problem(tmp_path, text, problem):
    path = tmp_path / "x.toml"
    path.write_text(text)
    with pytest.raises(ManifestError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        read_manifest(path)


def test_arena_bots_lists_program_bots_and_why_one_cannot_start(tmp_path):
    bots = tmp_path / "bots"
    bots.mkdir()
    python_program(bots)
    (bots / "ghost.toml").write_text('name = "ghost"\ncommand = ["no-such-program-xyz"]\n')
    (bots / "broken.c").write_text("int main( {\n")
    (bots / "broken.toml").write_text(
        'name = "broken"\nbuild = ["cc", "-o", "{cache}/b", "broken.c"]\ncommand = ["{cache}/b"]\n'
    )
    env = {"ARENA_CACHE_DIR": str(tmp_path / "cache")}
    proc = arena_process("bots", "--bots-dir", bots, env_extra=env)
    assert proc.returncode == 0, proc.stderr
    assert "py-random" in proc.stdout
    assert (
        "ghost.toml: cannot start: program 'no-such-program-xyz' not found on PATH" in proc.stdout
    )
    if _has("cc"):
        assert "broken.toml: cannot start: build failed (exit 1)" in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr


def test_a_build_goes_to_the_cache_once_and_again_when_a_source_changes(tmp_path):
    require("cc")
    folder = tmp_path / "src"
    folder.mkdir()
    (folder / "bot.c").write_text("int main(void) { return 0; }\n")
    (folder / "b.toml").write_text(
        'name = "b"\nbuild = ["cc", "-o", "{cache}/b", "bot.c"]\ncommand = ["{cache}/b"]\n'
    )
    env = {"ARENA_CACHE_DIR": str(tmp_path / "cache")}
    os.environ.update(env)
    try:
        from arena.plugins.manifests import prepare

        manifest = read_manifest(folder / "b.toml")
        prepare(manifest)
        first = manifest.cache()
        assert (first / "b").is_file() and sorted(os.listdir(folder)) == ["b.toml", "bot.c"]
        stamp = (first / "b").stat().st_mtime_ns
        prepare(read_manifest(folder / "b.toml"))
        assert (first / "b").stat().st_mtime_ns == stamp  # cached: not built again
        (folder / "bot.c").write_text("int main(void) { return 1; }\n")
        changed = read_manifest(folder / "b.toml")
        prepare(changed)
        assert changed.cache() != first and (changed.cache() / "b").is_file()
    finally:
        os.environ.pop("ARENA_CACHE_DIR")


# --- check-bot -----------------------------------------------------------------------------------


def _has(program: str) -> bool:
    import shutil

    return shutil.which(program) is not None


def require(program: str) -> None:
    """Skip without ``program`` (node, cc) on a user's machine; fail in CI, which installs it."""
    if not _has(program):
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but {program} is missing (.ci/run installs nodejs and gcc)")
        pytest.skip(f"{program} is not installed")


def test_check_bot_passes_the_examples(tmp_path):
    require("node")
    require("cc")
    env = {"ARENA_CACHE_DIR": str(tmp_path / "cache")}
    for manifest in ("random-js.toml", "heuristic-c.toml"):
        proc = arena_process("check-bot", "--games", "1", REPO / "examples/protocol" / manifest,
                             env_extra=env)  # fmt: skip
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "no problem found" in proc.stdout


def _twenty_down_program(path, on_act: str):
    """A Python program of the protocol that plays Twenty Down and answers each ``act`` message
    (``message``) with ``on_act``'s lines."""
    act = textwrap.indent(textwrap.dedent(on_act), " " * 8)
    path.write_text(
        textwrap.dedent(f"""
        import json, os, sys
        for line in sys.stdin:
            message = json.loads(line)
            if message["type"] == "hello":
                print(json.dumps({{"type": "hello", "protocol": 1, "name": "{path.stem}",
                                  "games": ["twenty-down"]}}), flush=True)
            elif message["type"] == "act":
        """)
        + act
    )
    return path


def test_check_bot_reports_each_breach_in_a_line_and_fails(tmp_path):
    program = _twenty_down_program(tmp_path / "sloppy.py", """
        legal = message["observation"]["legal_actions"]
        answer = legal[-1]
        if isinstance(answer, list):
            answer = answer[::-1]  # a set of cards, not sorted
        print(json.dumps({"type": "action", "action": answer, "mood": "ok"}), flush=True)
    """)  # fmt: skip
    proc = arena_process("check-bot", "--games", "1", "--sandbox", "none", "--", sys.executable,
                         program)  # fmt: skip
    assert proc.returncode == 1, proc.stdout + proc.stderr
    problems = [line for line in proc.stdout.splitlines() if line.startswith("problem: ")]
    assert any("must be sorted by card number" in p for p in problems), problems
    assert any("unknown key(s) mood" in p for p in problems), problems
    assert proc.stdout.strip().endswith("problem(s) found")
    assert "Traceback" not in proc.stdout + proc.stderr


def test_check_bot_points_to_stderr_when_the_program_ends_at_start(tmp_path):
    program = tmp_path / "broken.py"
    program.write_text("import sys\nsys.stderr.write('no module named numpy\\n')\nsys.exit(3)\n")
    command = ("check-bot", "--games", "1", "--sandbox", "none")
    proc = arena_process(*command, "--", sys.executable, program)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "exit code 3" in proc.stdout
    assert "--stderr shows what the program printed" in proc.stdout
    assert "numpy" not in proc.stdout + proc.stderr
    shown = arena_process(*command, "--stderr", "--", sys.executable, program)
    assert shown.returncode == 1
    assert "no module named numpy" in shown.stderr
    assert "--stderr shows" not in shown.stdout


def test_check_bot_points_to_stderr_when_the_program_dies_in_a_game(tmp_path):
    program = _twenty_down_program(tmp_path / "dies.py", """
        sys.stderr.write("IndexError: list index out of range\\n")
        os._exit(1)
    """)  # fmt: skip
    proc = arena_process("check-bot", "--games", "1", "--sandbox", "none", "--", sys.executable,
                         program)  # fmt: skip
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "crash: its program ended (exit code 1)" in proc.stdout
    assert proc.stdout.strip().endswith("--stderr shows what the program printed)")


def test_check_bot_reports_the_compact_forms_breaches(tmp_path):
    program = tmp_path / "compact.py"
    program.write_text(
        textwrap.dedent("""
        import json, sys
        for line in sys.stdin:
            message = json.loads(line)
            if message["type"] == "hello":
                print(json.dumps({"type": "hello", "protocol": 1, "name": "compact",
                                  "games": ["twenty-down"], "fields": ["hand", "nonsense"]}),
                      flush=True)
            elif message["type"] == "act":
                assert list(message["observation"]) == ["hand"], message
                both = {"index": 0, "action": "x"} if message["request"] == 2 else {}
                print(json.dumps({"type": "action", "request": message["request"],
                                  "index": message["count"] - 1, **both}), flush=True)
    """)
    )
    proc = arena_process("check-bot", "--games", "1", "--sandbox", "none", "--", sys.executable,
                         program)  # fmt: skip
    assert proc.returncode == 1, proc.stdout + proc.stderr
    problems = [line for line in proc.stdout.splitlines() if line.startswith("problem: ")]
    assert any("fields ['nonsense'] are no observation field" in p for p in problems), problems
    assert any("names neither an action nor an index, or both" in p for p in problems), problems
    assert len(problems) == 3, problems  # (and the fault of the answer with both)
    assert "Traceback" not in proc.stdout + proc.stderr


def test_the_documented_manifest_of_a_python_bot_runs_it_with_its_file_beside(tmp_path):
    """docs/protocol.md's `command = ["{python}", "-m", "arena.protocol", "_cautious.py:Cautious"]`:
    the file named before ':' is the manifest folder's, shown in the sandbox (its program ended
    at once: no such file in the folder it runs in)."""
    folder = tmp_path / "bots"
    folder.mkdir()
    random_bot = (REPO / "arena/plugins/baseline/random_bot.py").read_text()
    (folder / "_cautious.py").write_text(
        random_bot.replace("RandomBot", "Cautious").replace(
            'name = "random"', 'name = "cautious"\n    games = {"twenty-down"}'
        )
    )
    (folder / "cautious.toml").write_text(
        'name = "cautious"\ngames = ["twenty-down"]\n'
        'command = ["{python}", "-m", "arena.protocol", "_cautious.py:Cautious"]\n'
    )
    manifest = read_manifest(folder / "cautious.toml")
    assert manifest.sources == ("_cautious.py",)  # a change of the file is a new version
    proc = arena_process("check-bot", "--games", "1", folder / "cautious.toml")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "no problem found" in proc.stdout


def test_check_bot_on_a_python_bot_file_says_how_to_check_one(cli, tmp_path):
    """It said "program 'bots/mine.py' is not executable", as if the file were broken."""
    bot = tmp_path / "mine.py"
    bot.write_text("import arena\n")
    result = cli("check-bot", bot)
    assert_one_line_error(result, "mine.py is a Python bot file", "--fail-fast")


def test_a_program_is_a_new_version_when_its_manifest_or_a_source_changes(tmp_path):
    from arena.tournament.versions import identify

    bots = tmp_path / "bots"
    bots.mkdir()
    (bots / "p.sh").write_text("echo one\n")
    (bots / "p.toml").write_text('name = "p"\ncommand = ["sh", "p.sh"]\n')

    def fingerprint() -> str:
        return identify(load_registry(bots, entry_points=False).bots["p"]).fingerprint

    first = fingerprint()
    assert fingerprint() == first
    (bots / "p.sh").write_text("echo two\n")
    second = fingerprint()
    assert second != first
    (bots / "p.toml").write_text('name = "p"\ncommand = ["sh", "p.sh"]\n[settings]\nx = 1\n')
    assert fingerprint() not in (first, second)


# (the compact form: no field, or some, and a name that is no field)
COMPACT = [None, frozenset(), frozenset({"hand", "legal_actions", "no-such-field"})]


@pytest.mark.parametrize("only", COMPACT, ids=["whole", "no-field", "some-fields"])
@pytest.mark.parametrize("game_name, variant", [("twenty-down", None), ("twenty-down", "brostedt"),
                                                ("how-low-can-you-go", None),
                                                ("how-low-can-you-go", "whalen")])  # fmt: skip
def test_the_fast_request_lines_are_exactly_the_observations_to_json(game_name, variant, only):
    from arena.protocol.requests import CHECKS, RequestWriter, TextMemo, answer_index

    game = load_registry(bots_dir=[], entry_points=False).games[game_name].cls(variant=variant)
    verified: dict = {}
    memo = TextMemo()  # (one for every seat, as a program's seats share one)
    writers: dict = {}
    time = messages.time_left(1.0)
    count = 0
    for number in range(4):
        state = game.new_state(f"lines/{number}")
        chooser = __import__("random").Random(number)
        while (player := state.current_player()) >= 0:
            observation = state.observation(player)
            line, legal = writers.setdefault(player, RequestWriter(verified, memo)).line(
                7, observation, time, count, only
            )
            whole = observation.to_json()
            listed = whole["legal_actions"]
            shown = messages.only_fields(whole, only)
            expected = messages.act(7, shown, time, count, None if only is None else len(listed))
            assert json.loads(line) == json.loads(messages.dumps(expected))
            assert list(json.loads(line)["observation"]) == list(shown)  # (in order)
            found = [answer_index({"type": "action", "action": a}, legal) for a in listed]
            assert found == list(range(len(listed)))  # (each found by its text)
            by_index = [answer_index({"type": "action", "index": i}, legal) for i in found]
            assert by_index == found
            state.apply_legal(chooser.randrange(len(state.legal_actions())))
            count += 1
    assert count > CHECKS and list(verified.values()) == [0]  # the fast way, after its checks


def test_a_class_whose_to_json_differs_is_written_by_its_to_json():
    from arena.games.base import Observation
    from arena.protocol.requests import RequestWriter

    class Odd(Observation):
        __slots__ = ("pair",)
        fields = Observation.fields + __slots__

        def to_json(self):
            return {**super().to_json(), "pair": {"odd": True}}

    odd = Odd()
    odd.game, odd.seat, odd.legal_actions, odd.pair = "g", 0, ["a"], (1, 2)
    verified: dict = {}
    line, _ = RequestWriter(verified).line(1, odd, messages.time_left(1.0))
    assert json.loads(line)["observation"]["pair"] == {"odd": True}
    assert verified == {Odd: None}


@pytest.mark.parametrize("sandbox", ["none", "auto"])
def test_a_program_may_signal_no_process_but_itself(tmp_path, sandbox):
    """The signal filter of bot processes holds for programs (installed before exec)."""
    from arena.referee.faults import ProgramFault

    (tmp_path / "s.sh").write_text(
        textwrap.dedent("""
        read line
        echo '{"type":"hello","protocol":1,"name":"s","games":["twenty-down"]}'
        while read line; do
          if kill -0 $PPID 2>/dev/null; then r=allowed; else r=refused; fi
          echo "{\\"type\\":\\"error\\",\\"message\\":\\"$r\\"}"
        done
    """)
    )
    (tmp_path / "s.toml").write_text('name = "s"\ncommand = ["sh", "s.sh"]\n')
    game = load_registry(bots_dir=[], entry_points=False).games["twenty-down"].cls()
    state = game.new_state("signals")
    limits = ProgramLimits(5.0, 1 << 30, None, SandboxSettings(sandbox))
    pool = ProgramPool(read_manifest(tmp_path / "s.toml"), limits)
    try:
        with pytest.raises(ProgramFault, match="it answered an error: refused"):
            pool.factory().act(state.observation(state.current_player()))
    finally:
        pool.close()


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.none()
        | st.booleans()
        | st.integers()
        | st.text(max_size=5)
        | st.sampled_from(["QH", "7S", "stay", "H"]),
        lambda inner: st.lists(inner, max_size=4),
        max_leaves=12,
    )
)
def test_request_text_is_what_json_dumps_writes(value):
    from arena.protocol.requests import text

    assert text(value) == json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 51), max_size=5, unique=True), min_size=1, max_size=30))
def test_a_list_of_card_sets_is_written_as_json_dumps_writes_it(sets):
    from arena.cards import CARDS
    from arena.protocol.requests import Legal, card_sets_text

    value = [tuple(CARDS[c] for c in cards) for cards in sets]
    names = [[CARDS[c].ascii for c in cards] for cards in sets]
    assert card_sets_text(value) == json.dumps(names, separators=(",", ":"))
    legal = Legal(None, value, None)  # (the compact form: not written, an answer still found)
    for cards in names:
        assert legal.index(json.dumps(cards, separators=(",", ":"))) == names.index(cards)
    # not sets of cards: suits, numbers, words are not written as cards
    from arena.cards import SUITS

    assert card_sets_text([tuple(SUITS[:2])]) is None
    assert card_sets_text([(1, 2)]) is None
    assert card_sets_text([value[0], "redraw"]) is None


def test_an_answer_by_index_must_name_one_legal_action_and_nothing_else():
    legal = [["QH"], ["7S"], []]
    assert messages.action_index({"type": "action", "index": 2}, legal) == 2
    for wrong in (3, -1, True, 1.0, "1", None):
        with pytest.raises(ValueError):  # an illegal answer
            messages.action_index({"type": "action", "index": wrong}, legal)
    for both_or_neither in ({"type": "action", "index": 0, "action": ["QH"]}, {"type": "action"}):
        with pytest.raises(messages.ProtocolError, match="neither an action nor an index"):
            messages.action_index(both_or_neither, legal)


def test_a_hello_asks_for_the_compact_form_with_a_list_of_field_names():
    hello = {"type": "hello", "protocol": 1, "name": "c", "games": []}
    assert messages.check_hello({**hello, "fields": []}) == []
    assert messages.fields_wanted({**hello, "fields": ["hand"]}) == {"hand"}
    assert messages.fields_wanted(hello) is None  # the whole observation
    for wrong in ("hand", [1], {"hand": True}):
        assert messages.check_hello({**hello, "fields": wrong}) == [
            "hello's fields is not a list of observation field names"
        ]


def test_an_answer_naming_another_request_is_a_message_nobody_asked_for():
    answer = {"type": "action", "request": 7, "action": "QH"}
    messages.answer_for(answer, 3, 7)  # its own request
    messages.answer_for({"type": "action", "action": "QH"}, 3, 7)  # (none named: by order)
    messages.answer_for({**answer, "id": 3}, 3, 7)
    for wrong in ({**answer, "request": 6}, {**answer, "id": 4}, {**answer, "request": "7"}):
        with pytest.raises(messages.ProtocolError, match="a message nobody asked for"):
            messages.answer_for(wrong, 3, 7)


def test_every_request_carries_a_new_number_its_answer_may_repeat(tmp_path):
    """Through a program that repeats each request's number in its answer."""
    (tmp_path / "echo.py").write_text(
        textwrap.dedent("""
        import json, sys
        for line in sys.stdin:
            m = json.loads(line)
            if m["type"] == "hello":
                print(json.dumps({"type": "hello", "protocol": 1, "name": "echo",
                                  "games": ["twenty-down"]}), flush=True)
            elif m["type"] == "act":
                sys.stderr.write(str(m["request"]) + "\\n")
                print(json.dumps({"type": "action", "request": m["request"],
                                  "action": m["observation"]["legal_actions"][0]}), flush=True)
    """)
    )
    (tmp_path / "echo.toml").write_text(
        f'name = "echo"\ncommand = ["{sys.executable}", "echo.py"]\n'
    )
    game = load_registry(bots_dir=[], entry_points=False).games["twenty-down"].cls()
    state = game.new_state("numbers")
    with open(tmp_path / "err", "w") as err:
        limits = ProgramLimits(5.0, 0, None, SandboxSettings("none"), err.fileno())
        pool = ProgramPool(read_manifest(tmp_path / "echo.toml"), limits)
        try:
            players = [pool.factory() for _ in range(2)]
            for player in players * 2:
                observation = state.observation(state.current_player())
                assert player.act(observation) in observation.legal_actions
        finally:
            pool.close()
    assert (tmp_path / "err").read_text().split() == ["1", "2", "3", "4"]


def test_a_manifest_shows_its_program_no_file_outside_its_folder(tmp_path):
    """A manifest naming `../secret.txt:x` (or an absolute path) had that file bound into the
    sandbox as one of its sources: a program could read any file the arena user can."""
    (tmp_path / "secret.txt").write_text("key")
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.toml").write_text(
        'name = "peek"\ncommand = ["sh", "../secret.txt:x", "'
        + str(tmp_path / "secret.txt")
        + '"]\n'
    )
    manifest = read_manifest(folder / "bot.toml")
    assert manifest.sources == ()
    assert not any("secret" in path for shown in manifest.visible() for path in shown)
    (folder / "bot.toml").write_text(
        'name = "peek"\ncommand = ["sh"]\nsources = ["../secret.txt"]\n'
    )
    with pytest.raises(ManifestError, match="sources must be files of its folder"):
        read_manifest(folder / "bot.toml")
