"""How many players a game's deal can serve, read from its text before playing (issue 28).

``recycle run games/hearts.rcy -p 9`` deals 13 cards to each of 9 players from a pack of 52;
played, it stops at the fifth hand with "move from the empty location STOCK". This module
works out such a failure before the game starts, and the counts the deal allows, so that
``--num-players`` can refuse a count with a message that names them.

The analysis follows the start of the game exactly, and only as far as it can: the
``declare``s, the decks the setup creates (how many cards each location holds), then the flow
from its beginning: ``do`` blocks, a stage whose end condition it can work out (false on
arrival: its first turn is played; true: the stage is skipped), loops over the players,
``repeat N`` with N known, conditions it can decide, moves whose source is ``(top|bottom
LOCATION)``, shuffles, integer storages, and a stage in which nobody decides (a deal a card at
a time round the table) turn by turn. It stops, without a verdict, at the first thing it
cannot follow exactly (a choice, a computed location name, a card variable, a count it cannot
work out...). So a refusal is sound: the game with that many players reaches, by steps that do
not depend on chance or on anybody's choice, a move from a location that is then empty (or
failed earlier still). Where the analysis stops first, nothing is refused and the runtime
error stays the message.

Counts only are followed, never which cards. A step whose owner is not worked out makes that
location's count unknown for every owner; a move from an unknown count is assumed to succeed.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..nodes.actions import Cycle, Deck, Dec, Inc, Move, Pass, Place, Repeat, RepeatAll, Set, SetPoints, Shuffle, Teams
from ..nodes.base import Const, Num, Var, Word
from ..nodes.flow import Choice, Do, Let, Loop, Offer, Stage, When
from ..nodes.places import Bottom, Top
from ..nodes.walk import walk
from .deal_values import _Stop, integer, location, owner, players_loop, truth
from .elaborated import game_nodes

MAX_STEPS = 200_000  # abstract steps per count analysed: beyond it the analysis gives up


class _Empty(Exception):
    """A move from a location that is surely empty."""

    def __init__(self, key):
        super().__init__(key)
        self.key = key


@dataclass(frozen=True)
class DealFailure:
    """A move from an empty location that the game reaches for sure with ``nplayers`` players.

    ``location`` is (owner, kind, name); ``taken``: the cards the statement that fails (an
    item of a ``do`` block of the game's flow) takes from it in all; ``per_player``: the cards
    it takes for each player when it only takes them in loops over the players, else None;
    ``held``: the cards the location holds before the statement; ``deck``: True when those are
    the cards created there and no card moved in or out before."""

    nplayers: int
    location: tuple
    taken: int
    per_player: int | None
    held: int
    deck: bool


class _Analysis:
    def __init__(self, game, n: int, count_var: str | None):
        self.nodes, self.n, self.count_var = game, n, count_var
        self.counts: dict[tuple, int | None] = {}  # (owner, kind, name) -> cards; None: unknown
        self.unknown: set[tuple] = set()  # (kind, name) unknown for every owner
        self.created: dict[tuple, int] = {}
        self.moved: set[tuple] = set()  # locations a card moved into or out of
        self.sto: dict[tuple, int | None] = {}  # (owner, name) -> value; 0 until set
        self.unknown_sto: set[str] = set()
        self.current: int | None = 0
        self.steps = 0
        self.dry = False  # re-running the failing statement: count what it takes, never fail
        self.watch: tuple | None = None
        self.taken = self.in_player_loops = 0
        self.player_loops = 0

    # -- state ------------------------------------------------------------------------------
    def snapshot(self):
        return (
            dict(self.counts),
            set(self.unknown),
            set(self.moved),
            dict(self.sto),
            set(self.unknown_sto),
            self.current,
        )

    def restore(self, snap) -> None:
        counts, unknown, moved, sto, unknown_sto, current = snap
        self.counts, self.unknown, self.moved = dict(counts), set(unknown), set(moved)
        self.sto, self.unknown_sto, self.current = dict(sto), set(unknown_sto), current

    def step(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise _Stop

    def count(self, key) -> int | None:
        if key[1:] in self.unknown:
            return None
        return self.counts.get(key, 0)

    # -- actions ----------------------------------------------------------------------------
    def take(self, key) -> None:
        self.moved.add(key)
        if self.dry and key == self.watch:
            self.taken += 1
            self.in_player_loops += self.player_loops > 0
        c = self.count(key)
        if c is None:
            return
        if c <= 0 and not self.dry:
            raise _Empty(key)
        self.counts[key] = c - 1

    def put(self, key, k: int | None = 1) -> None:
        self.moved.add(key)
        c = self.count(key)
        self.counts[key] = None if c is None or k is None else c + k

    def forget_location(self, owner, kind, name) -> None:
        if owner is None:
            self.unknown.add((kind, name))
        else:
            self.counts[(owner, kind, name)] = None

    def place(self, x, env):
        """The location of a destination ``(top|bottom|INDEX LOCATION)``, INDEX written out."""
        if not isinstance(x, Place) or not (x.where in ("top", "bottom") or isinstance(x.where, Num)):
            raise _Stop
        return location(self, x.location, env)

    def source(self, card, env):
        """The location a card is taken from, ``(top|bottom LOCATION)``; _Stop for a card
        variable, an index, a view: which location loses a card is not followed."""
        if not isinstance(card, (Top, Bottom)):
            raise _Stop
        return location(self, card.location, env)

    def move(self, x, env) -> None:
        s_owner, s_kind, s_name = self.source(x.card, env)
        d_owner, d_kind, d_name = self.place(x.to, env)
        if s_owner is None:
            self.unknown.add((s_kind, s_name))
        else:
            self.take((s_owner, s_kind, s_name))
        if d_owner is None:
            self.unknown.add((d_kind, d_name))
        else:
            self.put((d_owner, d_kind, d_name))

    def storage(self, x, env, value: int | None, add: bool) -> None:
        if x.sort != "sto":
            return  # strings and point maps: never read here
        if not isinstance(x.name, Word):
            raise _Stop
        name = x.name.value
        try:
            who = owner(self, x.holder, env)
        except _Stop:
            who = None
        if who is None:
            self.unknown_sto.add(name)
            return
        old = self.sto.get((who, name), 0)
        self.sto[(who, name)] = None if value is None or (add and old is None) else (old + value if add else value)

    def action(self, x, env) -> None:
        """An action or block (a ``do``, a loop over the players, a ``let``, a conditional)."""
        self.step()
        match x:
            case Move():
                self.move(x, env)
            case Repeat(times=times, body=body):
                k = integer(self, times, env)
                if k is None or k > MAX_STEPS:
                    raise _Stop
                for _ in range(k):
                    self.action(body, env)
            case RepeatAll(body=body):
                self.repeat_all(body, env)
            case Shuffle(location=where):
                location(self, where, env)  # a shuffle changes no count (a faro does: not followed)
            case Set(storage=target, value=value):
                self.storage(target, env, integer(self, value, env), add=False)
            case SetPoints():
                pass  # a point map: never read here
            case Inc(storage=target, amount=amount) | Dec(storage=target, amount=amount):
                k = 1 if amount is None else integer(self, amount, env)
                sign = 1 if isinstance(x, Inc) else -1
                self.storage(target, env, None if k is None else k * sign, add=True)
            case Pass():
                pass
            case Cycle(which="next"):
                pass  # the queued player becomes current at the next turn, which is not followed
            case Deck():
                self.create_deck(x, env)
            case Do(body=items):
                for item in items:
                    self.action(item, env)
            case Loop() | Offer() if players_loop(x):
                self.player_loops += 1
                for p in range(self.n):
                    self.action(x.item, {**env, x.variable.name: ("player", p)})
                self.player_loops -= 1
            case Let(value=value, variable=var, item=item):
                self.action(item, {**env, var.name: integer(self, value, env)})
            case Stage() if _turn_stage(x):
                _stage(self, x, env)
            case When(condition=condition, item=item):
                v = truth(self, condition, env)
                if v is None:
                    raise _Stop
                if v:
                    self.action(item, env)
            case _:
                raise _Stop

    def repeat_all(self, x, env) -> None:
        if not isinstance(x, Move):
            raise _Stop
        s_owner, s_kind, s_name = self.source(x.card, env)
        d_owner, d_kind, d_name = self.place(x.to, env)
        k = None if s_owner is None else self.count((s_owner, s_kind, s_name))
        self.forget_location(s_owner, s_kind, s_name)
        self.moved.add((s_owner, s_kind, s_name))
        if k is not None:
            self.counts[(s_owner, s_kind, s_name)] = 0
        if d_owner is None:
            self.unknown.add((d_kind, d_name))
        elif (d_owner, d_kind, d_name) != (s_owner, s_kind, s_name):
            self.put((d_owner, d_kind, d_name), k)

    def create_deck(self, x, env) -> None:
        owner, kind, name = location(self, x.location, env)
        k = len(x.cards)
        if owner is None:
            self.unknown.add((kind, name))
            return
        key = (owner, kind, name)
        c = self.count(key)
        self.counts[key] = None if c is None else c + k
        self.created[key] = self.created.get(key, 0) + k

    # -- the flow ---------------------------------------------------------------------------
    def statements(self, items, env) -> None:
        """The items of a ``do`` of the flow, one statement at a time: a failure is told by the
        statement it happens in, re-run from the state before it to count what it takes."""
        for item in items:
            snap = self.snapshot()
            try:
                self.action(item, env)
            except _Empty as exc:
                held, deck = self._held(snap, exc.key)
                self.restore(snap)
                self.dry, self.watch = True, exc.key
                try:
                    self.action(item, env)
                except _Stop:
                    pass
                raise _Failed(DealFailure(self.n, exc.key, self.taken, self._per_player(), held, deck)) from None

    def whole_stage(self, x, env) -> None:
        """Follow a ``_turn_stage``; a failing item of a turn is told when it deals to every
        player, else the whole stage is (re-run from before it to count what it takes)."""
        snap = self.snapshot()
        try:
            _stage(self, x, env)
        except _Failed as exc:
            if exc.failure.per_player is not None:
                raise
            key = exc.failure.location
            held, deck = self._held(snap, key)
            self.restore(snap)
            self.dry, self.watch, self.taken, self.in_player_loops = True, key, 0, 0
            try:
                _stage(self, x, env)
            except _Stop:
                pass
            raise _Failed(DealFailure(self.n, key, self.taken, self._per_player(), held, deck)) from None

    def _held(self, snap, key):
        counts, moved = snap[0], snap[2]
        held = counts.get(key, 0)
        return held, key not in moved and 0 < held == self.created.get(key, 0)

    def _per_player(self) -> int | None:
        if self.taken and self.in_player_loops == self.taken and self.taken % self.n == 0:
            return self.taken // self.n
        return None

    def flow(self, x, env) -> None:
        """An item of the game's own flow, a statement at a time; _Stop at a choice, or
        anything else not followed."""
        match x:
            case Do(body=items):
                self.statements(items, env)
            case Stage() if _turn_stage(x):  # followed to its end
                self.whole_stage(x, env)
            case Stage(simultaneous=False, end=end, body=body):
                done = truth(self, end, env)
                if done is None:
                    raise _Stop
                if done:
                    return  # the stage plays no turn
                for item in body:
                    self.flow(item, env)
                raise _Stop  # after its first turn: whether the stage goes on is not followed
            case Loop() | Offer() | Let():
                self.statements([x], env)
            case _:
                raise _Stop

    def run(self) -> DealFailure | None:
        env: dict = {}
        try:
            for d in self.nodes.declares:
                value = d.literal if d.literal is not None else d.value
                env[d.name] = self.n if d.name == self.count_var else integer(self, value, env)
            for item in self.nodes.setup:
                if not isinstance(item, Teams):
                    self.action(item, env)
            for item in self.nodes.flow:
                self.flow(item, env)
        except _Failed as exc:
            return exc.failure
        except (_Stop, _Empty, RecursionError):
            return None
        return None


def _turn_stage(x) -> bool:
    """``(stage player (end CONDITION) ITEM ...)`` with no choice (nobody decides), ``cycle`` or
    ``turn`` (turns go round in order, whole) in its items: a deal a card at a time round the table."""
    if not isinstance(x, Stage) or x.team or x.simultaneous:
        return False
    return not any(isinstance(y, (Choice, Cycle, Pass)) for item in x.body for y in walk(item))


def _stage(an, x, env):
    """A ``_turn_stage`` followed turn by turn, as ``form_stage.a_stage`` plays it: the end is checked
    before every turn, the current player advances by one between turns, and the one before the
    stage is current again after it. Its turns count as loops over the players (a card to each
    player in turn is a card per player)."""
    saved, first = an.current, True
    if saved is None:
        raise _Stop
    an.player_loops += 1
    try:
        while not _known(truth(an, x.end, env)):
            if not first:
                an.current = (an.current + 1) % an.n
            first = False
            an.step()
            an.statements(x.body, env)
    finally:
        an.player_loops -= 1
    an.current = saved


def _known(value):
    if value is None:
        raise _Stop
    return value


class _Failed(Exception):
    def __init__(self, failure: DealFailure):
        super().__init__(failure)
        self.failure = failure


def deal_failure(source, nplayers: int) -> DealFailure | None:
    """The move from an empty location that ``source`` (a parsed file, or its nodes) reaches
    for sure when played by ``nplayers`` players (its ``(create players X)`` set to that
    number, X an integer or a declared variable), or None: it does not, or the analysis cannot
    tell."""
    game = game_nodes(source)
    if game is None:
        return None
    match game.players:
        case Num():
            count_var = None
        case Const(name=name) | Var(name=name):
            count_var = name
        case _:
            return None
    return _Analysis(game, nplayers, count_var).run()


def supported_counts(source, most: int) -> list[int]:
    """The numbers of players 1..``most`` whose deal is not sure to fail."""
    game = game_nodes(source)
    return [n for n in range(1, most + 1) if deal_failure(game, n) is None]


def _counts_text(counts: list[int]) -> str:
    if not counts:
        return "no number of players gets through it"
    lo, hi = counts[0], counts[-1]
    if counts == list(range(lo, hi + 1)):
        if lo == 1:
            return f"it supports at most {hi} player{'s' if hi != 1 else ''}"
        return f"it supports {lo} to {hi} players"
    return f"it supports {', '.join(map(str, counts))} players"


def _label(key) -> str:
    owner, _kind, name = key
    return name if owner == "game" else f"{name} of P{owner[1]}"


def refusal(source, nplayers: int, most: int, filename: str | None = None) -> str | None:
    """Why ``source`` (a parsed file, or its nodes with the ``filename``) cannot be played by
    ``nplayers`` players, its deal counted before playing (the counts 1..``most`` it supports
    named), or None when that is not known."""
    filename = filename or source.filename
    source = game_nodes(source)
    failure = deal_failure(source, nplayers)
    if failure is None:
        return None
    f = failure
    what = (
        f"deals {f.per_player} card{'s' if f.per_player != 1 else ''} to each player"
        if f.per_player
        else f"takes {f.taken} card{'s' if f.taken != 1 else ''}"
    )
    where = f"from a deck of {f.held}" if f.deck else f"from the {f.held} cards of {_label(f.location)} at that point"
    if f.deck and f.location != ("game", f.location[1], f.location[2]):
        where = f"from {_label(f.location)}, a deck of {f.held}"
    return (
        f"{filename} {what} {where}: {_counts_text(supported_counts(source, most))}; -p {nplayers} asks for {nplayers}"
    )
