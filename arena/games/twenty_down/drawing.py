"""Twenty Down drawn for the report's replay viewer (``arena.games.drawing``): the hands, the
trick in progress and the last one finished, points, tricks won, exchanges; the talon in the
full view. A seat view is built from that seat's observation and the public card counts."""

from __future__ import annotations

from arena.games.drawing import drawing, pile, seat_entry, to_act
from arena.games.narration import Style, plural
from arena.games.twenty_down.phases import PHASE_NAMES

_STYLE = Style()


def table_drawing(state, seat: int | None) -> dict:
    obs = state.observation(0 if seat is None else seat)
    trump = "not named yet" if obs.trump is None else _STYLE.suit(obs.trump)
    status = f"Deal {obs.deal} · trump {trump} · {obs.phase}"
    seats = [_seat(state, obs, s, seat) for s in range(4)]
    piles = [pile("trick", [c for _, c in obs.current_trick], [s for s, _ in obs.current_trick])]
    last = obs.tricks[-1] if obs.tricks else (obs.last_tricks[-1] if obs.last_tricks else None)
    if last is not None:
        when = "" if obs.tricks else " of the previous deal"
        piles.append(
            pile(
                f"last trick{when}, won by seat {last.winner}",
                [c for _, c in last.cards],
                [s for s, _ in last.cards],
            )
        )
    if state.talon and PHASE_NAMES[state.phase] in ("trump", "exchange"):
        if seat is None:
            piles.append(pile("talon (top first)", state.talon))
        else:
            piles.append(pile("talon", hidden=len(state.talon)))
    return drawing(status, to_act(state), seats, piles)


def _seat(state, obs, s: int, viewer: int | None) -> dict:
    lines = [f"{obs.points[s]} points", plural(obs.tricks_won[s], "trick")]
    if obs.dealer == s:
        lines.append("dealer")
    if obs.exchanged[s] is not None:
        lines.append(f"exchanged {obs.exchanged[s]}")
    dropped = obs.playing is not None and obs.playing[s] is False
    if dropped:
        lines.append("dropped out")
    if viewer is None or viewer == s:
        hand = state.hands[s] if viewer is None else obs.hand
        return seat_entry(hand, lines=lines, out=dropped)
    return seat_entry(None, hidden=len(state.hands[s]), lines=lines, out=dropped)
