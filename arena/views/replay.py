"""Games told for a person: a stored record deal by deal and move by move, or one seat's view.

A *narrator* is told of every action just before it is applied, with the state before it and a
*probe* — a copy of the state with the action applied that stops at the end of the current deal
(its game is told that this deal is the last). The probe shows what the real state no longer does
once the next deal has been dealt: the last trick and who won it, the showdown, the deal's score.
The same narrators tell ``arena replay`` (from a record, re-run through the engine) and the
human seat of ``arena play`` (live, as the bots move).

Full view (``seat=None``): everything, since everything is public after the game — every hand at
the start of each deal, the cards exchanged and drawn, tricks and their winners, the score after
each deal. Seat view (``seat=N``): only what seat N's observation shows at each moment — its own
hand, what it did, and the public facts of the others' moves (how many cards they exchanged, the
cards played, revealed hands at a showdown).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from arena.cards import ASCII_NAMES, SUIT_LETTERS, SUIT_SYMBOLS, UNICODE_NAMES, Card, Suit
from arena.games.base import Game, RecordError, State, action_from_json

Emit = Callable[[str], None]


# --- text of cards and actions ------------------------------------------------------------------


class Style:
    """How cards and suits are written: ``Q♥`` (default) or ``QH`` (``ascii=True``)."""

    def __init__(self, ascii: bool = False):
        self.ascii = ascii
        self._cards = ASCII_NAMES if ascii else UNICODE_NAMES
        self._suits = SUIT_LETTERS if ascii else SUIT_SYMBOLS

    def card(self, card: int) -> str:
        return self._cards[card]

    def cards(self, cards: Sequence[int]) -> str:
        return " ".join(self._cards[c] for c in cards) if cards else "-"

    def suit(self, suit: int) -> str:
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


def stream_wants_ascii(stream: Any) -> bool:
    """True when ``stream`` cannot write ♥ (e.g. a terminal in the C locale)."""
    encoding = getattr(stream, "encoding", None) or "ascii"
    try:
        "♥♦♣♠".encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return True
    return False


def seat_label(seat: int, names: Sequence[str]) -> str:
    return f"seat {seat} ({names[seat]})"


# --- the probe: a copy of the state that stops at the end of the deal ---------------------------


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


# --- narrators ----------------------------------------------------------------------------------


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


def ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


class TwentyDownNarrator(Narrator):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.trick_cards: list[str] = []

    def begin(self, state) -> None:
        self.first = True
        self.new_deal(state)

    def new_deal(self, state) -> None:
        from arena.games.twenty_down import TRUMP

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
        order = [(state.forehand + k) % 4 for k in range(4)]
        if state.phase == TRUMP:
            if self.seat is None:
                for s in order:
                    self.emit(f"   first two cards of {self.label(s)}: {st.cards(state.hands[s])}")
            else:
                self.emit(f"   your first two cards: {st.cards(state.observation(self.seat).hand)}")
        else:
            self._hands(state, "hand")

    def _hands(self, state, title: str) -> None:
        st = self.style
        if self.seat is None:
            order = [(state.forehand + k) % 4 for k in range(4)]
            for s in order:
                self.emit(f"   {title} of {self.label(s)}: {st.cards(state.hands[s])}")
            if state.talon:
                self.emit(f"   talon (top first): {st.cards(state.talon)}")
        else:
            self.emit(f"   your hand: {st.cards(state.observation(self.seat).hand)}")

    def action(self, state, probe, seat, action, number) -> None:
        from arena.games.twenty_down import DECIDE, EXCHANGE, PLAY, TRUMP

        st = self.style
        mine = self.seat is None or self.seat == seat
        phase = state.phase
        if phase == TRUMP:
            trump = probe.observation(seat if self.seat is None else self.seat).trump
            self.emit(f"   {self.label(seat)} names trump {st.suit(trump)}")
            self._hands(probe, "hand")
        elif phase == EXCHANGE:
            if mine:
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
            else:
                n = probe.observation(self.seat).exchanged[seat]
                self.emit(
                    f"   {self.label(seat)} exchanges {n} card{'s' if n != 1 else ''}"
                    if n
                    else f"   {self.label(seat)} stands pat"
                )
            if probe.phase == PLAY and self.seat is None:
                self._hands(probe, "hand for play")
        elif phase == DECIDE:
            playing = probe.observation(seat if self.seat is None else self.seat).playing
            self.emit(f"   {self.label(seat)} {'stays in' if playing[seat] else 'drops out'}")
            if probe.phase == PLAY and self.seat is None:
                self._hands(probe, "hand for play")
        elif phase == PLAY:
            view = probe.observation(seat if self.seat is None else self.seat)
            if view.current_trick:
                card = view.current_trick[-1][1]
            else:
                card = view.tricks[-1].cards[-1][1]
            self.trick_cards.append(f"{self.label(seat)} {st.card(card)}")
            if not view.current_trick:  # the trick is complete
                trick = view.tricks[-1]
                self.emit(
                    f"   trick {len(view.tricks)}: {', '.join(self.trick_cards)} → "
                    f"{self.label(trick.winner)} wins it"
                )
                self.trick_cards = []
        if probe.is_terminal():
            self._deal_over(state, probe)

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
        from arena.games.how_low import hand_total

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
        from arena.games.how_low import REDRAW

        st = self.style
        if state.round != self.round:
            self.round = state.round
            self.emit(f"   round {state.round}:")
        mine = self.seat is None or self.seat == seat
        if probe.restocks > state.restocks:
            self.emit(
                f"     (the discard pile, {len(state.pile)} cards, is shuffled under the stock)"
            )
        who = self.label(seat)
        if action == REDRAW:
            shown = state.hands[seat]
            if mine:
                new = probe.hands[seat] if self.seat is None else probe.observation(seat).hand
                self.emit(f"     {who} shows {st.cards(shown)} and redraws five: {self._hand(new)}")
            else:
                shown = probe.observation(self.seat).shown[-1][1]
                self.emit(f"     {who} shows {st.cards(shown)} and redraws five cards")
        elif mine:
            after = probe.hands[seat] if self.seat is None else probe.observation(seat).hand
            if action:
                drawn = list(after)
                for c in state.hands[seat]:
                    if c in drawn and c not in action:
                        drawn.remove(c)
                self.emit(
                    f"     {who} discards {st.cards(action)}, draws {st.cards(drawn)} → "
                    f"{self._hand(after)}"
                )
            else:
                self.emit(f"     {who} stands with {self._hand(after)}")
        else:
            n = probe.observation(self.seat).discards[-1][1]
            self.emit(
                f"     {who} discards {n} card{'s' if n != 1 else ''}"
                if n
                else f"     {who} stands"
            )
        if probe.is_terminal():
            self._showdown(state, probe)

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


NARRATORS: dict[str, type[Narrator]] = {
    "twenty-down": TwentyDownNarrator,
    "how-low-can-you-go": HowLowNarrator,
}


def narrator_for(
    game: Game, names, emit: Emit, seat: int | None = None, style: Style | None = None
) -> Narrator:
    return NARRATORS.get(game.name, Narrator)(game, names, emit, seat=seat, style=style)


def step(state: State, narrator: Narrator, index: int, number: int) -> None:
    """Apply ``legal_actions()[index]`` to ``state`` and tell it."""
    seat = state.current_player()
    action = state.legal_actions()[index]
    probe = deal_stopper(state)
    if probe is not None:
        probe.apply_legal(index)
    deal = getattr(state, "deal", None)
    narrator.action(state, probe, seat, action, number)
    state.apply_legal(index)
    if deal is not None and state.deal != deal and not state.is_terminal():
        narrator.new_deal(state)


# --- telling a whole record ---------------------------------------------------------------------


def tell_record(
    record: dict,
    games: dict[str, type[Game]],
    emit: Emit,
    seat: int | None = None,
    style: Style | None = None,
    names: Sequence[str] | None = None,
) -> State:
    """Re-run a full JSON record through the engine, telling it; returns the final state."""
    from arena.games.base import game_from_record

    game = game_from_record(record, games)
    if seat is not None and not 0 <= seat < game.players:
        raise RecordError(f"there is no seat {seat} in this game (seats 0-{game.players - 1})")
    names = list(names or record.get("bots") or [f"seat {s}" for s in range(game.players)])
    faults: dict[int, list[dict]] = {}
    for fault in record.get("faults", []):
        faults.setdefault(fault["decision"], []).append(fault)
    narrator = narrator_for(game, names, emit, seat=seat, style=style)
    state = game.replay_state(record.get("chance", []))
    for fault in faults.get(0, []):
        narrator.fault(fault)
    narrator.begin(state)
    for number, (who, value) in enumerate(record.get("actions", []), start=1):
        if state.is_terminal() or state.current_player() != who:
            raise RecordError(f"action {number}: it is not seat {who}'s turn")
        legal = state.legal_actions()
        action = action_from_json(value, legal)
        for fault in faults.get(number, []):
            narrator.fault(fault)
        step(state, narrator, legal.index(action), number)
    for fault in faults.get(-1, []):
        narrator.fault(fault)
    return state


def render_game(
    info: dict,
    record: dict,
    games: dict[str, type[Game]],
    seat: int | None = None,
    style: Style | None = None,
) -> str:
    """The whole text of ``arena replay``: header, the game deal by deal, the result."""
    lines: list[str] = []
    emit = lines.append
    game_class = games.get(record["game"])
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(info["finished"]))
    title = getattr(game_class, "title", "") or record["game"]
    extra = []
    if record.get("variant"):
        extra.append(f"variant {record['variant']}")
    defaults = getattr(game_class, "parameters", {})
    changed = {k: v for k, v in record.get("params", {}).items() if defaults.get(k) != v}
    if changed:
        extra.append(", ".join(f"{k}={v}" for k, v in changed.items()))
    emit(
        f"game {info['id']} · {title} · run {info['run_id']} · {when} · seed {record['seed']}"
        + (f" · {'; '.join(extra)}" if extra else "")
    )
    names = record.get("bots") or [s["bot"] for s in info["seats"]]
    emit("seats: " + ", ".join(f"{s} {n}" for s, n in enumerate(names)))
    if seat is not None:
        emit(f"seen from seat {seat} ({names[seat]}): only what that seat could see at each moment")
    tell_record(record, games, emit, seat=seat, style=style, names=names)
    emit("")
    emit(
        "Result"
        + (f" ({game_class.score_name}, {game_class.better} is better)" if game_class else "")
    )
    ms = record.get("decision_ms", [])
    thinking = [0.0] * len(names)
    moves = [0] * len(names)
    for (who, _), spent in zip(record.get("actions", []), ms, strict=False):
        thinking[who] += spent
        moves[who] += 1
    seats = {s["seat"]: s for s in info["seats"]}
    result = record.get("result", {})
    rows = []
    for s, name in enumerate(names):
        row = seats.get(s, {})
        score = result["scores"][s] if result else row.get("score")
        rank = row.get("rank") or (result["ranks"][s] if result else 0)
        note = []
        if row.get("faults"):
            note.append(f"{row['faults']} fault{'s' if row['faults'] != 1 else ''}")
        if row.get("forfeit"):
            note.append("forfeited")
        avg = f"{thinking[s] / moves[s]:.2f} ms a move" if moves[s] else "no moves"
        text = f"   {ordinal(rank) if rank else '?':>4}  seat {s} {name:<16} {score:>4}   {avg}"
        rows.append((rank or 99, s, text + (f"  ({', '.join(note)})" if note else "")))
    lines.extend(text for _, _, text in sorted(rows))
    return "\n".join(lines)


# --- the table for a person about to move -------------------------------------------------------


def table_view(observation: Any, names: Sequence[str], style: Style) -> list[str]:
    """What a person at ``observation.seat`` needs to decide: the table and their hand."""
    game = observation.game
    if game == "twenty-down":
        return _td_table(observation, names, style)
    if game == "how-low-can-you-go":
        return _hl_table(observation, names, style)
    plain = observation.to_json()
    return [f"   {k}: {v}" for k, v in plain.items() if k not in ("game", "legal_actions")]


def _td_table(obs, names, st: Style) -> list[str]:
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
            lines.append(
                "this trick: "
                + ", ".join(f"seat {s} ({label(s)}) {st.card(c)}" for s, c in obs.current_trick)
            )
        else:
            lines.append("this trick: you lead")
    lines.append(f"your hand: {st.cards(obs.hand)}")
    return lines


def _hl_table(obs, names, st: Style) -> list[str]:
    from arena.games.how_low import hand_total

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


def menu(legal: Sequence[Any], style: Style, width: int = 80) -> list[str]:
    """The legal moves numbered from 1, in columns."""
    cells = [f"{i:>2}) {style.action(a)}" for i, a in enumerate(legal, start=1)]
    size = max(len(c) for c in cells) + 3
    per_row = max(1, min(len(cells), width // size))
    rows = []
    for start in range(0, len(cells), per_row):
        rows.append("  " + "".join(c.ljust(size) for c in cells[start : start + per_row]).rstrip())
    return rows


def prompt_title(observation: Any) -> str:
    phase = getattr(observation, "phase", None)
    if observation.game == "twenty-down":
        return {
            "trump": "Name trump (you have seen two cards):",
            "exchange": "Exchange: discard 0 to 3 cards and draw as many from the talon:",
            "stay-or-drop": "Stay in or drop out of this deal:",
            "play": "Play a card:",
        }.get(phase, "Your move:")
    if observation.game == "how-low-can-you-go":
        return "Discard 0 to 3 cards and draw as many (stand keeps your hand):"
    return "Your move:"


def output_style(force_ascii: bool = False) -> Style:
    """The card style for standard output. A stream that cannot write ♥ gets ASCII cards, and
    the few other symbols (→, —) are replaced rather than failing."""
    ascii_only = stream_wants_ascii(sys.stdout)
    if ascii_only and hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="replace")
    return Style(ascii=force_ascii or ascii_only)


# --- checking a stored game, and one seat's inputs ----------------------------------------------


def verify_game(info: dict, record: dict, games: dict[str, type[Game]]) -> list[str]:
    """Re-run a stored game's record through the engine and compare with what the database says.

    ``record`` is the expanded record (``records.expand`` has already replayed the compact form:
    every stored index named a legal action). Checks: the JSON record replays action by action to
    the result it states (``games.base.replay``); dealt from its seed, the game gets the very deck
    orders the record holds; the scores, the ranks after forfeits, the bots, the number of
    decisions and the faults are the stored ones. Raises ``RecordError`` on the first difference;
    returns the lines to print.
    """
    from arena.games.base import replay
    from arena.referee.outcome import ranks_with_forfeits

    lines = []
    state = replay(record, games)
    result = state.result()
    lines.append(
        f"ok  {len(record['actions'])} actions replay through the {record['game']} engine, "
        "each legal when it was played"
    )
    lines.append(f"ok  the replay ends with the record's result: scores {list(result.scores)}")
    # The deals: a fresh game from the seed must deal the same cards.
    if record.get("seed") is not None:
        game = state.game
        fresh = game.new_state(record["seed"])
        for _, value in record["actions"]:
            fresh.apply_action(action_from_json(value, fresh.legal_actions()))
        dealt = fresh.chance.to_json()
        if dealt != record["chance"]:
            first = next(
                (
                    i
                    for i, (a, b) in enumerate(zip(dealt, record["chance"], strict=False))
                    if a != b
                ),
                min(len(dealt), len(record["chance"])),
            )
            raise RecordError(
                f"seed {record['seed']!r} does not give the recorded chance events "
                f"(first difference at event {first + 1})"
            )
        lines.append(
            f"ok  the seed {record['seed']} deals exactly the {len(dealt)} recorded chance events"
        )
    seats = info["seats"]
    stored_bots = [s["bot"] for s in seats]
    if record.get("bots") and list(record["bots"]) != stored_bots:
        raise RecordError(f"the record's bots {record['bots']} are not the stored {stored_bots}")
    scores = [s["score"] for s in seats]
    if list(result.scores) != scores:
        raise RecordError(f"the replay's scores {list(result.scores)} are not the stored {scores}")
    forfeits = [bool(s["forfeit"]) for s in seats]
    ranks = list(ranks_with_forfeits(result.ranks, forfeits))
    stored_ranks = [s["rank"] for s in seats]
    if ranks != stored_ranks:
        raise RecordError(f"the replay's ranks {ranks} are not the stored {stored_ranks}")
    lines.append(
        f"ok  stored scores {scores} and ranks {stored_ranks}"
        + (
            f" (forfeits: seats {[i for i, f in enumerate(forfeits) if f]})"
            if any(forfeits)
            else ""
        )
    )
    if info.get("decisions") is not None and info["decisions"] != len(record["actions"]):
        raise RecordError(
            f"{len(record['actions'])} actions in the record, {info['decisions']} decisions stored"
        )
    faults = [
        {k: f[k] for k in ("seat", "decision", "kind", "message")} for f in record.get("faults", [])
    ]
    if faults != info.get("fault_log", faults):
        raise RecordError("the record's faults are not the stored ones")
    counts = [sum(1 for f in faults if f["seat"] == s) for s in range(len(seats))]
    if counts != [s["faults"] for s in seats]:
        raise RecordError(f"the record's fault counts {counts} are not the stored ones")
    lines.append(f"ok  {len(faults)} fault{'s' if len(faults) != 1 else ''}, as stored")
    lines.append(f"verified: game {info['id']} replays to its stored result")
    return lines


def seat_decisions(
    record: dict, games: dict[str, type[Game]], seat: int, forfeited: bool = False
) -> dict:
    """Every decision of ``seat``: its observation (as the bot got it, in JSON) and its answer.

    A seat that ``forfeited`` was asked nothing after its last fault: the referee played those
    decisions, which are marked ``"asked": false``.
    """
    from arena.games.base import game_from_record, to_plain

    game = game_from_record(record, games)
    state = game.replay_state(record.get("chance", []))
    ms = record.get("decision_ms", [])
    faults = {f["decision"]: f for f in record.get("faults", []) if f["seat"] == seat}
    forfeited_after = max(faults, default=0) if forfeited else None
    out = []
    for number, (who, value) in enumerate(record["actions"], start=1):
        legal = state.legal_actions()
        action = action_from_json(value, legal)
        if who == seat:
            entry = {
                "decision": number,
                "observation": state.observation(seat).to_json(),
                "action": to_plain(action),
            }
            if number <= len(ms):
                entry["ms"] = ms[number - 1]
            if number in faults:
                entry["fault"] = faults[number]
            if forfeited_after is not None and number > forfeited_after:
                entry["asked"] = False
            out.append(entry)
        state.apply_action(action)
    return {
        "format": "arena-seat-view/1",
        "game": record["game"],
        "seat": seat,
        "bot": (record.get("bots") or [None] * game.players)[seat],
        "decisions": out,
        "final": state.observation(seat).to_json(),
        "result": record.get("result"),
    }
