"""The bundled search bots (bots/search/td_search.py, bots/search/hl_search.py): legal answers,
samples that respect everything the observation proves, budgets, reproducibility, registration."""

from __future__ import annotations

import importlib.util
import os
import random
import sys
import time
from collections import Counter

import pytest
from conftest import REPO

import arena
from arena.bot import seat_seed
from arena.games.how_low import HowLowCanYouGo
from arena.games.twenty_down import PACK, TwentyDown
from arena.plugins.loading import load_registry
from arena.referee.inline import play_game
from arena.referee.outcome import GameInfo
from arena.tournament.file import load_tournament_file

SEARCH_BOTS = REPO / "arena" / "plugins" / "baseline"  # known by name, fielded only when named


def load_bot_module(stem: str):
    name = f"arena_bots_test.{stem}"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, SEARCH_BOTS / f"{stem}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture(scope="module")
def td():
    return load_bot_module("td_search")


@pytest.fixture(scope="module")
def hl():
    return load_bot_module("hl_search")


def make_bot(cls, game, seat, seed, move_time=1.0, **settings):
    bot = cls(**settings)
    bot._arena_seed = seat_seed(seed, seat)
    bot.start(GameInfo(game.name, seat, game.players, game.variant, dict(game.params), move_time))
    return bot


def random_position(game, seed, rng, max_moves):
    """The observation of the player to act after up to ``max_moves`` random legal moves, or
    ``None`` if the game ended first."""
    state = game.new_state(seed)
    for _ in range(rng.randrange(max_moves)):
        if state.is_terminal():
            return None
        state.apply_legal(rng.randrange(len(state.legal_actions())))
    if state.is_terminal():
        return None
    return state.observation(state.current_player())


# --- Twenty Down ----------------------------------------------------------------------------------


def td_voids(obs):
    """Per seat, the suits its play proves it holds none of (TD-9)."""
    voids = [set() for _ in range(4)]
    tricks = [t.cards for t in obs.tricks] + [tuple(obs.current_trick)]
    for cards in tricks:
        if not cards:
            continue
        led = cards[0][1].suit
        for seat, card in cards:
            if card.suit != led:
                voids[seat].add(led)
                if obs.trump is not None and card.suit != obs.trump:
                    voids[seat].add(obs.trump)
    return voids


def td_games(seeds, variant=None, **params):
    for seed in seeds:
        yield TwentyDown(variant=variant, **params), seed


TD_SETTINGS = [(None, {}), ("brostedt", {}), (None, {"fixed_trump_after": 0})]


@pytest.mark.parametrize("variant,params", TD_SETTINGS)
def test_td_search_answers_legally_in_random_games(td, variant, params):
    """The search seat never answers outside legal_actions, in every phase and variant."""
    rng = random.Random(7)
    asked = Counter()
    for seed in range(6):
        game = TwentyDown(variant=variant, **params)
        seat = seed % 4
        bot = make_bot(td.TwentyDownSearch, game, seat, seed, iterations=4)
        state = game.new_state(seed)
        while not state.is_terminal() and state.deal <= 3:
            player = state.current_player()
            legal = state.legal_actions()
            if player == seat:
                obs = state.observation(seat)
                action = bot.act(obs)
                assert action in obs.legal_actions, (obs.phase, action)
                asked[obs.phase] += 1
                state.apply_action(action)
            else:
                state.apply_legal(rng.randrange(len(legal)))
    assert asked["play"] and asked["exchange"]
    if variant == "brostedt":
        assert asked["stay-or-drop"]


def test_td_search_answers_legally_on_random_positions(td):
    """Fresh bots (act() without start()) on positions reached by random play."""
    rng = random.Random(11)
    game = TwentyDown()
    phases = Counter()
    for seed in range(120):
        obs = random_position(game, seed, rng, max_moves=60)
        if obs is None:
            continue
        bot = td.TwentyDownSearch(iterations=3)
        bot._arena_seed = seed
        assert bot.act(obs) in obs.legal_actions
        phases[obs.phase] += 1
    assert phases["play"] > 20 and phases["exchange"] > 5 and phases["trump"] > 0


def test_td_samples_never_hold_a_card_the_observation_rules_out(td):
    """Voids, cards seen, cards played and the bot's own discards are never in a hidden hand."""
    rng = random.Random(3)
    checked = 0
    for seed in range(8):
        game = TwentyDown(fixed_trump_after=2)
        seat = seed % 4
        bot = make_bot(td.TwentyDownSearch, game, seat, seed, iterations=2)
        state = game.new_state(seed)
        my_discards = ()
        while not state.is_terminal() and state.deal <= 4:
            player = state.current_player()
            if player != seat:
                state.apply_legal(rng.randrange(len(state.legal_actions())))
                continue
            obs = state.observation(seat)
            remembered = bot.discarded(obs)
            if obs.phase in ("exchange", "play"):
                assert set(remembered) == set(my_discards) or obs.phase == "exchange"
            voids = td_voids(obs)
            played = [c for t in obs.tricks for _, c in t.cards] + [c for _, c in obs.current_trick]
            for _ in range(5):
                sample = td.sample_deal(game, obs, bot.rng, remembered)
                assert sample.hands[seat] == list(obs.hand)
                for q in range(4):
                    assert len(sample.hands[q]) == len(state.hands[q])
                    if q == seat:
                        continue
                    for card in sample.hands[q]:
                        assert card.suit not in voids[q], (q, card, voids[q])
                        assert card not in obs.hand and card not in played
                        assert card not in remembered
                assert set(remembered) <= set(sample.discards)
                every = [c for h in sample.hands for c in h] + sample.talon + sample.discards
                assert sorted(every + played) == sorted(PACK)
                checked += 1
            action = bot.act(obs)
            if obs.phase == "exchange":
                my_discards = tuple(action)
            elif obs.phase == "trump":
                my_discards = ()
            state.apply_action(action)
            if state.deal != obs.deal:
                my_discards = ()
    assert checked > 100


def test_td_search_forgets_a_discard_the_referee_replaced(td):
    """If the referee plays another exchange for the bot (a fault), its memory is dropped."""
    game = TwentyDown()
    state = game.new_state(5)
    state.apply_legal(0)  # trump
    seat = state.current_player()
    bot = make_bot(td.TwentyDownSearch, game, seat, 5, iterations=2)
    obs = state.observation(seat)
    wanted = bot.act(obs)
    other = next(a for a in obs.legal_actions if len(a) == 3 and a != wanted)
    state.apply_action(other)
    while state.current_player() != seat:
        state.apply_legal(0)
    later = state.observation(seat)
    assert bot.discarded(later) in ((), tuple(other))
    assert bot.discarded(later) != tuple(wanted) or tuple(wanted) == tuple(other)


# --- How Low Can You Go? ------------------------------------------------------------------------


def always_three(state):
    legal = state.legal_actions()
    threes = [a for a in legal if a != "redraw" and len(a) == 3]
    return threes[0] if threes else legal[0]


HL_SETTINGS = [(4, None), (2, None), (6, None), (4, "whalen")]


@pytest.mark.parametrize("players,variant", HL_SETTINGS)
def test_hl_search_answers_legally_in_random_games(hl, players, variant):
    rng = random.Random(5)
    asked = 0
    for seed in range(4):
        game = HowLowCanYouGo(players=players, variant=variant)
        seat = seed % players
        bot = make_bot(hl.HowLowSearch, game, seat, seed, iterations=4)
        state = game.new_state(seed)
        while not state.is_terminal() and state.deal <= 6:
            player = state.current_player()
            if player == seat:
                obs = state.observation(seat)
                action = bot.act(obs)
                assert action in obs.legal_actions, action
                asked += 1
                state.apply_action(action)
            else:
                state.apply_legal(rng.randrange(len(state.legal_actions())))
    assert asked > 10


def test_hl_search_answers_legally_on_random_positions(hl):
    rng = random.Random(9)
    for seed in range(150):
        game = HowLowCanYouGo(players=rng.choice([2, 3, 4, 5, 7]))
        obs = random_position(game, seed, rng, max_moves=40)
        if obs is None:
            continue
        bot = hl.HowLowSearch(iterations=3)
        bot._arena_seed = seed
        assert bot.act(obs) in obs.legal_actions


@pytest.mark.parametrize("players", [4, 10])
def test_hl_samples_never_hold_a_card_the_observation_rules_out(hl, players):
    """The bot's hand and the cards it knows lie in the discard pile are in no other hand and not
    in the stock; every sample uses exactly the pack(s); the known pile cards really are there,
    also across a reshuffle of the pile (HL-8: with ten players who always throw three, the stock
    of two packs runs out every deal)."""
    reshuffled = checked = 0
    for seed in range(6):
        game = HowLowCanYouGo(players=players)
        seat = seed % players
        bot = make_bot(hl.HowLowSearch, game, seat, seed, iterations=2)
        state = game.new_state(seed)
        pack_size = len(game.pack)
        while not state.is_terminal() and state.deal <= 2:
            player = state.current_player()
            if player != seat:
                state.apply_action(always_three(state))
                continue
            obs = state.observation(seat)
            known = hl.known_pile(obs, bot._memory_for(obs), pack_size)
            assert not Counter(known) - Counter(state.pile), "known pile cards must be in the pile"
            reshuffled += state.restocks > 0
            for _ in range(5):
                hands, pile, stock = hl.sample_hidden(obs, bot.rng, known, doubt=0.5)
                assert hands[seat] == sorted(obs.hand)
                assert not Counter(known) - Counter(pile)
                held = Counter(c for q in obs.order if q != seat for c in hands[q]) + Counter(stock)
                allowed = Counter(game.pack) - Counter(obs.hand) - Counter(known)
                assert not held - allowed, "a sample holds a card the bot knows is elsewhere"
                everything = Counter(c for q in obs.order for c in hands[q]) + Counter(pile + stock)
                assert everything == Counter(game.pack)
                for q in obs.order:
                    assert len(hands[q]) == 5
                assert len(pile) == obs.discard_size and len(stock) == obs.stock_size
                checked += 1
            state.apply_action(bot.act(obs))
    assert checked > 50
    assert reshuffled or players < 10, "no position after a reshuffle was checked"


def test_hl_replay_counts_finds_the_reshuffle(hl):
    game = HowLowCanYouGo(players=4)
    state = game.new_state(1)
    while state.restocks == 0:
        state.apply_action(always_three(state))
    obs = state.observation(state.current_player())
    last = hl.replay_counts(obs, 52)
    assert last is not None and last >= 0
    assert sum(count for _, count in obs.discards[last:]) == obs.discard_size


# --- budgets, reproducibility, registration -------------------------------------------------------


def td_position(seed=2, phase="play"):
    game = TwentyDown()
    state = game.new_state(seed)
    rng = random.Random(seed)
    while True:
        obs = state.observation(state.current_player())
        if obs.phase == phase and len(obs.legal_actions) > 1:
            return game, obs
        state.apply_legal(rng.randrange(len(state.legal_actions())))


def hl_position(seed=2):
    game = HowLowCanYouGo()
    state = game.new_state(seed)
    state.apply_legal(3)
    return game, state.observation(state.current_player())


@pytest.mark.parametrize("phase", ["play", "exchange", "trump"])
def test_td_search_uses_exactly_its_iterations(td, monkeypatch, phase):
    calls = []
    real = td.sample_cards
    monkeypatch.setattr(td, "sample_cards", lambda *a, **k: calls.append(1) or real(*a, **k))
    game, obs = td_position(phase=phase)
    bot = make_bot(
        td.TwentyDownSearch, game, obs.seat, 1, move_time=60, iterations=13, time_budget=30
    )
    bot.act(obs)
    assert len(calls) == 13


def test_hl_search_uses_exactly_its_iterations(hl, monkeypatch):
    calls = []
    real = hl.sample_hidden
    monkeypatch.setattr(hl, "sample_hidden", lambda *a, **k: calls.append(1) or real(*a, **k))
    game, obs = hl_position()
    bot = make_bot(hl.HowLowSearch, game, obs.seat, 1, move_time=60, iterations=13, time_budget=30)
    bot.act(obs)
    assert len(calls) == 13


@pytest.mark.parametrize("which", ["td", "hl"])
@pytest.mark.parametrize("time_budget,move_time", [(0.05, 1.0), (10.0, 0.1)])
def test_search_stops_at_its_time_cap(td, hl, which, time_budget, move_time):
    """An endless iteration budget is cut after ``time_budget`` s of CPU time or half the move
    time on the clock, whichever comes first."""
    if which == "td":
        game, obs = td_position(phase="exchange")
        cls = td.TwentyDownSearch
    else:
        game, obs = hl_position()
        cls = hl.HowLowSearch
    bot = make_bot(
        cls, game, obs.seat, 1, move_time=move_time, iterations=10**9, time_budget=time_budget
    )
    start, cpu_start = time.perf_counter(), time.process_time()
    assert bot.act(obs) in obs.legal_actions
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    assert elapsed < 0.5 * move_time + 0.25  # never near the move time, however busy the machine
    if time_budget < 0.5 * move_time:
        assert time_budget * 0.9 <= cpu < time_budget + 0.25 or elapsed >= 0.5 * move_time
    else:
        assert 0.5 * move_time * 0.9 <= elapsed


@pytest.mark.parametrize("which", ["td", "hl"])
def test_search_is_reproducible(td, hl, which):
    game, obs = td_position(phase="exchange") if which == "td" else hl_position()
    cls = td.TwentyDownSearch if which == "td" else hl.HowLowSearch
    answers = set()
    for _ in range(3):
        bot = make_bot(cls, game, obs.seat, "same", iterations=6)
        answers.add(repr(bot.act(obs)))
    assert len(answers) == 1


def test_the_ladder_is_registered():
    registry = load_registry([], entry_points=False)
    assert not registry.errors, registry.errors
    for name in ("random", "td-heuristic", "td-search-small", "td-search-large"):
        assert registry.bot(name).plays("twenty-down")
    for name in ("random", "hl-heuristic", "hl-search-small", "hl-search-large"):
        assert registry.bot(name).plays("how-low-can-you-go")
    small = dict(registry.bot("td-search-small").settings)
    large = dict(registry.bot("td-search-large").settings)
    assert small["iterations"] < large["iterations"]


@pytest.mark.parametrize(
    "game_name,bots",
    [
        ("twenty-down", ["td-search-small", "random", "td-heuristic", "td-search-small"]),
        ("how-low-can-you-go", ["hl-search-small", "hl-search-large", "random", "hl-heuristic"]),
    ],
)
def test_search_bots_play_whole_games_without_faults(game_name, bots):
    registry = load_registry([], entry_points=False)
    game = registry.game(game_name).cls()
    for i in range(2):
        seats = bots[i:] + bots[:i]
        outcome = play_game(game, [registry.bot(b).create for b in seats], tuple(seats), f"g{i}")
        assert sum(outcome.faults) == 0, outcome.fault_log


def test_td_search_large_plays_a_whole_game_without_faults():
    registry = load_registry([], entry_points=False)
    game = registry.game("twenty-down").cls()
    seats = ("td-search-large", "td-heuristic", "random", "td-search-small")
    outcome = play_game(game, [registry.bot(b).create for b in seats], seats, "large")
    assert sum(outcome.faults) == 0, outcome.fault_log


def test_a_plain_run_leaves_the_search_bots_out(tmp_path):
    """`arena run --games 1000` must stay quick: the search bots are known by name everywhere
    (issue 16, point 2) but fielded only when named."""
    registry = load_registry(tmp_path, entry_points=False)
    assert not registry.errors, registry.errors
    searchers = {"td-search-small", "td-search-large", "hl-search-small", "hl-search-large"}
    assert searchers <= set(registry.bots)
    for game in registry.games:
        fielded = {b.name for b in registry.default_bots_for(game)}
        assert fielded and not fielded & searchers


def test_the_ladder_tournament_file_names_loadable_bots():
    ladder = load_tournament_file(REPO / "tournaments" / "ladder.toml")
    assert "bots_dir" not in ladder.settings  # every bot of the ladder is bundled
    registry = load_registry([], entry_points=False)
    assert not registry.errors, registry.errors
    assert {s.name for s in ladder.sections} == {"twenty-down", "how-low-can-you-go"}
    # OpenSpiel's ISMCTS stands beside the ladder: registered with the extra arena[rl] only,
    # which the tests install (a machine without it skips that one name, but never under CI).
    with_openspiel = importlib.util.find_spec("pyspiel") is not None or os.environ.get("CI")
    for section in ladder.sections:
        assert len(section.bots) == 5 and section.bots[-1] == "openspiel-ismcts"
        for name in section.bots:
            if name == "openspiel-ismcts" and not with_openspiel:
                continue
            assert registry.bot(name).plays(section.name), name


def test_deadline_passes_on_cpu_time_or_on_the_clock():
    start = time.process_time()  # (read before the deadline is set, which reads it too)
    spin = arena.Deadline(0.05, 10.0)  # CPU time runs out first while computing
    while not spin.passed():
        pass
    assert 0.05 <= time.process_time() - start < 0.5
    start = time.perf_counter()
    sleep = arena.Deadline(10.0, 0.05)  # the clock runs out first while sleeping
    while not sleep.passed():
        time.sleep(0.005)
    assert 0.05 <= time.perf_counter() - start < 0.5
