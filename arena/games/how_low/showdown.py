"""How Low Can You Go?: who pays and who is paid at a showdown (HL-4, HL-11..HL-15), on ints."""

from __future__ import annotations

from arena.cards import ACE, CARDS

ACE_OF_HEARTS = CARDS[2 * 13 + ACE]
ACE_OF_DIAMONDS = CARDS[3 * 13 + ACE]


def bank_prize(total: int, cards, tied: bool) -> int:
    """HL-11/HL-12: what the bank owes one lowest hand (before the bank's own limit, HL-4)."""
    if tied:
        return 2 if total < 0 else 1
    if total < 0 or cards.count(ACE_OF_HEARTS) + cards.count(ACE_OF_DIAMONDS) >= 2:
        return 5
    return 3 if total <= 10 else 2


def settle(order, hands, totals, low: int, high: int, chips: list, bank: int, change: list):
    """HL-11..HL-15 for a showdown whose totals are not all equal: the highest hands pay the bank,
    the bank pays the lowest. Changes ``chips`` and ``change`` (what each seat received (+) or
    paid (-)) in place; returns the bank after it and the seats that ran out of chips."""
    losers = []
    winners = []  # seat order from dealer's left
    for seat in order:  # (low < high: a seat is one or the other, or neither)
        total = totals[seat]
        if total == high:
            losers.append(seat)
        elif total == low:
            winners.append(seat)
    fee = 2 if len(losers) == 1 else 1  # HL-13
    for seat in losers:  # HL-4: payments in first; HL-15: no more than one holds
        paid = fee if chips[seat] >= fee else chips[seat]
        chips[seat] -= paid
        bank += paid
        change[seat] = -paid
    if len(winners) == 1:  # HL-11
        seat = winners[0]
        owed = bank_prize(low, hands[seat], False)
        paid = owed if bank >= owed else bank
        chips[seat] += paid
        bank -= paid
        change[seat] = paid
    else:  # HL-12, and HL-4: one chip at a time while the bank holds any
        for _ in range(bank_prize(low, (), True)):
            for seat in winners:
                if bank:
                    bank -= 1
                    chips[seat] += 1
                    change[seat] += 1
    out = [s for s in losers if not chips[s]]  # only the highest hands pay (HL-15)
    return bank, tuple(out) if out else ()
