"""How Low Can You Go? drawn for the report's replay viewer (``arena.games.drawing``): the hands,
chips, the bank, each seat's exchanges this deal, hands shown for a redraw (whalen) and the last
showdown. A seat view is built from that seat's observation and the public card counts."""

from __future__ import annotations

from arena.games.drawing import drawing, pile, seat_entry, to_act
from arena.games.how_low.hands import HAND_SIZE, REDRAW


def table_drawing(state, seat: int | None) -> dict:
    obs = state.observation(0 if seat is None else seat)
    status = (
        f"Deal {obs.deal} · round {obs.round} of 3 · bank {obs.bank} · stock {obs.stock_size}"
        f" · discard pile {obs.discard_size}"
    )
    seats = [_seat(state, obs, s, seat) for s in range(state.game.players)]
    piles = [pile(f"shown for a redraw by seat {s}", hand) for s, hand in obs.shown]
    showdown = obs.last_showdown
    if showdown is not None:
        for s, hand in enumerate(showdown.hands):
            if hand is None:
                continue
            change = showdown.chip_changes[s]
            piles.append(
                pile(
                    f"showdown of deal {showdown.deal}, seat {s}: total {showdown.totals[s]}, "
                    f"{change:+d} chips" + (", out" if s in showdown.eliminated else ""),
                    hand,
                )
            )
    return drawing(status, to_act(state), seats, piles)


def _seat(state, obs, s: int, viewer: int | None) -> dict:
    active = obs.active[s]
    lines = [f"{obs.chips[s]} chips"]
    if obs.dealer == s:
        lines.append("dealer")
    turns = [str(n) if n != HAND_SIZE else REDRAW for who, n in obs.discards if who == s]
    if turns:
        lines.append("exchanged " + ", ".join(turns))
    if not active:
        lines.append("out")
    if viewer is None or viewer == s:
        hand = state.hands[s] if viewer is None else obs.hand
        return seat_entry(hand, lines=lines, out=not active)
    return seat_entry(None, hidden=len(state.hands[s]), lines=lines, out=not active)
