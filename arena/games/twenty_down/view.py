"""Twenty Down told for a person: the narrator of ``arena replay`` and ``arena play``, and the
table a person sees before each of their decisions (from their observation alone)."""

from __future__ import annotations

from arena.games.narration import Narrator, Style, plural
from arena.games.twenty_down.phases import DECIDE, EXCHANGE, PLAY, TRUMP

PROMPTS = {
    "trump": "Name trump (you have seen two cards):",
    "exchange": "Exchange: discard 0 to 3 cards and draw as many from the talon:",
    "stay-or-drop": "Stay in or drop out of this deal:",
    "play": "Play a card:",
}


class TwentyDownNarrator(Narrator):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.trick_cards: list[str] = []

    def begin(self, state) -> None:
        self.first = True
        self.new_deal(state)

    def new_deal(self, state) -> None:
        st = self.style
        self.trick_cards = []
        self.emit("")
        trump = (
            "to be named by forehand" if state.phase == TRUMP else f"{st.suit(state.trump)} (fixed)"
        )
        self.emit(
            f"── Deal {state.deal} ── dealer {self.label(state.dealer)}, forehand "
            f"{self.label(state.forehand)}; trump {trump}"
        )
        if self.first:  # later deals: the points are told at the end of each deal
            self.first = False
            self.emit(
                "   points: " + ", ".join(f"seat {s} {p}" for s, p in enumerate(state.points))
            )
        if state.phase != TRUMP:
            self._hands(state, "hand")
        elif self.seat is None:
            for s in _order(state):
                self.emit(f"   first two cards of {self.label(s)}: {st.cards(state.hands[s])}")
        else:
            self.emit(f"   your first two cards: {st.cards(state.observation(self.seat).hand)}")

    def _hands(self, state, title: str) -> None:
        st = self.style
        if self.seat is None:
            for s in _order(state):
                self.emit(f"   {title} of {self.label(s)}: {st.cards(state.hands[s])}")
            if state.talon:
                self.emit(f"   talon (top first): {st.cards(state.talon)}")
        else:
            self.emit(f"   your hand: {st.cards(state.observation(self.seat).hand)}")

    def _view(self, probe, seat: int):
        """The probe as ``seat`` sees it (the full view: as the seat that acts sees it)."""
        return probe.observation(seat if self.seat is None else self.seat)

    def action(self, state, probe, seat, action, number) -> None:
        phase = state.phase
        if phase == TRUMP:
            trump = self.style.suit(self._view(probe, seat).trump)
            self.emit(f"   {self.label(seat)} names trump {trump}")
            self._hands(probe, "hand")
        elif phase == EXCHANGE:
            self._exchange(state, probe, seat, action)
        elif phase == DECIDE:
            playing = self._view(probe, seat).playing
            self.emit(f"   {self.label(seat)} {'stays in' if playing[seat] else 'drops out'}")
        elif phase == PLAY:
            self._card(probe, seat)
        if phase in (EXCHANGE, DECIDE) and probe.phase == PLAY and self.seat is None:
            self._hands(probe, "hand for play")
        if probe.is_terminal():
            self._deal_over(state, probe)

    def _exchange(self, state, probe, seat, action) -> None:
        st = self.style
        if self.seat is not None and self.seat != seat:
            n = probe.observation(self.seat).exchanged[seat]
            self.emit(
                f"   {self.label(seat)} exchanges {plural(n, 'card')}"
                if n
                else f"   {self.label(seat)} stands pat"
            )
            return
        before = state.hands[seat]
        after = probe.hands[seat] if self.seat is None else probe.observation(seat).hand
        drawn = [c for c in after if c not in before]
        if action:
            self.emit(
                f"   {self.label(seat)} exchanges {len(action)}: discards "
                f"{st.cards(action)}, draws {st.cards(drawn)}"
            )
        else:
            self.emit(f"   {self.label(seat)} stands pat")
        if self.seat is not None:
            self.emit(f"   your hand: {st.cards(after)}")

    def _card(self, probe, seat) -> None:
        view = self._view(probe, seat)
        if view.current_trick:
            card = view.current_trick[-1][1]
        else:
            card = view.tricks[-1].cards[-1][1]
        self.trick_cards.append(f"{self.label(seat)} {self.style.card(card)}")
        if not view.current_trick:  # the trick is complete
            trick = view.tricks[-1]
            self.emit(
                f"   trick {len(view.tricks)}: {', '.join(self.trick_cards)} → "
                f"{self.label(trick.winner)} wins it"
            )
            self.trick_cards = []

    def _deal_over(self, state, probe) -> None:
        view = probe.observation(0 if self.seat is None else self.seat)
        hearts = " (hearts: doubled)" if view.trump is not None and int(view.trump) == 2 else ""
        won = ", ".join(f"seat {s} {t}" for s, t in enumerate(view.tricks_won))
        self.emit(f"   deal {view.deal} over — tricks won: {won}{hearts}")
        changes = ", ".join(
            f"seat {s} {b}→{a}"
            for s, (b, a) in enumerate(zip(state.points, view.points, strict=True))
        )
        self.emit(f"   points: {changes}")


def _order(state) -> list[int]:
    """The seats from forehand round to the dealer."""
    return [(state.forehand + k) % 4 for k in range(4)]


def table_lines(obs, names, st: Style) -> list[str]:
    """What a person at ``obs.seat`` needs to decide: the table and their hand."""

    def label(s: int) -> str:
        return "you" if s == obs.seat else names[s]

    trump = st.suit(obs.trump) if obs.trump is not None else "not named yet"
    lines = [
        f"Deal {obs.deal} · trump {trump} · dealer: seat {obs.dealer} ({label(obs.dealer)}) · "
        f"forehand: seat {obs.forehand} ({label(obs.forehand)})",
        "points (fewest wins): "
        + ", ".join(f"seat {s} {label(s)} {p}" for s, p in enumerate(obs.points)),
    ]
    if obs.phase in ("exchange", "stay-or-drop"):
        lines.append(
            "exchanged: "
            + ", ".join(f"seat {s} {'-' if e is None else e}" for s, e in enumerate(obs.exchanged))
        )
    if obs.playing is not None and any(p is not None for p in obs.playing):
        lines.append(
            "playing: "
            + ", ".join(
                f"seat {s} " + ("?" if p is None else "in" if p else "out")
                for s, p in enumerate(obs.playing)
            )
        )
    if obs.phase == "play":
        lines.append(
            f"tricks this deal: {len(obs.tricks)} played; won: "
            + ", ".join(f"seat {s} {t}" for s, t in enumerate(obs.tricks_won))
        )
        if obs.current_trick:
            best = winning(obs.current_trick, obs.trump)
            mark = " *wins so far*" if st.ascii else " ◀ wins so far"
            lines.append(
                "this trick: "
                + ", ".join(
                    f"seat {s} ({label(s)}) {st.card(c)}" + (mark if (s, c) == best else "")
                    for s, c in obs.current_trick
                )
            )
        else:
            lines.append("this trick: you lead")
    lines.append(f"your hand: {st.cards(obs.hand)}")
    return lines


def winning(trick, trump) -> tuple[int, int]:
    """The (seat, card) of the trick in progress that wins it so far (TD-10): the highest
    trump, else the highest card of the suit led. Cards of one suit are numbered by rank."""
    led = trick[0][1] // 13

    def strength(play):
        suit = play[1] // 13
        return (trump is not None and suit == trump, suit == led, play[1])

    return max(trick, key=strength)


RULES = """Twenty Down (Zwanzig ab), 4 players; everyone starts at 20 points, first to 0 wins.
Each deal: 2 cards each, forehand (left of the dealer) names trump; 3 more cards each.
Exchange: each player once discards 0 to 3 cards and draws as many (how many is public).
Five tricks: follow the suit led if you can, else play a trump if you can, else anything.
A trick goes to the highest trump, else to the highest card of the suit led (7 low ... A high).
Each trick won takes 1 point off; all five: 5 more off; none: 5 points added; hearts trump: x2.
From deal 9 hearts are always trump. Full rules: docs/rules/twenty-down.md"""


def prompt_line(obs) -> str:
    return PROMPTS.get(obs.phase, "Your move:")
