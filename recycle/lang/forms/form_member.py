"""The form ``(member NAME INDEX)``: the name ``NAME[INDEX]`` of one location of a family of
locations, ``(OWNER KIND NAME INDEX)`` (the reader turns a computed INDEX into ``(OWNER KIND
(member NAME INDEX))``, ``reader._family_member``), created as the game runs.

The form is kept whole in this one module, registered together as it is imported
(``flow.py`` imports every ``form_*.py``): its reading of the s-expression (``read_member``,
which the elaborator's reading of a location also calls), its meaning in the reference
interpreter (``FamilyForms``: the member's name, and the index of the location it names), its
facts (the ``@form`` record) and its native code (``member_block``: the first index of the
member's block, which the native writer's ``named_base`` asks for a location named so). Its
node (``Member``) is of the node vocabulary of ``lang/nodes/scalars.py``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ...errors import RecycleError
from ..nodes.base import Loc, Num, Var
from ..nodes.flow import elaborate
from ..nodes.groups import Range
from ..nodes.scalars import Member
from ..nodes.sexpr import Scope, fail, is_atom
from ..syntax.reader import MAX_MEMBER, SYMBOL, SList
from .registry import Kind, family, form
from .runtime import MAX_NAMES, rt_error


def read_member(e, x: SList, scope: Scope) -> Member:
    """The node of ``(member NAME INDEX)``, read by the elaborator ``e``: NAME a family's name
    (upper case), INDEX an integer expression."""
    if len(x.items) != 3 or not is_atom(x.items[1], SYMBOL) or x.items[1].value.islower():
        fail("expected (member NAME INDEX), as in (game vloc RUN 3)", x, "member")
    return Member(x.items[1].value, e.int_(x.items[2], scope), span=x.span, source=x)


def member_range(coll, declared: dict) -> tuple[int, int] | None:
    """(A, B), the members of a family a variable bound over the collection ``coll`` can
    name: ``(range A..B)`` with numbers written out, or a variable declared so (``declared``:
    the nodes of the game's declared values by name), within 0..MAX_MEMBER; else None."""
    if isinstance(coll, Var):
        coll = declared.get(coll.name)
    if isinstance(coll, Range) and isinstance(coll.low, Num) and isinstance(coll.high, Num):
        lo, hi = max(0, coll.low.value), min(MAX_MEMBER, coll.high.value)
        if lo <= hi:
            return lo, hi
    return None


@family
class FamilyForms:
    """Families of locations, ``(OWNER KIND NAME INDEX)``: one location per integer INDEX,
    named ``NAME[INDEX]`` (the reader turns a computed INDEX into ``(member NAME INDEX)``,
    ``reader._family_member``). A mixin of ``FlowCompiler``."""

    @form("member", "(member NAME INDEX)", Kind.STR, pure=True, role="member", node=Member, reads=read_member)
    def str_member(self, x: Member, scope: Scope) -> Callable:
        """(member NAME INDEX)

        The name ``NAME[INDEX]`` of one location of a family (INDEX an integer, 0..999):
        ``(OWNER KIND NAME INDEX)`` is read as ``(OWNER KIND (member NAME INDEX))``."""
        name, index = self.member_parts(x, scope)

        def member(s, e):
            return f"{name}[{index(s, e)}]"

        return member

    def member_parts(self, x: Member, scope: Scope):
        """(NAME, checked INDEX closure) of ``(member NAME INDEX)``."""
        name = x.family
        v = self.const_value(x.index, scope)
        if isinstance(v, int) and not 0 <= v <= MAX_MEMBER:
            fail(f"a member of the family {name} is numbered 0..{MAX_MEMBER}, not {v}", x.index, "member")
        f = self.c_int(x.index, scope)
        span = x.index.span

        def index(s, e):
            k = f(s, e)
            if 0 <= k <= MAX_MEMBER:
                return k
            rt_error(f"a member of the family {name} is numbered 0..{MAX_MEMBER}, not {k}", span, "member")

        return name, index

    def c_member_index(self, x: Loc, scope: Scope) -> Callable:
        """The index in ``state.locs`` of ``(OWNER KIND (member NAME INDEX))``. The members the
        INDEX can be known to take (a variable bound over ``(range A..B)`` or a declared
        literal range) are registered now, in order; any other on first use, as a computed
        name is."""
        kind, node = x.kind, x.name
        name, index = self.member_parts(node, scope)
        layout = self.layout
        known = self.member_range(node.index, scope)
        bases: dict = {}
        if known is not None:
            for k in range(known[0], known[1] + 1):
                bases[k] = layout.loc_block(kind, f"{name}[{k}]")
        owner = self.c_owner(x.owner, scope, "a location owner")
        width = layout.width
        span = x.span

        def member_loc(s, e):
            k = index(s, e)
            b = bases.get(k)
            if b is None:
                member = f"{name}[{k}]"
                if (kind, member) not in layout.loc_base and len(layout.loc_base) >= MAX_NAMES:
                    rt_error(f"more than {MAX_NAMES} location names (each member of a family is one)", span, kind)
                b = bases[k] = layout.loc_block(kind, member)
            if b + width > len(s.locs):
                s.grow_locs()
            return b + owner(s, e)

        return member_loc

    def member_range(self, index, scope: Scope):
        """(A, B) when ``index`` is a variable bound by any/all/filter over ``(range A..B)``
        with numbers written out, or over a variable declared so; else None."""
        if not isinstance(index, Var):
            return None
        slot = scope.lookup(index.name)
        coll = self.binder_colls.get(slot) if isinstance(slot, int) else None
        return member_range(coll, self.declared_values)

    @property
    def declared_values(self) -> dict:
        """The nodes of the game's declared values, by name (read once, when a family's
        member is first named by a variable)."""
        found = getattr(self, "_declared_values", None)
        if found is None:
            try:
                found = {d.name: d.value for d in elaborate(self.source).declares} if self.source else {}
            except RecycleError:  # (the compile reports the file's errors)
                found = {}
            self._declared_values = found
        return found


def member_block(w, kind: str, x: Member, sc) -> str | None:
    """The native code of the first index of the block of ``(OWNER KIND (member NAME
    INDEX))``, from a table of the family's members the game's compile registered (numbered
    alike in every process: the writer's ``compiled_blocks``); None when the compile
    registered none. Another member stops the game natively (``member_block`` in
    ``native/runtime.py``: CAPACITY) and the reference interpreter plays it, registering that
    one on first use."""
    family = x.family
    members = sorted(
        int(m.group(1))
        for k, n in w.compiled_blocks
        if k == kind
        for m in [re.fullmatch(re.escape(family) + r"\[(\d+)\]", n)]
        if m
    )
    if not members:
        return None
    key = (kind, family, members[0], members[-1])
    table = w.member_blocks.get(key)
    if table is None:
        table = w.member_blocks[key] = f"LOCS_MEMBER_{len(w.member_blocks) + 1}"
    return f"member_block({table}, {w.int_(x.index, sc)} - {members[0]}, ctr)"
