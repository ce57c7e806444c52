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
from ..nodes.groups import Each, Pick
from ..nodes.places import BottomN, Disjunction, Filter, Intersect, LetPlace, RunOf, Sort, TopN, Union
from .registry import Kind, form, mention
from .runtime import out_of_work
from .runtime import MAX_NAMES, SMALL, describe_value, rt_error, tag
from ..nodes.sexpr import MAX_COLLECTION, Scope, fail
from ..syntax.reader import MAX_MEMBER
from .values import Groups, PLoc


def views_size(s, total: int, parts: int, span, form: str, bounded: bool = True) -> None:
    """Charge a view of several locations for the cards it reads; a ``bounded`` view (one
    that keeps duplicates, as union does) may hold at most MAX_COLLECTION cards."""
    if bounded and total > MAX_COLLECTION:
        rt_error(f"({form} ...) would hold {total} cards (limit {MAX_COLLECTION})", span, form)
    s.work -= total + parts
    if s.work < 0:
        out_of_work(s, span, form)


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

    @form(
        "union",
        "(union LOCATION ...) | (union (all COLLECTION 'VARIABLE LOCATION))",
        Kind.LOC,
        pure=True,
        expensive=True,
        words="union({1*, })",
    )
    @reads_node
    def loc_union(self, x: Union, scope: Scope) -> Callable:
        """(union LOCATION ...) | (union (all COLLECTION 'VARIABLE LOCATION))

        The cards of every location, concatenated in argument order (duplicates kept)."""
        parts = self.c_loc_list(x.parts, scope)
        span = x.span

        def union(s, e):
            lists = parts(s, e)
            total = sum(map(len, lists))
            views_size(s, total, len(lists), span, "union")
            out = []
            for p in lists:
                out.extend(p)
            return out

        return union

    @form(
        "intersect",
        "(intersect LOCATION ...) | (intersect (all COLLECTION 'VARIABLE LOCATION))",
        Kind.LOC,
        pure=True,
        expensive=True,
        words="intersect({1*, })",
    )
    @reads_node
    def loc_intersect(self, x: Intersect, scope: Scope) -> Callable:
        """(intersect LOCATION ...) | (intersect (all COLLECTION 'VARIABLE LOCATION))

        The cards of the first location that are in every other one, in its order."""
        parts = self.c_loc_list(x.parts, scope)
        span = x.span

        def intersect(s, e):
            lists = parts(s, e)
            if not lists:
                return []
            views_size(s, sum(map(len, lists)), len(lists), span, "intersect", bounded=False)
            keep = set(lists[0])
            for cards in lists[1:]:
                if not keep:
                    break
                keep.intersection_update(cards)
            return [c for c in lists[0] if c in keep]

        return intersect

    @form(
        "disjunction",
        "(disjunction LOCATION ...) | (disjunction (all COLLECTION 'VARIABLE LOCATION))",
        Kind.LOC,
        pure=True,
        expensive=True,
        words="disjunction({1*, })",
    )
    @reads_node
    def loc_disjunction(self, x: Disjunction, scope: Scope) -> Callable:
        """(disjunction LOCATION ...) | (disjunction (all COLLECTION 'VARIABLE LOCATION))

        The cards present in exactly one of the locations, in order of first appearance."""
        parts = self.c_loc_list(x.parts, scope)
        span = x.span

        def disjunction(s, e):
            count: dict = {}
            order = []
            lists = parts(s, e)
            views_size(s, sum(map(len, lists)), len(lists), span, "disjunction", bounded=False)
            for cards in lists:
                for c in cards:
                    if c not in count:
                        order.append(c)
                    count[c] = count.get(c, 0) + 1
            return [c for c in order if count[c] == 1]

        return disjunction

    # -- views of one location -------------------------------------------------------------
    @form("sort", "(sort LOCATION using POINTS)", Kind.LOC, pure=True, expensive=True, words="sort {1} {2=using} {3}")
    @reads_node
    def loc_sort(self, x: Sort, scope: Scope) -> Callable:
        """(sort LOCATION using POINTS)

        The cards of the location ordered by score, lowest first (ties keep their order)."""
        cards = self.c_cards(x.location, scope)
        pts = self.c_points(x.points, scope)
        span = x.span

        def sort(s, e):
            sc = pts(s, e).table
            lst = cards(s, e)
            s.work -= len(lst)
            if s.work < 0:
                out_of_work(s, span, "sort")
            return sorted(lst, key=sc.__getitem__)

        return sort

    @form(
        "filter",
        "(filter COLLECTION 'VARIABLE CONDITION)",
        Kind.LOC,
        pure=True,
        expensive=True,
        binds=True,
        loops=True,
        words="({1} where {2}: {3})",
    )
    @reads_node
    def loc_filter(self, x: Filter, scope: Scope) -> Callable:
        """(filter COLLECTION 'VARIABLE CONDITION)

        The elements of the collection, in order, for which the condition holds with the
        element bound to 'VARIABLE: a view of a location's cards, or a list of players,
        teams, names, integers or (over a group list) groups."""
        coll, slot, cond = self.c_binder(x, scope, self.c_bool)
        w = 0 if self.players_loop(x) else self.weight(x.condition)  # (players: paid around it)
        span = x.span

        small = SMALL if self.loop_free(x.condition) else -1  # (a few turns of a body without loops: free)

        def filter_(s, e):
            c = coll(s, e)
            if len(c) > small:
                s.work -= len(c) * w
                if s.work < 0:
                    out_of_work(s, span, "filter")
            out = []
            for v in c:
                e[slot] = v
                if cond(s, e):
                    out.append(v)
            return out

        return filter_

    @form("run", "(run top|bottom N LOCATION using POINTS)", Kind.LOC, pure=True, expensive=True)
    @reads_node
    def loc_run(self, x: RunOf, scope: Scope) -> Callable:
        """(run top|bottom N LOCATION using POINTS)

        The largest k >= N such that the k topmost (bottommost) cards, sorted by score, have
        scores rising by exactly 1: those cards, sorted; empty when no k works."""
        from_top = x.end == "top"
        nmin = self.c_int(x.n, scope)
        cards = self.c_cards(x.location, scope)
        pts = self.c_points(x.points, scope)

        span = x.span

        def run_(s, e):
            lst = cards(s, e)
            sc = pts(s, e).table
            best: list = []
            low = max(nmin(s, e), 1)
            if low <= len(lst):  # the cards sorted: every chunk of low..len(lst) cards
                s.work -= (len(lst) + low) * (len(lst) - low + 1) // 2
                if s.work < 0:
                    out_of_work(s, span, "run")
            for k in range(low, len(lst) + 1):
                chunk = lst[-k:] if from_top else lst[:k]
                vals = sorted(chunk, key=sc.__getitem__)
                if all(sc[vals[i + 1]] - sc[vals[i]] == 1 for i in range(len(vals) - 1)):
                    best = vals
            return best

        return run_

    def first_n(self, x, scope: Scope, top: bool) -> Callable:
        """(top|bottom N LOCATION): the N topmost (listed top first) or bottommost cards;
        (top|bottom GROUPS): one group of a group list."""
        if isinstance(x, Pick):
            return self.c_group_pick(x, scope)
        h = x.HEAD
        span = x.span
        nf = self.c_int(x.n, scope)
        cards = self.c_cards(x.location, scope)

        def first_n(s, e):
            lst = cards(s, e)
            k = nf(s, e)
            if k < 0 or k > len(lst):
                rt_error(f"({h} {k} ...) of a location of {len(lst)} cards", span, h)
            if k == 0:
                return []
            s.work -= k
            if s.work < 0:
                out_of_work(s, span, h)
            return lst[-k:][::-1] if top else lst[:k]

        return first_n

    @form("top", "(top N LOCATION) | (top GROUPS)", Kind.LOC, pure=True, words=("top {1} of {2}", "top {1}"))
    @reads_node
    def loc_top(self, x: TopN | Pick, scope: Scope) -> Callable:
        """(top N LOCATION) | (top GROUPS)

        The N topmost cards of a location, the topmost listed first (an error when it holds
        fewer); or the first group of a group list."""
        return self.first_n(x, scope, True)

    @form(
        "bottom",
        "(bottom N LOCATION) | (bottom GROUPS)",
        Kind.LOC,
        pure=True,
        words=("bottom {1} of {2}", "bottom {1}"),
    )
    @reads_node
    def loc_bottom(self, x: BottomN | Pick, scope: Scope) -> Callable:
        """(bottom N LOCATION) | (bottom GROUPS)

        The N bottommost cards of a location (an error when it holds fewer); or the last
        group of a group list."""
        return self.first_n(x, scope, False)

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

    @form("let", "(let VALUE 'VARIABLE LOCATION)", Kind.LOC, pure=True, binds=True)
    @reads_node
    def loc_let(self, x: LetPlace, scope: Scope) -> Callable:
        """(let VALUE 'VARIABLE LOCATION)

        The location or view, computed with VALUE (evaluated once) bound to 'VARIABLE."""
        return self.c_let_value(x, scope, self.c_cards)


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
