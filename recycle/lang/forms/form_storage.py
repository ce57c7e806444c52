"""The forms that set storages: ``(set STORAGE VALUE)`` (an integer, a string, or a point map
of awards), ``(inc (OWNER sto NAME) AMOUNT?)`` and ``(dec (OWNER sto NAME) AMOUNT?)``.

Each form is kept whole in this one module, registered together as it is imported (``flow.py``
imports every ``form_*.py``): its reading of the s-expression (``read_*``; its node classes are
in ``lang/nodes/actions.py``), its meaning in the reference interpreter (``StorageForms``), its
facts and words (the ``@form`` record) and its native writer (``write_*``; a storage's slot is
the writer's ``storage_slot``).
"""

from __future__ import annotations

from ..nodes.actions import Award, Dec, Inc, Set, SetPoints
from ..nodes.base import Const, Num, Var, Word
from ..nodes.sexpr import Scope, fail, is_atom, is_storage_form
from ..syntax.reader import COLON, SList
from .effects import record_storage
from .items import Item
from .registry import Kind, family, form
from .runtime import MAX_INT, SMALL, charge, rt_error
from .writers import NativeUnsupported, native

# -- readings (the elaborator ``e`` turns each s-expression into its node) ---------------------


def read_set(e, x: SList, scope: Scope) -> Set | SetPoints:
    """A storage and its value: an integer, a string, or a point map's awards."""
    e.arity(x, 3)
    target = x.items[1]
    sort = is_storage_form(target)
    if sort is None:
        fail(f"set needs a storage (OWNER sto|str|points NAME), got {e.form_name(target)}", target, "set")
    storage = e.storage(sort, target, scope)
    if sort == "points":
        return SetPoints(storage, read_awards(e, x.items[2], scope), span=x.span, source=x)
    value = e.int_(x.items[2], scope) if sort == "sto" else e.str_(x.items[2], scope)
    return Set(storage, value, span=x.span, source=x)


def read_awards(e, awards, scope: Scope) -> tuple:
    """The awards ``((KEY : VALUE) ... POINTS) ...`` of a point map."""
    if not isinstance(awards, SList) or not awards.items:
        fail("expected a list of awards (((KEY : VALUE) ... POINTS) ...)", awards, "set")
    out = []
    for award in awards.items:
        if not isinstance(award, SList) or len(award.items) < 2:
            fail("expected an award ((KEY : VALUE) ... POINTS)", award, "set")
        conds = []
        for c in award.items[:-1]:
            if not isinstance(c, SList) or len(c.items) != 3 or not is_atom(c.items[1], COLON):
                fail("expected a condition (KEY : VALUE)", c, "set")
            conds.append((e.name(c.items[0], scope), e.name(c.items[2], scope)))
        out.append(Award(tuple(conds), e.int_(award.items[-1], scope), span=award.span, source=award))
    return tuple(out)


def read_step(e, x: SList, scope: Scope, cls):
    """``(inc|dec (OWNER sto NAME) AMOUNT?)`` as a node of ``cls``."""
    if len(x.items) not in (2, 3) or is_storage_form(x.items[1]) != "sto":
        fail(f"expected ({x.items[0]} (OWNER sto NAME) AMOUNT?)", x, str(x.items[0]))
    storage = e.storage("sto", x.items[1], scope)
    amount = e.int_(x.items[2], scope) if len(x.items) == 3 else None
    return cls(storage, amount, span=x.span, source=x)


def read_inc(e, x, scope):
    """``(inc (OWNER sto NAME) AMOUNT?)``."""
    return read_step(e, x, scope, Inc)


def read_dec(e, x, scope):
    """``(dec (OWNER sto NAME) AMOUNT?)``."""
    return read_step(e, x, scope, Dec)


# -- meanings in the reference interpreter ---------------------------------------------------


@family
class StorageForms:
    """Storages and point maps in the reference interpreter (a mixin of ``FlowCompiler``)."""

    # -- storage ---------------------------------------------------------------------------
    @form(
        "set",
        "(set STORAGE VALUE) | (set (OWNER points NAME) (AWARD ...))",
        Kind.ACTION,
        sets=1,
        words=("{1:points} := point map ({2:count} awards)", "{1} := {2}"),
        node=(Set, SetPoints),
        reads=read_set,
    )
    def a_set(self, x: Set | SetPoints, scope: Scope) -> Item:
        """(set STORAGE VALUE) | (set (OWNER points NAME) (AWARD ...))

        Assigns an integer to (OWNER sto NAME), a string to (OWNER str NAME), or a point map
        of awards ((KEY : VALUE) ... POINTS) to (OWNER points NAME)."""
        sort = x.storage.sort
        const, slot = self.c_storage_slot(sort, x.storage, scope)
        layout = self.layout
        if isinstance(x, SetPoints):
            return self.c_set_points(x, scope, slot)
        val = self.c_int(x.value, scope) if sort == "sto" else self.c_str(x.value, scope)
        attr = "ints" if sort == "sto" else "strs"
        if const is not None and sort == "sto":

            def set_const(s, e):
                v = val(s, e)
                s.ints[const] = v
                if s.events is not None:
                    record_storage(s, layout.slot_label("sto", const), v)

            return Item(x, scope, run=set_const, static=True)

        def set_(s, e):
            v = val(s, e)
            k = slot(s, e)
            getattr(s, attr)[k] = v
            if s.events is not None:
                record_storage(s, layout.slot_label(sort, k), v)

        return Item(x, scope, run=set_, static=True)

    def c_set_points(self, x: SetPoints, scope: Scope, slot) -> Item:
        compiled = []
        constant = True
        for award in x.awards:
            conds = []
            for key, value in award.conditions:
                k = self.storage_name(key, scope)
                v = self.storage_name(value, scope)
                constant &= isinstance(k, str) and isinstance(v, str)
                conds.append((k, v))
            pts_val = self.const_value(award.points, scope)
            if pts_val is None:
                constant = False
                pts_val = self.c_int(award.points, scope)
            compiled.append((conds, pts_val))
        card_table = self.cards
        if constant:
            key = tuple((tuple(c), p) for c, p in compiled)

            def set_points_const(s, e):
                s.points[slot(s, e)] = card_table.point_map(key)

            return Item(x, scope, run=set_points_const, static=True)

        # the map is a function of the computed parts alone (Hearts: the suit led, set each
        # trick); each part is computed once, in the order of the awards. Making a map scores every card
        # for every award: each such set pays that, a unit per two cards and awards, whether
        # or not the map was made before (by this game or an earlier one: the cost is the
        # same on every path and in every process)
        nawards, span = len(compiled), x.span
        computed = []
        for conds, p in compiled:
            for kv in conds:
                for v in kv:
                    if not isinstance(v, (str, int)):
                        computed.append(v)
            if not isinstance(p, (str, int)):
                computed.append(p)

        def build_key(values):
            it = iter(values)

            def val(v):
                return v if isinstance(v, (str, int)) else next(it)

            return tuple((tuple((val(k), val(v)) for k, v in conds), val(p)) for conds, p in compiled)

        def set_points(s, e):
            if len(s.card_loc) * nawards > SMALL:
                charge(s, (len(s.card_loc) * nawards) >> 1, span, "set")
            s.points[slot(s, e)] = card_table.point_map(build_key(tuple([f(s, e) for f in computed])))

        return Item(x, scope, run=set_points, static=True)

    @form(
        "inc",
        "(inc (OWNER sto NAME) AMOUNT?)",
        Kind.ACTION,
        sets=1,
        words=("{1} += {2}", "{1} += 1"),
        node=Inc,
        reads=read_inc,
    )
    def a_inc(self, x: Inc, scope: Scope) -> Item:
        """(inc (OWNER sto NAME) AMOUNT?)

        Adds AMOUNT (1 when omitted) to an integer storage."""
        return self.c_step(x, scope, 1)

    @form(
        "dec",
        "(dec (OWNER sto NAME) AMOUNT?)",
        Kind.ACTION,
        sets=1,
        words=("{1} -= {2}", "{1} -= 1"),
        node=Dec,
        reads=read_dec,
    )
    def a_dec(self, x: Dec, scope: Scope) -> Item:
        """(dec (OWNER sto NAME) AMOUNT?)

        Subtracts AMOUNT (1 when omitted) from an integer storage."""
        return self.c_step(x, scope, -1)

    def c_step(self, x: Inc | Dec, scope: Scope, sign: int) -> Item:
        const, slot = self.c_storage_slot("sto", x.storage, scope)
        layout = self.layout
        amount = self.c_int(x.amount, scope) if x.amount is not None else (lambda s, e: 1)
        span, form = x.span, x.HEAD
        if const is not None:

            def step_const(s, e):
                v = s.ints[const] + sign * amount(s, e)
                if not -MAX_INT <= v <= MAX_INT:
                    rt_error("integer overflow (beyond 64 bits)", span, form)
                s.ints[const] = v
                if s.events is not None:
                    record_storage(s, layout.slot_label("sto", const), v)

            return Item(x, scope, run=step_const, static=True)

        def step(s, e):
            k = slot(s, e)
            v = s.ints[k] + sign * amount(s, e)
            if not -MAX_INT <= v <= MAX_INT:
                rt_error("integer overflow (beyond 64 bits)", span, form)
            s.ints[k] = v
            if s.events is not None:
                record_storage(s, layout.slot_label("sto", k), v)

        return Item(x, scope, run=step, static=True)


# -- native writers -----------------------------------------------------------------------


@native(Kind.ACTION, Set, SetPoints)
def write_set(w, x: Set | SetPoints, sc) -> None:
    """An integer, a string or a point map stored in its slot."""
    sort, slot = w.storage_slot(x.storage, sc)
    w.comment(x)
    if sort == "sto":
        w.line(f"ints[{slot}] = {w.int_(x.value, sc)}")
    elif sort == "str":
        w.line(f"strs[{slot}] = {w.str_(x.value, sc)}")
    else:
        write_point_map(w, x, sc, slot)


def award_value(w, node, sc) -> tuple[bool, object]:
    """(constant?, the name's text or code) of a key or value of an award."""
    if isinstance(node, (Word, Num)):
        return True, str(node.value)
    if isinstance(node, (Var, Const)):
        v = sc.lookup(node.name)
        if v is not None and not hasattr(v, "type") and isinstance(v.value, str):
            return True, v.value
        raise NativeUnsupported("an award of this shape", node)
    return False, w.str_(node, sc)  # a computed value: (game str LEAD), (cardatt SUIT (top ...))


def write_point_map(w, x: SetPoints, sc, slot: str) -> None:
    """A point map's row: a constant map (every key and value written out) from its table,
    made once; one with computed parts scored again card by card."""
    parsed, constant = [], True
    for award in x.awards:
        conds = []
        for k_node, v_node in award.conditions:
            kc, key = award_value(w, k_node, sc)
            vc, val = award_value(w, v_node, sc)
            if not kc:
                raise NativeUnsupported("an award with a computed key", award)
            constant &= vc
            conds.append((key, vc, val))
        pts = award.points
        if isinstance(pts, Num):
            points = int(pts.value)
        else:
            points = w.int_(pts, sc)
            constant = False
        parsed.append((conds, points))
    if constant:
        key = tuple((tuple((k, v) for k, _, v in conds), p) for conds, p in parsed)
        name = w.tables.get(key)
        if name is None:
            name = w.tables[key] = f"POINTS_{len(w.tables) + 1}"
        w.line(f"set_row(pts, {slot}, {name})")
        w.line("ver[POINTS_EPOCH] += 1")
        w.line("ctr[WORK] += 1")
        return
    # a map with computed parts (Hearts: the suit led): every card scored again, its awards of
    # constant keys, values and points added up once, when the game is written (a table), and
    # only the others tested card by card (Hearts' trick: 1 test a card, not 14)
    fixed = [isinstance(p, int) and all(c for _, c, _ in conds) for conds, p in parsed]
    base = None
    if any(fixed):
        key = tuple((tuple((k, v) for k, _, v in conds), p) for (conds, p), f in zip(parsed, fixed) if f)
        base = w.tables.get(key)
        if base is None:
            base = w.tables[key] = f"POINTS_{len(w.tables) + 1}"
    vals = []
    for (conds, p), f in zip(parsed, fixed):
        if f:
            continue
        row = []
        for k, const, v in conds:
            col = w.column(k)
            if const:
                row.append(f"{col}[c] == {w.intern(v)}")
            else:
                var = w.fresh("part")
                w.line(f"{var} = {v}")
                row.append(f"{col}[c] == {var}")
        if not isinstance(p, int):
            var = w.fresh("points")
            w.line(f"{var} = {p}")
            p = var
        vals.append((row, p))
    map_row = w.fresh("row")
    w.line(f"{map_row} = {slot}")
    with w.block("for c in range(NCARDS):"):
        w.line(f"t = {base}[c]" if base is not None else "t = 0")
        for row, p in vals:
            with w.block(f"if {' and '.join(row) or 'True'}:"):
                w.line(f"t += {p}")
        w.line(f"pts[{map_row}, c] = t")
    w.line("ver[POINTS_EPOCH] += 1")
    w.line("ctr[WORK] += NCARDS")


@native(Kind.ACTION, Inc, Dec)
def write_inc_dec(w, x: Inc | Dec, sc) -> None:
    """An integer storage stepped by AMOUNT (1 when omitted)."""
    _, slot = w.storage_slot(x.storage, sc)
    amount = w.int_(x.amount, sc) if x.amount is not None else "1"
    w.comment(x)
    # (checked as the reference's range: beyond it the reference interpreter replays the game)
    w.line(f"ints[{slot}] = {'add_ck' if isinstance(x, Inc) else 'sub_ck'}(ctr, ints[{slot}], {amount})")
    w.check()
