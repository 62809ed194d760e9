"""arena/scaffold.py (`arena new-bot NAME --game GAME`): the file it writes loads and plays legal
games at once; bad names, taken names, existing files and unknown games are one-line errors."""

from __future__ import annotations

import pytest
from conftest import STANDARD_BOTS, write_bots

from arena.plugins.loading import GameSpec, load_registry
from arena.referee.inline import play_game
from arena.scaffold import ScaffoldError, write_bot_file

pytestmark = pytest.mark.usefixtures("isolated")


def play_some(registry, bot: str, game_name: str, games: int = 3, players: int | None = None):
    game = registry.game(game_name).cls(players=players)
    spec = registry.bot(bot)
    for i in range(games):
        outcome = play_game(game, [spec.create] * game.players, (bot,) * game.players, f"s{i}")
        assert sum(outcome.faults) == 0, outcome.fault_log
        assert outcome.decisions > 0


@pytest.mark.parametrize(
    "game,full_name",
    [
        ("twenty-down", "twenty-down"),
        ("td", "twenty-down"),
        ("how-low-can-you-go", "how-low-can-you-go"),
        ("hl", "how-low-can-you-go"),
    ],
)
def test_written_bot_loads_and_plays_legally(tmp_path, game, full_name):
    bots_dir = tmp_path / "bots"
    path = write_bot_file("my-bot", game, bots_dir)
    assert path == bots_dir / "my_bot.py"
    source = path.read_text(encoding="utf-8")
    assert "arena_register_bots" in source and "def act(self, obs)" in source
    assert source.count("#") >= 4  # commented
    registry = load_registry(bots_dir, entry_points=False)
    assert not registry.errors, registry.errors
    spec = registry.bot("my-bot")
    assert spec.games == frozenset({full_name})
    play_some(registry, "my-bot", full_name)
    if full_name == "how-low-can-you-go":
        play_some(registry, "my-bot", full_name, games=2, players=7)  # two packs
        play_some(registry, "my-bot", full_name, games=2, players=2)


def test_written_bot_plays_beside_other_bots(tmp_path):
    bots_dir = write_bots(tmp_path / "bots", STANDARD_BOTS)
    write_bot_file("newcomer", "td", bots_dir)
    registry = load_registry(bots_dir, entry_points=False)
    assert not registry.errors, registry.errors
    game = registry.game("twenty-down").cls()
    seats = ("newcomer", "random", "newcomer", "random")
    outcome = play_game(game, [registry.bot(b).create for b in seats], seats, "mixed")
    assert sum(outcome.faults) == 0, outcome.fault_log


def test_a_game_without_a_template_gets_a_generic_bot(tmp_path, tally):
    bots_dir = tmp_path / "bots"
    registry = load_registry(bots_dir, entry_points=False)
    registry.games["tally"] = GameSpec("tally", tally, "test")
    path = write_bot_file("counter", "tally", bots_dir, registry=registry)
    registry = load_registry(bots_dir, entry_points=False)
    # (the test game is registered only below, after loading: the bot names a game unknown then)
    assert [e.message[:34] for e in registry.errors] == ["bot 'counter' names the game(s) 't"]
    registry.games["tally"] = GameSpec("tally", tally, "test")
    assert "tally" in path.read_text(encoding="utf-8")
    play_some(registry, "counter", "tally")


@pytest.mark.parametrize(
    "name,fragment",
    [
        ("My-Bot", "bad bot name"),
        ("my bot", "bad bot name"),
        ("my_bot", "bad bot name"),
        ("-bot", "bad bot name"),
        ("bot-", "bad bot name"),
        ("a--b", "bad bot name"),
        ("1bot", "bad bot name"),
        ("", "bad bot name"),
        ("../evil", "bad bot name"),
        ("x" * 41, "at most 40"),
        ("class", "keyword"),
        ("human", "the person of `arena play`"),  # a file the loader would refuse
    ],
)
def test_bad_names_are_refused(tmp_path, name, fragment):
    bots_dir = tmp_path / "bots"
    with pytest.raises(ScaffoldError) as info:
        write_bot_file(name, "td", bots_dir)
    message = str(info.value)
    assert fragment in message and "\n" not in message
    assert not bots_dir.exists() or not list(bots_dir.iterdir())


def test_a_taken_name_is_refused(tmp_path):
    bots_dir = write_bots(tmp_path / "bots", STANDARD_BOTS)  # random_bot.py registers "random"
    with pytest.raises(ScaffoldError, match="already taken") as info:
        write_bot_file("random", "hl", bots_dir)
    assert "\n" not in str(info.value)
    assert not (bots_dir / "random.py").exists()


def test_an_existing_file_is_never_overwritten(tmp_path):
    bots_dir = tmp_path / "bots"
    bots_dir.mkdir()
    existing = bots_dir / "keep_me.py"
    existing.write_text("# mine\n", encoding="utf-8")
    with pytest.raises(ScaffoldError, match="already exists") as info:
        write_bot_file("keep-me", "td", bots_dir)
    assert "\n" not in str(info.value)
    assert existing.read_text(encoding="utf-8") == "# mine\n"


def test_an_unknown_game_is_refused(tmp_path):
    bots_dir = tmp_path / "bots"
    with pytest.raises(ScaffoldError, match="unknown game 'chess'") as info:
        write_bot_file("my-bot", "chess", bots_dir)
    assert "\n" not in str(info.value)
    assert not (bots_dir / "my_bot.py").exists()


def test_scaffold_error_is_a_value_error():
    assert issubclass(ScaffoldError, ValueError)


def test_a_file_in_place_of_the_folder_is_refused(tmp_path):
    not_a_folder = tmp_path / "bots"
    not_a_folder.write_text("", encoding="utf-8")
    with pytest.raises(ScaffoldError, match="not a folder"):
        write_bot_file("my-bot", "td", not_a_folder)
