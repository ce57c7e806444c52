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
from functools import partial

from ...errors import RecycleError
from ..forms.flow import REGISTRY
from ..forms.registry import Kind
from ..forms.shapes import deck_combinations, head_of, is_location_form, kw
from ..syntax.reader import INT, VAR, Atom, SList, SourceFile
from ..forms.writers import Writers
from .deal_values import NOT_MINE, READ, _players_loop, _Stop

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
    def __init__(self, game: SList, n: int, count_var: str | None):
        self.game_form, self.n, self.count_var = game, n, count_var
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

    # -- values -----------------------------------------------------------------------------
    def owner(self, x, env):
        """'game', ('player', i), or None (not known); _Stop for a form not followed."""
        if kw(x, "game"):
            return "game"
        if isinstance(x, Atom) and x.kind == VAR:
            v = env.get(x.value)
            return v if isinstance(v, tuple) and v[0] == "player" else None
        if isinstance(x, SList) and len(x.items) == 2:  # (current|INT player); others: not worked out
            who = x.items[0]
            if kw(x.items[1], "player") and kw(who, "current"):
                return None if self.current is None else ("player", self.current)
            if kw(x.items[1], "player") and isinstance(who, Atom) and who.kind == INT:
                return ("player", who.value) if 0 <= who.value < self.n else None
            return None
        raise _Stop

    def location(self, x, env):
        """(owner or None, kind, name) of a physical location form; _Stop for anything else."""
        if not is_location_form(x) or not (isinstance(x.items[2], Atom) and x.items[2].is_name):
            raise _Stop
        return self.owner(x.items[0], env), x.items[1].value, x.items[2].value

    def integer(self, x, env) -> int | None:
        if isinstance(x, Atom):
            if x.kind == INT:
                return x.value
            if x.kind == VAR:
                v = env.get(x.value)
                return v if isinstance(v, int) else None
            return None
        read = READ.get(Kind.INT, head_of(x))
        if read is not None:
            return read(self, x, env)
        if (
            len(x.items) == 3
            and x.items[1:2]
            and kw(x.items[1], "sto")
            and isinstance(x.items[2], Atom)
            and x.items[2].is_name
        ):
            try:
                owner = self.owner(x.items[0], env)
            except _Stop:
                return None
            name = x.items[2].value
            if owner is None or name in self.unknown_sto:
                return None
            return self.sto.get((owner, name), 0)
        return None

    def truth(self, x, env) -> bool | None:
        read = READ.get(Kind.BOOL, head_of(x))
        return read(self, x, env) if read is not None else None

    def decided(self, values: list, decisive: bool) -> bool | None:
        """An and/or (any/all) of ``values``: ``decisive`` (True for or/any) decides it."""
        if decisive in values:
            return decisive
        return None if None in values else not decisive

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
        """The location of ``(top|bottom|INDEX LOCATION)``."""
        if not (isinstance(x, SList) and len(x.items) == 2):
            raise _Stop
        if not (kw(x.items[0], "top", "bottom") or (isinstance(x.items[0], Atom) and x.items[0].kind == INT)):
            raise _Stop
        return self.location(x.items[1], env)

    def move(self, x, env) -> None:
        src, dst = x.items[1], x.items[2]
        if not (isinstance(src, SList) and len(src.items) == 2 and kw(src.items[0], "top", "bottom")):
            raise _Stop  # a card variable, an index, a view: which location loses a card is not followed
        s_owner, s_kind, s_name = self.location(src.items[1], env)
        d_owner, d_kind, d_name = self.place(dst, env)
        if s_owner is None:
            self.unknown.add((s_kind, s_name))
        else:
            self.take((s_owner, s_kind, s_name))
        if d_owner is None:
            self.unknown.add((d_kind, d_name))
        else:
            self.put((d_owner, d_kind, d_name))

    def storage(self, x, env, value: int | None, add: bool) -> None:
        if not (isinstance(x, SList) and len(x.items) == 3 and kw(x.items[1], "sto", "str", "points")):
            raise _Stop
        if not kw(x.items[1], "sto"):
            return  # strings and point maps: never read here
        if not (isinstance(x.items[2], Atom) and x.items[2].is_name):
            raise _Stop
        name = x.items[2].value
        try:
            owner = self.owner(x.items[0], env)
        except _Stop:
            owner = None
        if owner is None:
            self.unknown_sto.add(name)
            return
        old = self.sto.get((owner, name), 0)
        self.sto[(owner, name)] = None if value is None or (add and old is None) else (old + value if add else value)

    def action(self, x, env) -> None:
        self.step()
        read = READ.get(Kind.ACTION, head_of(x))
        if read is None or read(self, x, env) is NOT_MINE:
            self.block(x, env)

    def repeat_all(self, x, env) -> None:
        if READ.get(Kind.ACTION, head_of(x)) is not _move or len(x.items) != 3:
            raise _Stop
        src = x.items[1]
        if not (isinstance(src, SList) and len(src.items) == 2 and kw(src.items[0], "top", "bottom")):
            raise _Stop
        s_owner, s_kind, s_name = self.location(src.items[1], env)
        d_owner, d_kind, d_name = self.place(x.items[2], env)
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
        rest = x.items[2:]
        if rest and isinstance(rest[0], Atom) and rest[0].is_name:
            rest = rest[1:]
        if len(rest) != 2 or head_of(rest[1]) != "deck":
            raise _Stop
        owner, kind, name = self.location(rest[0], env)
        try:
            k = len(deck_combinations(rest[1]))
        except RecycleError:
            raise _Stop from None
        if owner is None:
            self.unknown.add((kind, name))
            return
        key = (owner, kind, name)
        c = self.count(key)
        self.counts[key] = None if c is None else c + k
        self.created[key] = self.created.get(key, 0) + k

    def block(self, x, env) -> None:
        """``do``, loops over the players, ``let``, ``((CONDITION) ITEM)``."""
        items = x.items if isinstance(x, SList) else ()
        h = head_of(x)
        read = READ.get(Kind.FLOW, h)
        if read is not None and read(self, x, env) is not NOT_MINE:
            return
        if h is None and len(items) == 2 and head_of(items[0]) is not None:  # ((CONDITION) ITEM)
            v = self.truth(items[0], env)
            if v is None:
                raise _Stop
            if v:
                self.action(items[1], env)
            return
        raise _Stop

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
        read = TOP.get(Kind.FLOW, head_of(x))
        if read is None or read(self, x, env) is NOT_MINE:
            raise _Stop  # a choice, or anything else

    def run(self) -> DealFailure | None:
        env: dict = {}
        try:
            for x in self.game_form.items[1:]:
                h = head_of(x)
                if h == "declare" and len(x.items) == 3 and isinstance(x.items[2], Atom):
                    name = x.items[2].value
                    env[name] = self.n if name == self.count_var else self.integer(x.items[1], env)
                elif h == "setup":
                    for item in x.items[1:]:
                        if creates(item, "players", "teams"):
                            continue
                        self.action(item, env)
                elif h == "scoring":
                    break
                else:
                    self.flow(x, env)
        except _Failed as exc:
            return exc.failure
        except (_Stop, _Empty, RecursionError):
            return None
        return None


# -- what the analysis follows, by form (writers.py's tables; values and conditions: deal_values.py)
# A reader of an action or block returns NOT_MINE for a use of its form it does not follow.

TOP = Writers("deal-limit flow")  # the game's own flow, a statement at a time


@READ.register(Kind.ACTION, "move")
def _move(an, x, env):
    if len(x.items) != 3:
        return NOT_MINE
    an.move(x, env)


@READ.register(Kind.ACTION, "repeat")
def _repeat(an, x, env):
    items = x.items
    if len(items) != 3:
        return NOT_MINE
    if kw(items[1], "all"):
        an.repeat_all(items[2], env)
        return
    k = an.integer(items[1], env)
    if k is None or k > MAX_STEPS:
        raise _Stop
    for _ in range(k):
        an.action(items[2], env)


@READ.register(Kind.ACTION, "shuffle")
def _shuffle(an, x, env):
    if len(x.items) != 2:
        return NOT_MINE
    an.location(x.items[1], env)  # a shuffle changes no count (a faro does: not followed)


@READ.register(Kind.ACTION, "set")
def _set(an, x, env):
    if len(x.items) != 3:
        return NOT_MINE
    an.storage(x.items[1], env, an.integer(x.items[2], env), add=False)


def _add(an, x, env, sign: int):
    if len(x.items) not in (2, 3):
        return NOT_MINE
    amount = an.integer(x.items[2], env) if len(x.items) == 3 else 1
    an.storage(x.items[1], env, None if amount is None else amount * sign, add=True)


# inc adds, dec takes away
READ.register(Kind.ACTION, "inc")(partial(_add, sign=1))
READ.register(Kind.ACTION, "dec")(partial(_add, sign=-1))


@READ.register(Kind.ACTION, "turn")
def _turn(an, x, env):
    return None if len(x.items) == 2 and kw(x.items[1], "pass") else NOT_MINE


@READ.register(Kind.ACTION, "cycle")
def _cycle(an, x, env):
    # the queued player becomes current at the next turn, which is not followed
    return None if len(x.items) == 3 and kw(x.items[1], "next") else NOT_MINE


@READ.register(Kind.ACTION, "create")
def _create(an, x, env):
    if len(x.items) < 2 or not kw(x.items[1], "deck"):
        return NOT_MINE
    an.create_deck(x, env)


def creates(x, *what: str) -> bool:
    """Is ``x`` ``(create WHAT ...)`` (players, teams, deck)?"""
    return (
        isinstance(x, SList)
        and len(x.items) >= 2
        and READ.get(Kind.ACTION, head_of(x)) is _create
        and kw(x.items[1], *what)
    )


@READ.register(Kind.FLOW, "do")
def _do(an, x, env):
    if len(x.items) != 2 or not isinstance(x.items[1], SList):
        return NOT_MINE
    for item in x.items[1].items:
        an.action(item, env)


def _for_each_player(an, x, env):
    if not _players_loop(x):
        return NOT_MINE
    an.player_loops += 1
    for p in range(an.n):
        an.action(x.items[3], {**env, x.items[2].value: ("player", p)})
    an.player_loops -= 1


READ.register(Kind.FLOW, "all", "any")(_for_each_player)


@READ.register(Kind.FLOW, "let")
def _let(an, x, env):
    if len(x.items) != 4 or not (isinstance(x.items[2], Atom) and x.items[2].kind == VAR):
        return NOT_MINE
    an.action(x.items[3], {**env, x.items[2].value: an.integer(x.items[1], env)})


def _turn_stage(x) -> bool:
    """``(stage player (end CONDITION) ITEM ...)`` with no choice (nobody decides), ``cycle`` or
    ``turn`` (turns go round in order, whole) in its items: a deal a card at a time round the table."""
    items, todo = x.items, list(x.items[3:])
    if not (
        "stage" in REGISTRY.roles.get(head_of(x), ())
        and len(items) >= 4
        and kw(items[1], "player")
        and head_of(items[2]) == "end"
        and len(items[2].items) == 2
    ):
        return False
    while todo:
        h = head_of(y := todo.pop())
        if "choice" in REGISTRY.roles.get(h, ()) or READ.get(Kind.ACTION, h) in (_cycle, _turn):
            return False
        todo.extend(y.items if isinstance(y, SList) else ())
    return True


@READ.register(Kind.FLOW, "stage")
def _stage(an, x, env):
    """A ``_turn_stage`` followed turn by turn, as ``flow.a_stage`` plays it: the end is checked
    before every turn, the current player advances by one between turns, and the one before the
    stage is current again after it. Its turns count as loops over the players (a card to each
    player in turn is a card per player)."""
    if not _turn_stage(x):
        return NOT_MINE
    saved, first = an.current, True
    if saved is None:
        raise _Stop
    an.player_loops += 1
    try:
        while not _known(an.truth(x.items[2].items[1], env)):
            if not first:
                an.current = (an.current + 1) % an.n
            first = False
            an.step()
            an.statements(x.items[3:], env)
    finally:
        an.player_loops -= 1
    an.current = saved


def _known(value):
    if value is None:
        raise _Stop
    return value


@TOP.register(Kind.FLOW, "do")
def _top_do(an, x, env):
    if len(x.items) != 2 or not isinstance(x.items[1], SList):
        return NOT_MINE
    an.statements(x.items[1].items, env)


@TOP.register(Kind.FLOW, "stage")
def _top_stage(an, x, env):
    if _turn_stage(x):  # followed to its end
        an.whole_stage(x, env)
        return None
    if len(x.items) < 3 or head_of(x.items[2]) != "end":
        return NOT_MINE
    done = an.truth(x.items[2].items[1], env) if len(x.items[2].items) == 2 else None
    if done is None:
        raise _Stop
    if done:
        return  # the stage plays no turn
    for item in x.items[3:]:
        an.flow(item, env)
    raise _Stop  # after its first turn: whether the stage goes on is not followed


@TOP.register(Kind.FLOW, "all", "any", "let")
def _top_statement(an, x, env):
    an.statements([x], env)


class _Failed(Exception):
    def __init__(self, failure: DealFailure):
        super().__init__(failure)
        self.failure = failure


def _count_form(game: SList):
    """The ``(create players X)`` form's X, or None."""
    setup = next((x for x in game.items if head_of(x) == "setup"), None)
    if setup is None:
        return None
    create = next((x for x in setup.items if creates(x, "players") and len(x.items) == 3), None)
    return None if create is None else create.items[2]


def deal_failure(source: SourceFile, nplayers: int) -> DealFailure | None:
    """The move from an empty location that ``source`` reaches for sure when played by
    ``nplayers`` players (its ``(create players X)`` set to that number, X an integer or a
    declared variable), or None: it does not, or the analysis cannot tell."""
    game = source.forms[0] if source.forms else None
    if head_of(game) != "game":
        return None
    count = _count_form(game)
    if not (isinstance(count, Atom) and count.kind in (INT, VAR)):
        return None
    return _Analysis(game, nplayers, count.value if count.kind == VAR else None).run()


def supported_counts(source: SourceFile, most: int) -> list[int]:
    """The numbers of players 1..``most`` whose deal is not sure to fail."""
    return [n for n in range(1, most + 1) if deal_failure(source, n) is None]


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


def refusal(source: SourceFile, nplayers: int, most: int) -> str | None:
    """Why ``source`` cannot be played by ``nplayers`` players, its deal counted before
    playing (the counts 1..``most`` it supports named), or None when that is not known."""
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
        f"{source.filename} {what} {where}: {_counts_text(supported_counts(source, most))}; "
        f"-p {nplayers} asks for {nplayers}"
    )
