"""The toolkit a game draws its table with, for the HTML report's replay viewer.

A *drawing* is plain JSON describing the table at one moment as one viewer sees it: a status
line, the seat to act, one entry per seat (its cards, or how many face-down cards it holds; a few
short lines: points, chips, notes) and the piles in the middle (a trick, a talon, a showdown),
each a list of cards (``"QH"``) with, optionally, the seat that played each. The report's
JavaScript draws any game from this alone, so a game registered by a plugin gets a replay viewer
by overriding ``Game.table_drawing`` (or keeps the default below, built from its observations).

A seat view (``seat=N``) must hold only what seat N could see at that moment: a game builds it
from ``state.observation(N)`` and the public counts, never from the other hands.

Games import this module, never ``arena.report``: it knows no game.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from arena.cards import ASCII_NAMES, Card

DRAWING_FORMAT = "arena-table/1"

# Game and State are typed loosely: ``arena.games.base`` imports this module.
State = Any


def card_names(cards: Iterable[Card]) -> list[str]:
    return [ASCII_NAMES[c] for c in cards]


def seat_entry(
    cards: Sequence[Card] | None = None,
    hidden: int = 0,
    lines: Sequence[str] = (),
    out: bool = False,
) -> dict:
    """One seat: ``cards`` face up (None: not shown), ``hidden`` face-down cards, short ``lines``
    (points, chips, notes), ``out`` when the seat no longer plays (eliminated, dropped out)."""
    return {
        "cards": None if cards is None else card_names(cards),
        "hidden": hidden,
        "lines": list(lines),
        "out": out,
    }


def pile(
    label: str,
    cards: Sequence[Card] = (),
    owners: Sequence[int] | None = None,
    hidden: int = 0,
) -> dict:
    """Cards in the middle: ``owners`` names the seat of each card (a trick), ``hidden`` counts
    face-down ones (a talon seen from a seat)."""
    return {
        "label": label,
        "cards": card_names(cards),
        "owners": None if owners is None else list(owners),
        "hidden": hidden,
    }


def drawing(status: str, turn: int | None, seats: list[dict], piles: list[dict]) -> dict:
    return {"status": status, "turn": turn, "seats": seats, "piles": piles}


def to_act(state: State) -> int | None:
    return None if state.is_terminal() else state.current_player()


def default_drawing(state: State, seat: int | None) -> dict:
    """Any game: each seat's ``hand`` from its observation (when it has one; hidden from the other
    seats in a seat view) and the observation's other plain fields as the status line."""
    players = state.game.players
    observations = [state.observation(s) for s in range(players)]
    seats = []
    for s, obs in enumerate(observations):
        hand = tuple(getattr(obs, "hand", ()) or ())
        shown = seat is None or seat == s
        seats.append(seat_entry(hand if shown else None, 0 if shown else len(hand)))
    public = observations[0 if seat is None else seat].to_json()
    facts = [
        f"{k} {v}" for k, v in public.items() if k not in ("game", "seat", "legal_actions", "hand")
    ]
    return drawing(" · ".join(facts), to_act(state), seats, [])


__all__ = [
    "DRAWING_FORMAT",
    "card_names",
    "default_drawing",
    "drawing",
    "pile",
    "seat_entry",
    "to_act",
]
