"""A person at the table: ``arena play``.

``HumanSeat`` is an ``arena.Bot`` whose ``act`` shows the table (from the observation alone, like
any bot), numbers the legal moves and reads a choice from standard input: the number, or the move
itself (``QH``, ``7C 9D``, ``stand``, ``H``, ``stay``). An invalid answer is explained and asked
again. End of input, ``q`` or Ctrl-C leave the game: the referee is told it was the person, not a
fault (the game's ``Interrupt``), and ``play`` reports how they left.

After the first view, only the lines of the table that changed are shown (``?`` shows it all
again, with a summary of the game's rules, ``Game.rules_summary``); each line is cut to 80
columns. A move that is the only legal one is played for the person and shown, unless
``ask_forced``.

``play`` runs one game in this process with ``referee.inline.play_game``: the human seat has no time
limit, the bots keep theirs. Between the person's decisions the game is told from their seat as it
happens (``Game.narrator``), so they see every public move of the bots — the cards
played, how many cards each exchanged, the tricks and showdowns — and nothing hidden.
"""

from __future__ import annotations

import math
import os
import random
import select
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from arena.bot import Bot
from arena.cards import Card, CardError, Suit, parse_cards, parse_suit
from arena.games.base import Game, State
from arena.games.narration import Narrator, Style, fit, ordinal
from arena.referee.inline import play_game
from arena.referee.interrupt import Interrupt
from arena.views.replay import menu, step

HUMAN = "human"
LEAVE_WORDS = ("q", "quit", "exit", "leave")
HELP_WORDS = ("?", "h", "help")
STAND_WORDS = ("stand", "pass", "none", "-", "keep", "stay pat", "stand pat")


class HumanLeft(KeyboardInterrupt):
    """The person left the game (end of input, ``q``, or Ctrl-C while asked for a move)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def parse_choice(
    text: str, legal: Sequence[Any], style: Style | None = None
) -> tuple[int | None, str]:
    """``(index into legal, "")`` for a valid answer, else ``(None, why it is not valid)``."""
    style = style or Style()
    answer = text.strip()
    n = len(legal)
    numbers = f"a number from 1 to {n}" if n > 1 else "1"
    if not answer:
        return None, f"type {numbers}, or the move itself; ? shows the moves again, q leaves"
    if answer.isdigit():
        k = int(answer)
        if 1 <= k <= n:
            return k - 1, ""
        return None, f"there is no move {k}: type {numbers}"
    lowered = answer.lower()
    for i, action in enumerate(legal):  # words: "stay", "drop", "redraw"
        if isinstance(action, str) and action.lower() == lowered:
            return i, ""
    if lowered in STAND_WORDS:
        if () in legal:
            return legal.index(()), ""
        return None, "you cannot stand now: pick one of the moves listed"
    if any(isinstance(a, Suit) for a in legal):
        try:
            suit = parse_suit(answer)
        except CardError:
            return None, f"{answer!r} is not a suit: type {numbers}, or a suit like H (♥), S, D, C"
        return legal.index(suit), ""
    try:
        cards = parse_cards(answer)
    except CardError as exc:
        return None, (
            f"{exc}; type {numbers}, or the move itself (a card like QH, several like 7C 9D)"
        )
    if not cards:
        return None, f"type {numbers}, or the move itself"
    shown = style.cards(cards)
    if len(cards) == 1 and cards[0] in legal:
        return legal.index(cards[0]), ""
    wanted = tuple(sorted(cards))
    if wanted in legal:
        return legal.index(wanted), ""
    return None, _why_not(cards, shown, legal, style)


def _why_not(cards: list[Card], shown: str, legal: Sequence[Any], style: Style) -> str:
    """Explain why these cards are not a legal move, as well as the legal moves tell."""
    singles = [a for a in legal if isinstance(a, Card)]
    sets = [a for a in legal if isinstance(a, tuple)]
    held = set(singles) | {c for a in sets for c in a}
    missing = [c for c in cards if c not in held]
    if singles and not sets:
        if len(cards) > 1:
            return "play one card at a time"
        return (
            f"you cannot play {shown} now: you must follow the suit led if you can "
            f"(else trump, if you can); you may play {style.cards(singles)}"
        )
    if sets:
        if len(cards) > max(len(a) for a in sets):
            return f"you may discard at most {max(len(a) for a in sets)} cards"
        if missing and len(missing) == len(cards):
            return f"you do not hold {shown}"
        if missing:
            return f"you do not hold {style.cards(missing)}"
        if len(set(cards)) != len(cards):
            return f"you hold {shown[:2]} only once"
    return f"{shown} is not one of the moves listed"


class HumanSeat(Bot):
    """A person: ``act`` shows the table and the numbered moves and reads the answer."""

    name = HUMAN

    def __init__(
        self,
        game: Game,
        names: Sequence[str],
        style: Style,
        read: Callable[[str], str],
        write: Callable[[str], None],
        interrupt: Interrupt | None = None,
        ask_forced: bool = False,
    ):
        super().__init__()
        self.game = game
        self.ask_forced = ask_forced
        self.shown: list[str] | None = None  # the table as the person last saw it
        self.interrupt = interrupt or Interrupt()
        self.names = list(names)
        self.style = style
        self.read = read
        self.write = write
        self.left: str | None = None

    def _leave(self, reason: str):
        self.left = reason
        self.interrupt.requested = True  # the referee passes it on instead of faulting us
        raise HumanLeft(reason)

    def _show(self, observation, everything: bool = False) -> None:
        """The table (after the first time, only its lines that changed), the numbered moves."""
        lines = [
            part
            for line in self.game.table_view(observation, self.names, self.style)
            for part in fit(line)
        ]
        seen = set(self.shown or ()) if not everything else set()
        self.shown = lines
        self.write("")
        for line in lines:
            if line not in seen:
                self.write(line)
        self.write(self.game.prompt_title(observation))
        for line in menu(observation.legal_actions, self.style):
            self.write(line)

    def act(self, observation):
        legal = observation.legal_actions
        arrow = "->" if self.style.ascii else "→"
        if len(legal) == 1 and not self.ask_forced:
            self.write(f"  {arrow} you {self._verb(legal[0])} (your only move)")
            return legal[0]
        self._show(observation)
        while True:
            try:
                text = self.read(f"your move (1-{len(legal)}, ? help, q leave): ")
            except EOFError:
                self._leave("end of input")
            except KeyboardInterrupt:
                self._leave("interrupted")
            word = text.strip().lower()
            if word in LEAVE_WORDS:
                self._leave("quit")
            if word in HELP_WORDS:
                self._help(observation)
                continue
            index, error = parse_choice(text, legal, self.style)
            if index is None:
                self.write(f"  ✗ {error}" if not self.style.ascii else f"  x {error}")
                continue
            self.write(f"  {arrow} you {self._verb(legal[index])}")
            return legal[index]

    def _help(self, observation) -> None:
        """``?``: the rules of the game in a few lines, the whole table, how to answer."""
        self.write("")
        for line in (self.game.rules_summary or f"the rules of {self.game.name}").splitlines():
            self.write(line)
        self._show(observation, everything=True)
        self.write("answer with the number of a move, or the move itself: a card (QH, 10H),")
        self.write("the cards to discard (7C 9D; stand for none), a suit (H), stay, drop")

    def _verb(self, action) -> str:
        text = self.style.action(action)
        if isinstance(action, Suit):
            return f"name trump {text}"
        if isinstance(action, Card):
            return f"play {text}"
        if isinstance(action, tuple):
            return "stand" if not action else f"discard {text}"
        return text


class LineReader:
    """Answers read from a file descriptor (a terminal or a pipe), one line at a time.

    Like ``input()``, but it waits in short ``select()`` slices: a Ctrl-C that arrives just before
    the read would begin (after the prompt is written) interrupts at once instead of being held
    until the next line is typed, which ``input()`` can do.
    """

    def __init__(self, fd: int, write_prompt: Callable[[str], None], encoding: str = "utf-8"):
        self.fd = fd
        self.write_prompt = write_prompt
        self.encoding = encoding
        self.buffer = b""

    def __call__(self, prompt: str) -> str:
        self.write_prompt(prompt)
        while b"\n" not in self.buffer:
            if not select.select([self.fd], [], [], 0.25)[0]:
                continue  # (a signal handler runs here, between two slices)
            chunk = os.read(self.fd, 4096)
            if not chunk:
                if not self.buffer:
                    raise EOFError
                self.buffer += b"\n"
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.decode(self.encoding, "replace").rstrip("\r")


def stdin_reader(write_prompt: Callable[[str], None]) -> Callable[[str], str]:
    """A ``LineReader`` on standard input when it is a real file descriptor, else ``input``."""
    try:
        fd = sys.stdin.fileno()
        os.fstat(fd)
    except (AttributeError, ValueError, OSError):  # e.g. a test runner's stdin
        return input
    return LineReader(fd, write_prompt, getattr(sys.stdin, "encoding", None) or "utf-8")


# --- telling the game as it is played ------------------------------------------------------------


class _ToldState:
    """A game state that tells each action to a narrator before it is applied."""

    def __init__(self, state: State, narrator: Narrator):
        self._state = state
        self._narrator = narrator
        self._number = 0

    def __getattr__(self, name: str):
        return getattr(self._state, name)

    def apply_legal(self, index: int) -> None:
        self._number += 1
        step(self._state, self._narrator, index, self._number)


class _ToldGame:
    def __init__(self, game: Game, narrator: Narrator):
        self._game = game
        self._narrator = narrator

    def __getattr__(self, name: str):
        return getattr(self._game, name)

    def new_state(self, seed):
        state = self._game.new_state(seed)
        self._narrator.begin(state)
        return _ToldState(state, self._narrator)


# --- one game ------------------------------------------------------------------------------------


@dataclass
class PlayResult:
    outcome: Any  # referee.GameOutcome, None if the person left
    seat: int
    names: tuple[str, ...]
    left: str | None = None  # "end of input", "quit", "interrupted"


def _fitted(write: Callable[[str], None]) -> Callable[[str], None]:
    """``write``, each line cut to 80 columns (``fit``)."""

    def emit(line: str) -> None:
        for part in fit(line):
            write(part)

    return emit


def choose_seat(seed: str, players: int) -> int:
    return random.Random(f"{seed}/human-seat").randrange(players)


def seat_bots(bots: Sequence[str], players: int, seat: int) -> tuple[str, ...]:
    """The names at the table: the bots fill every seat but the person's, in turn."""
    names = []
    k = 0
    for s in range(players):
        if s == seat:
            names.append(HUMAN)
        else:
            names.append(bots[k % len(bots)])
            k += 1
    return tuple(names)


def play(
    game: Game,
    registry,
    bots: Sequence[str],
    seat: int,
    seed: str,
    move_time: float,
    max_faults: int,
    read: Callable[[str], str],
    write: Callable[[str], None],
    style: Style,
    ask_forced: bool = False,
) -> PlayResult:
    """One game with a person at ``seat``; Ctrl-C anywhere (in a bot too) leaves it cleanly.
    ``ask_forced``: ask for a move that is the only legal one too (else it is played)."""
    names = seat_bots(bots, game.players, seat)
    shown_names = [("you" if s == seat else n) for s, n in enumerate(names)]
    interrupt = Interrupt()
    human = HumanSeat(game, shown_names, style, read, write, interrupt, ask_forced)
    narrator = game.narrator(shown_names, _fitted(write), seat=seat, style=style)
    factories = [
        (lambda: human) if s == seat else registry.bots[name].create for s, name in enumerate(names)
    ]
    previous = None
    in_main = threading.current_thread() is threading.main_thread()

    def on_interrupt(signum, frame):
        # Ctrl-C while a bot thinks: the referee passes it on instead of faulting the bot.
        interrupt.requested = True
        raise KeyboardInterrupt

    if in_main:
        previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        outcome = play_game(
            _ToldGame(game, narrator),
            factories,
            names,
            seed,
            move_time=move_time,
            max_faults=max_faults,
            keep_record=True,
            seat_move_time={seat: math.inf},
            interrupt=interrupt,
        )
    except KeyboardInterrupt:
        return PlayResult(None, seat, names, left=human.left or "interrupted")
    finally:
        if in_main and previous is not None:
            signal.signal(signal.SIGINT, previous)
    return PlayResult(outcome, seat, names)


def summary(result: PlayResult, game: Game, style: Style) -> list[str]:
    """The end of the game for the person: every seat's score and place, faults; no ratings."""
    outcome = result.outcome
    lines = ["", f"Game over — {game.title or game.name}"]
    order = sorted(range(len(outcome.bots)), key=lambda s: (outcome.ranks[s], s))
    for s in order:
        who = "you" if s == result.seat else outcome.bots[s]
        notes = []
        if outcome.faults[s]:
            notes.append(f"{outcome.faults[s]} fault{'s' if outcome.faults[s] != 1 else ''}")
        if outcome.forfeits[s]:
            notes.append("forfeited")
        lines.append(
            f"  {outcome.ranks[s]:>2}.  seat {s} {who:<16} {outcome.scores[s]:>4} "
            f"{game.score_name}" + (f"  ({', '.join(notes)})" if notes else "")
        )
    mine = outcome.ranks[result.seat]
    winners = [s for s in range(len(outcome.bots)) if outcome.ranks[s] == 1]
    if mine == 1 and len(winners) == 1:
        lines.append("You win!")
    elif mine == 1:
        lines.append("You share first place.")
    else:
        lines.append(f"You finished {ordinal(mine)} of {len(outcome.bots)}.")
    for fault in outcome.fault_log:
        lines.append(
            f"  fault: seat {fault.seat} ({outcome.bots[fault.seat]}) at decision "
            f"{fault.decision}: {fault.kind} — {fault.message}"
        )
    return lines


def store_rated(store, game: Game, result: PlayResult, seed: str) -> int:
    """Store the game and rate it like a tournament game (the person is ``human``); its id."""
    from arena.ratings.trueskill import RatingTable, environment_for

    outcome = result.outcome
    config = {
        "kind": "play",
        "game": game.name,
        "players": game.players,
        "variant": game.variant,
        "params": dict(game.params),
        "bots": list(outcome.bots),
        "human_seat": result.seat,
        "seed": seed,
    }
    run_id = store.start_run(seed, config)
    table = RatingTable(environment_for(type(game)), store.rating_states(game.name))
    placings = outcome.placings()
    table.update(placings)
    store.save_batch(run_id, [(0, 0, outcome, placings)], game.name, table.states())
    store.set_run_status(run_id, "finished")
    return store.recent_games(run_id=run_id, limit=1)[0]["id"]
