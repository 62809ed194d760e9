"""Twenty Down: one or more tests per rule (TD-1 .. TD-19, variant brostedt), from hand-made deals.

Every deal is scripted through ``game.replay_state``: the chance events are ``dealer`` then
``deal-1``, ``deal-2``, ... each the full 32-card order, dealt as docs/rules/twenty-down.md says:
two cards to each player from forehand clockwise, three more to each, the talon last (top first).
"""

from __future__ import annotations

import json
import random

import pytest

from arena.cards import (
    CLUBS,
    DIAMONDS,
    HEARTS,
    SPADES,
    SUITS,
    Card,
    parse_card,
    parse_suit,
    piquet_pack,
)
from arena.games.base import (
    TERMINAL,
    GameError,
    GameOverError,
    IllegalActionError,
    InvalidParametersError,
    NotYourTurnError,
    RecordError,
    replay,
)
from arena.games.twenty_down import (
    DROP,
    STAY,
    TRUMP,
    Trick,
    TwentyDown,
    TwentyDownObservation,
)

PACK = piquet_pack()


def cards(text: str) -> list[Card]:
    return [parse_card(n) for n in text.split()]


def deck_order(hands: dict[int, str], dealer: int, talon: str = "") -> list[str]:
    """The deal-n order that gives ``hands`` (seat -> five cards, the first two dealt first).

    The talon is ``talon`` followed by every other card in pack order.
    """
    forehand = (dealer + 1) % 4
    seats = [(forehand + k) % 4 for k in range(4)]
    hand_cards = {s: cards(hands[s]) for s in seats}
    order = [c for s in seats for c in hand_cards[s][:2]]
    order += [c for s in seats for c in hand_cards[s][2:]]
    order += cards(talon)
    order += [c for c in PACK if c not in order]
    assert sorted(order) == sorted(PACK), "a scripted deal must use every card once"
    return [c.ascii for c in order]


def script(dealer: int, *deals: list[str]) -> list[dict]:
    """Chance events: the first dealer, the given deals, then shuffled filler deals."""
    events = [{"event": "dealer", "value": dealer}]
    rng = random.Random(99)
    for n in range(1, 121):
        if n <= len(deals):
            order = deals[n - 1]
        else:
            shuffled = list(PACK)
            rng.shuffle(shuffled)
            order = [c.ascii for c in shuffled]
        events.append({"event": f"deal-{n}", "value": order})
    return events


def play(state, *names: str) -> None:
    """Play these cards, each for whoever is to act."""
    for name in names:
        state.apply_action(parse_card(name), seat=state.current_player())


def stand_all(state) -> None:
    for _ in range(4):
        state.apply_action(())


def snapshot(state) -> str:
    """Everything a state shows: its record and every seat's observation."""
    return json.dumps(
        [state.record(), [state.observation(s).to_json() for s in range(4)], repr(state)],
        sort_keys=True,
    )


# The "split" deal: dealer 0, forehand 1, clubs named (all clubs are in the talon).
# Tricks: s1 AS, s1 KS, s2 AH, s2 AD, s3 KH  ->  tricks won s0 0, s1 2, s2 2, s3 1.
SPLIT = {
    1: "AS KS 7H 9D QH",
    2: "7S TS AH AD TH",
    3: "8S JS 8H 7D KH",
    0: "9S QS 9H 8D JH",
}
SPLIT_PLAY = (
    "AS 7S 8S 9S",
    "KS TS JS QS",
    "7H AH 8H 9H",
    "AD 7D 8D 9D",
    "TH KH JH QH",
)


def slam(t: str) -> tuple[dict[int, str], tuple[str, ...]]:
    """A deal (dealer 0) where forehand, seat 1, takes all five tricks with trump ``t``.

    Seat 1 holds the K and A of trumps and the three side aces; everyone else one lower trump
    and four cards of one side suit.
    """
    a, b, c = (x for x in "CSHD" if x != t)
    hands = {
        1: f"K{t} A{t} A{a} A{b} A{c}",
        2: f"Q{t} 7{a} 8{a} 9{a} T{a}",
        3: f"J{t} 7{b} 8{b} 9{b} T{b}",
        0: f"T{t} 7{c} 8{c} 9{c} T{c}",
    }
    tricks = (
        f"K{t} Q{t} J{t} T{t}",
        f"A{t} 7{a} 7{b} 7{c}",
        f"A{a} 8{a} 8{b} 8{c}",
        f"A{b} 9{a} 9{b} 9{c}",
        f"A{c} T{a} T{b} T{c}",
    )
    return hands, tricks


def slam_state(t: str, **params):
    hands, tricks = slam(t)
    state = TwentyDown(**params).replay_state(script(0, deck_order(hands, dealer=0)))
    state.apply_action(parse_suit(t))
    stand_all(state)
    return state, tricks


def split_state(trump=CLUBS, **params):
    game = TwentyDown(**params)
    state = game.replay_state(script(0, deck_order(SPLIT, dealer=0)))
    if state.phase == TRUMP:
        state.apply_action(trump)
    stand_all(state)
    return state


def play_tricks(state, tricks) -> None:
    for trick in tricks:
        play(state, *trick.split())


# --- TD-1: four players, a 32-card pack ----------------------------------------------------------


def test_td1_four_players_and_a_32_card_pack():
    game = TwentyDown()
    assert game.players == 4
    state = game.new_state(seed=1)
    state.apply_action(SPADES)
    dealt = [c for h in state.hands for c in h] + list(state.talon)
    assert sorted(dealt) == sorted(PACK) and len(dealt) == 32
    assert {c.rank for c in dealt} == set(range(5, 13))  # 7 .. A
    assert all(len(h) == 5 for h in state.hands) and len(state.talon) == 12


@pytest.mark.parametrize("players", [3, 5, 2])
def test_td1_other_table_sizes_are_refused(players):
    with pytest.raises(InvalidParametersError, match="exactly 4"):
        TwentyDown(players=players)


# --- TD-2: rank inside a suit --------------------------------------------------------------------


def test_td2_rank_order_seven_to_ace():
    game = TwentyDown()
    # Clubs are trump, but only the last trick could hold one: 7 < 8 < 9 < 10 < J < Q < K < A.
    hands = {
        1: "7S 9S JS KS 7C",
        2: "8S TS QS AS 8C",
        3: "7H 8H 9H TH JH",
        0: "QH KH AH 7D 8D",
    }
    state = game.replay_state(script(0, deck_order(hands, dealer=0)))
    state.apply_action(CLUBS)
    stand_all(state)
    play(state, "7S", "8S", "7H", "QH")  # 8 beats 7; the off-suit queen does not count
    assert state.tricks[-1].winner == 2
    play(state, "TS", "JH", "KH", "JS")  # s2 leads; J beats 10
    assert state.tricks[-1].winner == 1
    play(state, "KS", "AS", "TH", "AH")  # A beats K
    assert state.tricks[-1].winner == 2
    play(state, "QS", "9H", "7D", "9S")  # Q beats 9
    assert state.tricks[-1].winner == 2


# --- TD-3: starting points -----------------------------------------------------------------------


def test_td3_everyone_starts_with_twenty_points():
    state = TwentyDown().new_state(seed=3)
    assert state.points == [20, 20, 20, 20]
    assert state.observation(0).points == (20, 20, 20, 20)
    assert TwentyDown(start_points=7).new_state(seed=3).points == [7, 7, 7, 7]


# --- TD-4: first dealer and rotation -------------------------------------------------------------


def test_td4_first_dealer_from_chance_and_clockwise_rotation():
    for dealer in range(4):
        state = TwentyDown(max_deals=3).replay_state(script(dealer))
        assert state.dealer == dealer and state.forehand == (dealer + 1) % 4
        assert state.chance.log[0] == ("dealer", dealer)
        for deal in (2, 3):
            while state.deal < deal and not state.is_terminal():
                state.apply_action(state.legal_actions()[0])
            if state.deal == deal:
                assert state.dealer == (dealer + deal - 1) % 4
                assert state.forehand == (dealer + deal) % 4
    seen = {TwentyDown().new_state(seed=s).dealer for s in range(40)}
    assert seen == {0, 1, 2, 3}
    assert TwentyDown().new_state(seed="x").dealer == TwentyDown().new_state(seed="x").dealer


# --- TD-5: two cards, trump, three cards, the talon ----------------------------------------------


def test_td5_deal_two_then_trump_then_three():
    game = TwentyDown()
    hands = {
        2: "7C 8C 9C TC JC",
        3: "QC KC AC 7S 8S",
        0: "9S TS JS QS KS",
        1: "AS 7H 8H 9H TH",
    }
    order = deck_order(hands, dealer=1, talon="JH QH KH AH 7D 8D 9D TD JD QD KD AD")
    assert order[:8] == ["7C", "8C", "QC", "KC", "9S", "TS", "AS", "7H"]
    state = game.replay_state(script(1, order))
    assert state.forehand == 2 and state.current_player() == 2
    assert state.observation(2).phase == "trump"
    # Forehand has seen only two cards; so has everyone else.
    assert [state.observation(s).hand for s in range(4)] == [
        tuple(cards("9S TS")),
        tuple(cards("AS 7H")),
        tuple(cards("7C 8C")),
        tuple(cards("QC KC")),
    ]
    assert len(state.talon) == 24
    state.apply_action(SPADES)
    for seat in range(4):
        assert state.hands[seat] == sorted(cards(hands[seat]))
    assert state.talon == cards("JH QH KH AH 7D 8D 9D TD JD QD KD AD")
    assert state.observation(2).phase == "exchange" and state.trump == SPADES


# --- TD-6: hearts fixed from the ninth deal ------------------------------------------------------


def test_td6_hearts_are_trump_from_the_ninth_deal():
    game = TwentyDown(start_points=1000)
    state = game.replay_state(script(0))
    while state.deal < 9:
        if state.phase == TRUMP:
            assert state.deal <= 8
            state.apply_action(CLUBS)
        else:
            state.apply_action(state.legal_actions()[0])
    assert state.trump == HEARTS
    obs = state.observation(state.current_player())
    assert obs.phase == "exchange" and obs.trump == HEARTS
    assert state.current_player() == state.forehand
    names = [a for _, a in state.history]
    assert names.count(CLUBS) == 8  # the trump was asked in deals 1-8 only


def test_td6_fixed_trump_after_parameter():
    game = TwentyDown(fixed_trump_after=0)
    order = deck_order(SPLIT, dealer=0)
    state = game.replay_state(script(0, order))
    assert state.trump == HEARTS and state.observation(1).phase == "exchange"
    # The same card positions are dealt as in a named-trump deal.
    for seat, hand in SPLIT.items():
        assert state.hands[seat] == sorted(cards(hand))
    state = TwentyDown(fixed_trump_after=1).replay_state(script(0, order))
    assert state.phase == TRUMP


# --- TD-7: the exchange --------------------------------------------------------------------------


def test_td7_exchange_from_forehand_clockwise_from_the_talon_top():
    game = TwentyDown()
    talon = "7C 8C 9C TC JC QC KC AC JD QD KD TD"
    state = game.replay_state(script(0, deck_order(SPLIT, dealer=0, talon=talon)))
    state.apply_action(CLUBS)
    assert state.current_player() == 1
    options = state.legal_actions()
    assert len(options) == 26 and options[0] == () and len(set(options)) == 26
    state.apply_action(tuple(cards("KS AS QH")), seat=1)  # sorted ascending by card id
    assert state.hands[1] == sorted(cards("7H 9D 7C 8C 9C"))
    assert state.current_player() == 2
    state.apply_action(tuple(cards("7S TS")), seat=2)
    assert state.hands[2] == sorted(cards("AH AD TH TC JC"))
    state.apply_action((), seat=3)
    assert state.hands[3] == sorted(cards(SPLIT[3]))
    state.apply_action((parse_card("JH"),), seat=0)
    assert state.hands[0] == sorted(cards("9S QS 9H 8D QC"))
    assert state.talon == cards("KC AC JD QD KD TD")
    assert sorted(state.discards) == sorted(cards("KS AS QH 7S TS JH"))
    obs = state.observation(3)
    assert obs.exchanged == (1, 3, 2, 0) and obs.phase == "play"
    text = json.dumps(obs.to_json())
    for hidden in ("KS", "AS", "QH", "7S", "TS", "JH", "KC", "AC"):
        assert f'"{hidden}"' not in text


def test_td7_exchange_counts_are_public_as_they_happen():
    game = TwentyDown()
    state = game.replay_state(script(0, deck_order(SPLIT, dealer=0)))
    state.apply_action(CLUBS)
    assert state.observation(0).exchanged == (None, None, None, None)
    state.apply_action(tuple(cards("7H")))
    assert state.observation(0).exchanged == (None, 1, None, None)
    # Three at most: a four-card discard is not among the options.
    assert tuple(cards("7S TS AH AD")) not in state.legal_actions()
    assert max(len(a) for a in state.legal_actions()) == 3


# --- TD-8: five tricks, who leads ----------------------------------------------------------------


def test_td8_forced_plays_are_still_asked():
    state = split_state()
    play_tricks(state, SPLIT_PLAY[:4])
    asked = []
    for name in SPLIT_PLAY[4].split():
        assert state.legal_actions() == [parse_card(name)]
        asked.append(state.current_player())
        play(state, name)
    assert asked == [2, 3, 0, 1]
    assert sum(1 for _, a in state.history if isinstance(a, Card)) == 20


def test_td8_forehand_leads_then_the_winner_leads():
    state = split_state()
    assert state.current_player() == 1 and state.observation(1).phase == "play"
    leaders = []
    for trick in SPLIT_PLAY:
        leaders.append(state.current_player())
        play(state, *trick.split())
    assert leaders == [1, 1, 1, 2, 2]
    assert state.deal == 2  # five tricks, then the next deal


# --- TD-9: follow suit, else trump ---------------------------------------------------------------


def test_td9_follow_suit_else_trump_else_anything():
    hands = {
        1: "AS 7C 8H 9H TH",
        2: "KS 7S 8C 8D 9D",
        3: "9C TC JH QH KH",
        0: "QD KD AD 7D TD",
    }
    state = TwentyDown().replay_state(script(0, deck_order(hands, dealer=0)))
    state.apply_action(CLUBS)
    stand_all(state)
    play(state, "AS")
    assert state.legal_actions() == cards("7S KS")  # follow; no duty to beat the ace
    play(state, "7S")
    assert state.legal_actions() == cards("9C TC")  # no spades: must trump
    play(state, "9C")
    assert state.legal_actions() == sorted(cards(hands[0]))  # neither: anything
    play(state, "7D")
    assert state.tricks[0].winner == 3
    play(state, "TC")  # trumps led: following suit means a trump; seat 0 has none
    assert state.current_player() == 0
    assert state.legal_actions() == sorted(cards("QD KD AD TD"))
    play(state, "QD")
    assert state.legal_actions() == cards("7C")
    play(state, "7C")
    assert state.legal_actions() == cards("8C")


def test_td9_an_illegal_card_is_refused():
    state = split_state()
    play(state, "AS")
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match="not a legal action for seat 2"):
        state.apply_action(parse_card("AH"))  # seat 2 holds spades
    assert snapshot(state) == before


# --- TD-10: who wins a trick ---------------------------------------------------------------------


def test_td10_highest_trump_else_highest_of_suit_led():
    hands = {
        1: "7S AH 8C 9D 7D",
        2: "AS KH 9C 8D TD",
        3: "KS 7C TC JD 7H",
        0: "8S JC AD QD 8H",
    }
    state = TwentyDown(max_deals=1).replay_state(script(0, deck_order(hands, dealer=0)))
    state.apply_action(CLUBS)
    stand_all(state)
    play(state, "7S", "AS", "KS", "8S")  # no trump: the highest spade
    assert state.tricks[-1].winner == 2
    play(state, "KH", "7H", "8H", "AH")  # s2 leads KH; AH wins
    assert state.tricks[-1].winner == 1
    play(state, "9D", "TD", "JD", "AD")  # all follow diamonds
    assert state.tricks[-1].winner == 0
    # s0 leads QD: s1 follows 7D, s2 follows 8D, s3 has no diamond and must trump.
    play(state, "QD", "7D", "8D", "7C")
    assert state.tricks[-1].winner == 3  # a low trump beats the highest card of the suit led
    play(state, "TC", "JC", "8C", "9C")  # trumps led: the highest trump
    assert state.tricks[-1].winner == 0
    assert state.tricks_won == [2, 1, 1, 1]


# --- TD-11: one point off a trick ----------------------------------------------------------------


def test_td11_one_point_off_per_trick():
    state = split_state()
    play_tricks(state, SPLIT_PLAY)
    # s0 took none (+5, TD-13); s1 two; s2 two; s3 one.
    assert state.points == [25, 18, 18, 19]
    assert state.deal == 2


# --- TD-12: all five tricks ----------------------------------------------------------------------


def test_td12_all_tricks_bonus():
    for t in "CSD":
        state, tricks = slam_state(t)
        play_tricks(state, tricks)
        assert state.points == [25, 10, 25, 25]  # 5 for the tricks and 5 more


# --- TD-13: no trick -----------------------------------------------------------------------------


def test_td13_no_trick_adds_five():
    state = split_state()
    play_tricks(state, SPLIT_PLAY)
    assert state.points[0] == 25


# --- TD-14: hearts double ------------------------------------------------------------------------


def test_td14_hearts_double_every_amount():
    # Hearts named by forehand.
    state = split_state(trump=HEARTS)
    play_tricks(state, SPLIT_PLAY)  # with hearts trump the same cards win
    assert state.points == [30, 16, 16, 18]
    # Hearts fixed (TD-6): doubled too.
    state = split_state(fixed_trump_after=0)
    assert state.trump == HEARTS
    play_tricks(state, SPLIT_PLAY)
    assert state.points == [30, 16, 16, 18]
    # The all-tricks bonus doubles as well: 20 off.
    state, tricks = slam_state("H", start_points=30)
    play_tricks(state, tricks)
    assert state.points == [40, 10, 40, 40]


# --- TD-15: the end at zero or below -------------------------------------------------------------


def test_td15_the_game_ends_at_zero_or_less():
    state, tricks = slam_state("H")
    play_tricks(state, tricks)
    assert state.points == [30, 0, 30, 30]
    assert state.is_terminal() and state.current_player() == TERMINAL
    assert state.legal_actions() == []
    result = state.result()
    assert result.scores == (30, 0, 30, 30) and result.ranks == (2, 1, 2, 2)
    assert result.winners == (1,) and result.better == "lower"
    # The last deal stays visible at the end.
    obs = state.observation(2)
    assert obs.phase == "over" and len(obs.tricks) == 5 and obs.legal_actions == []


def test_td15_most_negative_wins_and_equal_lowest_share():
    state = split_state(start_points=2)
    play_tricks(state, SPLIT_PLAY)
    assert state.is_terminal()
    assert state.result().scores == (7, 0, 0, 1)
    assert state.result().ranks == (4, 1, 1, 3)
    assert state.result().winners == (1, 2)
    state, tricks = slam_state("H", start_points=2)
    play_tricks(state, tricks)
    assert state.result().scores == (12, -18, 12, 12) and state.result().winners == (1,)


# --- TD-16: the next deal, the cap ---------------------------------------------------------------


def test_td16_next_deal_or_the_safety_cap():
    state = split_state()
    play_tricks(state, SPLIT_PLAY)
    assert not state.is_terminal() and state.deal == 2
    assert state.dealer == 1 and state.forehand == 2 and state.current_player() == 2
    assert state.tricks == [] and state.tricks_won == [0, 0, 0, 0]
    state = split_state(max_deals=1)
    play_tricks(state, SPLIT_PLAY)
    assert state.is_terminal() and state.result().scores == (25, 18, 18, 19)
    assert state.result().ranks == (4, 1, 1, 3)


def test_td16_default_cap_is_100_deals():
    assert TwentyDown().params["max_deals"] == 100
    state = TwentyDown(start_points=1000).new_state(seed=5)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    assert state.deal == 100 and min(state.points) > 0


# --- TD-17: ranking ------------------------------------------------------------------------------


def test_td17_ranks_fewest_points_first_ties_shared():
    state = split_state(max_deals=1)
    play_tricks(state, SPLIT_PLAY)
    assert state.result().ranks == (4, 1, 1, 3)
    assert state.returns() == (25, 18, 18, 19)


def test_td17_no_result_before_the_end():
    state = TwentyDown().new_state(seed=1)
    with pytest.raises(GameError, match="not over"):
        state.result()


# --- TD-18: what a player sees -------------------------------------------------------------------


def test_td18_observation_shows_exactly_the_public_facts():
    state = split_state()
    play(state, *SPLIT_PLAY[0].split())
    play(state, "KS", "TS")
    obs = state.observation(3)
    assert isinstance(obs, TwentyDownObservation)
    assert obs.fields == (
        "game", "seat", "legal_actions", "hand", "dealer", "forehand", "trump", "deal",
        "points", "phase", "exchanged", "tricks", "current_trick", "tricks_won", "playing",
        "last_tricks",
    )  # fmt: skip
    assert obs.game == "twenty-down" and obs.seat == 3
    assert obs.legal_actions == cards("JS")
    assert obs.hand == tuple(sorted(cards("JS 8H 7D KH")))
    assert (obs.dealer, obs.forehand, obs.trump, obs.deal) == (0, 1, CLUBS, 1)
    assert obs.points == (20, 20, 20, 20) and obs.phase == "play"
    assert obs.exchanged == (0, 0, 0, 0)
    assert obs.tricks == (
        Trick(1, ((1, Card("AS")), (2, Card("7S")), (3, Card("8S")), (0, Card("9S"))), 1),
    )
    assert obs.current_trick == ((1, Card("KS")), (2, Card("TS")))
    assert obs.tricks_won == (0, 1, 0, 0) and obs.playing is None
    assert obs.last_tricks == ()  # the first deal
    plain = obs.to_json()
    assert plain["tricks"] == [
        {"leader": 1, "cards": [[1, "AS"], [2, "7S"], [3, "8S"], [0, "9S"]], "winner": 1}
    ]
    assert plain["current_trick"] == [[1, "KS"], [2, "TS"]] and plain["trump"] == "C"
    assert json.loads(json.dumps(plain)) == plain
    # Another seat's observation: no legal actions, its own hand only.
    other = state.observation(0)
    assert other.legal_actions == [] and other.hand == tuple(sorted(cards("QS 9H 8D JH")))
    text = json.dumps(plain)
    for seat in (0, 1, 2):
        for c in state.hands[seat]:
            assert f'"{c.ascii}"' not in text
    for c in state.talon:
        assert f'"{c.ascii}"' not in text


def test_td18_every_seat_sees_the_whole_fifth_trick_in_the_next_deal():
    """TD-18: every card played in the deal is seen. The next deal starts as the fifth trick ends,
    so the seats that played early to it see its last cards only in ``last_tricks``."""
    game = TwentyDown()
    for seed in range(20):
        state = game.new_state(seed)
        rng = random.Random(seed)
        deals = 0
        while not state.is_terminal():
            deal, seat = state.deal, state.current_player()
            tricks, trick = state.tricks[:], state.trick[:]
            action = rng.choice(state.legal_actions())
            state.apply_action(action)
            if state.deal == deal or state.is_terminal():
                continue
            deals += 1
            assert len(tricks) == 4 and len(trick) == 3  # the deal ended with its twentieth card
            last = state.last_tricks
            assert last[:4] == tuple(tricks) and last[4].cards == (*trick, (seat, action))
            for viewer in range(4):
                obs = state.observation(viewer)
                assert obs.deal == deal + 1 and obs.tricks == () and obs.last_tricks == last
                assert obs.to_json()["last_tricks"] == [t.to_json() for t in last]
        assert deals > 0


def test_td18_observation_is_a_snapshot():
    state = split_state()
    before = snapshot(state)
    obs = state.observation(1)
    obs.legal_actions.clear()
    obs.points = (0, 0, 0, 0)
    assert snapshot(state) == before
    assert state.legal_actions() != []
    with pytest.raises(TypeError):
        obs.tricks_won[0] = 3  # tuples, not the state's lists


def test_td18_bad_seat_for_an_observation():
    state = TwentyDown().new_state(seed=1)
    with pytest.raises(GameError, match="no seat 4"):
        state.observation(4)


# --- TD-19: actions ------------------------------------------------------------------------------


def test_td19_action_kinds():
    state = TwentyDown().replay_state(script(0, deck_order(SPLIT, dealer=0)))
    assert state.legal_actions() == list(SUITS)
    assert json.dumps([a.ascii for a in state.legal_actions()]) == '["C", "S", "H", "D"]'
    state.apply_action(SUITS[3])
    options = state.legal_actions()
    assert all(isinstance(a, tuple) and list(a) == sorted(a) for a in options)
    assert [len(a) for a in options] == [0] + [1] * 5 + [2] * 10 + [3] * 10
    assert all(isinstance(c, Card) for a in options for c in a)
    stand_all(state)
    assert all(isinstance(a, Card) for a in state.legal_actions())
    record = state.record()
    assert record["actions"][0] == [1, "D"] and record["actions"][1] == [1, []]


def test_td19_exchange_must_be_a_listed_set():
    state = TwentyDown().replay_state(script(0, deck_order(SPLIT, dealer=0)))
    state.apply_action(CLUBS)
    before = snapshot(state)
    for bad in [tuple(cards("9D QH")), tuple(cards("AH")), cards("9D"), "stay", CLUBS, None]:
        with pytest.raises(IllegalActionError):
            state.apply_action(bad)
        assert snapshot(state) == before


# --- bad input -----------------------------------------------------------------------------------


def test_action_for_the_wrong_seat_is_refused():
    state = split_state()
    before = snapshot(state)
    with pytest.raises(NotYourTurnError, match="seat 1's turn, not seat 2's"):
        state.apply_action(parse_card("AS"), seat=2)
    assert snapshot(state) == before


def test_action_after_the_end_is_refused():
    state = split_state(max_deals=1)
    play_tricks(state, SPLIT_PLAY)
    before = snapshot(state)
    with pytest.raises(GameOverError, match="game is over"):
        state.apply_action(parse_card("AS"))
    assert snapshot(state) == before


def test_unknown_variant_and_parameter_are_refused():
    with pytest.raises(InvalidParametersError, match="no variant 'solo'"):
        TwentyDown(variant="solo")
    with pytest.raises(InvalidParametersError, match="no parameter 'jokers'"):
        TwentyDown(jokers=2)


@pytest.mark.parametrize(
    "params, message",
    [
        ({"max_deals": 0}, "max_deals must be at least 1"),
        ({"start_points": 0}, "start_points must be at least 1"),
        ({"start_points": -5}, "start_points must be at least 1"),
        ({"fixed_trump_after": -1}, "fixed_trump_after must be 0 or more"),
        ({"max_deals": 2.5}, "whole number"),
        ({"start_points": True}, "whole number"),
    ],
)
def test_nonsense_parameters_are_refused(params, message):
    with pytest.raises(InvalidParametersError, match=message):
        TwentyDown(**params)


def test_game_facts():
    game = TwentyDown()
    assert (game.name, game.title, game.aliases) == ("twenty-down", "Twenty Down", ("td", "twenty"))
    assert game.params == {"start_points": 20, "fixed_trump_after": 8, "max_deals": 100}
    assert (game.score_name, game.better, game.variants) == ("points", "lower", ("brostedt",))


def test_a_scripted_record_replays_and_a_wrong_one_is_refused():
    state = split_state(max_deals=1)
    play_tricks(state, SPLIT_PLAY)
    record = json.loads(json.dumps(state.record()))
    again = replay(record, {"twenty-down": TwentyDown})
    assert again.result() == state.result()
    record["result"]["scores"][0] = 0
    with pytest.raises(RecordError):
        replay(record, {"twenty-down": TwentyDown})


# --- variant brostedt ---------------------------------------------------------------------------


def brostedt_state(trump=CLUBS, hands=SPLIT, **params):
    game = TwentyDown(variant="brostedt", **params)
    state = game.replay_state(script(0, deck_order(hands, dealer=0)))
    if state.phase == TRUMP:
        state.apply_action(trump)
    stand_all(state)
    return state


def test_brostedt_asks_after_the_exchange_from_forehands_left():
    state = brostedt_state()
    obs = state.observation(2)
    assert obs.phase == "stay-or-drop" and obs.playing == (None, True, None, None)
    asked = []
    for choice in (STAY, STAY, STAY):
        asked.append(state.current_player())
        assert state.legal_actions() == [STAY, DROP]
        state.apply_action(choice)
    assert asked == [2, 3, 0]  # forehand (seat 1) must stay and is not asked
    assert state.observation(0).playing == (True, True, True, True)
    assert state.observation(1).phase == "play"


def test_brostedt_diamonds_everyone_must_stay():
    state = brostedt_state(trump=DIAMONDS)
    assert state.observation(1).phase == "play"
    assert state.observation(1).playing == (True, True, True, True)
    assert all(action != STAY and action != DROP for _, action in state.history)


def test_brostedt_hearts_fixed_still_asks():
    state = brostedt_state(fixed_trump_after=0)
    assert state.trump == HEARTS and state.observation(2).phase == "stay-or-drop"


def test_brostedt_dropped_players_sit_out_and_score_nothing():
    state = brostedt_state(max_deals=1)
    state.apply_action(DROP, seat=2)
    state.apply_action(STAY, seat=3)
    state.apply_action(DROP, seat=0)
    assert state.observation(3).playing == (False, True, False, True)
    # Tricks of two: seat 1 and seat 3, clockwise from forehand.
    play(state, "AS", "8S")
    assert state.tricks[-1].cards == ((1, Card("AS")), (3, Card("8S")))
    assert state.tricks[-1].winner == 1
    play(state, "KS", "JS", "QH", "KH", "8H", "7H", "7D", "9D")
    assert [t.winner for t in state.tricks] == [1, 1, 3, 3, 1]
    assert state.tricks_won == [0, 3, 0, 2]
    assert state.points == [20, 17, 20, 18]  # the dropped seats 0 and 2 score nothing
    assert len(state.hands[0]) == len(state.hands[2]) == 5  # their cards sit out, face down


def test_brostedt_scoring_among_the_players_in():
    hands, tricks = slam("S")
    state = brostedt_state(trump=SPADES, hands=hands)
    state.apply_action(STAY, seat=2)
    state.apply_action(DROP, seat=3)
    state.apply_action(DROP, seat=0)
    for trick in tricks:
        play(state, *trick.split()[:2])  # seats 1 and 2 only
    assert state.points == [20, 10, 25, 20]  # all five: 10 off; in with no trick: 5 on


def test_brostedt_three_player_tricks():
    state = brostedt_state()
    state.apply_action(STAY, seat=2)
    state.apply_action(DROP, seat=3)
    state.apply_action(STAY, seat=0)
    play(state, "AS", "7S", "9S")
    assert [s for s, _ in state.tricks[-1].cards] == [1, 2, 0]


def test_brostedt_all_drop_forehand_takes_five():
    state = brostedt_state()
    for seat in (2, 3, 0):
        state.apply_action(DROP, seat=seat)
    assert state.points == [20, 15, 20, 20]
    assert state.deal == 2
    hearts = brostedt_state(trump=HEARTS)
    for seat in (2, 3, 0):
        hearts.apply_action(DROP, seat=seat)
    assert hearts.points == [20, 10, 20, 20]
    final = brostedt_state(start_points=5)
    for seat in (2, 3, 0):
        final.apply_action(DROP, seat=seat)
    assert final.is_terminal() and final.result().scores == (5, 0, 5, 5)
    obs = final.observation(0)
    assert obs.tricks == () and obs.tricks_won == (0, 5, 0, 0)
    assert obs.playing == (False, True, False, False)


def test_brostedt_dropped_hand_stays_hidden():
    state = brostedt_state()
    state.apply_action(DROP, seat=2)
    state.apply_action(STAY, seat=3)
    state.apply_action(STAY, seat=0)
    text = json.dumps([state.observation(s).to_json() for s in (0, 1, 3)])
    for c in state.hands[2]:
        assert f'"{c.ascii}"' not in text
