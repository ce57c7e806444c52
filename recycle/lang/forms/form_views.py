"""The views: cards of locations computed anew each time they are read. Of several locations:
``(union ...)``, ``(intersect ...)``, ``(disjunction ...)``, each of LOCATION ... or of one
``(all COLLECTION 'VARIABLE LOCATION)``; of one location: ``(sort LOCATION using POINTS)``,
``(run top|bottom N LOCATION using POINTS)`` and the first or last N cards, ``(top|bottom N
LOCATION)``.

Each form is kept whole in this one module, registered together as it is imported
(``flow.py`` imports every ``form_*.py``): its reading of the s-expression (``read_*``), its
meaning in the reference interpreter (``ViewForms``), its facts and words (the ``@form``
records) and its native writer (``write_*``); the intersection, the disjunction and a sort
have none, and the native engine leaves a game using them to the reference interpreter.
Their nodes are the node vocabulary of ``lang/nodes/places.py``; ``(top|bottom GROUPS)``,
one group of a group list, is the groups' (``Pick``).
"""

from __future__ import annotations

from collections.abc import Callable

from ..nodes.groups import Each, Pick
from ..nodes.places import BottomN, Disjunction, Intersect, RunOf, Sort, TopN, Union
from ..nodes.sexpr import MAX_COLLECTION, Scope, fail, kw
from ..syntax.reader import SList
from .registry import Kind, family, form
from .runtime import out_of_work, rt_error
from .writers import LOC_T, LOCS_T, NUMBERS_T, PLAYERS_T, TEAMS_T, VIEW_T, NativeUnsupported, native

# -- readings ------------------------------------------------------------------------------


def read_union(e, x: SList, scope: Scope) -> Union:
    """The node of ``(union LOCATION ...)`` or ``(union (all C 'V LOCATION))``."""
    return Union(e.loc_list(x.items[1:], scope, x), span=x.span, source=x)


def read_intersect(e, x: SList, scope: Scope) -> Intersect:
    """The node of ``(intersect LOCATION ...)`` or ``(intersect (all C 'V LOCATION))``."""
    return Intersect(e.loc_list(x.items[1:], scope, x), span=x.span, source=x)


def read_disjunction(e, x: SList, scope: Scope) -> Disjunction:
    """The node of ``(disjunction LOCATION ...)`` or ``(disjunction (all C 'V LOCATION))``."""
    return Disjunction(e.loc_list(x.items[1:], scope, x), span=x.span, source=x)


def read_sort(e, x: SList, scope: Scope) -> Sort:
    """The node of ``(sort LOCATION using POINTS)``."""
    if len(x.items) != 4 or not kw(x.items[2], "using"):
        fail("expected (sort LOCATION using POINTS)", x, "sort")
    return Sort(e.cards(x.items[1], scope), e.points(x.items[3], scope), span=x.span, source=x)


def read_run(e, x: SList, scope: Scope) -> RunOf:
    """The node of ``(run top|bottom N LOCATION using POINTS)``."""
    items = x.items
    if len(items) != 6 or not kw(items[1], "top", "bottom") or not kw(items[4], "using"):
        fail("expected (run top|bottom N LOCATION using POINTS)", x, "run")
    n = e.int_(items[2], scope)
    return RunOf(items[1].value, n, e.cards(items[3], scope), e.points(items[5], scope), span=x.span, source=x)


def read_first_n(e, x: SList, scope: Scope, cls):
    """The node (``cls``: TopN or BottomN) of ``(top|bottom N LOCATION)``, or the group list's
    ``Pick`` of ``(top|bottom GROUPS)``."""
    items = x.items
    if len(items) == 2:
        return e.read_as("c_group_pick", x, scope)
    if len(items) != 3:
        fail(f"expected a location, got {e.form_name(x)}", x)
    n = e.int_(items[1], scope)
    return cls(n, e.cards(items[2], scope), span=x.span, source=x)


def read_top_n(e, x: SList, scope: Scope):
    """The node of ``(top N LOCATION)`` or ``(top GROUPS)`` read as cards."""
    return read_first_n(e, x, scope, TopN)


def read_bottom_n(e, x: SList, scope: Scope):
    """The node of ``(bottom N LOCATION)`` or ``(bottom GROUPS)`` read as cards."""
    return read_first_n(e, x, scope, BottomN)


# -- meaning in the reference interpreter --------------------------------------------------


def views_size(s, total: int, parts: int, span, form: str, bounded: bool = True) -> None:
    """Charge a view of several locations for the cards it reads; a ``bounded`` view (one
    that keeps duplicates, as union does) may hold at most MAX_COLLECTION cards."""
    if bounded and total > MAX_COLLECTION:
        rt_error(f"({form} ...) would hold {total} cards (limit {MAX_COLLECTION})", span, form)
    s.work -= total + parts
    if s.work < 0:
        out_of_work(s, span, form)


@family
class ViewForms:
    """Views of locations in the reference interpreter (a mixin of ``FlowCompiler``)."""

    # -- views of several locations --------------------------------------------------------
    @form(
        "union",
        "(union LOCATION ...) | (union (all COLLECTION 'VARIABLE LOCATION))",
        Kind.LOC,
        pure=True,
        expensive=True,
        words="union({1*, })",
        node=Union,
        reads=read_union,
    )
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
        node=Intersect,
        reads=read_intersect,
    )
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
        node=Disjunction,
        reads=read_disjunction,
    )
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
    @form(
        "sort",
        "(sort LOCATION using POINTS)",
        Kind.LOC,
        pure=True,
        expensive=True,
        words="sort {1} {2=using} {3}",
        node=Sort,
        reads=read_sort,
    )
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
        "run",
        "(run top|bottom N LOCATION using POINTS)",
        Kind.LOC,
        pure=True,
        expensive=True,
        node=RunOf,
        reads=read_run,
    )
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

    @form(
        "top",
        "(top N LOCATION) | (top GROUPS)",
        Kind.LOC,
        pure=True,
        words=("top {1} of {2}", "top {1}"),
        node=TopN,
        reads=read_top_n,
    )
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
        node=BottomN,
        reads=read_bottom_n,
    )
    def loc_bottom(self, x: BottomN | Pick, scope: Scope) -> Callable:
        """(bottom N LOCATION) | (bottom GROUPS)

        The N bottommost cards of a location (an error when it holds fewer); or the last
        group of a group list."""
        return self.first_n(x, scope, False)


# -- native writers ------------------------------------------------------------------------


@native(Kind.LOC, Union)
def write_union(w, x, sc) -> tuple[str, str]:
    """A function of its own: the cards of every location in turn, counted then copied."""
    params = sc.params()
    parts = x.parts if isinstance(x.parts, tuple) else (x.parts,)
    with w.function(
        "union", params, f"(union ...) at line {x.span.line}: the cards of every location in turn", keeps_scratch=True
    ):
        for counting in (True, False):
            if counting:
                w.line("total = 0")
            else:
                w.line("out = alloc(scratch, ctr, total)")
                with w.block("if out == 0:"):
                    w.line("return out")
                w.line("m = 0")
            for p in parts:
                depth = w.fn.depth
                inner_sc = sc
                if isinstance(p, Each):
                    name = p.variable.name
                    var = w.local(name)
                    loop = w.collection(p.collection, sc, var)
                    w.open_loop(loop)
                    inner_sc = sc.bind(name, var, loop.type)
                    p = p.location
                t, code = w.loc(p, inner_sc)
                if t == LOC_T:  # a location's cards counted and copied where they lie (no snapshot)
                    w.line(
                        f"total += lens[{code}]" if counting else f"m = append_loc(locs, lens, scratch, out, m, {code})"
                    )
                elif t in (PLAYERS_T, TEAMS_T, NUMBERS_T, LOCS_T):
                    raise NativeUnsupported(f"{t} where cards are needed", p)
                else:
                    w.line(f"total += scratch[{code}]" if counting else f"m = append_to(scratch, out, m, {code})")
                w.fn.depth = depth
        w.line("return out")
    return VIEW_T, w.fns[-1].call(*params)


@native(Kind.LOC, TopN, BottomN)
def write_first_n(w, x, sc) -> tuple[str, str]:
    """(top|bottom N CARDS): a view of the N topmost cards, the topmost first, or the N
    bottommost, bottom first (``ViewForms.first_n``); more than it holds is a rule broken."""
    top = isinstance(x, TopN)
    params = sc.params()
    with w.function(
        "first_n", params, f"({'top' if top else 'bottom'} N ...) at line {x.span.line}", keeps_scratch=True
    ):
        w.line(f"source = {w.cards(x.location, sc)}")
        w.line(f"k = {w.int_(x.n, sc)}")
        w.line("n = scratch[source]")
        with w.block("if k < 0 or k > n:"):
            w.line("ctr[STATUS] = RULE")
            w.line("return 0")
        w.line("out = alloc(scratch, ctr, k)")
        with w.block("if out == 0:"):
            w.line("return out")
        with w.block("for i in range(k):"):
            w.line(f"scratch[out + 1 + i] = scratch[source + {'n - i' if top else '1 + i'}]")
        w.line("ctr[WORK] += k")
        w.line("return out")
    return VIEW_T, w.fns[-1].call(*params)


@native(Kind.LOC, RunOf)
def write_run(w, x, sc) -> tuple[str, str]:
    """(run top|bottom N CARDS using POINTS): runtime_cards.run_of."""
    return VIEW_T, (
        f"run_of(scratch, ctr, {w.cards(x.location, sc)}, {w.int_(x.n, sc)}, "
        f"{x.end == 'top'}, {w.points_table(x.points, sc)})"
    )
