"""``arena new-bot NAME --game GAME``: write a commented bot file into ``bots/`` that runs at once.

For the command line (the lead wires it in ``arena/cli.py``)::

    @app.command("new-bot")
    def new_bot(name: str, game: str = typer.Option(..., "--game", "-g"), bots_dir: BotsDir = None):
        \"\"\"Write bots/NAME.py: a commented bot for GAME that loads and plays legally at once.\"\"\"
        try:
            path = write_bot_file(name, game, bots_dir or default_bots_dir())
        except ScaffoldError as exc:
            raise fail(str(exc))
        typer.echo(f"wrote {path}; try: arena run --bots {name},random --games 200")

``write_bot_file`` checks everything first and writes nothing on an error: the name (lowercase
letters, digits and dashes, starting with a letter; not a bot that is already registered), the
game (a registered game name or alias: ``twenty-down``, ``td``, ``how-low-can-you-go``, ``hl``,
or a game an installed plugin adds) and the file (``bots/NAME.py`` with dashes as underscores,
which must not exist yet). Each problem is a ``ScaffoldError`` (a ``ValueError``) whose message
is one line.

The file holds one bot class for the game with a simple, legal strategy, comments on every field
of the game's observation it reads, and the hook that registers it. Games without a template of
their own (added by plugins) get a bot that plays a random legal action.
"""

from __future__ import annotations

import keyword
import re
from pathlib import Path

NAME_PATTERN = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
MAX_NAME_LENGTH = 40


class ScaffoldError(ValueError):
    """A bot file that cannot be written; the message is one line."""


def _class_name(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("-")) + "Bot"


def _check_name(name: str) -> None:
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise ScaffoldError(
            f"bad bot name {name!r}: use lowercase letters, digits and dashes, starting with a "
            "letter (for example my-bot)"
        )
    if len(name) > MAX_NAME_LENGTH:
        raise ScaffoldError(f"bad bot name {name!r}: at most {MAX_NAME_LENGTH} characters")
    if keyword.iskeyword(name.replace("-", "_")):
        raise ScaffoldError(f"bad bot name {name!r}: it is a Python keyword")


def write_bot_file(name: str, game: str, bots_dir: Path, registry=None) -> Path:
    """Write ``bots_dir/NAME.py`` (dashes become underscores) and return its path.

    ``registry`` (an ``arena.plugins.loading.Registry``) is loaded from ``bots_dir`` when not given; it
    supplies the game names and the bot names already taken. Raises ``ScaffoldError`` with a
    one-line message for a bad or taken name, an unknown game or an existing file.
    """
    _check_name(name)
    bots_dir = Path(bots_dir)
    if bots_dir.exists() and not bots_dir.is_dir():
        raise ScaffoldError(f"{bots_dir} is not a folder")
    path = bots_dir / f"{name.replace('-', '_')}.py"
    if path.exists():
        raise ScaffoldError(f"{path} already exists; choose another name or edit that file")
    if registry is None:
        from arena.plugins.loading import load_registry

        registry = load_registry(bots_dir)
    from arena.plugins.loading import UnknownNameError

    try:
        game_name = registry.game(game).name
    except UnknownNameError as exc:
        raise ScaffoldError(str(exc)) from None
    if name in registry.bots:
        raise ScaffoldError(f"bot name {name!r} is already taken by {registry.bots[name].source}")
    template = TEMPLATES.get(game_name, GENERIC)
    source = template.format(name=name, cls=_class_name(name), game=game_name)
    bots_dir.mkdir(parents=True, exist_ok=True)
    try:
        with open(path, "x", encoding="utf-8") as f:  # "x": never overwrite, even in a race
            f.write(source)
    except FileExistsError:
        raise ScaffoldError(
            f"{path} already exists; choose another name or edit that file"
        ) from None
    except OSError as exc:
        raise ScaffoldError(f"cannot write {path}: {exc.strerror or exc}") from None
    return path


TWENTY_DOWN = '''"""{name}: a Twenty Down bot (written by `arena new-bot`; make it yours).

Try it:   arena run --bots {name},random --games 200
Rules:    docs/rules/twenty-down.md        Guide: docs/writing-bots.md
"""

import arena
from arena.cards import RANK_OF, SUIT_OF  # card -> rank (0 = two ... 12 = ace), card -> suit


class {cls}(arena.Bot):
    name = "{name}"  # the name on the leaderboard: unique
    games = {{"{game}"}}  # the games it plays

    def start(self, info):
        """Optional: called once before the first decision of a game.

        info.game, info.seat, info.players, info.params (the game's parameters) and
        info.move_time (seconds allowed per decision; past it the referee plays a random move).
        """
        self.seat = info.seat

    def act(self, obs):
        """Return one element of obs.legal_actions. Called whenever it is this seat's turn.

        obs.phase is "trump", "exchange", "stay-or-drop" (variant brostedt) or "play".
        obs.hand: your cards (sorted); obs.trump: the trump suit (None until named);
        obs.points: points per seat (lower is better); obs.exchanged: cards exchanged per seat;
        obs.tricks: this deal's finished tricks (.leader, .cards as (seat, card), .winner);
        obs.current_trick: the (seat, card) pairs played to the trick in progress.
        Use self.rng for anything random: games then replay exactly.
        """
        legal = obs.legal_actions
        if obs.phase == "trump":  # forehand names trump from two cards: the suit of the higher
            best = max(obs.hand, key=lambda c: RANK_OF[c])
            return best.suit if best.suit in legal else legal[0]
        if obs.phase == "exchange":  # discard side cards below the ace, lowest first, up to 3
            weak = [c for c in obs.hand if SUIT_OF[c] != obs.trump and RANK_OF[c] < 12]
            weak = sorted(weak, key=lambda c: RANK_OF[c])[:3]
            choice = tuple(sorted(weak))  # an exchange is a sorted tuple of cards; () stands pat
            return choice if choice in legal else ()
        if obs.phase == "stay-or-drop":
            return "stay"
        # play: every trick won takes a point off, so take the trick when a card can
        if obs.current_trick:
            best = winning_card(obs.current_trick, obs.trump)
            winners = [c for c in legal if beats(c, best, obs.trump)]
            if winners:  # the cheapest card that wins for now
                return min(winners, key=lambda c: (SUIT_OF[c] == obs.trump, RANK_OF[c]))
        else:  # leading: the highest card
            return max(legal, key=lambda c: (RANK_OF[c], SUIT_OF[c] == obs.trump))
        return min(legal, key=lambda c: (SUIT_OF[c] == obs.trump, RANK_OF[c]))  # the cheapest

    def end(self, result):
        """Optional: called once after the game; result.scores and result.ranks per seat."""


def beats(card, best, trump):
    """Whether ``card`` beats ``best``, the card winning the trick so far (rule TD-10)."""
    if SUIT_OF[card] == SUIT_OF[best]:
        return RANK_OF[card] > RANK_OF[best]
    return SUIT_OF[card] == trump


def winning_card(trick, trump):
    best = trick[0][1]
    for _, card in trick[1:]:
        if beats(card, best, trump):
            best = card
    return best


@arena.hookimpl
def arena_register_bots(register):
    register({cls})
    # the same class again, with settings that become attributes:
    # register({cls}, name="{name}-v2", aggressive=True)
'''

HOW_LOW = '''"""{name}: a How Low Can You Go? bot (written by `arena new-bot`; make it yours).

Try it:   arena run --bots {name},random --games 200
Rules:    docs/rules/how-low-can-you-go.md        Guide: docs/writing-bots.md
"""

import arena
from arena.games.how_low import VALUE  # card -> value: K 13 ... 2, black aces 1, red aces -5


class {cls}(arena.Bot):
    name = "{name}"  # the name on the leaderboard: unique
    games = {{"{game}"}}  # the games it plays

    threshold = 6  # throw away cards worth more than this

    def start(self, info):
        """Optional: called once before the first decision of a game.

        info.game, info.seat, info.players (table size), info.params (the game's parameters) and
        info.move_time (seconds allowed per decision; past it the referee plays a random move).
        """
        self.seat = info.seat

    def act(self, obs):
        """Return one element of obs.legal_actions. Called whenever it is this seat's turn.

        obs.hand: your five cards (sorted); obs.round: exchange round 1-3; obs.chips, obs.active:
        per seat; obs.bank; obs.discards: (seat, count) for every turn so far this deal;
        obs.stock_size, obs.discard_size; obs.last_showdown: the last deal's revealed hands.
        An action is a sorted tuple of the cards to discard; () stands. Use self.rng for anything
        random: games then replay exactly.
        """
        legal = obs.legal_actions
        high = sorted((c for c in obs.hand if VALUE[c] > self.threshold), key=lambda c: -VALUE[c])
        choice = tuple(sorted(high[:3]))  # at most three cards a turn
        if choice in legal:
            return choice
        return ()  # standing is always legal

    def end(self, result):
        """Optional: called once after the game; result.scores (chips) and result.ranks."""


@arena.hookimpl
def arena_register_bots(register):
    register({cls})
    # the same class again, with settings that become attributes:
    # register({cls}, name="{name}-bold", threshold=5)
'''

GENERIC = '''"""{name}: a bot for {game} (written by `arena new-bot`; make it yours).

Try it:   arena run --bots {name},random --games 200
Guide:    docs/writing-bots.md
"""

import arena


class {cls}(arena.Bot):
    name = "{name}"  # the name on the leaderboard: unique
    games = {{"{game}"}}  # the games it plays

    def act(self, obs):
        """Return one element of obs.legal_actions; obs.to_json() shows everything it sees."""
        legal = obs.legal_actions
        return legal[self.rng.randrange(len(legal))]  # self.rng: seeded, games replay exactly


@arena.hookimpl
def arena_register_bots(register):
    register({cls})
'''

TEMPLATES = {"twenty-down": TWENTY_DOWN, "how-low-can-you-go": HOW_LOW}

__all__ = ["ScaffoldError", "write_bot_file"]
