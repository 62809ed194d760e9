"""The toolkit a game's text view is written with: card style, the narrator base, the probe.

A *narrator* is told of every action just before it is applied, with the state before it and a
*probe* — a copy of the state with the action applied that stops at the end of the current deal
(its game is told that this deal is the last). The probe shows what the real state no longer does
once the next deal has been dealt: the last trick and who won it, the showdown, the deal's score.
The same narrators tell ``arena replay`` (from a record) and the human seat of ``arena play``
(live). Each game's own narrator lives in its folder; ``Narrator`` tells any game, one line a
decision. Full view (``seat=None``) tells everything; a seat view only what that seat's
observation shows at each moment.

Games import this module, never ``arena.views``: it knows no game and imports none.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from arena.cards import ASCII_NAMES, SUIT_LETTERS, SUIT_SYMBOLS, UNICODE_NAMES, Card, Suit

Emit = Callable[[str], None]
# ``arena.games.base`` builds its narrators from this module, so the game and its states are
# typed loosely here rather than imported back.
Game = Any
State = Any


RED = "\033[31m"  # hearts and diamonds on a colour terminal
PLAIN = "\033[0m"
_RED_SUITS = (2, 3)  # arena.cards.SUITS: clubs, spades, hearts, diamonds


class Style:
    """How cards and suits are written: ``Q♥`` (default) or ``QH`` (``ascii=True``); with
    ``colour``, hearts and diamonds in red (ANSI), for a colour terminal."""

    def __init__(self, ascii: bool = False, colour: bool = False):
        self.ascii = ascii
        self.colour = colour
        self._cards = ASCII_NAMES if ascii else UNICODE_NAMES
        self._suits = SUIT_LETTERS if ascii else SUIT_SYMBOLS

    def card(self, card: int) -> str:
        if self.colour and card // 13 in _RED_SUITS:
            return f"{RED}{self._cards[card]}{PLAIN}"
        return self._cards[card]

    def cards(self, cards: Sequence[int]) -> str:
        return " ".join(self.card(c) for c in cards) if cards else "-"

    def suit(self, suit: int) -> str:
        if self.colour and suit in _RED_SUITS:
            return f"{RED}{self._suits[suit]}{PLAIN}"
        return self._suits[suit]

    def action(self, action: Any) -> str:
        """A legal action as a person reads it: ``Q♥``, ``7♣ 9♦`` (a set), ``stand``, ``♥``."""
        if isinstance(action, Card):
            return self.card(action)
        if isinstance(action, Suit):
            return self.suit(action)
        if isinstance(action, tuple | list | frozenset | set):
            if not action:
                return "stand"
            if all(isinstance(a, Card) for a in action):
                return self.cards(sorted(action))
            return " ".join(self.action(a) for a in action)
        return str(action)


def seat_label(seat: int, names: Sequence[str]) -> str:
    return f"seat {seat} ({names[seat]})"


def ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def plural(n: int, word: str) -> str:
    """``1 card``, ``2 cards``."""
    return f"{n} {word}{'s' if n != 1 else ''}"


def deal_stopper(state: State) -> State | None:
    """A copy of ``state`` whose game ends with the current deal, or None if the game has no deals.

    Both bundled games end the game when a deal ends and ``deal >= max_deals``; the copy's game
    has ``max_deals`` set to the current deal, so applying an action to it shows the end of this
    deal (last trick, showdown, scores) instead of dealing the next one.
    """
    game = state.game
    deal = getattr(state, "deal", None)
    if deal is None or "max_deals" not in game.params:
        return None
    probe = state.clone()
    params = {**game.params, "max_deals": deal}
    probe.game = type(game)(players=game.players, variant=game.variant, **params)
    return probe


class Narrator:
    """Tells a game as it is played. The base class tells any game, one line a decision."""

    def __init__(
        self,
        game: Game,
        names: Sequence[str],
        emit: Emit,
        seat: int | None = None,
        style: Style | None = None,
    ):
        self.game = game
        self.names = list(names)
        self.emit = emit
        self.seat = seat
        self.style = style or Style()

    def label(self, seat: int) -> str:
        return seat_label(seat, self.names)

    def begin(self, state: State) -> None:
        """The game starts (``state`` has its first chance events done)."""

    def action(
        self, state: State, probe: State | None, seat: int, action: Any, number: int
    ) -> None:
        """``seat`` plays ``action`` (decision ``number``); ``state`` is before it, ``probe`` after
        it (stopped at the end of the deal), or None for games without deals."""
        if self.seat is None or self.seat == seat:
            self.emit(f"{number:>4}. {self.label(seat)}: {self.style.action(action)}")
        else:
            self.emit(f"{number:>4}. {self.label(seat)} moves")

    def new_deal(self, state: State) -> None:
        """The real state has dealt a new deal (after ``action`` ended the previous one)."""

    def fault(self, fault: dict) -> None:
        decision = fault["decision"]
        where = {0: "at the start", -1: "at the end"}.get(decision, f"decision {decision}")
        self.emit(
            f"      ! fault of {self.label(fault['seat'])} {where}: {fault['kind']} — "
            f"{fault['message']}"
            + ("; the referee played a random legal move" if fault["decision"] > 0 else "")
        )


def plain_table(observation: Any) -> list[str]:
    """The table of a game without a view of its own: every field of the observation's JSON."""
    plain = observation.to_json()
    return [f"   {k}: {v}" for k, v in plain.items() if k not in ("game", "legal_actions")]


__all__ = [
    "Emit",
    "Narrator",
    "Style",
    "deal_stopper",
    "ordinal",
    "plain_table",
    "plural",
    "seat_label",
]


def fit(line: str, width: int = 80, indent: str = "    ") -> list[str]:
    """A table line cut to ``width`` columns at its separators (``, `` and `` · ``), the rest
    indented: what a person reads stays readable on an 80-column terminal. Colour codes take no
    column."""
    if visible_len(line) <= width:
        return [line]
    pieces = re.split(r"(?<=,) |(?<= ·) ", line)
    lines = [pieces[0]]
    for piece in pieces[1:]:
        if visible_len(lines[-1]) + 1 + visible_len(piece) <= width:
            lines[-1] += " " + piece
        else:
            lines.append(indent + piece)
    return lines


def visible_len(text: str) -> int:
    return len(_ANSI.sub("", text))


_ANSI = re.compile(r"\033\[[0-9;]*m")
