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
LOCATION)``, shuffles, integer storages. It stops, without a verdict, at the first thing it
cannot follow exactly (a choice, a computed location name, a card variable, a count it cannot
work out...). So a refusal is sound: the game with that many players reaches, by steps that do
not depend on chance or on anybody's choice, a move from a location that is then empty (or
failed earlier still). Where the analysis stops first, nothing is refused and the runtime
error stays the message.

Counts only are followed, never which cards: shuffles and the order of cards do not matter.
A step whose owner is unknown (a player not worked out) makes that location's count unknown
for every owner, and a move from an unknown count is assumed to succeed (if it fails, the game
fails anyway).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import RecycleError
from .shapes import deck_combinations, head_of, is_location_form, kw
from .syntax import INT, VAR, Atom, SList, SourceFile

MAX_STEPS = 200_000  # abstract steps per count analysed: beyond it the analysis gives up
MAX_INT = 2**53  # integers beyond it are left unknown (no overflow question arises)


class _Stop(Exception):
    """The analysis cannot follow the game exactly from here on."""


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
        self.game, self.n, self.count_var = game, n, count_var
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
        return (dict(self.counts), set(self.unknown), set(self.moved), dict(self.sto), set(self.unknown_sto),
                self.current)

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
        h = head_of(x)
        if h in ("+", "-", "*") and len(x.items) == 3:
            a, b = self.integer(x.items[1], env), self.integer(x.items[2], env)
            if a is None or b is None:
                return None
            v = a + b if h == "+" else a - b if h == "-" else a * b
            return v if abs(v) < MAX_INT else None
        if h == "size" and len(x.items) == 2:
            if kw(x.items[1], "player"):
                return self.n
            if is_location_form(x.items[1]):
                try:
                    owner, kind, name = self.location(x.items[1], env)
                except _Stop:
                    return None
                return None if owner is None else self.count((owner, kind, name))
            return None
        if len(x.items) == 3 and x.items[1:2] and kw(x.items[1], "sto") and isinstance(x.items[2], Atom) \
                and x.items[2].is_name:
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
        h = head_of(x)
        if h in ("and", "or") and len(x.items) >= 3:
            values = [self.truth(i, env) for i in x.items[1:]]
            decisive = h == "or"  # a true operand decides an or, a false one an and
            if decisive in values:
                return decisive
            return None if None in values else not decisive
        if h == "not" and len(x.items) == 2:
            v = self.truth(x.items[1], env)
            return None if v is None else not v
        if h in ("==", "!=", "<", ">", "<=", ">=") and len(x.items) == 3:
            a, b = self.integer(x.items[1], env), self.integer(x.items[2], env)
            if a is None or b is None:
                return None
            return {"==": a == b, "!=": a != b, "<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[h]
        if h in ("any", "all") and len(x.items) == 4 and kw(x.items[1], "player") \
                and isinstance(x.items[2], Atom) and x.items[2].kind == VAR:
            values = [self.truth(x.items[3], {**env, x.items[2].value: ("player", p)}) for p in range(self.n)]
            decisive = h == "any"
            if decisive in values:
                return decisive
            return None if None in values else not decisive
        return None

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
        if not (kw(x.items[0], "top", "bottom") or isinstance(x.items[0], Atom) and x.items[0].kind == INT):
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
        h = head_of(x)
        items = x.items if isinstance(x, SList) else ()
        if h == "move" and len(items) == 3:
            self.move(x, env)
        elif h == "repeat" and len(items) == 3:
            if kw(items[1], "all"):
                self.repeat_all(items[2], env)
                return
            k = self.integer(items[1], env)
            if k is None or k > MAX_STEPS:
                raise _Stop
            for _ in range(k):
                self.action(items[2], env)
        elif h == "shuffle" and len(items) == 2:
            self.location(items[1], env)  # a shuffle changes no count (a faro does: not followed)
        elif h == "set" and len(items) == 3:
            self.storage(items[1], env, self.integer(items[2], env), add=False)
        elif h in ("inc", "dec") and len(items) in (2, 3):
            amount = self.integer(items[2], env) if len(items) == 3 else 1
            self.storage(items[1], env, None if amount is None else amount * (1 if h == "inc" else -1), add=True)
        elif h == "turn" and len(items) == 2 and kw(items[1], "pass"):
            pass
        elif h == "cycle" and len(items) == 3 and kw(items[1], "next"):
            pass  # the queued player becomes current at the next turn, which is not followed
        elif h == "create" and len(items) >= 2 and kw(items[1], "deck"):
            self.create_deck(x, env)
        else:
            self.block(x, env)

    def repeat_all(self, x, env) -> None:
        if head_of(x) != "move" or len(x.items) != 3:
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
        h = head_of(x)
        items = x.items if isinstance(x, SList) else ()
        if h == "do" and len(items) == 2 and isinstance(items[1], SList):
            for item in items[1].items:
                self.action(item, env)
        elif h in ("all", "any") and len(items) == 4 and kw(items[1], "player") \
                and isinstance(items[2], Atom) and items[2].kind == VAR:
            self.player_loops += 1
            for p in range(self.n):
                self.action(items[3], {**env, items[2].value: ("player", p)})
            self.player_loops -= 1
        elif h == "let" and len(items) == 4 and isinstance(items[2], Atom) and items[2].kind == VAR:
            self.action(items[3], {**env, items[2].value: self.integer(items[1], env)})
        elif h is None and len(items) == 2 and head_of(items[0]) is not None:  # ((CONDITION) ITEM)
            v = self.truth(items[0], env)
            if v is None:
                raise _Stop
            if v:
                self.action(items[1], env)
        else:
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

    def _held(self, snap, key):
        counts, unknown, moved = snap[0], snap[1], snap[2]
        held = counts.get(key, 0)
        return held, key not in moved and 0 < held == self.created.get(key, 0)

    def _per_player(self) -> int | None:
        if self.taken and self.in_player_loops == self.taken and self.taken % self.n == 0:
            return self.taken // self.n
        return None

    def flow(self, x, env) -> None:
        h = head_of(x)
        if h == "do" and len(x.items) == 2 and isinstance(x.items[1], SList):
            self.statements(x.items[1].items, env)
        elif h == "stage" and len(x.items) >= 3 and head_of(x.items[2]) == "end":
            done = self.truth(x.items[2].items[1], env) if len(x.items[2].items) == 2 else None
            if done is None:
                raise _Stop
            if done:
                return  # the stage plays no turn
            for item in x.items[3:]:
                self.flow(item, env)
            raise _Stop  # after its first turn: whether the stage goes on is not followed
        elif h in ("all", "any", "let"):
            self.statements([x], env)
        else:
            raise _Stop  # a choice, or anything else

    def run(self) -> DealFailure | None:
        env: dict = {}
        try:
            for x in self.game.items[1:]:
                h = head_of(x)
                if h == "declare" and len(x.items) == 3 and isinstance(x.items[2], Atom):
                    name = x.items[2].value
                    env[name] = self.n if name == self.count_var else self.integer(x.items[1], env)
                elif h == "setup":
                    for item in x.items[1:]:
                        if head_of(item) == "create" and len(item.items) >= 2 and kw(item.items[1], "players", "teams"):
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


class _Failed(Exception):
    def __init__(self, failure: DealFailure):
        super().__init__(failure)
        self.failure = failure


def _count_form(game: SList):
    """The ``(create players X)`` form's X, or None."""
    setup = next((x for x in game.items if head_of(x) == "setup"), None)
    if setup is None:
        return None
    create = next((x for x in setup.items
                   if head_of(x) == "create" and len(x.items) == 3 and kw(x.items[1], "players")), None)
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
    owner, kind, name = key
    return name if owner == "game" else f"{name} of P{owner[1]}"


def refusal(source: SourceFile, nplayers: int, most: int) -> str | None:
    """Why ``source`` cannot be played by ``nplayers`` players, its deal counted before
    playing (the counts 1..``most`` it supports named), or None when that is not known."""
    failure = deal_failure(source, nplayers)
    if failure is None:
        return None
    f = failure
    what = (f"deals {f.per_player} card{'s' if f.per_player != 1 else ''} to each player" if f.per_player
            else f"takes {f.taken} card{'s' if f.taken != 1 else ''}")
    where = f"from a deck of {f.held}" if f.deck else f"from the {f.held} cards of {_label(f.location)} at that point"
    if f.deck and f.location != ("game", f.location[1], f.location[2]):
        where = f"from {_label(f.location)}, a deck of {f.held}"
    return (f"{source.filename} {what} {where}: {_counts_text(supported_counts(source, most))}; "
            f"-p {nplayers} asks for {nplayers}")
