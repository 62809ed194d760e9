"""Stored game records: `arena history`, `arena replay` (text, one seat, JSON, --verify), and the
compact stored form (arena/games/record.py).

One small run (both games, a bot that faults once a game) is played once for the module into a
temporary database; every test reads it. The JSON records are checked twice: by arena's engines
(``games.base.replay``) and by an independent checker written from docs/records.md and the rules
alone, which deals every hand from the deck orders and re-plays every trick and showdown.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import zlib

import pytest
from conftest import STANDARD_BOTS, assert_one_line_error, bot_file, write_bots

from arena.games.base import RecordError, replay
from arena.games.record import ZDICT, expand, pack, unpack
from arena.plugins.builtin import BUILTIN_GAMES

pytestmark = pytest.mark.usefixtures("isolated")

GAMES = {g.name: g for g in BUILTIN_GAMES}

# Faults at its third decision of every game: each record has a fault to show and verify.
OOPS = bot_file(
    "oops",
    """
    self.calls = getattr(self, "calls", 0) + 1
    if self.calls == 3:
        raise RuntimeError("oops")
    return observation.legal_actions[-1]
    """,
)


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """A database with run 1 (both games, 4 games each, records) and run 2 (--no-records)."""
    from typer.testing import CliRunner

    from arena.cli import app

    base = tmp_path_factory.mktemp("records")
    bots = write_bots(base / "bots", {**STANDARD_BOTS, "oops.py": OOPS})
    db = base / "arena.db"
    runner = CliRunner()
    common = ["--db", str(db), "--bots-dir", str(bots), "-j", "1", "-q"]
    first = runner.invoke(
        app, ["run", "--games", "4", "--seed", "rec", "--bots", "random,first,oops", *common]
    )
    assert first.exit_code == 0, first.output
    second = runner.invoke(
        app,
        [
            "run",
            "--games",
            "1",
            "--seed",
            "bare",
            "-g",
            "td",
            "-b",
            "random,first",
            "--no-records",
            *common,
        ],
    )
    assert second.exit_code == 0, second.output
    with sqlite3.connect(db) as con:
        ids = {
            game: [
                r[0] for r in con.execute("SELECT id FROM games WHERE run_id=1 AND game=?", (game,))
            ]
            for game in GAMES
        }
        bare = con.execute("SELECT id FROM games WHERE run_id=2").fetchone()[0]
    return {"db": db, "bots": bots, "ids": ids, "bare": bare}


def ok(result):
    assert result.exit_code == 0, (result.exit_code, result.output, result.exception)
    assert "Traceback" not in result.output
    return result


def record_json(cli, stored, game_id) -> dict:
    return json.loads(ok(cli("replay", game_id, "--format", "json", "--db", stored["db"])).stdout)


# --- arena history -----------------------------------------------------------------------------


def test_history_lists_the_latest_games_with_ids_newest_first(cli, stored):
    out = ok(cli("history", "--db", stored["db"])).stdout
    rows = [line.split() for line in out.splitlines()[2:]]
    ids = [int(r[0]) for r in rows]
    assert ids == sorted(ids, reverse=True) and len(ids) == 9  # 8 + 1 game
    assert ids[0] == stored["bare"]
    assert "no" in rows[0]  # the --no-records game says it has no record
    assert any("oops" in line and "how-low-can-you-go" in line for line in out.splitlines())


def test_history_filters_by_bot_game_run_and_limit(cli, stored):
    db = stored["db"]

    def ids(*options):
        rows = json.loads(ok(cli("history", "--db", db, "--format", "json", *options)).stdout)
        return [row["id"] for row in rows]

    assert sorted(ids("--game", "hl")) == stored["ids"]["how-low-can-you-go"]  # an alias works
    assert ids("--run", "2") == [stored["bare"]]
    assert ids("--limit", "3") == ids()[:3]
    assert all(
        "oops" in {s["bot"] for s in row["seats"]}
        for row in json.loads(ok(cli("history", "--db", db, "-f", "json", "--bot", "oops")).stdout)
    )
    # td-only did not play: a bot the database does not know (issue 16: exit 2, one line)
    unknown = cli("history", "--bot", "td-only", "--db", stored["db"])
    assert_one_line_error(unknown, "unknown bot 'td-only'")
    empty = ok(cli("history", "--db", db, "--game", "td", "--run", "2", "--bot", "oops"))
    assert "no stored games with bot oops, game twenty-down, run 2" in empty.stderr


def test_history_json_has_seats_scores_ranks_and_faults(cli, stored):
    rows = json.loads(ok(cli("history", "--db", stored["db"], "-f", "json", "--run", "1")).stdout)
    row = rows[0]
    assert set(row) >= {"id", "run", "game", "finished", "seed", "seats", "faults", "record"}
    assert [s["seat"] for s in row["seats"]] == [0, 1, 2, 3]
    assert {"bot", "score", "rank", "faults", "forfeit"} <= set(row["seats"][0])
    assert any(
        f["kind"] == "exception" and "oops" in f["message"] for r in rows for f in r["faults"]
    )


def test_history_without_a_database_is_one_line(cli, tmp_path):
    assert_one_line_error(cli("history", "--db", tmp_path / "none.db"), "no database yet")


# --- arena replay: text -----------------------------------------------------------------------


def test_replay_twenty_down_shows_hands_exchanges_tricks_scores_and_faults(cli, stored):
    game_id = stored["ids"]["twenty-down"][0]
    out = ok(cli("replay", game_id, "--db", stored["db"])).stdout
    assert out.startswith(f"game {game_id} · Twenty Down · run 1 ·")
    for fragment in (
        "── Deal 1 ──",
        "first two cards of seat",
        "names trump",
        "hand of seat",
        "talon (top first)",
        "trick 1:",
        "wins it",
        "deal 1 over — tricks won",
        "points: seat 0 20→",
        "Result (points, lower is better)",
    ):
        assert fragment in out, fragment
    assert re.search(r"exchanges \d: discards .+, draws ", out) or "stands pat" in out
    assert "! fault of seat" in out and "RuntimeError: oops" in out
    assert out.count("trick 5:") == out.count("over — tricks won")


def test_replay_how_low_shows_rounds_draws_showdowns_and_chips(cli, stored):
    game_id = stored["ids"]["how-low-can-you-go"][0]
    out = ok(cli("replay", game_id, "--db", stored["db"])).stdout
    for fragment in (
        "── Deal 1 ──",
        "turn order: seats",
        "hand of seat",
        "round 1:",
        "round 3:",
        "showdown of deal 1:",
        "chips: seat 0",
        "bank",
        "Result (chips, higher is better)",
    ):
        assert fragment in out, fragment
    assert re.search(r"discards .+, draws .+ → .+\(total -?\d+\)", out) or "stands with" in out


def test_replay_from_one_seat_shows_only_what_it_could_see(cli, stored):
    db = stored["db"]
    game_id = stored["ids"]["twenty-down"][1]
    full = ok(cli("replay", game_id, "--db", db)).stdout
    seat = ok(cli("replay", game_id, "--db", db, "--seat", "1")).stdout
    assert "seen from seat 1" in seat
    assert "hand of seat" not in seat and "talon" not in seat and "first two cards of" not in seat
    assert "your first two cards" in seat and "your hand" in seat
    # Others' exchanges are counts only; the seat's own shows the cards.
    for line in seat.splitlines():
        if " exchanges " in line and "discards" in line:
            assert line.strip().startswith("seat 1 ")
    assert re.search(r"seat [023] \(\S+\) (exchanges \d cards?|stands pat)", seat)
    # Public facts are the same in both views: tricks, deal results.
    tricks = [line for line in full.splitlines() if "trick " in line or "over —" in line]
    assert tricks == [line for line in seat.splitlines() if "trick " in line or "over —" in line]

    hl = stored["ids"]["how-low-can-you-go"][1]
    seat_hl = ok(cli("replay", hl, "--db", db, "--seat", "2")).stdout
    assert "hand of seat" not in seat_hl
    assert "showdown of deal 1" in seat_hl  # revealed hands are public
    for line in seat_hl.splitlines():
        if " draws " in line:
            assert line.strip().startswith("seat 2 ")


def test_replay_ascii_cards(cli, stored):
    out = ok(cli("replay", stored["ids"]["twenty-down"][0], "--db", stored["db"], "--ascii")).stdout
    assert "♥" not in out and "♠" not in out
    assert re.search(r"\b[2-9TJQKA][CSHD]\b", out)


# --- arena replay --format json: the self-contained record --------------------------------------


def test_json_record_replays_through_the_engine_and_matches_the_database(cli, stored):
    with sqlite3.connect(stored["db"]) as con:
        for game, ids in stored["ids"].items():
            for game_id in ids:
                record = record_json(cli, stored, game_id)
                assert record["format"] == "arena-record/1" and record["game"] == game
                state = replay(record, GAMES)
                assert state.is_terminal()
                scores = [
                    r[0]
                    for r in con.execute(
                        "SELECT score FROM seats WHERE game_id=? ORDER BY seat", (game_id,)
                    )
                ]
                assert record["result"]["scores"] == scores
                assert record["arena"]["scores"] == scores  # stored when played, not replayed
                assert record["arena"]["id"] == game_id and record["arena"]["run"] == 1
                assert len(record["decision_ms"]) == len(record["actions"])
                assert record["faults"] and record["faults"][0]["kind"] == "exception"
                assert record["bots"].count("oops") >= 1


def test_a_record_with_chance_events_left_over_does_not_replay(cli, stored):
    """docs/records.md: the chance events must be used up exactly."""
    for ids in stored["ids"].values():
        record = record_json(cli, stored, ids[0])
        replay(record, GAMES)
        record["chance"].append(dict(record["chance"][-1]))
        with pytest.raises(RecordError, match="1 chance event.* never used"):
            replay(record, GAMES)


def test_json_record_is_enough_for_an_independent_checker(cli, stored):
    """docs/records.md and the rules, nothing else: deal, play, score, rank every game again."""
    checked = 0
    for game, ids in stored["ids"].items():
        for game_id in ids:
            record = record_json(cli, stored, game_id)
            (check_twenty_down if game == "twenty-down" else check_how_low)(record)
            checked += 1
    assert checked == 8


def test_a_tampered_json_record_is_refused(cli, stored):
    record = record_json(cli, stored, stored["ids"]["twenty-down"][0])
    record["actions"][5][1] = "AS" if record["actions"][5][1] != "AS" else "KS"
    with pytest.raises(RecordError):
        replay(record, GAMES)
    with pytest.raises(AssertionError):
        check_twenty_down(record)


def test_json_from_one_seat_lists_its_observations_and_answers(cli, stored):
    game_id = stored["ids"]["how-low-can-you-go"][0]
    out = ok(cli("replay", game_id, "--db", stored["db"], "--seat", "0", "-f", "json")).stdout
    view = json.loads(out)
    assert view["format"] == "arena-seat-view/1" and view["seat"] == 0
    assert view["decisions"]
    for entry in view["decisions"]:
        assert entry["observation"]["seat"] == 0
        assert entry["action"] in entry["observation"]["legal_actions"]
    assert view["final"]["legal_actions"] == []


def test_json_from_one_seat_marks_what_the_referee_played_after_a_forfeit(cli, tmp_path):
    bots = write_bots(tmp_path / "bots", {**STANDARD_BOTS, "oops.py": OOPS})
    db = tmp_path / "forfeit.db"
    common = ["--db", db, "--bots-dir", bots, "-j", "1", "-q", "-g", "td", "--max-faults", "1"]
    ok(cli("run", "--games", "1", "--seed", "ff", "--bots", "random,oops", *common))
    with sqlite3.connect(db) as con:
        (game_id, seat) = con.execute(
            "SELECT game_id, seat FROM seats WHERE bot='oops' AND forfeit=1"
        ).fetchone()
    out = ok(cli("replay", game_id, "--db", db, "--seat", seat, "-f", "json")).stdout
    decisions = json.loads(out)["decisions"]
    asked = [entry.get("asked", True) for entry in decisions]
    assert asked[:3] == [True] * 3 and "fault" in decisions[2]  # its third answer raised
    assert len(asked) > 3 and not any(asked[3:])  # then it forfeited: the referee played on


# --- arena replay --verify and errors ------------------------------------------------------------


def test_verify_confirms_every_stored_game(cli, stored):
    for ids in stored["ids"].values():
        for game_id in ids:
            out = ok(cli("replay", game_id, "--db", stored["db"], "--verify")).stdout
            assert f"verified: game {game_id} replays to its stored result" in out
            assert "deals exactly the" in out and re.search(r"ok  [12] faults?, as stored", out)


def test_verify_finds_a_result_that_does_not_match(cli, stored, tmp_path):
    import shutil

    db = tmp_path / "copy.db"
    shutil.copy(stored["db"], db)
    game_id = stored["ids"]["twenty-down"][0]
    with sqlite3.connect(db) as con:
        con.execute("UPDATE seats SET score = score + 1 WHERE game_id=? AND seat=0", (game_id,))
    result = cli("replay", game_id, "--db", db, "--verify")
    assert_one_line_error(result, f"game {game_id} does not verify", "scores", code=1)


def test_replay_errors_are_one_line(cli, stored):
    db = stored["db"]
    assert_one_line_error(cli("replay", 999, "--db", db), "no game 999", "arena history")
    bare = cli("replay", stored["bare"], "--db", db)
    assert_one_line_error(bare, f"game {stored['bare']}", "--no-records")
    assert_one_line_error(cli("replay", stored["bare"], "--db", db, "--verify"), "--no-records")
    game_id = stored["ids"]["twenty-down"][0]
    assert_one_line_error(cli("replay", game_id, "--db", db, "--seat", "4"), "--seat 4")
    assert_one_line_error(cli("replay", game_id, "--db", db, "-f", "xml"), "--format")


def test_a_damaged_stored_record_is_one_line(cli, stored, tmp_path):
    import shutil

    db = tmp_path / "damaged.db"
    shutil.copy(stored["db"], db)
    game_id = stored["ids"]["how-low-can-you-go"][0]
    with sqlite3.connect(db) as con:
        con.execute("UPDATE games SET record = ? WHERE id = ?", (b"not a record", game_id))
    assert_one_line_error(cli("replay", game_id, "--db", db), "damaged stored record", code=1)


# --- the compact stored form -------------------------------------------------------------------


def test_the_preset_dictionary_of_format_2_never_changes():
    # Records stored with it cannot be read without exactly these bytes.
    assert hashlib.sha256(ZDICT).hexdigest() == (
        "aad3e3ab7d40005948f5288eebe5436fff951799a1b3ffbe42bfcff32ea423a9"
    )


def _played(game_class, seed, **kwargs):
    import random

    state = game_class(**kwargs).new_state(seed)
    rng = random.Random(seed)
    indices = []
    while not state.is_terminal():
        i = rng.randrange(len(state.legal_actions()))
        indices.append(i)
        state.apply_legal(i)
    return state, indices


@pytest.mark.parametrize(
    "name, kwargs",
    [
        ("twenty-down", {}),
        ("twenty-down", {"variant": "brostedt"}),
        ("how-low-can-you-go", {"players": 7}),
        ("how-low-can-you-go", {"variant": "whalen"}),
    ],
)
def test_pack_and_expand_give_back_the_game(name, kwargs):
    state, indices = _played(GAMES[name], f"pack-{name}", **kwargs)
    times = [0.0, 3e-6, 0.00123, 0.5, 2.75, 1e6] + [1e-5] * (len(indices) - 6)
    faults = [{"seat": 1, "decision": 3, "kind": "illegal", "message": "'x' is not a legal action"}]
    blob = pack(
        state,
        ("a", "b") * (state.game.players // 2) + ("c",) * (state.game.players % 2),
        faults,
        indices,
        times,
    )
    record = expand(blob, GAMES)
    assert record == {
        **state.record(),
        "bots": record["bots"],
        "faults": faults,
        "decision_ms": record["decision_ms"],
    }
    ms = record["decision_ms"]
    assert ms[0] == 0.0 and abs(ms[1] - 0.003) < 0.004 and abs(ms[2] / 1.23 - 1) < 0.033
    assert abs(ms[3] / 500 - 1) < 0.033 and abs(ms[4] / 2750 - 1) < 0.033
    assert ms[5] > 6e7  # an absurdly long decision is kept as the longest the format holds


def test_records_of_format_1_are_still_read():
    """Format 1 (before the preset dictionary): hex card orders in the header, 10 µs times."""
    import array

    state, indices = _played(GAMES["how-low-can-you-go"], "v1")
    chance = [[k, bytes(v).hex()] if isinstance(v, tuple) else [k, v] for k, v in state.chance.log]
    header = {
        "v": 1,
        **state.game.to_json(),
        "seed": "v1",
        "chance": chance,
        "bots": ["x"] * 4,
        "faults": [],
        "slow": [[2, 0.9]],
        "decisions": len(indices),
        "index_type": "B",
    }
    head = json.dumps(header).encode()
    ticks = array.array("H", [7] * len(indices))
    ticks[2] = 0xFFFF
    body = len(head).to_bytes(4, "little") + head + bytes(indices) + ticks.tobytes()
    record = expand(zlib.compress(body, 1), GAMES)
    assert (
        record["actions"] == state.record()["actions"]
        and record["chance"] == state.record()["chance"]
    )
    assert record["decision_ms"][0] == 0.07 and record["decision_ms"][2] == 900.0


def test_a_stored_record_that_does_not_fit_its_game_is_refused():
    state, indices = _played(GAMES["twenty-down"], "short")
    blob = pack(state, ("a",) * 4, [], indices[:-5] + [40] * 5, [0.0] * len(indices))
    with pytest.raises(RecordError, match="has no action"):
        expand(blob, GAMES)
    header, _, _ = unpack(pack(state, ("a",) * 4, [], indices, [0.0] * len(indices)))
    assert header["v"] == 2 and header["cards"] % 32 == 0


# --- an independent checker, from docs/records.md and the rules alone ---------------------------

RANKS = "23456789TJQKA"
SUITS = "CSHD"


def number(card: str) -> int:
    return SUITS.index(card[1]) * 13 + RANKS.index(card[0])


def competition_ranks(keys) -> list[int]:
    return [1 + sum(other < key for other in keys) for key in keys]


def _stream(record):
    actions = iter(record["actions"])
    chance = iter(record["chance"])

    def act(expected_seat):
        seat, action = next(actions)
        assert seat == expected_seat, (seat, expected_seat)
        return action

    def event(name):
        item = next(chance)
        assert item["event"] == name, (item["event"], name)
        return item["value"]

    def finished():
        assert next(actions, None) is None and next(chance, None) is None

    return act, event, finished


def _check_discard(discard, hand, most=3):
    assert len(discard) <= most and len(set(discard)) == len(discard)
    assert discard == sorted(discard, key=number)
    assert all(card in hand for card in discard)


def check_twenty_down(record) -> None:
    assert record["game"] == "twenty-down" and record["variant"] is None
    params = record["params"]
    pack32 = sorted(r + s for r in "789TJQKA" for s in SUITS)
    act, event, finished = _stream(record)
    dealer = event("dealer")
    points = [params["start_points"]] * 4
    deal = 0
    while True:
        deal += 1
        d = event(f"deal-{deal}")
        assert sorted(d) == pack32
        fh = (dealer + 1) % 4
        hands = {(fh + k) % 4: list(d[2 * k : 2 * k + 2]) for k in range(4)}
        trump = "H" if deal > params["fixed_trump_after"] else act(fh)
        assert trump in SUITS
        for k in range(4):
            hands[(fh + k) % 4] += d[8 + 3 * k : 11 + 3 * k]
        talon = list(d[20:])
        for k in range(4):
            seat = (fh + k) % 4
            discard = act(seat)
            _check_discard(discard, hands[seat])
            for card in discard:
                hands[seat].remove(card)
            hands[seat] += talon[: len(discard)]
            del talon[: len(discard)]
        leader, won = fh, [0] * 4
        for _ in range(5):
            trick = []
            for k in range(4):
                seat = (leader + k) % 4
                card = act(seat)
                hand = hands[seat]
                assert card in hand
                if trick:
                    led = trick[0][1][1]
                    if any(c[1] == led for c in hand):
                        assert card[1] == led
                    elif any(c[1] == trump for c in hand):
                        assert card[1] == trump
                hand.remove(card)
                trick.append((seat, card))
            led = trick[0][1][1]
            pool = [t for t in trick if t[1][1] == trump] or [t for t in trick if t[1][1] == led]
            leader = max(pool, key=lambda t: RANKS.index(t[1][0]))[0]
            won[leader] += 1
        mult = 2 if trump == "H" else 1
        for s in range(4):
            points[s] += mult * (-10 if won[s] == 5 else 5 if won[s] == 0 else -won[s])
        if min(points) <= 0 or deal >= params["max_deals"]:
            break
        dealer = (dealer + 1) % 4
    finished()
    assert record["result"]["scores"] == points
    assert record["result"]["ranks"] == competition_ranks(points)


def _value(card: str) -> int:
    if card[0] == "A":
        return 1 if card[1] in "CS" else -5
    return {"K": 13, "Q": 12, "J": 11, "T": 10}.get(card[0]) or int(card[0])


def check_how_low(record) -> None:
    assert record["game"] == "how-low-can-you-go" and record["variant"] is None
    n, params = record["players"], record["params"]
    act, event, finished = _stream(record)
    chips = [params["starting_chips"] - params["buy_in"]] * n
    bank = params["buy_in"] * n
    active, out_deal = [True] * n, [0] * n
    dealer = event("dealer")
    deal = 0
    while True:
        deal += 1
        order = [s % n for s in range(dealer + 1, dealer + n + 1) if active[s % n]]
        k = len(order)
        d = event(f"deal-{deal}")
        assert len(d) == 52 * (1 if n <= 4 else 2)
        hands = {seat: [] for seat in order}
        for i in range(5 * k):
            hands[order[i % k]].append(d[i])
        stock, pile, restocks = list(d[5 * k :]), [], 0
        for _ in range(3):
            for seat in order:
                discard = act(seat)
                _check_discard(discard, hands[seat])
                if len(discard) > len(stock):
                    restocks += 1
                    again = event(f"deal-{deal}/restock-{restocks}")
                    assert sorted(again, key=number) == sorted(pile, key=number)
                    stock += again
                    pile = []
                for card in discard:
                    hands[seat].remove(card)
                hands[seat] += stock[: len(discard)]
                del stock[: len(discard)]
                pile += discard
        totals = {seat: sum(_value(c) for c in hands[seat]) for seat in order}
        low, high = min(totals.values()), max(totals.values())
        if low != high:
            losers = [s for s in order if totals[s] == high]
            for seat in losers:
                paid = min(chips[seat], 2 if len(losers) == 1 else 1)
                chips[seat] -= paid
                bank += paid
            winners = [s for s in order if totals[s] == low]
            if len(winners) == 1:
                red_aces = sum(c in ("AH", "AD") for c in hands[winners[0]])
                prize = 5 if low < 0 or red_aces >= 2 else 3 if low <= 10 else 2
                paid = min(prize, bank)
                chips[winners[0]] += paid
                bank -= paid
            else:
                for _ in range(2 if low < 0 else 1):
                    for seat in winners:
                        if bank:
                            bank -= 1
                            chips[seat] += 1
            for seat in losers:
                if chips[seat] == 0:
                    active[seat] = False
                    out_deal[seat] = deal
        if deal >= params["max_deals"] or sum(active) <= 1:
            break
        dealer = next(s % n for s in range(dealer + 1, dealer + n + 1) if active[s % n])
    finished()
    assert record["result"]["scores"] == chips
    keys = [(0, -c) if a else (1, -o) for c, a, o in zip(chips, active, out_deal, strict=True)]
    assert record["result"]["ranks"] == competition_ranks(keys)
