"""The small interface every game engine offers, in the style of OpenSpiel's Python games.

A ``Game`` holds the facts (players, parameters, variant) and is immutable; ``game.new_state(seed)``
gives a mutable ``State`` with a fixed vocabulary: ``current_player()``, ``legal_actions()``,
``apply_action()``, ``is_terminal()``, ``observation(seat)``, ``result()``, ``clone()``,
``record()``. Games know nothing about bots, referees or tournaments.

Every random event goes through ``Chance``: from the seed when a game is played, from a record
when it is replayed. Each event has its own key (``deal-3``), so the same seed gives the same deals
whatever the players do — the duplicate format of the tournaments relies on that.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from math import floor as _floor
from typing import Any, ClassVar

from arena.cards import ASCII_NAMES, Card, CardError, Suit, parse_card, parse_suit
from arena.games.drawing import default_drawing
from arena.games.narration import Narrator, plain_table

TERMINAL = -1
RECORD_FORMAT = "arena-record/1"


class GameError(ValueError):
    """Base of every error an engine raises for bad input."""


class InvalidParametersError(GameError):
    """Parameters no game can be played with (11 players, an unknown variant, ...)."""


class IllegalActionError(GameError):
    """The action is not among the legal actions of the current decision."""


class NotYourTurnError(GameError):
    """An action was given for a seat that is not the one to act."""


class GameOverError(GameError):
    """An action was given after the game ended."""


class RecordError(GameError):
    """A record that does not fit the game it names or does not replay to its stated result."""


def wrong_turn(game_name: str, player: int, seat: int | None) -> GameError:
    """The error for an action given after the game ended, or for a seat not to act."""
    if player == TERMINAL:
        return GameOverError(f"{game_name}: the game is over; no more actions")
    return NotYourTurnError(f"{game_name}: it is seat {player}'s turn, not seat {seat}'s")


def illegal_action(game_name: str, action: Any, player: int) -> IllegalActionError:
    return IllegalActionError(f"{game_name}: {action!r} is not a legal action for seat {player}")


@dataclass(frozen=True, slots=True)
class GameResult:
    """Final scores (points or chips, as the game counts them) and ranks, 1 = first.

    Equal ranks are shared in competition style (1, 1, 3); ``winners`` are the seats ranked 1.
    ``better`` tells whether a higher or a lower score is the better one, for display.
    """

    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    better: str = "higher"

    @property
    def winners(self) -> tuple[int, ...]:
        return tuple(s for s, r in enumerate(self.ranks) if r == 1)

    def to_json(self) -> dict:
        return {"scores": list(self.scores), "ranks": list(self.ranks), "better": self.better}


def competition_ranks(keys: Sequence) -> tuple[int, ...]:
    """Ranks 1.. where a smaller key is better and equal keys share a rank (1, 1, 3)."""
    order = sorted(keys)
    first_index: dict = {}
    for i, k in enumerate(order):
        first_index.setdefault(k, i + 1)
    return tuple(first_index[k] for k in keys)


def to_plain(value: Any) -> Any:
    """Convert observation and action values to plain JSON: cards as ``QH``, suits as ``H``."""
    # The common cases first, by exact type (records hold thousands of cards: arena export).
    kind = type(value)
    if kind is Card:
        return ASCII_NAMES[value]
    if kind is tuple or kind is list:
        return [ASCII_NAMES[v] if type(v) is Card else to_plain(v) for v in value]
    if isinstance(value, Card):
        return ASCII_NAMES[value]
    if isinstance(value, Suit):
        return value.ascii
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple | frozenset | set):
        return [to_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_plain(v) for k, v in value.items()}
    to_json = getattr(value, "to_json", None)
    if to_json is not None:
        return to_json()
    raise TypeError(f"cannot convert {type(value).__name__} to JSON")


class Observation:
    """What one seat may see at one decision. Every game's observation has at least these three.

    Subclasses list their fields in ``fields`` (the order of ``to_json``). An observation is a
    snapshot: changing it changes nothing in the game.
    """

    __slots__ = ("game", "seat", "legal_actions")
    fields: ClassVar[tuple[str, ...]] = ("game", "seat", "legal_actions")

    @staticmethod
    def canonical_action(action: Any) -> Any:
        """``action`` as the legal actions list it, when the game accepts another way of writing
        it (a set of cards in any order: HL-19, TD-19), else None. The referee asks it only
        about an answer that is not itself a legal action."""
        return None

    def to_json(self) -> dict:
        return {name: to_plain(getattr(self, name)) for name in self.fields}

    def __repr__(self) -> str:
        inner = ", ".join(f"{n}={getattr(self, n)!r}" for n in self.fields)
        return f"{type(self).__name__}({inner})"


def action_to_json(action: Any) -> Any:
    return to_plain(action)


def action_from_json(value: Any, legal_actions: Iterable[Any]) -> Any:
    """The legal action whose JSON form is ``value``; ``IllegalActionError`` if there is none."""
    for action in legal_actions:
        if to_plain(action) == value:
            return action
    raise IllegalActionError(f"{value!r} is not a legal action here")


def _shuffle(rng: random.Random, cards: list) -> None:
    """Fisher-Yates with ``random()`` floats: twice as fast as ``Random.shuffle``; the bias of a
    53-bit float is below 1e-14 per card, far under anything a game could show. (``floor`` is
    ``int`` for these non-negative floats, and a quarter faster to call.)"""
    draw = rng.random
    floor = _floor
    n = len(cards)
    steps = _SHUFFLE_STEPS[n] if n < len(_SHUFFLE_STEPS) else _shuffle_steps(n)
    for i, size in steps:
        j = floor(draw() * size)
        cards[i], cards[j] = cards[j], cards[i]


def _shuffle_steps(n: int) -> tuple[tuple[int, int], ...]:
    """Fisher-Yates' steps for n cards, ``(i, i + 1)`` from i = n - 1 down to 1."""
    return tuple((i, i + 1) for i in range(n - 1, 0, -1))


# The steps for every size up to two packs, read from a table: 5 % fewer instructions a shuffle
# than computing ``i + 1`` at each step.
_SHUFFLE_STEPS = tuple(_shuffle_steps(n) for n in range(2 * 52 + 1))


class Chance:
    """The source of every random event in one game: a seed, or the script of a record.

    ``shuffled(key, cards)`` returns a new list in random order; ``randrange(key, n)`` a number.
    Events draw from one generator per kind of event, named by the key without its trailing
    number (``deal-3`` draws from ``deal-``), seeded from ``(seed, kind)``. Deals happen in order,
    so the n-th deal depends on the seed and n alone, never on what the players did — the
    duplicate format relies on it. Every event is logged, and the log is what a record stores.
    ``copy()`` is cheap: the copies share their generators until one of them draws.
    """

    __slots__ = ("seed", "log", "_script", "_streams", "_shared")

    def __init__(self, seed: int | str | None = 0, script: Iterable[dict] | None = None):
        self.seed = seed
        self.log: list[tuple[str, Any]] = []
        self._script = deque(script) if script is not None else None
        self._streams: dict[str, random.Random] = {}
        self._shared = False

    def _stream(self, key: str) -> random.Random:
        if self._shared:  # copy on write: a copy and its original never draw from one generator
            streams = {}
            for name, rng in self._streams.items():
                twin = random.Random()
                twin.setstate(rng.getstate())
                streams[name] = twin
            self._streams = streams
            self._shared = False
        kind = key.rstrip("0123456789")
        rng = self._streams.get(kind)
        if rng is None:
            rng = self._streams[kind] = random.Random(f"{self.seed}/{kind}")
        return rng

    def _scripted(self, key: str) -> Any:
        if not self._script:
            raise RecordError(f"the record has no chance event {key!r}")
        event = self._script.popleft()
        if event.get("event") != key:
            raise RecordError(
                f"expected chance event {key!r}, the record has {event.get('event')!r}"
            )
        return event["value"]

    def shuffled(self, key: str, cards: Sequence[Card]) -> list[Card]:
        if self._script is None:
            order = list(cards)
            _shuffle(self._stream(key), order)
        else:
            try:
                order = [parse_card(n) for n in self._scripted(key)]
            except CardError as exc:
                raise RecordError(f"chance event {key!r}: {exc}") from None
            if sorted(order) != sorted(cards):
                raise RecordError(f"chance event {key!r} is not an order of the cards in play")
        self.log.append((key, tuple(order)))
        return order

    def randrange(self, key: str, n: int) -> int:
        if self._script is None:
            value = int(self._stream(key).random() * n)
        else:
            value = self._scripted(key)
            if not isinstance(value, int) or not 0 <= value < n:
                raise RecordError(f"chance event {key!r}: {value!r} is not in 0..{n - 1}")
        self.log.append((key, value))
        return value

    def unused_events(self) -> int:
        """Scripted chance events not drawn (yet): a finished replay must have used them all."""
        return len(self._script) if self._script is not None else 0

    def copy(self) -> Chance:
        other = Chance.__new__(Chance)
        other.seed = self.seed
        other.log = list(self.log)
        other._script = deque(self._script) if self._script is not None else None
        # (an empty dict is not shared: the first draw of either would add a generator to both)
        other._streams = self._streams if self._streams else {}
        other._shared = self._shared = bool(self._streams)
        return other

    def to_json(self) -> list[dict]:
        return [{"event": key, "value": to_plain(value)} for key, value in self.log]


class Game:
    """The facts of one game: name, table size, parameters. Subclasses set the class attributes.

    ``parameters`` maps each *param* of the rules to its default; ``variants`` names the optional
    variants. ``Game(players=4, variant=None, **params)`` checks everything and raises
    ``InvalidParametersError`` with a specific message.
    """

    name: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    title: ClassVar[str] = ""
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    default_players: ClassVar[int] = 2
    parameters: ClassVar[dict[str, int]] = {}
    variants: ClassVar[tuple[str, ...]] = ()
    score_name: ClassVar[str] = "score"
    better: ClassVar[str] = "higher"
    # What the game shows a person and what arena makes for it; the defaults serve any game.
    # ``rating_defaults``: TrueSkill settings (``mu``, ``sigma``, ``beta``, ``tau``,
    # ``draw_probability``) that differ from trueskill's; ``bot_template``: the source
    # ``arena new-bot`` writes (``{name}``, ``{cls}``, ``{game}`` filled in), None for a bot that
    # plays a random legal action; ``narrator_class``: tells a game for ``arena replay`` and
    # ``arena play``; ``encoding_class``: numbered actions and a fixed-size observation vector
    # for learning code (``arena.games.encoding``), None if the game offers none.
    rating_defaults: ClassVar[dict[str, float]] = {}
    bot_template: ClassVar[str | None] = None
    # A few lines of the rules, for a person at the table (`?` in ``arena play``).
    rules_summary: ClassVar[str] = ""
    narrator_class: ClassVar[type[Narrator]] = Narrator
    encoding_class: ClassVar[type | None] = None

    def __init__(self, players: int | None = None, variant: str | None = None, **params: int):
        players = self.default_players if players is None else players
        if isinstance(players, bool) or not isinstance(players, int):
            raise InvalidParametersError(f"{self.name}: players must be a whole number")
        if not self.min_players <= players <= self.max_players:
            span = (
                f"exactly {self.min_players}"
                if self.min_players == self.max_players
                else f"{self.min_players} to {self.max_players}"
            )
            raise InvalidParametersError(f"{self.name} is played by {span} players, not {players}")
        if variant is not None and variant not in self.variants:
            known = ", ".join(self.variants) or "none"
            raise InvalidParametersError(
                f"{self.name} has no variant {variant!r} (variants: {known})"
            )
        unknown = sorted(set(params) - set(self.parameters))
        if unknown:
            known = ", ".join(sorted(self.parameters)) or "none"
            raise InvalidParametersError(
                f"{self.name} has no parameter {unknown[0]!r} (parameters: {known})"
            )
        values = dict(self.parameters)
        values.update(params)
        for key, value in values.items():
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidParametersError(f"{self.name}: parameter {key} must be a whole number")
        self.players = players
        self.variant = variant
        self.params = values
        self.check_parameters()

    def check_parameters(self) -> None:
        """Game-specific checks of ``self.params``; raise ``InvalidParametersError``."""

    def new_state(self, seed: int | str | None = 0) -> State:
        return self.state_class(self, Chance(seed))

    def replay_state(self, chance_events: Iterable[dict]) -> State:
        return self.state_class(self, Chance(None, chance_events))

    state_class: ClassVar[type[State]]

    def encoding(self):
        """This game's ``arena.games.encoding.Encoding`` (for these players and variant)."""
        if self.encoding_class is None:
            raise GameError(f"{self.name} offers no encoding for learning code")
        return self.encoding_class(self)

    def to_json(self) -> dict:
        return {
            "game": self.name,
            "players": self.players,
            "variant": self.variant,
            "params": dict(self.params),
        }

    def narrator(self, names, emit, seat: int | None = None, style=None) -> Narrator:
        """A narrator of this game (``arena.games.narration``) for the players ``names``."""
        return self.narrator_class(self, names, emit, seat=seat, style=style)

    def table_view(self, observation: Observation, names, style) -> list[str]:
        """What a person at ``observation.seat`` needs to decide, as lines of text."""
        return plain_table(observation)

    def prompt_title(self, observation: Observation) -> str:
        """The line above the numbered moves a person chooses from."""
        return "Your move:"

    def table_drawing(self, state: State, seat: int | None = None) -> dict:
        """The table at this moment as plain JSON for the report's replay viewer
        (``arena.games.drawing``): everything (``seat=None``), or only what ``seat`` can see."""
        return default_drawing(state, seat)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(players={self.players}, variant={self.variant!r})"


class State:
    """One game in progress. Engines subclass it and keep their own fields.

    Subclasses implement ``current_player``, ``legal_actions``, ``_apply`` (called with an action
    known to be legal), ``is_terminal``, ``observation``, ``result`` and ``clone``. The checks
    shared by every game — right seat, game not over, action legal — live in ``apply_action``.
    """

    game: Game
    chance: Chance
    history: list[tuple[int, Any]]

    def __init__(self, game: Game, chance: Chance):
        self.game = game
        self.chance = chance
        self.history = []

    def current_player(self) -> int:
        raise NotImplementedError

    def legal_actions(self) -> list:
        raise NotImplementedError

    def is_terminal(self) -> bool:
        raise NotImplementedError

    def observation(self, seat: int) -> Observation:
        raise NotImplementedError

    def result(self) -> GameResult:
        raise NotImplementedError

    def clone(self) -> State:
        raise NotImplementedError

    def _apply(self, action: Any) -> None:
        raise NotImplementedError

    def write_observation(self, encoding, seat: int, out) -> None:
        """Write ``encoding``'s vector of what ``seat`` may see into ``out`` (zeros, as
        ``Encoding.write``). This default builds the ``Observation`` and encodes it; an engine
        may override it to write straight from its own fields (the learning environments call
        it at every step), and must then write exactly what the default does."""
        encoding.write(self.observation(seat), out)

    def legal_numbers(self, encoding) -> list[int]:
        """``encoding``'s number of each legal action, in ``legal_actions()`` order (as
        ``Encoding.legal_indices`` of the acting seat's observation, which this default reads;
        an engine may override it, with the same result)."""
        return encoding.legal_indices(self.observation(self.current_player()))

    def returns(self) -> tuple[int, ...]:
        """The final scores (OpenSpiel's name for them)."""
        return self.result().scores

    def apply_action(self, action: Any, seat: int | None = None) -> None:
        """Play ``action`` for the player to act (``seat``, when given, must be that player).

        Raises ``GameOverError``, ``NotYourTurnError`` or ``IllegalActionError`` and then leaves
        the state as it was.
        """
        player = self.current_player()
        if player == TERMINAL or (seat is not None and seat != player):
            raise wrong_turn(self.game.name, player, seat)
        legal = self.legal_actions()
        try:
            index = legal.index(action)
        except (ValueError, TypeError):
            raise illegal_action(self.game.name, action, player) from None
        action = legal[index]
        self.history.append((player, action))
        self._apply(action)

    def apply_legal(self, index: int) -> None:
        """Play ``legal_actions()[index]``: the fast path for a caller that already checked it."""
        action = self.legal_actions()[index]
        self.history.append((self.current_player(), action))
        self._apply(action)

    def record(self) -> dict:
        """A self-contained record: parameters, every chance event, every action with its seat."""
        record = {
            "format": RECORD_FORMAT,
            **self.game.to_json(),
            "seed": self.chance.seed,
            "chance": self.chance.to_json(),
            "actions": [[seat, to_plain(action)] for seat, action in self.history],
        }
        if self.is_terminal():
            record["result"] = self.result().to_json()
        return record


def clone_fields(state: State, shared: Iterable[str], copied: Iterable[str]) -> State:
    """A new state of ``state``'s class with the same ``shared`` fields, shallow copies of the
    ``copied`` ones (lists) and a copy of its chance: the part of ``clone`` every engine has."""
    other = object.__new__(type(state))
    for name in shared:
        setattr(other, name, getattr(state, name))
    for name in copied:
        setattr(other, name, getattr(state, name)[:])
    other.chance = state.chance.copy()
    return other


def other_slots(cls: type, *exclude: Iterable[str]) -> tuple[str, ...]:
    """The slots of ``cls`` not in any of ``exclude``: for a ``clone`` that shares all the rest."""
    left_out = {name for names in exclude for name in names}
    return tuple(name for name in cls.__slots__ if name not in left_out)


def game_from_record(record: dict, games: dict[str, type[Game]]) -> Game:
    if record.get("format") != RECORD_FORMAT:
        raise RecordError(f"not an arena record (format {record.get('format')!r})")
    try:
        game_class = games[record["game"]]
    except KeyError:
        raise RecordError(f"the record names an unknown game {record.get('game')!r}") from None
    return game_class(
        players=record.get("players"), variant=record.get("variant"), **record.get("params", {})
    )


def replay(record: dict, games: dict[str, type[Game]]) -> State:
    """Re-run a record through the engine of ``games[record["game"]]``; return the final state.

    Raises ``RecordError`` if an action is illegal, the record ends early, a finished game leaves
    chance events unused, or the result differs from the one the record states.
    """
    state = game_from_record(record, games).replay_state(record.get("chance", []))
    for number, (seat, value) in enumerate(record.get("actions", []), start=1):
        if state.is_terminal():
            raise RecordError(f"action {number}: the game was already over")
        try:
            action = action_from_json(value, state.legal_actions())
            state.apply_action(action, seat=seat)
        except GameError as exc:
            raise RecordError(f"action {number} ({value!r} by seat {seat}): {exc}") from None
    if state.is_terminal() and state.chance.unused_events():
        raise RecordError(
            f"the game is over but {state.chance.unused_events()} chance event(s) of the record "
            "were never used"
        )
    if "result" in record:
        if not state.is_terminal():
            raise RecordError("the record states a result but its actions do not finish the game")
        if state.result().to_json() != record["result"]:
            raise RecordError(
                f"the replay ends with {state.result().to_json()}, "
                f"the record says {record['result']}"
            )
    return state


__all__ = [
    "TERMINAL",
    "Chance",
    "Game",
    "GameError",
    "GameOverError",
    "GameResult",
    "IllegalActionError",
    "InvalidParametersError",
    "NotYourTurnError",
    "Observation",
    "RecordError",
    "State",
    "action_from_json",
    "action_to_json",
    "clone_fields",
    "competition_ranks",
    "other_slots",
    "game_from_record",
    "illegal_action",
    "parse_suit",
    "replay",
    "to_plain",
    "wrong_turn",
]
