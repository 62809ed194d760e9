"""How Low Can You Go? told for a person: the narrator of ``arena replay`` and ``arena play``, and
the table a person sees before each of their decisions (from their observation alone)."""

from __future__ import annotations

from arena.games.how_low.hands import REDRAW, hand_total
from arena.games.narration import Narrator, Style, plural

PROMPT = "Discard 0 to 3 cards and draw as many (stand keeps your hand):"


class HowLowNarrator(Narrator):
    def begin(self, state) -> None:
        self.first = True
        self.new_deal(state)

    def _chips(self, chips, active) -> str:
        return ", ".join(
            f"seat {s} {c}" + ("" if a else " (out)")
            for s, (c, a) in enumerate(zip(chips, active, strict=True))
        )

    def _hand(self, cards) -> str:
        return f"{self.style.cards(cards)} (total {hand_total(cards)})"

    def new_deal(self, state) -> None:
        self.round = 0
        self.emit("")
        order = ", ".join(str(s) for s in state.order)
        self.emit(
            f"── Deal {state.deal} ── dealer {self.label(state.dealer)}; turn order: seats {order}"
        )
        if self.first:  # later deals: the chips are told after each showdown
            self.first = False
            self.emit(f"   chips: {self._chips(state.chips, state.active)}; bank {state.bank}")
        if self.seat is None:
            for s in state.order:
                self.emit(f"   hand of {self.label(s)}: {self._hand(state.hands[s])}")
        else:
            view = state.observation(self.seat)
            if view.hand:
                self.emit(f"   your hand: {self._hand(view.hand)}")
            else:
                self.emit("   you are out of the game")

    def action(self, state, probe, seat, action, number) -> None:
        if state.round != self.round:
            self.round = state.round
            self.emit(f"   round {state.round}:")
        if probe.restocks > state.restocks:
            self.emit(
                f"     (the discard pile, {len(state.pile)} cards, is shuffled under the stock)"
            )
        mine = self.seat is None or self.seat == seat
        if action == REDRAW:
            self._redraw(state, probe, seat, mine)
        elif mine:
            self._exchange(state, probe, seat, action)
        else:
            n = probe.observation(self.seat).discards[-1][1]
            who = self.label(seat)
            self.emit(f"     {who} discards {plural(n, 'card')}" if n else f"     {who} stands")
        if probe.is_terminal():
            self._showdown(state, probe)

    def _after(self, probe, seat: int):
        """The hand ``seat`` holds after its move, as this narrator may see it."""
        return probe.hands[seat] if self.seat is None else probe.observation(seat).hand

    def _redraw(self, state, probe, seat, mine: bool) -> None:
        who = self.label(seat)
        if mine:
            shown = self.style.cards(state.hands[seat])
            self.emit(
                f"     {who} shows {shown} and redraws five: {self._hand(self._after(probe, seat))}"
            )
        else:
            shown = self.style.cards(probe.observation(self.seat).shown[-1][1])
            self.emit(f"     {who} shows {shown} and redraws five cards")

    def _exchange(self, state, probe, seat, action) -> None:
        who = self.label(seat)
        after = self._after(probe, seat)
        if not action:
            self.emit(f"     {who} stands with {self._hand(after)}")
            return
        drawn = list(after)
        for c in state.hands[seat]:
            if c in drawn and c not in action:
                drawn.remove(c)
        self.emit(
            f"     {who} discards {self.style.cards(action)}, draws {self.style.cards(drawn)} → "
            f"{self._hand(after)}"
        )

    def _showdown(self, state, probe) -> None:
        sd = probe.last_showdown
        self.emit(f"   showdown of deal {sd.deal}:")
        for s in state.order:
            change = sd.chip_changes[s]
            moved = f"  {change:+d} chip{'s' if abs(change) != 1 else ''}" if change else ""
            self.emit(f"     {self.label(s)}: {self._hand(sd.hands[s])}{moved}")
        if sd.eliminated:
            self.emit(f"     out of chips: {', '.join(self.label(s) for s in sd.eliminated)}")
        self.emit(f"   chips: {self._chips(probe.chips, probe.active)}; bank {probe.bank}")


def table_lines(obs, names, st: Style) -> list[str]:
    """What a person at ``obs.seat`` needs to decide: the table and their hand."""

    def label(s: int) -> str:
        return "you" if s == obs.seat else names[s]

    lines = [
        f"Deal {obs.deal} · exchange round {obs.round} of 3 · dealer: seat {obs.dealer} "
        f"({label(obs.dealer)}) · bank {obs.bank} · stock {obs.stock_size} · "
        f"discard pile {obs.discard_size}",
        "chips: "
        + ", ".join(
            f"seat {s} {label(s)} {c}" + ("" if a else " (out)")
            for s, (c, a) in enumerate(zip(obs.chips, obs.active, strict=True))
        ),
    ]
    if obs.discards:
        lines.append(
            "this deal: "
            + ", ".join(f"seat {s} {'stood' if n == 0 else f'-{n}'}" for s, n in obs.discards)
        )
    for s, shown in obs.shown:
        lines.append(f"seat {s} showed {st.cards(shown)} and redrew")
    lines.append(f"your hand: {st.cards(obs.hand)}  (total {hand_total(obs.hand)}; lowest wins)")
    return lines


RULES = """How Low Can You Go?, 2-10 players; the lowest hand wins chips from the bank.
Card values: K 13, Q 12, J 11, 10 ... 2 as numbered, black aces 1, red aces -5.
Five cards each; three exchange rounds: in turn, discard 0 to 3 cards and draw as many.
Showdown: the lowest total wins 5 chips (below 0, or two red aces), 3 (0-10) or 2 (11+);
tied lowest get 1 each. The highest total pays 2 into the bank (tied highest: 1 each).
A player with no chips is out; the game ends when one player has chips (or after 50 deals).
Full rules: docs/rules/how-low-can-you-go.md"""


def prompt_line(obs) -> str:
    return PROMPT
