"""Writing expressions and simple actions of a game as Python source (for ``pygen``).

An expression is written out when its meaning is plain Python on the state's lists (an
integer storage, the size of a location, arithmetic and comparisons of integers, and, or,
not); anything else is called as the closure the compiler made for it, which keeps every
check, cache and message of the closures. ``k`` names a constant of the generated module.
"""

from __future__ import annotations

from ..forms.registry import Kind
from .pycards import COMPILED, CardWriter, players_loop
from .pytext import embed, short
from ..forms.values import Card
from ..forms.shapes import MAX_INT, SCAN, SMALL, Const, head_of, is_atom, is_location_form, is_storage_form, kw
from ..syntax.reader import INT, SYMBOL, VAR, Atom, SList

WRITERS = COMPILED  # the forms this engine writes out, by kind and head (below, and in pycards)
MAX_REPEAT = 100_000  # as items.MAX_REPEAT (a larger count is left to the closure's message)
# A players loop in a condition is written out player by player, nested loops multiplying the
# text (seven nested loops over ten players: 10^7 copies); beyond this many characters of the
# .rcy form so multiplied (``unrolled_size``), the loop is left to its closure. The games of
# games/ and of the corpus need at most 7,316.
MAX_UNROLLED = 20_000


def unrolled_size(node, nplayers: int) -> int:
    """The printed size of ``node`` with every ``(any|all player 'P X)`` in it counting X
    once per player: the text a condition becomes when its players loops are written out."""
    if not isinstance(node, SList):
        return len(str(node)) + 1
    if players_loop(node):
        return nplayers * unrolled_size(node.items[3], nplayers)
    return sum(unrolled_size(i, nplayers) for i in node.items) + 1


class ExprWriter(CardWriter):
    """The expression part of ``pygen.FlowWriter``."""

    def __init__(self, compiler):
        self.comp = compiler
        self.consts: dict[str, object] = {}
        self._names: dict[int, str] = {}
        self._keep: list = []  # the constants' objects, alive while their ids name them
        self._closures: dict = {}  # (id(node), id(scope)) -> the closure made for it once
        self.literal: dict[str, int] = {}  # variables of a players loop written out, player by player
        self.local: dict[str, str] = {}  # card variables of a written-out filter: their Python names
        self.helper_functions: list[list[str]] = []  # functions the expressions call (CardWriter.helper)
        self._helper_names: dict = {}
        self.memo_ok = True  # conditions not written out may be remembered (CardWriter.write_memo)
        self._shared_memos: dict = {}  # one memory per question (CardWriter.write_memo)
        self.chars_elsewhere = 0  # characters written outside pygen's ``emit`` (helper functions)

    def k(self, obj, prefix: str = "K") -> str:
        """The module-level name of ``obj`` (one name per object)."""
        name = self._names.get(id(obj))
        if name is None:
            name = f"{prefix}{len(self.consts)}"
            self.consts[name] = obj
            self._names[id(obj)] = name
            self._keep.append(obj)
        return name

    def helpers(self) -> dict:
        return {}

    # -- expressions -------------------------------------------------------------------------
    def bool_expr(self, node, scope, closure) -> str:
        """Python source of a condition; ``closure`` is the compiler's closure for it."""
        text = self.write_bool(node, scope)
        return text if text is not None else f"{self.k(closure)}(s, e)"

    def write_bool(self, node, scope) -> str | None:
        """The condition written out, or None where only the closure will do."""
        write = WRITERS.get(Kind.BOOL, head_of(node) if isinstance(node, SList) else None)
        return write(self, node, scope) if write is not None else self.remembered(node, scope)

    def remembered(self, node, scope) -> str | None:
        """A condition not written out, remembered by the cards it reads where it can be."""
        return self.write_memo(node, scope) if self.memo_ok else None

    def bool_parts(self, node, scope):
        """The parts of an and/or written out (None where only a closure will do); or, when
        some part cannot be said plainly, the whole condition remembered (``write_memo``)
        if it can be."""
        items = node.items[1:]
        if not self.memo_ok:
            return [self.write_bool(i, scope) for i in items]
        self.memo_ok = False
        try:
            plain = [self.write_bool(i, scope) for i in items]
        finally:
            self.memo_ok = True
        if None not in plain:
            return plain
        whole = self.write_memo(node, scope)
        return whole if whole is not None else [self.write_bool(i, scope) for i in items]

    def bool_closure(self, node, scope):
        """The compiler's closure for a condition (cached by its cards where it is pure)."""
        key = (id(node), id(scope))
        got = self._closures.get(key)
        if got is None:
            got = self._closures[key] = self.comp.cache_pure(node, scope, self.comp.c_bool(node, scope))
        return got

    def write_int(self, node, scope) -> str | None:
        """An integer expression written out (storages, sizes, literals, constants), or None."""
        if isinstance(node, Atom):
            if node.kind == INT:
                return embed(node.value)
            if node.kind == VAR:
                c = scope.lookup(node.value)
                if isinstance(c, Const) and type(c.value) is int:
                    return embed(c.value)
                if isinstance(c, int) and scope.hint(node.value) == "int" and node.value not in self.local:
                    return f"e[{c}]"  # a let-bound integer (expr_int.c_int: no check needed)
            return None
        if is_storage_form(node) == "sto":
            slot = self.storage_index(node, scope)
            return None if slot is None else f"s.ints[{slot}]"
        write = WRITERS.get(Kind.INT, head_of(node))
        return write(self, node, scope) if write is not None else None

    def coll_expr(self, node, scope, closure) -> str:
        """Python source of a collection of cards: a location's list, a written-out filter,
        or the compiler's closure for it."""
        if not self.local and not self.literal:
            if is_location_form(node) and node.items[1].value != "mem":
                idx = self.loc_index(node, scope)
                if idx is not None:
                    return f"s.locs[{idx}]"
            write = WRITERS.get(Kind.LOC, head_of(node))
            if write is not None:
                f = write(self, node, scope)
                if f is not None:
                    return f
        return f"{self.k(closure)}(s, e)"

    def write_filter(self, node, scope) -> str | None:
        """``(filter LOCATION 'C CONDITION)`` as a call of a generated function, when the
        location and the condition can be written out (expr_locs.loc_filter, its work
        charged alike), or None."""
        if len(node.items) != 4 or not is_atom(node.items[2], VAR) or self.literal or self.local:
            return None
        src = self.write_coll(node.items[1], scope)
        if src is None:
            return None
        var = node.items[2].value
        saved = self.local.get(var)
        self.local[var] = "_v"
        try:
            cond = self.write_bool(node.items[3], scope)
        finally:
            if saved is None:
                self.local.pop(var)
            else:
                self.local[var] = saved
        if cond is None:
            return None
        comp = self.comp
        w = 0 if comp.players_loop(node) else comp.weight(node.items[3])
        small = SMALL if comp.loop_free(node.items[3]) else -1
        span = self.k(node.span, "SPAN")
        return self.helper(node, scope, "filter", lambda name: [
            f"def {name}(s, e):", f"    # line {node.span.line}: {short(node)}",
            f"    cards = {src}", f"    if len(cards) > {small}:", f"        s.work -= len(cards) * {w}",
            "        if s.work < 0:", f"            out_of_work(s, {span}, 'filter')",
            f"    return [_v for _v in cards if {cond}]"])

    def write_str(self, node, scope) -> str | None:
        """A string storage, a name written as it is (``NONE``) or the attribute of a card
        variable of a written-out filter, or None."""
        write = WRITERS.get(Kind.STR, head_of(node))
        if write is not None:
            return write(self, node, scope)
        if isinstance(node, Atom):
            # an upper-case name stands for itself; lower-case words may be keywords
            ok = node.kind == SYMBOL and isinstance(node.value, str) and node.value.isupper()
            return embed(node.value) if ok else None
        if is_storage_form(node) == "str":
            slot = self.storage_index(node, scope, "str")
            return None if slot is None else f"s.strs[{slot}]"
        return None

    def owner_offset(self, owner, scope) -> str | None:
        """Source of an owner's offset in a block of locations or storages (0 for the game,
        1 + p for player p), for the owners written out: the game, the current player and
        a variable known to hold a player."""
        if kw(owner, "game"):
            return ""
        if isinstance(owner, SList) and len(owner.items) == 2 and kw(owner.items[0], "current") \
                and kw(owner.items[1], "player"):
            return "s.pstack[-1][0]"
        if isinstance(owner, SList) and len(owner.items) == 2 and kw(owner.items[0], "next") \
                and kw(owner.items[1], "player"):
            return self.next_player()
        if is_atom(owner, VAR) and owner.value in self.literal:
            return str(self.literal[owner.value])
        if is_atom(owner, VAR) and scope.hint(owner.value) == "player":
            slot = scope.lookup(owner.value)
            if isinstance(slot, int):
                return f"e[{slot}]"
        return None

    def loc_index(self, node, scope) -> str | None:
        """Source of a physical location's index in ``s.locs`` (literal name and a simple
        owner), or None."""
        if not is_location_form(node) or not is_atom(node.items[2], SYMBOL):
            return None
        off = self.owner_offset(node.items[0], scope)
        if off is None:
            return None
        base = self.comp.layout.loc_block(node.items[1].value, node.items[2].value)
        if off.isdigit():
            return str(base + 1 + int(off))
        return str(base) if off == "" else f"({base + 1} + {off})"

    def storage_index(self, node, scope, sort: str = "sto") -> str | None:
        """Source of an integer (string) storage's index in ``s.ints`` (``s.strs``), as ``loc_index``."""
        if not is_atom(node.items[2], SYMBOL):
            return None
        off = self.owner_offset(node.items[0], scope)
        if off is None:
            return None
        base = self.comp.layout.storage_block(sort, node.items[2].value)
        if off.isdigit():
            return str(base + 1 + int(off))
        return str(base) if off == "" else f"({base + 1} + {off})"

    # -- actions -----------------------------------------------------------------------------
    def inline_action(self, item) -> list[str] | None:
        """Statements for a simple action (without indentation), or None for its closure.

        Each takes the closure's way whenever events are recorded or the action would fail
        (an empty source, an overflow): the closure then records or says exactly what the
        closures do."""
        write = WRITERS.get(Kind.ACTION, head_of(item.node))
        return write(self, item.node, item.scope, item, self.k(item.run)) if write is not None else None

    def card_move(self, x, scope, closure: str) -> list[str] | None:
        """``(move 'C (top B))`` with 'C known to hold a card: it leaves its physical location
        (actions.a_move's general move; a long location, charged for its search, and
        anything unusual take the closure's way)."""
        name = x.items[1].value
        slot = scope.lookup(name)
        b = x.items[2]
        if scope.hint(name) != "card" or not isinstance(slot, int) or not (
                isinstance(b, SList) and len(b.items) == 2 and kw(b.items[0], "top")
                and is_location_form(b.items[1]) and b.items[1].items[1].value != "mem"):
            return None
        dst = self.loc_index(b.items[1], scope)
        if dst is None:
            return None
        card = self.k(Card, "Card")
        c, phys, d = self.fresh("c"), self.fresh("p"), self.fresh("d")
        return [f"{c} = e[{slot}]",
                f"if s.events is not None or {c}.__class__ is not {card} or len(s.locs[s.card_loc[{c}]]) > {SCAN}:",
                f"    {closure}(s, e)", "else:", f"    {phys} = s.locs[s.card_loc[{c}]]", f"    {phys}.remove({c})",
                f"    {d} = {dst}", f"    s.locs[{d}].append({c})", f"    s.card_loc[{c}] = {d}"]

    def top_move(self, x, scope):
        """(source index, destination index) sources of ``(move (top A) (top B))`` between
        physical, non-memory locations written out by ``loc_index``, or None."""
        if len(x.items) != 3:
            return None
        a, b = x.items[1], x.items[2]
        if not (isinstance(a, SList) and len(a.items) == 2 and kw(a.items[0], "top")
                and isinstance(b, SList) and len(b.items) == 2 and kw(b.items[0], "top")):
            return None
        la, lb = a.items[1], b.items[1]
        if not (is_location_form(la) and is_location_form(lb)) or "mem" in (la.items[1].value, lb.items[1].value):
            return None
        src, dst = self.loc_index(la, scope), self.loc_index(lb, scope)
        if src is None or dst is None:
            return None
        return src, dst


# -- the writers, by form (recycle/lang/forms/writers.py) ------------------------------------
# ``ew`` is the ExprWriter; a condition's writer that cannot write the form returns
# ``ew.remembered(...)`` where the closure may be remembered, an expression's None.

@WRITERS.register(Kind.BOOL, "and", "or")
def _and_or(ew, node, scope):
    if len(node.items) < 3:
        return ew.remembered(node, scope)
    parts = ew.bool_parts(node, scope)
    if isinstance(parts, str):
        return parts  # remembered whole
    if all(p is None for p in parts) or (ew.literal and any(p is None for p in parts)):
        return None
    # the parts Python cannot say plainly are their own closures (cached where pure)
    parts = [p if p is not None else f"{ew.k(ew.bool_closure(i, scope))}(s, e)" for p, i in zip(parts, node.items[1:])]
    return "(" + f" {node.items[0].value} ".join(parts) + ")"


def _players_loop(ew, node, scope, joiner: str):
    if not players_loop(node):
        return ew.remembered(node, scope)
    # a loop over the players: written out once per player, the variable a literal (unless
    # that would be too long: nested loops multiply it)
    n = ew.comp.layout.nplayers
    if unrolled_size(node, n) > MAX_UNROLLED:
        return None
    name = node.items[2].value
    parts = []
    # the variable has a slot too: a remembered condition sets it before asking its closure
    inner = scope.bind(name, ew.comp.new_slot(), "player")
    for p in range(n):
        with ew.as_literal(name, p):
            parts.append(ew.write_bool(node.items[3], inner))
    if any(p is None for p in parts):
        return None
    return "(" + joiner.join(parts) + ")"


@WRITERS.register(Kind.BOOL, "any")
def _any(ew, node, scope):
    return _players_loop(ew, node, scope, " or ")


@WRITERS.register(Kind.BOOL, "all")
def _all(ew, node, scope):
    return _players_loop(ew, node, scope, " and ")


@WRITERS.register(Kind.BOOL, "not")
def _not(ew, node, scope):
    if len(node.items) != 2:
        return ew.remembered(node, scope)
    inner = ew.write_bool(node.items[1], scope)
    return None if inner is None else f"(not {inner})"


@WRITERS.register(Kind.BOOL, "==", "!=")
def _equality(ew, node, scope):
    # names and strings compare as strings, the rest as integers
    if len(node.items) == 3:
        a, b = ew.write_str(node.items[1], scope), ew.write_str(node.items[2], scope)
        if a is not None and b is not None:
            return f"({a} {node.items[0].value} {b})"
    return _order(ew, node, scope)


@WRITERS.register(Kind.BOOL, "<", ">", "<=", ">=")
def _order(ew, node, scope):
    if len(node.items) == 3:
        a, b = ew.write_int(node.items[1], scope), ew.write_int(node.items[2], scope)
        if a is not None and b is not None:
            return f"({a} {node.items[0].value} {b})"
    return ew.remembered(node, scope)


@WRITERS.register(Kind.INT, "size")
def _size(ew, node, scope):
    if len(node.items) != 2:
        return None
    if is_location_form(node.items[1]):
        idx = ew.loc_index(node.items[1], scope)
        return None if idx is None else f"len(s.locs[{idx}])"
    coll = ew.write_coll(node.items[1], scope)
    return None if coll is None else f"len({coll})"


@WRITERS.register(Kind.INT, "sum")
def _sum(ew, node, scope):
    return ew.write_sum(node, scope)


@WRITERS.register(Kind.INT, "+", "-", "*")
def _arithmetic(ew, node, scope):
    op = node.items[0].value
    if not (len(node.items) == 3 or (op in ("+", "*") and len(node.items) > 3)) or ew.literal:
        return None  # (in a players loop written out the closure would read the loop's variable)
    parts = [ew.write_int(i, scope) for i in node.items[1:]]
    if None in parts:
        return None
    # beyond 64 bits the closure says so (its operands, worked out again, are plain reads)
    v = ew.fresh("r")
    closure = ew.k(ew.comp.c_int(node, scope))
    return f"({v} if {-MAX_INT} <= ({v} := {f' {op} '.join(parts)}) <= {MAX_INT} else {closure}(s, e))"


@WRITERS.register(Kind.INT, "pid")
def _pid(ew, node, scope):
    if len(node.items) != 2 or kw(node.items[1], "game"):
        return None
    # the player's number: its offset among the owners (a player variable holds a PlayerId)
    off = ew.owner_offset(node.items[1], scope)
    return None if not off else f"int({off})"


@WRITERS.register(Kind.STR, "cardatt")
def _cardatt(ew, node, scope):
    if len(node.items) != 3 or not is_atom(node.items[1], SYMBOL):
        return None
    card = node.items[2]
    if is_atom(card, VAR) and card.value in ew.local:
        col = ew.k(ew.comp.cards.column(node.items[1].value), "ATTR")
        return f"{col}[{ew.local[card.value]}]"
    if isinstance(card, SList) and len(card.items) == 2 and kw(card.items[0], "top", "bottom") \
            and not ew.local and not ew.literal:
        # the attribute of a location's top (last) or bottom card: "" when it is empty
        where = card.items[1]
        idx = ew.loc_index(where, scope) if is_location_form(where) and where.items[1].value != "mem" else None
        if idx is None:
            return None
        col = ew.k(ew.comp.cards.column(node.items[1].value), "ATTR")
        lst = ew.fresh("l")
        end = {"top": -1, "bottom": 0}[card.items[0].value]  # the last card or the first
        return f"({col}[{lst}[{end}]] if ({lst} := s.locs[{idx}]) else '')"
    return None


# Each action takes the closure's way whenever events are recorded or the action would fail
# (an empty source, an overflow): the closure then records or says exactly what the closures do.

@WRITERS.register(Kind.ACTION, "turn")
def _turn(ew, x, scope, item, closure):
    return ["pass"]


@WRITERS.register(Kind.ACTION, "set")
def _set(ew, x, scope, item, closure):
    if len(x.items) != 3:
        return None
    sort = is_storage_form(x.items[1])
    if sort == "str":
        slot = ew.storage_index(x.items[1], scope, "str")
        v = None if slot is None else ew.write_str(x.items[2], scope)
        if v is None:
            return None
        return ["if s.events is None:", f"    s.strs[{slot}] = {v}", "else:", f"    {closure}(s, e)"]
    if sort == "points":
        return ew.set_points_action(x, scope, item.run, closure)
    slot = ew.storage_index(x.items[1], scope) if sort == "sto" else None
    v = None if slot is None else ew.write_int(x.items[2], scope)
    if v is None:
        return None
    return ["if s.events is None:", f"    s.ints[{slot}] = {v}", "else:", f"    {closure}(s, e)"]


def _add_to_storage(ew, x, scope, closure, sign: str):
    """(inc|dec STORAGE [AMOUNT]) of an integer storage."""
    if len(x.items) not in (2, 3) or is_storage_form(x.items[1]) != "sto":
        return None
    slot = ew.storage_index(x.items[1], scope)
    if slot is None:
        return None
    amount = ew.write_int(x.items[2], scope) if len(x.items) == 3 else "1"
    if amount is None:
        return None
    v = ew.fresh("v")
    return [f"{v} = s.ints[{slot}] {sign} {amount}",
            f"if s.events is None and {-MAX_INT} <= {v} <= {MAX_INT}:", f"    s.ints[{slot}] = {v}",
            "else:", f"    {closure}(s, e)"]


@WRITERS.register(Kind.ACTION, "inc")
def _inc(ew, x, scope, item, closure):
    return _add_to_storage(ew, x, scope, closure, "+")


@WRITERS.register(Kind.ACTION, "dec")
def _dec(ew, x, scope, item, closure):
    return _add_to_storage(ew, x, scope, closure, "-")


@WRITERS.register(Kind.ACTION, "cycle")
def _cycle(ew, x, scope, item, closure):
    return ew.cycle_action(x, scope)


@WRITERS.register(Kind.ACTION, "swap")
def _swap(ew, x, scope, item, closure):
    return ew.swap_action(x, scope, closure)


@WRITERS.register(Kind.ACTION, "move")
def _move(ew, x, scope, item, closure):
    if len(x.items) == 3 and is_atom(x.items[1], VAR):
        return ew.card_move(x, scope, closure)
    move = ew.top_move(x, scope)
    if move is None:
        return None
    src, dst = move
    lst, c, d = ew.fresh("l"), ew.fresh("c"), ew.fresh("d")
    return [f"{lst} = s.locs[{src}]", f"if s.events is not None or not {lst}:", f"    {closure}(s, e)",
            "else:", f"    {c} = {lst}.pop()", f"    {d} = {dst}", f"    s.locs[{d}].append({c})",
            f"    s.card_loc[{c}] = {d}"]


@WRITERS.register(Kind.ACTION, "repeat")
def _repeat(ew, x, scope, item, closure):
    if len(x.items) != 3:
        return None
    if kw(x.items[1], "all"):
        return ew.repeat_all_moves(x, scope, closure)
    body = x.items[2]
    if not (is_atom(x.items[1], INT) and 0 < x.items[1].value <= MAX_REPEAT) \
            or WRITERS.get(Kind.ACTION, head_of(body)) is not _move:
        return None
    move = ew.top_move(body, scope)
    if move is None or not ew.comp.fast or ew.comp.weight(body) > SMALL:
        return None
    src, dst = move
    k = x.items[1].value
    lst, d, moved = (ew.fresh(n) for n in ("l", "d", "moved"))
    # as items.bulk_repeat: the k top cards at once, or one by one by the closure
    return ([f"{lst} = s.locs[{src}]", f"{d} = {dst}",
             f"if s.events is not None or len({lst}) < {k} or {lst} is s.locs[{d}] or s.work < {k}:",
             f"    {closure}(s, e)", "else:", f"    s.work -= {k}", f"    {moved} = {lst}[-{k}:]",
             f"    del {lst}[-{k}:]", f"    {moved}.reverse()"] + ["    " + ln for ln in ew.landed(moved, d)])

