"""How Low Can You Go?: properties over random seeds, random legal play and every table size 2-10.

The game ends; there is always a legal action before the end; no card is lost or duplicated; chips
plus bank stay constant; the result follows the final chips and the elimination order (HL-17);
records replay exactly and survive JSON; observations never show hidden information; ``clone`` is
independent; ``determinize`` gives a playable state consistent with the observation.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.cards import ASCII_NAMES
from arena.games.base import TERMINAL, GameError, competition_ranks, replay
from arena.games.how_low import (
    MAX_DISCARD,
    REDRAW,
    HowLowCanYouGo,
    HowLowObservation,
    HowLowState,
)

GAMES = {HowLowCanYouGo.name: HowLowCanYouGo}
TABLES = list(range(2, 11))
VARIANTS = [None, "whalen"]
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
FAST = settings(
    max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)
CARD_NAME = re.compile(r"^(?:[2-9TJQKA][CSHD])$")


def play_random(state: HowLowState, rng: random.Random, limit: int = 100_000):
    """Random legal play to the end; yields before each decision."""
    for _ in range(limit):
        if state.is_terminal():
            return
        yield
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    raise AssertionError("the game did not end")


def cards_in_play(state: HowLowState) -> Counter:
    counter = Counter(state.stock)
    counter.update(state.pile)
    for hand in state.hands:
        counter.update(hand)
    return counter


def max_decisions(game: HowLowCanYouGo) -> int:
    """Three exchanges a player a deal, plus at most one whalen redraw."""
    return game.params["max_deals"] * 4 * game.players


# --- the game runs properly -----------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("players", TABLES)
@FAST
@given(seed=SEEDS, max_deals=st.integers(min_value=1, max_value=50))
def test_random_games_keep_every_invariant(players, variant, seed, max_deals):
    check_random_game(players, variant, seed, max_deals)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("players", TABLES)
def test_full_length_games_keep_every_invariant(players, variant):
    """The default game (up to 50 deals) once per table size, whatever hypothesis picks above."""
    check_random_game(players, variant, seed=1000 + players, max_deals=50)


def check_random_game(players, variant, seed, max_deals):
    game = HowLowCanYouGo(players=players, variant=variant, max_deals=max_deals)
    state = game.new_state(seed=seed)
    rng = random.Random(seed)
    pack = Counter(game.pack)
    chips_total = sum(state.chips) + state.bank
    out_deal = [0] * players
    decisions = 0
    for _ in play_random(state, rng):
        decisions += 1
        seat = state.current_player()
        assert seat != TERMINAL and state.active[seat]
        legal = state.legal_actions()
        assert legal, "no legal action before the end"
        assert len(legal) == len(set(legal)), "a set listed twice (HL-19)"
        hand = state.hands[seat]
        assert len(hand) == 5 and hand == sorted(hand)
        cap = min(MAX_DISCARD, len(state.stock) + len(state.pile))
        for action in legal:
            if action == REDRAW:
                assert variant == "whalen" and state.round == 1
                continue
            assert list(action) == sorted(action) and len(action) <= cap
            assert not Counter(action) - Counter(hand), "discarding a card not held"
        assert cards_in_play(state) == pack
        assert sum(state.chips) + state.bank == chips_total
        assert state.bank >= 0 and min(state.chips) >= 0
        for s in range(players):
            if not state.active[s] and not out_deal[s]:
                out_deal[s] = state.deal - 1  # went out at the previous deal's showdown
    assert decisions <= max_decisions(game)
    assert state.is_terminal() and state.current_player() == TERMINAL
    assert state.legal_actions() == []
    assert cards_in_play(state) == pack
    assert sum(state.chips) + state.bank == chips_total
    assert sum(state.active) <= 1 or state.deal == max_deals
    for s in range(players):
        if not state.active[s] and not out_deal[s]:
            out_deal[s] = state.deal
        assert state.active[s] == (state.chips[s] > 0)
    # HL-17, computed independently: survivors by chips, then later eliminations first.
    keys = [(0, -state.chips[s]) if state.active[s] else (1, -out_deal[s]) for s in range(players)]
    result = state.result()
    assert result.scores == tuple(state.chips)
    assert result.ranks == competition_ranks(keys)
    assert min(result.ranks) == 1
    for a in range(players):
        for b in range(players):
            if state.active[a] and state.active[b] and state.chips[a] > state.chips[b]:
                assert result.ranks[a] < result.ranks[b]
            if state.active[a] and not state.active[b]:
                assert result.ranks[a] < result.ranks[b]
    # The record replays to exactly the same game, also after a trip through JSON.
    record = json.loads(json.dumps(state.record()))
    again = replay(record, GAMES)
    assert again.result() == result
    assert again.history == state.history
    assert again.chance.log == state.chance.log
    mine, theirs = state.record(), again.record()
    assert theirs.pop("seed") is None  # a replay runs from the record's events, not a seed
    mine.pop("seed")
    assert json.dumps(theirs) == json.dumps(mine)


@pytest.mark.parametrize("players", TABLES)
def test_same_seed_same_game(players):
    game = HowLowCanYouGo(players=players, max_deals=5)
    runs = []
    for _ in range(2):
        state = game.new_state(seed=f"same-{players}")
        for _ in play_random(state, random.Random(players)):
            pass
        runs.append(json.dumps(state.record()))
    assert runs[0] == runs[1]


# --- observations hide what is hidden -------------------------------------------------------------


def card_names(value) -> list[str]:
    """Every card name anywhere in a JSON value."""
    if isinstance(value, str):
        return [value] if CARD_NAME.match(value) else []
    if isinstance(value, list):
        return [n for v in value for n in card_names(v)]
    if isinstance(value, dict):
        return [n for v in value.values() for n in card_names(v)]
    return []


def visible_cards(state: HowLowState, seat: int) -> set[str]:
    """The cards ``seat`` may see: its own hand, a revealed showdown, hands shown for a redraw."""
    names = {ASCII_NAMES[c] for c in state.hands[seat]}
    showdown = state.last_showdown
    if showdown is not None:
        for hand in showdown.hands:
            names.update(ASCII_NAMES[c] for c in hand or ())
    for _, hand in state.shown:
        names.update(ASCII_NAMES[c] for c in hand)
    return names


def reshuffle_hidden(state: HowLowState, seat: int, rng: random.Random) -> HowLowState:
    """A copy where every card ``seat`` cannot see (other hands, stock, pile) is dealt anew."""
    other = state.clone()
    seats = [s for s in other.order if s != seat] if not state.is_terminal() else []
    pool = list(other.stock) + list(other.pile)
    for s in seats:
        pool += other.hands[s]
    rng.shuffle(pool)
    i = 0
    for s in seats:
        other.hands[s] = sorted(pool[i : i + 5])
        i += 5
    other.pile = pool[i : i + len(state.pile)]
    other.stock = pool[i + len(state.pile) :]
    other._legal = None
    return other


def check_observations(state: HowLowState, rng: random.Random) -> None:
    for seat in range(state.game.players):
        obs = state.observation(seat)
        data = obs.to_json()
        assert list(data) == list(obs.fields)
        allowed = visible_cards(state, seat)
        leaked = set(card_names(data)) - allowed
        assert not leaked, f"seat {seat} sees {leaked}"
        if seat != state.current_player():
            assert data["legal_actions"] == []
        # The JSON form says everything: it reads back to an equal observation.
        back = HowLowObservation.from_json(json.loads(json.dumps(data)))
        assert back.to_json() == data
        # Whatever the hidden cards are, the observation is the same.
        assert reshuffle_hidden(state, seat, rng).observation(seat).to_json() == data


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("players", TABLES)
@settings(max_examples=3, deadline=None, database=None)
@given(seed=SEEDS)
def test_observations_never_show_hidden_cards(players, variant, seed):
    game = HowLowCanYouGo(players=players, variant=variant, max_deals=3 if players > 6 else 6)
    state = game.new_state(seed=seed)
    rng = random.Random(seed)
    for _ in play_random(state, rng):
        check_observations(state, rng)
    check_observations(state, rng)  # the end: the final hands are public


def test_observation_hand_shown_only_to_its_owner_at_every_table_size():
    for players in TABLES:
        state = HowLowCanYouGo(players=players).new_state(seed=players)
        for seat in state.order:
            mine = {ASCII_NAMES[c] for c in state.hands[seat]}
            for other in state.order:
                if other == seat:
                    continue
                theirs = set(card_names(state.observation(other).to_json()))
                hidden = mine - {ASCII_NAMES[c] for c in state.hands[other]}
                assert not hidden & theirs


# --- clone ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 4, 7, 10])
@settings(max_examples=4, deadline=None, database=None)
@given(seed=SEEDS)
def test_clone_is_independent(players, seed):
    game = HowLowCanYouGo(players=players, variant="whalen" if seed % 2 else None, max_deals=8)
    state = game.new_state(seed=seed)
    rng = random.Random(seed)
    steps = rng.randrange(1, 40)
    for _ in zip(range(steps), play_random(state, rng), strict=False):
        pass
    if state.is_terminal():
        return
    before = json.dumps(state.record()), [state.observation(s).to_json() for s in range(players)]
    copy = state.clone()
    assert copy.legal_actions() == state.legal_actions()
    # Playing the copy differently to its end changes nothing in the original.
    for _ in play_random(copy, random.Random(seed + 1)):
        pass
    after = json.dumps(state.record()), [state.observation(s).to_json() for s in range(players)]
    assert after == before
    # The original plays on; a second copy given the same actions ends the same way.
    twin = state.clone()
    actions_rng = random.Random(seed + 2)
    while not state.is_terminal():
        legal = state.legal_actions()
        action = legal[actions_rng.randrange(len(legal))]
        state.apply_action(action)
        twin.apply_action(action)
    assert twin.result() == state.result()
    assert json.dumps(twin.record()) == json.dumps(state.record())


# --- determinize ----------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("players", TABLES)
@settings(max_examples=2, deadline=None, database=None)
@given(seed=SEEDS)
def test_determinize_is_consistent_and_playable(players, variant, seed):
    game = HowLowCanYouGo(players=players, variant=variant, max_deals=4)
    state = game.new_state(seed=seed)
    rng = random.Random(seed)
    checks = 0
    for _ in play_random(state, rng):
        if rng.random() > 0.2:
            continue
        # Mostly the seat to act (a search bot's case); sometimes any seat, even one that is out.
        seat = state.current_player() if rng.random() < 0.7 else rng.randrange(players)
        obs = state.observation(seat)
        if rng.random() < 0.5:  # as a bot in its own process has it
            obs = HowLowObservation.from_json(json.loads(json.dumps(obs.to_json())))
        det = game.determinize(obs, random.Random(rng.random()))
        assert isinstance(det, HowLowState)
        # The same public facts and own hand: the seat cannot tell the two states apart.
        assert det.observation(seat).to_json() == obs.to_json()
        assert det.current_player() == state.current_player()
        if seat == state.current_player():
            assert det.legal_actions() == state.legal_actions()
        assert cards_in_play(det) == Counter(game.pack)
        for s in det.order:
            assert len(det.hands[s]) == 5
        # Any other seat's observation agrees on the public part.
        for other in range(players):
            a, b = det.observation(other).to_json(), state.observation(other).to_json()
            for key in (
                "chips",
                "active",
                "bank",
                "deal",
                "round",
                "dealer",
                "order",
                "stock_size",
                "discard_size",
                "discards",
                "shown",
                "last_showdown",
            ):
                assert a[key] == b[key], key
        # A search bot can play it on, with clones, to the end.
        probe = det.clone()
        for _ in play_random(probe, random.Random(seed)):
            pass
        assert probe.result().scores
        checks += 1
    obs = state.observation(0)
    det = game.determinize(obs, random.Random(seed))
    assert det.is_terminal() and det.observation(0).to_json() == obs.to_json()
    assert det.result().scores == state.result().scores


def test_determinize_samples_the_unseen_cards_uniformly():
    game = HowLowCanYouGo(players=4)
    state = game.new_state(seed=12)
    seat = state.current_player()
    obs = state.observation(seat)
    rng = random.Random(1)
    seen = Counter()
    samples = 600
    for _ in range(samples):
        det = game.determinize(obs, rng)
        for s in det.order:
            if s != seat:
                seen.update(det.hands[s])
        assert det.hands[seat] == list(obs.hand)
    own = set(obs.hand)
    unseen = [c for c in game.pack if c not in own]
    assert set(seen) == set(unseen)  # every unseen card turns up in someone's hand
    expected = samples * 15 / len(unseen)  # 15 cards in 3 other hands, 47 unseen cards
    for card in unseen:
        assert 0.6 * expected < seen[card] < 1.4 * expected


def test_determinize_refuses_another_games_observation():
    game = HowLowCanYouGo(players=4)
    obs = HowLowCanYouGo(players=3).new_state(seed=1).observation(0)
    with pytest.raises(GameError, match="3 seats, not 4"):
        game.determinize(obs, random.Random(0))


def test_observation_from_json_refuses_nonsense():
    with pytest.raises(GameError, match="not a how-low-can-you-go observation"):
        HowLowObservation.from_json({"game": "how-low-can-you-go"})
    data = HowLowCanYouGo().new_state(seed=1).observation(0).to_json()
    data["hand"] = ["ZZ"]
    with pytest.raises(GameError, match="not a card"):
        HowLowObservation.from_json(data)
