"""Compiling RECYCLE's locations and views into closures ``f(state, env)``: a physical
location's index, its cards, and the views computed from locations (union, intersect,
disjunction, sort, filter, run, the first or last N cards, one group of a group list).
"""

from __future__ import annotations

from collections.abc import Callable

from ...errors import RecycleError
from .reads import reads_node
from ..nodes.base import Const, FormNode, GameOwner, Loc, Num, Unread, Var, Word
from ..nodes.flow import elaborate
from ..nodes.groups import Range
from ..nodes.scalars import Member
from .expr_scalar import CURRENT_PLAYER
from ..nodes.groups import Each
from .registry import Kind, form, mention
from .runtime import out_of_work
from .runtime import MAX_NAMES, describe_value, rt_error, tag
from ..nodes.sexpr import Scope, fail
from ..syntax.reader import MAX_MEMBER
from .values import Groups, PLoc


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


class LocationForms:
    """Locations and views in the compiler (a mixin of ``FlowCompiler``)."""

    def static_loc_index(self, x: Loc, scope: Scope):
        """The constant index of ``(game KIND NAME)`` with a literal name, else None."""
        if isinstance(x, Loc) and isinstance(x.owner, GameOwner):
            name = self.storage_name(x.name, scope)
            if isinstance(name, str):
                return self.layout.loc_block(x.kind, name)
        return None

    def c_loc_index(self, x, scope: Scope, purpose: str = "a location") -> Callable:
        """A physical location → closure giving its index in ``state.locs``."""
        if isinstance(x, (Var, Const)):
            f = self.c_var(x, scope)
            span, name = x.span, x.name

            def var_loc(s, e):
                v = f(s, e)
                if isinstance(v, PLoc):
                    return v.idx
                rt_error(f"'{name} holds {describe_value(v)}, not {purpose}", span)

            return var_loc
        if not isinstance(x, Loc):
            fail(f"expected {purpose} (OWNER KIND NAME), got {self.form_name(x)}", x)
        kind = x.kind
        if isinstance(x.name, Member):
            return self.c_member_index(x, scope)
        name = self.storage_name(x.name, scope)
        layout = self.layout
        if isinstance(name, str):
            base = layout.loc_block(kind, name)
            o = x.owner
            if isinstance(o, GameOwner):
                return lambda s, e: base
            if o == CURRENT_PLAYER:
                b1 = base + 1
                return tag(lambda s, e: b1 + s.pstack[-1][0], loc_current=b1)
            owner = self.c_owner(o, scope, "a location owner")
            return lambda s, e: base + owner(s, e)
        owner = self.c_owner(x.owner, scope, "a location owner")
        name_fn = name

        known = self.known_names(x.name, scope, len(layout.loc_base)) or ()
        bases: dict = {nm: layout.loc_block(kind, nm) for nm in known}
        width = layout.width

        span = x.span

        def dyn_loc(s, e):
            nm = name_fn(s, e)
            b = bases.get(nm)
            if b is None:
                if (kind, nm) not in layout.loc_base and len(layout.loc_base) >= MAX_NAMES:
                    rt_error(
                        f"more than {MAX_NAMES} location names (computed names make a new location each)", span, kind
                    )
                b = bases[nm] = layout.loc_block(kind, nm)
            if b + width > len(s.locs):
                s.grow_locs()
            return b + owner(s, e)

        return dyn_loc

    def c_locval(self, x, scope: Scope) -> Callable:
        """A location as a value: PLoc for a physical location, a list for a view."""
        if isinstance(x, Loc):
            idx = self.c_loc_index(x, scope)
            return lambda s, e: PLoc(idx(s, e))
        return self.c_cards(x, scope)

    def c_cards(self, x, scope: Scope, first_group: bool = False) -> Callable:
        """A location or view → closure giving its cards (bottom first).

        For a physical location the live list is returned: callers that move cards while
        iterating must copy it. With ``first_group``, a variable holding a list of groups
        stands for its first group (``(top 'PAIRS)`` as a card: the top card of the first
        pair, our reading of a form the reference rejects; docs/language.md).
        """
        if isinstance(x, (Var, Const)):
            f = self.c_var(x, scope)
            span, name = x.span, x.name

            hint = scope.hint(name)
            if hint == "cards":
                return tag(f, var_slot=scope.lookup(name))
            if hint == "loc":
                slot = scope.lookup(name)
                return lambda s, e: s.locs[e[slot].idx]

            def var_cards(s, e):
                v = f(s, e)
                if isinstance(v, PLoc):
                    return s.locs[v.idx]
                if isinstance(v, list) and not isinstance(v, Groups):
                    return v
                if first_group and isinstance(v, Groups):
                    return v[0] if v else []
                rt_error(f"'{name} holds {describe_value(v)}, not a location", span)

            return var_cards
        if isinstance(x, Loc):
            const = self.static_loc_index(x, scope)
            if const is not None:
                return tag(lambda s, e: s.locs[const], loc_const=const)
            o, name = x.owner, x.name
            if isinstance(o, Var) and scope.hint(o.name) == "player" and isinstance(name, Word):
                b1 = self.layout.loc_block(x.kind, name.value) + 1
                slot = scope.lookup(o.name)
                return tag(lambda s, e: s.locs[b1 + e[slot]], loc_player_var=(b1, slot))
            if o == CURRENT_PLAYER and isinstance(name, Word):
                b1 = self.layout.loc_block(x.kind, name.value) + 1
                return tag(lambda s, e: s.locs[b1 + s.pstack[-1][0]], loc_current=b1)
            idx = self.c_loc_index(x, scope)
            return lambda s, e: s.locs[idx(s, e)]
        if isinstance(x, (FormNode, Unread)):
            return self.form_of(x, scope)
        fail(f"expected a location, got {self.form_name(x)}", x)

    # -- views of several locations --------------------------------------------------------
    def c_loc_list(self, parts, scope) -> Callable:
        """Arguments of union/intersect/disjunction/partition: the nodes of locations, or
        one ``(all C 'V LOC)`` (an ``Each``)."""
        if isinstance(parts, Each):
            coll, slot, inner = self.c_binder(parts, scope, self.c_cards)
            w = 0 if self.players_loop(parts) else self.weight(parts.location)
            span = parts.span

            def each(s, e):
                c = coll(s, e)
                s.work -= len(c) * w
                if s.work < 0:
                    out_of_work(s, span, "all")
                out = []
                for v in c:
                    e[slot] = v
                    out.append(inner(s, e))
                return out

            return each
        compiled = [self.c_cards(i, scope) for i in parts]
        return lambda s, e: [p(s, e) for p in compiled]

    # -- let as a value --------------------------------------------------------------------
    def c_let_value(self, x, scope, body_compiler):
        """(let VALUE 'VARIABLE BODY) with the body compiled by ``body_compiler``."""
        val = self.c_value(x.value, scope)
        slot = self.new_slot()
        body = body_compiler(x.body, scope.bind(x.variable.name, slot, x.variable.hint))

        def let_(s, e):
            e[slot] = val(s, e)
            return body(s, e)

        return let_


mention(__name__, ("all",))


class FamilyForms:
    """Families of locations, ``(OWNER KIND NAME INDEX)``: one location per integer INDEX,
    named ``NAME[INDEX]`` (the reader turns a computed INDEX into ``(member NAME INDEX)``,
    ``reader._family_member``). A mixin of ``FlowCompiler``."""

    @form("member", "(member NAME INDEX)", Kind.STR, pure=True, role="member")
    @reads_node
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
