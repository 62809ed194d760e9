"""How Low Can You Go?: tests per rule (HL-1 .. HL-19, variant whalen), from hand-made deals.

Every deal is scripted through ``game.replay_state``: the chance events are ``dealer`` (a seat),
then ``deal-1``, ``deal-2``, ... each the full order of the pack(s), and ``deal-N/restock-K`` for a
reshuffle of the discard pile. A deal gives card ``i`` to ``order[i % k]`` (``order`` = the seats
still in, from the dealer's left); the rest is the stock, its first card on top
(docs/rules/how-low-can-you-go.md, "Referee's decisions").
"""

from __future__ import annotations

import json
import random

import pytest

from arena.cards import Card, parse_card
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
from arena.games.how_low import (
    REDRAW,
    VALUE,
    HowLowCanYouGo,
    HowLowObservation,
    HowLowState,
    Showdown,
    bank_prize,
)

GAMES = {HowLowCanYouGo.name: HowLowCanYouGo}


# --- helpers --------------------------------------------------------------------------------------


def cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_card(n) for n in text.split())


def hand(text: str) -> tuple[Card, ...]:
    return tuple(sorted(cards(text)))


def seats_from_left(dealer: int, players: int, out: tuple[int, ...] = ()) -> list[int]:
    return [s % players for s in range(dealer + 1, dealer + 1 + players) if s % players not in out]


def deck(
    game: HowLowCanYouGo, order: list[int], hands: dict[int, str], stock: str = ""
) -> list[str]:
    """The ``deal-N`` order that gives ``hands`` (seat -> 5 cards) to the seats of ``order``; the
    stock is ``stock`` (top first) followed by every other card in pack order."""
    pool = list(game.pack)
    dealt = {}
    for seat in order:
        dealt[seat] = cards(hands[seat])
        assert len(dealt[seat]) == 5, hands[seat]
        for c in dealt[seat]:
            pool.remove(c)
    top = list(cards(stock))
    for c in top:
        pool.remove(c)
    k = len(order)
    front = [dealt[order[i % k]][i // k] for i in range(5 * k)]
    return [c.ascii for c in front + top + pool]


def script(dealer: int, *decks: list[str], extra: tuple = ()) -> list[dict]:
    events = [{"event": "dealer", "value": dealer}]
    events += [{"event": f"deal-{n}", "value": d} for n, d in enumerate(decks, start=1)]
    return events + list(extra)


def new(players: int, dealer: int, hands: dict[int, str], *, stock: str = "", more=(), **params):
    """A state at the start of deal 1 with the given hands; ``more`` = later decks (deal 2, ...)."""
    variant = params.pop("variant", None)
    game = HowLowCanYouGo(players=players, variant=variant, **params)
    first = deck(game, seats_from_left(dealer, players), hands, stock)
    return game.replay_state(script(dealer, first, *more))


def stand_through_deal(state: HowLowState) -> None:
    """Every player stands until this deal's showdown."""
    deal = state.deal
    while not state.is_terminal() and state.deal == deal:
        state.apply_action(())


def snapshot(state: HowLowState) -> str:
    """Everything observable about a state, to check that a refused action changed nothing."""
    seats = range(state.game.players)
    return json.dumps(
        {
            "record": state.record(),
            "obs": [state.observation(s).to_json() for s in seats],
            "stock": [c.ascii for c in state.stock],
            "pile": [c.ascii for c in state.pile],
            "hands": [[c.ascii for c in h] for h in state.hands],
        }
    )


# High, middle and low hands of one pack (values in the comments).
LOW_20 = "2C 3C 4C 5C 6C"  # 20
MID_41 = "7S 7H 9S 9H 9D"  # 41
HIGH_61 = "KC KS QC QS JC"  # 61


# --- HL-1: table and packs ------------------------------------------------------------------------


@pytest.mark.parametrize("players, packs", [(2, 1), (3, 1), (4, 1), (5, 2), (7, 2), (10, 2)])
def test_hl1_one_pack_to_four_players_two_packs_from_five(players, packs):
    game = HowLowCanYouGo(players=players)
    assert game.packs == packs
    assert len(game.pack) == 52 * packs
    assert sorted(game.pack) == sorted(list(range(52)) * packs)
    state = game.new_state(seed=7)
    deal_event = dict(state.chance.log)["deal-1"]
    assert len(deal_event) == 52 * packs
    assert len(state.stock) == 52 * packs - 5 * players


@pytest.mark.parametrize("players", [1, 11, 0, -3])
def test_hl1_table_size_2_to_10(players):
    with pytest.raises(InvalidParametersError, match="2 to 10"):
        HowLowCanYouGo(players=players)


def test_hl1_defaults():
    game = HowLowCanYouGo()
    assert game.players == 4
    assert game.params == {"starting_chips": 7, "buy_in": 5, "max_deals": 50}
    assert game.name == "how-low-can-you-go"
    assert game.aliases == ("hl", "how-low")
    assert game.title == "How Low Can You Go?"
    assert (game.min_players, game.max_players) == (2, 10)
    assert game.variants == ("whalen",)
    assert (game.score_name, game.better) == ("chips", "higher")


# --- HL-2: card values ----------------------------------------------------------------------------


def test_hl2_card_values():
    expected = {"K": 13, "Q": 12, "J": 11, "T": 10, "9": 9, "8": 8, "7": 7, "6": 6, "5": 5}
    expected.update({"4": 4, "3": 3, "2": 2})
    for suit in "CSHD":
        for rank, value in expected.items():
            assert VALUE[parse_card(rank + suit)] == value
    assert VALUE[parse_card("AC")] == VALUE[parse_card("AS")] == 1
    assert VALUE[parse_card("AH")] == VALUE[parse_card("AD")] == -5


def test_hl2_hand_total_is_the_sum_of_five_cards_at_the_showdown():
    state = new(3, 2, {0: "AH AC 2D KS 9H", 1: "AD QD QH 3S 4S", 2: "TC TD JH 5H 6D"}, max_deals=1)
    stand_through_deal(state)
    assert state.last_showdown.totals == (
        -5 + 1 + 2 + 13 + 9,
        -5 + 12 + 12 + 3 + 4,
        10 + 10 + 11 + 5 + 6,
    )


# --- HL-3: chips and the bank ---------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 4, 10])
def test_hl3_seven_chips_five_into_the_bank(players):
    state = HowLowCanYouGo(players=players).new_state(seed=1)
    assert state.chips == [2] * players
    assert state.bank == 5 * players
    obs = state.observation(0)
    assert obs.chips == (2,) * players and obs.bank == 5 * players


def test_hl3_starting_chips_and_buy_in_are_parameters():
    state = HowLowCanYouGo(players=3, starting_chips=10, buy_in=3).new_state(seed=1)
    assert state.chips == [7, 7, 7]
    assert state.bank == 9


# --- HL-4: the bank never goes below zero ---------------------------------------------------------


def test_hl4_payments_in_first_then_the_bank_pays_a_sole_winner_what_it_holds():
    # Empty bank (buy_in 0): the highest pays 2 in, then the winner (owed 5: two red aces) gets 2.
    state = new(
        3,
        2,
        {0: "AH AD KC KS QC", 1: HIGH_61.replace("KC KS QC", "KD KH QD"), 2: MID_41},
        buy_in=0,
        max_deals=1,
    )
    assert state.bank == 0
    stand_through_deal(state)
    sd = state.last_showdown
    assert sd.totals[0] == 28 and sd.totals[1] == 61
    assert sd.chip_changes == (2, -2, 0)
    assert state.chips == [9, 5, 7]
    assert state.bank == 0


def test_hl4_tied_winners_paid_one_chip_at_a_time_from_the_dealers_left():
    # 4 players, dealer 1: turn order 2, 3, 0, 1. Seats 0, 2, 3 tie lowest (20), seat 1 pays 2.
    # Bank 2, three winners owed 1 each: seats 2 and 3 (first from the dealer's left) get them.
    state = new(
        4,
        1,
        {0: LOW_20, 1: HIGH_61, 2: "2S 3S 4S 5S 6S", 3: "2H 3H 4H 5H 6H"},
        buy_in=0,
        max_deals=1,
    )
    stand_through_deal(state)
    assert state.last_showdown.chip_changes == (0, -2, 1, 1)
    assert state.chips == [7, 5, 8, 8]
    assert state.bank == 0


def test_hl4_tied_negative_winners_round_robin_when_the_bank_is_short():
    # Two packs, 5 players, buy_in 0, dealer 4 (order 0..4). Seats 0 and 1 tie at -1 (owed 2 each);
    # seats 2 and 3 tie highest and pay 1 each: bank 2 -> one chip to seat 0, then one to seat 1.
    hands = {
        0: "AH AD 2C 3C 4C",
        1: "AH AD 2C 3C 4C",
        2: "KC KS QC QS JC",
        3: "KC KS QC QS JC",
        4: "7S 7H 9S 9H 9D",
    }
    state = new(5, 4, hands, buy_in=0, max_deals=1)
    stand_through_deal(state)
    assert state.last_showdown.totals == (-1, -1, 61, 61, 41)
    assert state.last_showdown.chip_changes == (1, 1, -1, -1, 0)
    assert state.bank == 0


# --- HL-5: the dealer -----------------------------------------------------------------------------


def test_hl5_first_dealer_drawn_from_the_seed():
    dealers = set()
    for seed in range(60):
        state = HowLowCanYouGo(players=5).new_state(seed=seed)
        assert state.dealer == HowLowCanYouGo(players=5).new_state(seed=seed).dealer
        assert state.chance.log[0] == ("dealer", state.dealer)
        assert state.order[0] == (state.dealer + 1) % 5 and state.order[-1] == state.dealer
        dealers.add(state.dealer)
    assert dealers == set(range(5))  # drawn at random: every seat deals first for some seed


def test_hl5_the_deal_passes_left_every_deal():
    game = HowLowCanYouGo(players=3, max_deals=3)
    hands = {0: LOW_20, 1: "2S 3S 4S 5S 6S", 2: "2H 3H 4H 5H 6H"}  # all equal: all stay in
    d1 = deck(game, [1, 2, 0], hands)
    d2 = deck(game, [2, 0, 1], hands)
    d3 = deck(game, [0, 1, 2], hands)
    state = game.replay_state(script(0, d1, d2, d3))
    dealers = []
    for _ in range(3):
        dealers.append((state.dealer, state.order))
        stand_through_deal(state)
    assert dealers == [(0, (1, 2, 0)), (1, (2, 0, 1)), (2, (0, 1, 2))]
    assert state.is_terminal()


def test_hl5_the_deal_skips_eliminated_players():
    # 1 chip each (starting 6, buy-in 5). Dealer 0; seat 1 (left of the dealer) is highest, pays
    # its only chip and is out. Deal 2 passes over seat 1 to seat 2: order 3, 0, 2.
    game = HowLowCanYouGo(players=4, starting_chips=6, buy_in=5, max_deals=2)
    hands1 = {0: LOW_20, 1: HIGH_61, 2: "2S 3S 4S 5S 7S", 3: "2H 3H 4H 5H 7H"}
    hands2 = {3: LOW_20, 0: "2S 3S 4S 5S 6S", 2: "2H 3H 4H 5H 6H"}
    state = game.replay_state(
        script(0, deck(game, [1, 2, 3, 0], hands1), deck(game, [3, 0, 2], hands2))
    )
    stand_through_deal(state)
    assert state.active == [True, False, True, True]
    assert state.deal == 2
    assert state.dealer == 2
    assert state.order == (3, 0, 2)


# --- HL-6: the deal -------------------------------------------------------------------------------


def test_hl6_five_cards_one_at_a_time_from_the_dealers_left_rest_is_the_stock():
    game = HowLowCanYouGo(players=3)
    order = [c.ascii for c in game.pack]
    random.Random(3).shuffle(order)
    state = game.replay_state(script(1, order))  # dealer 1: seats 2, 0, 1
    assert state.order == (2, 0, 1)
    for j, seat in enumerate((2, 0, 1)):
        assert state.hands[seat] == sorted(parse_card(n) for n in order[j:15:3])
    assert len(state.stock) == 52 - 15
    assert state.pile == []
    # The first card drawn is card 15 of the order, the next card 16, ...
    state.apply_action((state.hands[2][0], state.hands[2][1]))
    assert sorted(parse_card(n) for n in order[15:17]) == sorted(
        set(state.hands[2]) - {parse_card(n) for n in order[0:15:3]}
    )
    assert len(state.pile) == 2


def test_hl6_a_deals_cards_do_not_depend_on_earlier_play():
    game = HowLowCanYouGo(players=4)
    a = game.new_state(seed="dup")
    b = game.new_state(seed="dup")
    rng_a, rng_b = random.Random(1), random.Random(2)
    for state, rng in ((a, rng_a), (b, rng_b)):
        while state.deal == 1:
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
    assert dict(a.chance.log)["deal-2"] == dict(b.chance.log)["deal-2"]


# --- HL-7: three rounds of exchanges --------------------------------------------------------------


def test_hl7_three_rounds_in_turn_order_then_the_showdown():
    game = HowLowCanYouGo(players=4, max_deals=1)
    state = game.new_state(seed=11)
    order = state.order
    seen = []
    rounds = []
    while not state.is_terminal():
        seen.append(state.current_player())
        rounds.append(state.round)
        state.apply_action(state.legal_actions()[-1])  # always three cards
    assert seen == list(order) * 3
    assert rounds == [1] * 4 + [2] * 4 + [3] * 4
    assert state.last_showdown is not None and state.last_showdown.deal == 1


def test_hl7_discard_zero_to_three_and_draw_as_many():
    state = HowLowCanYouGo(players=4).new_state(seed=5)
    legal = state.legal_actions()
    assert () in legal
    assert {len(a) for a in legal} == {0, 1, 2, 3}
    seat = state.current_player()
    before = list(state.hands[seat])
    stock = len(state.stock)
    action = tuple(before[1:4])
    state.apply_action(action)
    assert len(state.hands[seat]) == 5
    assert len(state.stock) == stock - 3
    assert state.pile == list(action)
    assert not set(action) & set(state.hands[seat])


def test_hl7_stand_keeps_the_hand():
    state = HowLowCanYouGo(players=3).new_state(seed=5)
    seat = state.current_player()
    before = list(state.hands[seat])
    state.apply_action(())
    assert state.hands[seat] == before
    assert state.discards == [(seat, 0)]


# --- HL-8: restock and the cap --------------------------------------------------------------------


def test_hl8_discard_pile_reshuffled_under_the_stock_without_the_cards_just_discarded():
    # 4 players, one pack: stock 32. Everyone discards three every turn: after 10 turns 2 cards are
    # left, and the 11th turn (3 cards) needs the pile (30 cards) shuffled under them.
    game = HowLowCanYouGo(players=4, max_deals=1)
    events = script(
        3,
        deck(
            game,
            [0, 1, 2, 3],
            {0: "2C 3C 4C 5C 6C", 1: "2S 3S 4S 5S 6S", 2: "2H 3H 4H 5H 6H", 3: "2D 3D 4D 5D 6D"},
        ),
    )

    def play(state, turns):
        for _ in range(turns):
            state.apply_action(tuple(state.hands[state.current_player()][:3]))

    probe = game.replay_state(events)
    play(probe, 10)
    assert len(probe.stock) == 2
    pile = sorted(probe.pile)
    assert len(pile) == 30
    restock = [c.ascii for c in reversed(pile)]  # an order we choose: highest card on top
    state = game.replay_state(events + [{"event": "deal-1/restock-1", "value": restock}])
    play(state, 10)
    old_stock_top_first = list(reversed(state.stock))
    seat = state.current_player()
    discard = tuple(state.hands[seat][:3])
    kept = state.hands[seat][3:]
    state.apply_action(discard)
    assert state.chance.log[-1] == ("deal-1/restock-1", tuple(parse_card(n) for n in restock))
    drawn = old_stock_top_first + [parse_card(restock[0])]
    assert state.hands[seat] == sorted(kept + drawn)
    assert state.pile == list(discard)  # the new discard pile: just this turn's cards
    assert list(reversed(state.stock)) == [parse_card(n) for n in restock[1:]]
    assert state.observation(0).stock_size == 29 and state.observation(0).discard_size == 3


def test_hl8_restock_replays_from_the_record():
    game = HowLowCanYouGo(players=10)
    state = game.new_state(seed=4)
    rng = random.Random(4)
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    keys = [k for k, _ in state.chance.log]
    assert any("/restock-" in k for k in keys)
    again = replay(json.loads(json.dumps(state.record())), GAMES)
    assert again.result() == state.result()


def test_hl8_legal_actions_never_discard_more_than_stock_and_pile_can_replace():
    state = HowLowCanYouGo(players=3).new_state(seed=2)
    # Take cards out of play (a table short of cards) so that only two could be replaced.
    state.stock[:] = state.stock[-1:]
    state.pile[:] = [state.stock[0]]
    state._set_cap()
    state._legal = None
    legal = state.legal_actions()
    assert max(len(a) for a in legal) == 2
    assert len(legal) == 1 + 5 + 10
    with pytest.raises(IllegalActionError):
        state.apply_action(tuple(state.hands[state.current_player()][:3]))


def test_hl8_the_cap_is_three_with_the_real_packs():
    for players in range(2, 11):
        state = HowLowCanYouGo(players=players).new_state(seed=players)
        assert len(state.stock) + len(state.pile) >= 32
        assert max(len(a) for a in state.legal_actions()) == 3


# --- HL-9: discards are hidden, their number public -----------------------------------------------


def test_hl9_discarded_cards_hidden_counts_public():
    state = new(3, 2, {0: "KC KS QC 2D 3D", 1: "2C 3C 4C 5C 6C", 2: "2S 3S 4S 5S 6S"})
    state.apply_action(hand("KC KS QC"), seat=0)
    for seat in (1, 2):
        obs = state.observation(seat)
        assert obs.discards == ((0, 3),)
        assert obs.discard_size == 3
        text = json.dumps(obs.to_json())
        for name in ("KC", "KS", "QC"):
            assert name not in text
    state.apply_action((), seat=1)
    assert state.observation(2).discards == ((0, 3), (1, 0))


def test_hl9_hl18_every_discard_count_of_a_deal_is_seen_by_every_seat():
    """The counts of the last round's later turns come after an early seat's last decision of the
    deal: the showdown carries the deal's counts, so no seat misses one."""
    game = HowLowCanYouGo(players=4, max_deals=3)
    for seed in range(15):
        state = game.new_state(seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            deal = state.deal
            counts = state.discards[:]
            seat = state.current_player()
            action = rng.choice(state.legal_actions())
            state.apply_action(action)
            if state.deal == deal and not state.is_terminal():
                continue
            counts.append((seat, len(action) if isinstance(action, tuple) else 5))
            for viewer in range(4):
                shown = state.observation(viewer).last_showdown
                assert shown.deal == deal and shown.discards == tuple(counts)
                assert shown.to_json()["discards"] == [list(c) for c in counts]


# --- HL-10: showdown ------------------------------------------------------------------------------


def test_hl10_all_hands_revealed_and_totalled():
    hands = {0: LOW_20, 1: HIGH_61, 2: MID_41}
    state = new(3, 2, hands, max_deals=1)
    stand_through_deal(state)
    assert state.is_terminal()
    sd = state.last_showdown
    assert sd.deal == 1 and sd.dealer == 2
    assert sd.hands == (hand(LOW_20), hand(HIGH_61), hand(MID_41))
    assert sd.totals == (20, 61, 41)
    for seat in range(3):
        assert state.observation(seat).last_showdown == sd
        assert state.observation(seat).to_json()["last_showdown"]["hands"][1] == [
            c.ascii for c in hand(HIGH_61)
        ]


# --- HL-11: the lowest total wins -----------------------------------------------------------------


@pytest.mark.parametrize(
    "low, total, prize",
    [
        ("2C 3C 4C 5C 6C", 20, 2),  # 11 or more
        ("AC AS 2C 3C 4S", 11, 2),
        ("AC AS 2C 3C 3S", 10, 3),  # 0 to 10
        ("AH AC AS 2C 2S", 1, 3),
        ("AH AD 2C 3C 4C", -1, 5),  # below 0
    ],
)
def test_hl11_sole_lowest_wins_two_three_or_five(low, total, prize):
    state = new(3, 2, {0: low, 1: HIGH_61, 2: MID_41}, max_deals=1)
    stand_through_deal(state)
    assert state.last_showdown.totals[0] == total
    assert state.last_showdown.chip_changes[0] == prize
    assert state.chips[0] == 2 + prize


def test_hl11_two_red_aces_win_five():
    hands = {0: "AH AD KC KS QC", 1: "KD KH QD QS JC", 2: "QH JS JD JH TC"}
    state = new(3, 2, hands, max_deals=1)
    stand_through_deal(state)
    assert state.last_showdown.totals == (28, 61, 55)
    assert state.last_showdown.chip_changes == (5, -2, 0)
    assert bank_prize(28, list(hand(hands[0])), tied=False) == 5


def test_hl11_two_red_aces_from_two_packs_count():
    assert bank_prize(29, list(hand("AH AH KC KS KD")), tied=False) == 5
    assert bank_prize(12, list(hand("AH AC 3C 4C 9S")), tied=False) == 2


# --- HL-12: ties for lowest -----------------------------------------------------------------------


def test_hl12_tied_lowest_get_one_chip_each():
    hands = {0: LOW_20, 1: "2S 3S 4S 5S 6S", 2: HIGH_61, 3: MID_41}
    state = new(4, 3, hands, max_deals=1)
    stand_through_deal(state)
    assert state.last_showdown.chip_changes == (1, 1, -2, 0)
    assert state.chips == [3, 3, 0, 2]


def test_hl12_tied_lowest_get_one_chip_even_with_ten_or_less():
    hands = {0: "AC AS 2C 3C 3S", 1: "AC AS 2C 3C 3S", 2: HIGH_61, 3: MID_41, 4: MID_41}
    state = new(5, 4, hands, max_deals=1)
    stand_through_deal(state)
    assert state.last_showdown.totals[:2] == (10, 10)
    assert state.last_showdown.chip_changes[:2] == (1, 1)


def test_hl12_tied_negative_get_two_chips_each_with_two_packs():
    hands = {0: "AH AD 2C 3C 4C", 1: "AH AD 2C 3C 4C", 2: HIGH_61, 3: MID_41, 4: MID_41}
    state = new(5, 4, hands, max_deals=1)
    stand_through_deal(state)
    assert state.last_showdown.totals[:2] == (-1, -1)
    assert state.last_showdown.chip_changes == (2, 2, -2, 0, 0)


# --- HL-13: the highest total pays ----------------------------------------------------------------


def test_hl13_sole_highest_pays_two():
    state = new(3, 2, {0: LOW_20, 1: HIGH_61, 2: MID_41}, starting_chips=10, max_deals=1)
    stand_through_deal(state)
    assert state.last_showdown.chip_changes == (2, -2, 0)
    assert state.chips == [7, 3, 5]
    assert state.bank == 15 + 2 - 2


def test_hl13_tied_highest_pay_one_each():
    hands = {0: LOW_20, 1: HIGH_61, 2: "KD KH QD QH JS", 3: MID_41}
    state = new(4, 3, hands, max_deals=1)
    stand_through_deal(state)
    assert state.last_showdown.totals[1] == state.last_showdown.totals[2] == 61
    assert state.last_showdown.chip_changes == (2, -1, -1, 0)
    assert state.chips == [4, 1, 1, 2]


# --- HL-14: all equal -----------------------------------------------------------------------------


def test_hl14_every_total_equal_no_chips_move():
    hands = {0: LOW_20, 1: "2S 3S 4S 5S 6S", 2: "2H 3H 4H 5H 6H"}
    state = new(3, 0, hands, max_deals=1)
    stand_through_deal(state)
    assert state.last_showdown.chip_changes == (0, 0, 0)
    assert state.chips == [2, 2, 2] and state.bank == 15
    assert state.last_showdown.eliminated == ()


# --- HL-15: paying more than one holds; elimination -----------------------------------------------


def test_hl15_pays_all_it_has_and_is_eliminated():
    game = HowLowCanYouGo(players=3, starting_chips=6, buy_in=5, max_deals=2)
    hands1 = {0: LOW_20, 1: HIGH_61, 2: MID_41}
    hands2 = {2: LOW_20, 0: "2S 3S 4S 5S 6S"}
    state = game.replay_state(script(2, deck(game, [0, 1, 2], hands1), deck(game, [2, 0], hands2)))
    stand_through_deal(state)
    sd = state.last_showdown
    assert sd.chip_changes == (2, -1, 0)  # owed 2, had 1
    assert sd.eliminated == (1,)
    assert state.chips == [3, 0, 1] and state.bank == 15 + 1 - 2
    assert state.active == [True, False, True]
    # No further part: no cards, no turns, not in the order.
    assert state.order == (2, 0)
    assert state.hands[1] == []
    assert state.observation(1).hand == ()
    assert state.observation(1).legal_actions == []
    seen = set()
    while not state.is_terminal():
        seen.add(state.current_player())
        state.apply_action(())
    assert seen == {0, 2}


def test_hl15_the_lowest_hand_always_survives():
    state = new(2, 1, {0: HIGH_61, 1: LOW_20})
    stand_through_deal(state)
    assert state.chips == [0, 4]
    assert state.active == [False, True]


# --- HL-16: the end -------------------------------------------------------------------------------


def test_hl16_ends_when_at_most_one_player_has_chips():
    state = new(2, 0, {1: LOW_20, 0: HIGH_61})  # no deal-2 event: the game must not deal again
    stand_through_deal(state)
    assert state.is_terminal()
    assert state.current_player() == TERMINAL
    assert state.legal_actions() == []
    assert state.deal == 1


def test_hl16_ends_after_max_deals():
    state = new(3, 2, {0: LOW_20, 1: "2S 3S 4S 5S 6S", 2: "2H 3H 4H 5H 6H"}, max_deals=1)
    stand_through_deal(state)
    assert state.is_terminal() and sum(state.active) == 3


def test_hl16_default_game_always_ends_within_fifty_deals():
    for players in (3, 6, 10):
        game = HowLowCanYouGo(players=players)
        state = game.new_state(seed=players)
        rng = random.Random(players)
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
        assert state.deal <= 50
        assert sum(state.active) <= 1 or state.deal == 50


# --- HL-17: ranking -------------------------------------------------------------------------------


def test_hl17_survivor_first_then_later_eliminations_same_deal_shares():
    # 1 chip each. Deal 1 (dealer 3): seat 3 highest, out. Deal 2 (dealer 0, order 1 2 0): seats 1
    # and 2 tie highest, both out in the same deal; seat 0 is the last player in.
    game = HowLowCanYouGo(players=4, starting_chips=6, buy_in=5)
    hands1 = {0: LOW_20, 1: MID_41, 2: "7C 7D 9C 8H 8D", 3: HIGH_61}
    hands2 = {1: HIGH_61, 2: "KD KH QD QH JS", 0: LOW_20}
    state = game.replay_state(
        script(3, deck(game, [0, 1, 2, 3], hands1), deck(game, [1, 2, 0], hands2))
    )
    stand_through_deal(state)
    assert state.active == [True, True, True, False]
    stand_through_deal(state)
    assert state.is_terminal()
    result = state.result()
    assert result.scores == (5, 0, 0, 0)
    assert result.ranks == (1, 2, 2, 4)
    assert result.winners == (0,)
    assert result.better == "higher"


def test_hl17_at_max_deals_rank_by_chips_equal_chips_share():
    hands = {0: LOW_20, 1: MID_41, 2: "7C 7D 9C 8H 8D", 3: HIGH_61}
    state = new(4, 3, hands, max_deals=1)
    stand_through_deal(state)
    # Seat 0 won 2 -> 4; seats 1, 2 keep 2; seat 3 paid 2 -> 0, out.
    assert state.result().scores == (4, 2, 2, 0)
    assert state.result().ranks == (1, 2, 2, 4)


def test_hl17_result_before_the_end_is_an_error():
    state = HowLowCanYouGo().new_state(seed=0)
    with pytest.raises(GameError, match="not over"):
        state.result()


# --- HL-18: the observation -----------------------------------------------------------------------


def test_hl18_observation_fields_exactly():
    state = new(3, 2, {0: "KC 2S QC 2D 3D", 1: LOW_20, 2: MID_41})
    obs = state.observation(0)
    assert isinstance(obs, HowLowObservation)
    assert obs.fields == (
        "game", "seat", "legal_actions", "hand", "dealer", "order", "chips", "active", "bank",
        "deal", "round", "stock_size", "discard_size", "discards", "shown", "last_showdown",
    )  # fmt: skip
    data = obs.to_json()
    assert list(data) == list(obs.fields)
    assert data["game"] == "how-low-can-you-go"
    assert data["seat"] == 0
    assert data["hand"] == ["QC", "KC", "2S", "2D", "3D"]  # card order: suit, then rank
    assert data["dealer"] == 2 and data["order"] == [0, 1, 2]
    assert data["chips"] == [2, 2, 2] and data["active"] == [True, True, True]
    assert data["bank"] == 15 and data["deal"] == 1 and data["round"] == 1
    assert data["stock_size"] == 37 and data["discard_size"] == 0
    assert data["discards"] == [] and data["shown"] == [] and data["last_showdown"] is None
    assert len(data["legal_actions"]) == 26 and data["legal_actions"][0] == []
    assert ["QC", "KC"] in data["legal_actions"]
    # Other seats: no legal actions, their own hand only.
    other = state.observation(1).to_json()
    assert other["legal_actions"] == []
    assert other["hand"] == [c.ascii for c in hand(LOW_20)]
    for name in ("KC", "QC", "2S", "2D", "3D"):
        assert name not in json.dumps(other)


def test_hl18_observation_is_a_snapshot():
    state = HowLowCanYouGo(players=3).new_state(seed=9)
    obs = state.observation(state.current_player())
    before = json.dumps(obs.to_json())
    for value in (obs.hand, obs.chips, obs.active, obs.discards, obs.order):
        assert isinstance(value, tuple)
    assert isinstance(obs.legal_actions, list)  # the contract; a fresh list, not the state's
    assert obs.legal_actions is not state.legal_actions()
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[-1])
    assert json.dumps(obs.to_json()) == before


def test_hl18_observation_of_a_seat_that_does_not_exist():
    state = HowLowCanYouGo(players=3).new_state(seed=9)
    for seat in (3, -1, "0", None, True):
        with pytest.raises(GameError, match="no seat"):
            state.observation(seat)


def test_hl18_showdown_public_until_the_next_one():
    game = HowLowCanYouGo(players=3, max_deals=2)
    hands = {0: LOW_20, 1: "2S 3S 4S 5S 6S", 2: "2H 3H 4H 5H 6H"}
    state = game.replay_state(script(2, deck(game, [0, 1, 2], hands), deck(game, [1, 2, 0], hands)))
    stand_through_deal(state)
    assert state.deal == 2
    sd = state.observation(2).last_showdown
    assert isinstance(sd, Showdown) and sd.deal == 1
    assert sd.hands[0] == hand(LOW_20)
    assert state.observation(2).to_json()["last_showdown"]["totals"] == [20, 20, 20]
    assert sd.discards == ((0, 0), (1, 0), (2, 0)) * 3  # every turn of deal 1 stood pat


# --- HL-19: actions are sets ----------------------------------------------------------------------


def test_hl19_each_distinct_set_once_sorted():
    state = new(3, 2, {0: "KC 2S QC 2D 3D", 1: LOW_20, 2: MID_41})
    legal = state.legal_actions()
    assert len(legal) == 26 == len(set(legal))
    for action in legal:
        assert isinstance(action, tuple)
        assert list(action) == sorted(action)
        assert all(type(c) is Card for c in action)


def test_hl19_two_packs_equal_cards_give_one_set():
    hands = {0: "2C 2C 3C 4C 5C", 1: "2S 3S 4S 5S 6S", 2: MID_41, 3: MID_41, 4: HIGH_61}
    state = new(5, 4, hands)
    legal = state.legal_actions()
    assert len(legal) == len(set(legal)) == 1 + 4 + 7 + 7
    assert hand("2C 2C") in legal and hand("2C 2C 5C") in legal


def test_hl19_order_inside_the_set_does_not_matter():
    state = new(3, 2, {0: "KC 2S QC 2D 3D", 1: LOW_20, 2: MID_41})
    state.apply_action((parse_card("KC"), parse_card("QC")))  # not in card order
    assert state.history[-1] == (0, hand("KC QC"))
    assert state.discards == [(0, 2)]
    state.apply_action(list(hand("5C 2C")), seat=1)  # a list
    assert state.history[-1] == (1, hand("2C 5C"))
    state.apply_action({parse_card("9D")}, seat=2)  # a set
    assert state.history[-1] == (2, hand("9D"))


# --- variant whalen -------------------------------------------------------------------------------


def test_whalen_buy_in_zero():
    game = HowLowCanYouGo(players=4, variant="whalen")
    assert game.params["buy_in"] == 0
    state = game.new_state(seed=1)
    assert state.chips == [7] * 4 and state.bank == 0
    assert HowLowCanYouGo(players=4, variant="whalen", buy_in=2).params["buy_in"] == 2
    again = replay(json.loads(json.dumps(state.record())), GAMES)
    assert again.game.params["buy_in"] == 0


def test_whalen_redraw_offered_only_with_a_king_in_the_original_hand():
    hands = {0: "KC 2S 3S 4S 5S", 1: LOW_20, 2: "QH 2H 3H 4H 5H"}
    state = new(3, 2, hands, variant="whalen", max_deals=1)
    assert state.legal_actions()[-1] == REDRAW
    assert len(state.legal_actions()) == 27
    state.apply_action((), seat=0)
    assert REDRAW not in state.legal_actions()  # seat 1: no king
    state.apply_action((), seat=1)
    assert REDRAW not in state.legal_actions()  # seat 2: a queen is not a king
    state.apply_action((), seat=2)
    assert state.round == 2 and state.current_player() == 0
    assert REDRAW not in state.legal_actions()  # only instead of the first exchange


def test_whalen_redraw_is_not_in_the_standard_game():
    state = new(3, 2, {0: "KC KS KH KD 5S", 1: LOW_20, 2: MID_41})
    assert REDRAW not in state.legal_actions()
    with pytest.raises(IllegalActionError):
        state.apply_action(REDRAW)


def test_whalen_redraw_shows_discards_five_draws_five_then_the_exchange():
    hands = {0: "KC 2S 3S 4S 5S", 1: LOW_20, 2: "QH 2H 3H 4H 5H"}
    state = new(3, 2, hands, stock="KD 9D 8D 7D 6D TC", variant="whalen", max_deals=1)
    state.apply_action("redraw", seat=0)
    assert state.history[-1] == (0, REDRAW)
    assert state.current_player() == 0 and state.round == 1  # the same player acts again
    assert state.hands[0] == sorted(cards("KD 9D 8D 7D 6D"))
    assert REDRAW not in state.legal_actions()  # once per deal, even with a new king
    assert sorted(state.pile) == sorted(cards(hands[0]))
    obs = state.observation(1)
    assert obs.shown == ((0, hand(hands[0])),)
    assert obs.discards == ((0, 5),)
    assert obs.to_json()["shown"] == [[0, [c.ascii for c in hand(hands[0])]]]
    assert "KD" not in json.dumps(obs.to_json())  # the new hand stays hidden
    state.apply_action(hand("KD"), seat=0)  # the first exchange still follows
    assert state.hands[0] == sorted(cards("TC 9D 8D 7D 6D"))
    assert state.current_player() == 1
    # Three exchanges remain: seat 0 acts in rounds 1, 2 and 3 after the redraw.
    turns = [0]
    while not state.is_terminal():
        turns.append(state.current_player())
        state.apply_action(())
    assert turns.count(0) == 3


def test_whalen_redraw_record_replays():
    game = HowLowCanYouGo(players=6, variant="whalen", max_deals=10)
    state = game.new_state(seed=3)
    rng = random.Random(3)
    redraws = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        action = REDRAW if REDRAW in legal else legal[rng.randrange(len(legal))]
        redraws += action == REDRAW
        state.apply_action(action)
    assert redraws
    record = json.loads(json.dumps(state.record()))
    assert ["redraw"] not in [a[1] for a in record["actions"]]
    assert any(a[1] == "redraw" for a in record["actions"])
    assert replay(record, GAMES).result() == state.result()


def test_whalen_is_the_only_variant():
    with pytest.raises(InvalidParametersError, match="no variant 'nordic'"):
        HowLowCanYouGo(variant="nordic")


# --- bad input: specific errors, state unchanged --------------------------------------------------


def test_illegal_action_raises_and_leaves_the_state_unchanged():
    state = new(3, 2, {0: "KC 2S QC 2D 3D", 1: LOW_20, 2: MID_41})
    state.apply_action((), seat=0)
    before = snapshot(state)
    bad_actions = [
        hand("KC"),  # not in this player's hand
        hand("2C 3C 4C 5C"),  # four cards
        hand("2C 2C"),  # the same card twice with one pack
        "redraw",  # not the whalen variant
        "2C",
        None,
        7,
        [99],
        (parse_card("2C"), "x"),
    ]
    for action in bad_actions:
        with pytest.raises(IllegalActionError, match="not a legal action for seat 1"):
            state.apply_action(action)
        assert snapshot(state) == before


def test_action_for_the_wrong_seat_raises_and_leaves_the_state_unchanged():
    state = new(3, 2, {0: "KC 2S QC 2D 3D", 1: LOW_20, 2: MID_41})
    before = snapshot(state)
    with pytest.raises(NotYourTurnError, match="seat 0's turn, not seat 1's"):
        state.apply_action((), seat=1)
    assert snapshot(state) == before


def test_action_after_the_end_raises_and_leaves_the_state_unchanged():
    state = new(2, 0, {1: LOW_20, 0: HIGH_61})
    stand_through_deal(state)
    before = snapshot(state)
    with pytest.raises(GameOverError, match="game is over"):
        state.apply_action(())
    assert snapshot(state) == before


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"players": 1}, "2 to 10 players, not 1"),
        ({"players": 11}, "2 to 10 players, not 11"),
        ({"players": "4"}, "whole number"),
        ({"players": True}, "whole number"),
        ({"variant": "classic"}, "no variant 'classic'"),
        ({"ante": 1}, "no parameter 'ante'"),
        ({"buy_in": 2.5}, "buy_in must be a whole number"),
        ({"buy_in": 8}, r"buy_in \(8\) cannot exceed starting_chips \(7\)"),
        ({"buy_in": 7}, "at least one"),
        ({"buy_in": -1}, "negative"),
        ({"starting_chips": 0, "buy_in": 0}, "starting_chips must be at least 1"),
        ({"starting_chips": -4}, "starting_chips must be at least 1"),
        ({"max_deals": 0}, "max_deals must be at least 1"),
        ({"variant": "whalen", "starting_chips": 0}, "starting_chips must be at least 1"),
    ],
)
def test_bad_parameters_raise_invalid_parameters(kwargs, message):
    with pytest.raises(InvalidParametersError, match=message):
        HowLowCanYouGo(**kwargs)


def test_error_messages_are_one_line():
    state = new(3, 2, {0: "KC 2S QC 2D 3D", 1: LOW_20, 2: MID_41})
    for call in (
        lambda: state.apply_action(hand("AH")),
        lambda: state.apply_action((), seat=2),
        lambda: HowLowCanYouGo(players=11),
        lambda: HowLowCanYouGo(buy_in=9),
    ):
        with pytest.raises(GameError) as info:
            call()
        assert "\n" not in str(info.value)


def test_a_record_that_does_not_fit_is_refused():
    game = HowLowCanYouGo(players=3)
    with pytest.raises(RecordError, match="expected chance event 'dealer'"):
        game.replay_state([{"event": "deal-1", "value": []}])
    with pytest.raises(RecordError, match="not an order of the cards"):
        game.replay_state(script(0, [c.ascii for c in game.pack][:-1] + ["2C"]))
    state = new(3, 2, {0: "KC 2S QC 2D 3D", 1: LOW_20, 2: MID_41})
    record = json.loads(json.dumps(state.record()))
    record["actions"] = [[1, []]]
    with pytest.raises(RecordError, match="seat 0's turn"):
        replay(record, GAMES)
