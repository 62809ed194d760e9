"""`arena play`: a person against bots — driven through standard input (CliRunner and a real
process) and once through a pseudo-terminal, with invalid answers, leaving, Ctrl-C and --rated.
"""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import termios
import time

import pytest
from conftest import assert_one_line_error, bot_file

from arena.cards import parse_card
from arena.games.how_low import HowLowCanYouGo
from arena.games.narration import Style
from arena.games.twenty_down import TwentyDown
from arena.views.human_seat import parse_choice, seat_bots

pytestmark = pytest.mark.usefixtures("isolated")

ANSWERS = "1\n" * 600  # always the first legal move: enough for any game


def ok(result):
    assert result.exit_code == 0, (result.exit_code, result.output, result.exception)
    assert "Traceback" not in result.output
    return result


def play_args(bots_dir, game="td", *extra):
    return ["play", game, "--bots-dir", bots_dir, *extra]


# --- reading a move ----------------------------------------------------------------------------


def test_parse_choice_takes_a_number_or_the_move_itself():
    td = TwentyDown().new_state("p")
    suits = td.legal_actions()
    assert parse_choice("1", suits) == (0, "")
    assert parse_choice("h", suits) == (suits.index(parse_card("AH").suit), "")
    assert parse_choice("♦", suits)[0] == 3
    td.apply_action(suits[2])  # trump named: exchange sets
    sets = td.legal_actions()
    hand = sorted({c for s in sets for c in s})
    two = f"{hand[3].ascii} {hand[0].ascii.lower()}"  # any order, any case
    assert sets[parse_choice(two, sets)[0]] == (hand[0], hand[3])
    assert parse_choice("stand", sets) == (0, "") and parse_choice("-", sets) == (0, "")
    assert parse_choice(str(hand[1]), sets)[0] == sets.index((hand[1],))  # "Q♥" too


def test_parse_choice_explains_what_is_wrong():
    td = TwentyDown().new_state("p")
    td.apply_action(td.legal_actions()[0])
    sets = td.legal_actions()
    hand = sorted({c for s in sets for c in s})
    assert parse_choice("", sets)[1].startswith("type a number from 1 to 26")
    assert "there is no move 27" in parse_choice("27", sets)[1]
    assert "not a card" in parse_choice("xyz", sets)[1]
    assert "at most 3 cards" in parse_choice(" ".join(c.ascii for c in hand[:4]), sets)[1]
    assert parse_choice("q", sets)[0] is None
    held = {c.ascii for c in hand}
    other = next(n for n in ("AS", "KS", "QS", "JS", "TS") if n not in held)
    assert parse_choice(other, sets)[1] == f"you do not hold {Style().card(parse_card(other))}"
    # Playing: a card that does not follow suit is explained.
    plays = [parse_card("7H"), parse_card("9H")]
    why = parse_choice("AS", plays)[1]
    assert "follow the suit led" in why and "7♥ 9♥" in why
    assert parse_choice("stay", ["stay", "drop"]) == (0, "")
    assert parse_choice("redraw", [(), "redraw"]) == (1, "")


def test_bots_fill_the_other_seats_in_turn():
    assert seat_bots(["a", "b"], 4, 2) == ("a", "b", "human", "a")
    assert seat_bots(["a"], 3, 0) == ("human", "a", "a")


# --- through standard input --------------------------------------------------------------------


def test_a_whole_game_of_twenty_down_through_stdin(cli, bots_dir, tmp_path):
    result = ok(
        cli(
            *play_args(
                bots_dir,
                "td",
                "--bots",
                "random,first,td-only",
                "--seed",
                "s1",
                "--seat",
                "2",
                "--db",
                tmp_path / "x.db",
            ),
            input=ANSWERS,
        )
    )
    out = result.stdout
    assert "you are seat 2\nseed s1 (" in out
    assert "your hand:" in out and "Name trump" in out
    assert re.search(r"^\s+1\) ", out, re.M)  # the moves, numbered
    assert "your move (1-" in out and "→ you " in out
    assert "trick 1:" in out and "deal 1 over" in out
    assert "Game over — Twenty Down" in out
    assert re.search(r"You (win!|share first place\.|finished \d\w\w of 4\.)", out)
    assert "not rated, not stored" in out
    assert not (tmp_path / "x.db").exists()
    # Only what seat 2 could see: nobody else's hand.
    assert "hand of seat" not in out and "talon (top first)" not in out


def test_the_same_seed_and_answers_give_the_same_game(cli, bots_dir):
    args = play_args(bots_dir, "hl", "--bots", "random", "--players", "3", "--seed", "same")
    first = ok(cli(*args, input=ANSWERS)).stdout
    second = ok(cli(*args, input=ANSWERS)).stdout
    assert first == second
    assert "How Low Can You Go?, 3 players" in first and "showdown of deal 1" in first


def test_invalid_answers_are_explained_and_asked_again(cli, bots_dir):
    answers = "hello\n0\n99\nAS KS QS JS\n?\n" + ANSWERS
    out = ok(
        cli(
            *play_args(
                bots_dir, "hl", "--bots", "first", "--players", "2", "--seat", "0", "--seed", "inv"
            ),
            input=answers,
        )
    ).stdout
    assert "✗ not a card: 'hello'" in out
    assert "✗ there is no move 0" in out and "✗ there is no move 99" in out
    assert "✗ you may discard at most 3 cards" in out
    assert "answer with the number of a move" in out  # ? explains
    assert out.count("your move (1-26") >= 6  # asked again each time
    assert "Game over" in out


def test_end_of_input_and_q_leave_cleanly(cli, bots_dir, tmp_path):
    left = cli(
        *play_args(
            bots_dir,
            "td",
            "--bots",
            "random",
            "--seed",
            "eof",
            "--rated",
            "--db",
            tmp_path / "r.db",
        ),
        input="1\n1\n",
    )
    assert left.exit_code == 0 and "Traceback" not in left.output
    assert left.stderr.strip() == "end of input: game abandoned, nothing stored"
    quit_ = cli(*play_args(bots_dir, "td", "--bots", "random", "--seed", "eof"), input="1\nq\n")
    assert quit_.exit_code == 0 and "you left: game abandoned" in quit_.stderr
    with __import__("sqlite3").connect(tmp_path / "r.db") as con:
        assert con.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 0


def test_ctrl_c_at_the_prompt_leaves_with_130(cli, bots_dir, monkeypatch):
    def interrupted(prompt=""):
        raise KeyboardInterrupt

    monkeypatch.setattr("builtins.input", interrupted)
    result = cli(*play_args(bots_dir, "td", "--bots", "random", "--seed", "c"))
    assert result.exit_code == 130, result.output
    assert "interrupted: game abandoned, nothing stored" in result.stderr
    assert "Traceback" not in result.output


def test_a_bot_raising_keyboard_interrupt_is_still_a_fault(cli, bots_dir):
    (bots_dir / "sly.py").write_text(bot_file("sly", "raise KeyboardInterrupt"), encoding="utf-8")
    out = ok(
        cli(
            *play_args(bots_dir, "td", "--bots", "sly", "--seed", "k", "--seat", "0"), input=ANSWERS
        )
    ).stdout
    assert "Game over" in out and "forfeited" in out
    assert "fault: seat 1 (sly) at decision" in out and "KeyboardInterrupt" in out


def test_rated_games_are_stored_rated_and_replayable(cli, bots_dir, tmp_path):
    db = tmp_path / "rated.db"
    out = ok(
        cli(
            *play_args(
                bots_dir,
                "hl",
                "--bots",
                "random,first",
                "--seed",
                "r",
                "--seat",
                "1",
                "--rated",
                "--db",
                db,
            ),
            input=ANSWERS,
        )
    ).stdout
    game_id = int(re.search(r"rated and stored as game (\d+)", out).group(1))
    history = json.loads(ok(cli("history", "--db", db, "-f", "json")).stdout)
    assert [row["id"] for row in history] == [game_id]
    assert [s["bot"] for s in history[0]["seats"]] == ["random", "human", "first"]
    assert "verified" in ok(cli("replay", game_id, "--db", db, "--verify")).stdout
    board = json.loads(ok(cli("leaderboard", "--db", db, "--format", "json")).stdout)
    assert {row["bot"] for row in board["how-low-can-you-go"]} == {"human", "random", "first"}


def test_bad_tables_are_one_line_errors(cli, bots_dir):
    args = play_args(bots_dir, "td", "--bots", "random,first,td-only,random")
    assert_one_line_error(cli(*args), "room for you and 3 bots, not 4")
    assert_one_line_error(cli(*play_args(bots_dir, "hl", "--players", "11")), "2 to 10 players")
    args = play_args(bots_dir, "td", "--bots", "random", "--seat", "4")
    assert_one_line_error(cli(*args), "--seat must be 0 to 3")
    assert_one_line_error(cli(*play_args(bots_dir, "chess")), "unknown game 'chess'")
    assert_one_line_error(cli(*play_args(bots_dir, "hl", "--bots", "td-only")), "does not play")
    assert_one_line_error(cli(*play_args(bots_dir, "td", "--bots", "human")), "is you")


def test_games_that_allow_several_take_the_table_size_from_the_bots(cli, bots_dir):
    out = ok(
        cli(
            *play_args(
                bots_dir, "hl", "--bots", "random,first,random,first,random", "--seed", "six"
            ),
            input=ANSWERS,
        )
    ).stdout
    assert "How Low Can You Go?, 6 players" in out


# --- a real process: stdin piped, and a pseudo-terminal -------------------------------------------


def arena_command(bots_dir, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env["PYTHONIOENCODING"] = "utf-8"
    return [sys.executable, "-m", "arena", "play", *args, "--bots-dir", str(bots_dir)], env


def test_a_real_process_reads_its_moves_from_a_pipe(bots_dir):
    command, env = arena_command(
        bots_dir, "hl", "--bots", "random", "--players", "4", "--seed", "pipe"
    )
    proc = subprocess.run(
        command, input=ANSWERS, capture_output=True, text=True, env=env, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert "Game over — How Low Can You Go?" in proc.stdout
    assert "Traceback" not in proc.stderr


def _read_until(fd, pattern: str, timeout: float = 60.0) -> str:
    seen = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
        if re.search(pattern, seen.decode("utf-8", "replace")):
            break
    return seen.decode("utf-8", "replace")


def _wait(pid: int, fd: int, timeout: float = 30.0) -> int:
    """The child's exit status; killed if it does not end in time (the test then fails)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        if select.select([fd], [], [], 0.1)[0]:
            try:
                os.read(fd, 65536)  # keep the terminal drained
            except OSError:
                pass
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return -1


def test_in_a_pseudo_terminal_a_person_plays_then_ctrl_c_leaves_with_130(bots_dir):
    import pty

    command, env = arena_command(bots_dir, "td", "--bots", "random", "--seed", "tty", "--seat", "0")
    pid, fd = pty.fork()
    if pid == 0:  # the child: its terminal is the pseudo-terminal
        os.execve(command[0], command, env)
    try:
        screen = _read_until(fd, r"your move \(1-\d+")
        assert "you are seat 0" in screen and "1) " in screen
        assert "Name trump" in screen or "Exchange" in screen
        os.write(fd, b"zz\r")  # invalid, explained, asked again
        screen = _read_until(fd, r"✗[^\n]*\n[\s\S]*your move")
        assert "✗ not a card: 'zz'" in screen
        os.write(fd, b"1\r")
        screen = _read_until(fd, r"→ you [\s\S]*your move \(1-")
        assert "→ you " in screen
        assert screen.count("→ you ") == 1  # typed answers are echoed by the terminal, once
        # Ctrl-C: the terminal sends SIGINT. (NOFLSH: by default the terminal also throws away
        # its pending output at that moment, which can race with the answer we want to read.)
        attributes = termios.tcgetattr(fd)
        attributes[3] |= termios.NOFLSH
        termios.tcsetattr(fd, termios.TCSANOW, attributes)
        os.write(fd, b"\x03")
        screen = _read_until(fd, r"game abandoned")
        assert "interrupted: game abandoned, nothing stored" in screen
        assert "Traceback" not in screen
    except BaseException:
        os.kill(pid, signal.SIGKILL)  # do not wait for a child that waits for us
        raise
    finally:
        status = _wait(pid, fd)
        os.close(fd)
    assert status != -1 and os.waitstatus_to_exitcode(status) == 130


def test_the_human_view_never_shows_hidden_cards():
    """The table the person sees at each decision is built from their observation only."""
    game = HowLowCanYouGo(players=4)
    state = game.new_state("hidden")
    names = ["you", "a", "b", "c"]
    while not state.is_terminal():
        seat = state.current_player()
        text = "\n".join(game.table_view(state.observation(seat), names, Style(ascii=True)))
        mine = {c.ascii for c in state.hands[seat]}
        others = {c.ascii for s in range(4) if s != seat for c in state.hands[s]} - mine
        shown = set(re.findall(r"\b[2-9TJQKA][CSHD]\b", text))
        assert shown <= mine | {c.ascii for _, h in state.observation(seat).shown for c in h}
        assert not (shown & others)
        state.apply_legal(0)
