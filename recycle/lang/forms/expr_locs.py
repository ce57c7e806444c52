"""The compiler's entry points for locations and views, closures ``f(state, env)`` every
place form uses: a physical location's index, a location as a value, the cards of a location
or view, the locations of a union (or partition) and the value of a let. The forms are each
kept whole in a module of their own: the views (``form_views.py``), ``filter``
(``form_filter.py``), a let of a place (``form_let_place.py``), a family's member
(``form_member.py``) and a family (``form_indexed.py``).
"""

from __future__ import annotations

from collections.abc import Callable

from ..nodes.base import Const, FormNode, GameOwner, Loc, Var, Word
from ..nodes.scalars import Member
from .expr_scalar import CURRENT_PLAYER
from ..nodes.groups import Each
from .registry import mention
from .runtime import out_of_work
from .runtime import MAX_NAMES, describe_value, rt_error, tag
from ..nodes.sexpr import Scope, fail
from .values import Groups, PLoc


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
        if isinstance(x, FormNode):
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
