"""The group-list forms: ``partition``, ``tuples``, ``subsets``, ``runs``, ``(let VALUE 'V
GROUPS)``, and one group picked out of a list, ``(INDEX GROUPS)``.

A group list is a list of lists of cards (``values.Groups``): ``any``, ``all``, ``filter`` and
``size`` range over its groups, ``(top GROUPS)`` is its first group and ``(bottom GROUPS)``
its last. Each form is kept whole in this one module, registered together as it is imported
(``flow.py`` imports every ``form_*.py``): its reading of the s-expression (``read_*``: the
shape checks and positioned errors; its node class is in ``lang/nodes/groups.py``, the
vocabulary every reader imports), its meaning in the reference interpreter
(``GroupListForms``), its facts and words (the ``@form`` record) and its native writer
(``write_*``: the runtime functions of ``recycle/native/runtime_groups.py``).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

from ..nodes.base import Const, FormNode, Var, Word, written
from ..nodes.groups import Each, LetGroups, Partition, Pick, Runs, Subsets, Tuples
from ..nodes.sexpr import MAX_COLLECTION, Scope, fail, kw
from ..syntax.reader import SList
from .registry import Kind, family, form
from .runtime import MAX_TUPLE, SMALL, describe_value, out_of_work, rt_error
from .values import Groups
from .writers import LOC_T, VIEW_T, NativeUnsupported, native

# -- readings (the elaborator ``e`` turns each s-expression into its node) ---------------------


def read_pick(e, x: SList, scope: Scope) -> Pick:
    """``(top|bottom|INDEX GROUPS)``: one group of a list."""
    groups = e.groups(x.items[1], scope)
    first = x.items[0]
    index = first.value if kw(first, "top", "bottom") else e.int_(first, scope)
    return Pick(index, groups, span=x.span, source=x)


def read_partition(e, x: SList, scope: Scope) -> Partition:
    """``(partition KEY LOCATION ...)``: a key, and locations or one ``(all ...)`` of them."""
    items = x.items
    if len(items) < 3:
        fail("expected (partition KEY LOCATION...)", x, "partition")
    key = e.name(items[1], scope)
    return Partition(key, e.loc_list(items[2:], scope, x), span=x.span, source=x)


def read_tuples(e, x: SList, scope: Scope) -> Tuples:
    """``(tuples N LOCATION using POINTS)``."""
    items = x.items
    if len(items) != 5 or not kw(items[3], "using"):
        fail("expected (tuples N LOCATION using POINTS)", x, "tuples")
    n = e.int_(items[1], scope)
    return Tuples(n, e.cards(items[2], scope), e.points(items[4], scope), span=x.span, source=x)


def read_subsets(e, x: SList, scope: Scope) -> Subsets:
    """``(subsets LOCATION)``."""
    e.arity(x, 2)
    return Subsets(e.cards(x.items[1], scope), span=x.span, source=x)


def read_runs(e, x: SList, scope: Scope) -> Runs:
    """``(runs largest|all N LOCATION using POINTS)``."""
    items = x.items
    if len(items) != 6 or not kw(items[1], "largest", "all") or not kw(items[4], "using"):
        fail("expected (runs largest|all N LOCATION using POINTS)", x, "runs")
    n = e.int_(items[2], scope)
    cards = e.cards(items[3], scope)
    return Runs(items[1].value == "largest", n, cards, e.points(items[5], scope), span=x.span, source=x)


def read_let_groups(e, x: SList, scope: Scope) -> LetGroups:
    """``(let VALUE 'VARIABLE GROUPS)``."""
    return LetGroups(*e.let_value(x, scope, e.groups), span=x.span, source=x)


# -- meanings in the reference interpreter ---------------------------------------------------


def find_runs(s, cards, scores, nmin: int, largest: bool, span) -> list:
    """Runs of scores increasing by exactly 1 (RECYCLE.md 5.3), one per choice of tied cards
    (each card of each run costs one unit of the state's work budget)."""
    s.work -= len(cards)
    if s.work < 0:
        out_of_work(s, span, "runs")
    by_score: dict = {}
    for c in cards:
        by_score.setdefault(scores[c], []).append(c)
    values = sorted(by_score)
    out: list = []
    i = 0
    nmin = max(nmin, 1)
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[j] + 1:
            j += 1
        block = values[i : j + 1]
        if largest:
            spans = [(0, len(block))] if len(block) >= nmin else []
        else:
            spans = [(a, a + k) for k in range(nmin, len(block) + 1) for a in range(len(block) - k + 1)]
        for a, b in spans:
            for combo in itertools.product(*(by_score[v] for v in block[a:b])):
                out.append(list(combo))
                if len(out) > MAX_COLLECTION:
                    rt_error("runs would make too many groups", span, "runs")
                s.work -= b - a
                if s.work < 0:
                    out_of_work(s, span, "runs")
        i = j + 1
    return out


@family
class GroupListForms:
    """Group lists in the reference interpreter (a mixin of ``FlowCompiler``)."""

    @form(None, "(INDEX GROUPS)", Kind.LOC, pure=True, label="group", node=Pick, reads=read_pick)
    def c_group_pick(self, x: Pick, scope: Scope) -> Callable:
        """(INDEX GROUPS)

        The group at the 0-based INDEX of a group list; (top GROUPS) is its first group and
        (bottom GROUPS) its last (the opposite ends from a location's)."""
        groups = self.c_groups(x.groups, scope)
        end = x.index if isinstance(x.index, str) else None  # top or bottom
        span = x.span
        if end == "top":
            pos = lambda s, e: 0  # noqa: E731
        elif end == "bottom":
            pos = lambda s, e: -1  # noqa: E731
        else:
            pos = self.c_int(x.index, scope)

        def pick(s, e):
            g = groups(s, e)
            i = pos(s, e)
            if -len(g) <= i < len(g) and g:
                return g[i]
            rt_error(
                f"no group {'at ' + str(i) if end is None else end} in a list of {len(g)} groups",
                span,
                end or written(x.index),
            )

        return pick

    def c_groups(self, x, scope: Scope) -> Callable:
        """A list of groups: a variable, a group-list form, or a filter of one."""
        if isinstance(x, (Var, Const)):
            f = self.c_var(x, scope)
            span, name = x.span, x.name

            def var_groups(s, e):
                v = f(s, e)
                if isinstance(v, list):
                    return v
                rt_error(f"'{name} holds {describe_value(v)}, not a list of groups", span)

            return var_groups
        if isinstance(x, FormNode):  # (a filter over a group list: the groups for which it holds)
            return self.form_of(x, scope)
        fail(f"expected a list of groups, got {self.form_name(x)}", x)

    @form(
        "partition",
        "(partition KEY LOCATION ...) | (partition KEY (all COLLECTION 'VARIABLE LOCATION))",
        Kind.GROUPS,
        pure=True,
        expensive=True,
        words="partition by {1} of {2+, }",
        node=Partition,
        reads=read_partition,
    )
    def groups_partition(self, x: Partition, scope: Scope) -> Callable:
        """(partition KEY LOCATION ...) | (partition KEY (all COLLECTION 'VARIABLE LOCATION))

        The cards split into groups of equal KEY value, in order of first appearance (cards
        lacking KEY form the empty-string group)."""
        key = self.storage_name(x.key, scope)
        card_table = self.cards
        span = x.span
        if not isinstance(x.parts, Each) and len(x.parts) == 1:
            cards = self.c_cards(x.parts[0], scope)
            if isinstance(key, str):
                col = card_table.column(key)

                def partition1(s, e):
                    groups: dict = {}
                    lst = cards(s, e)
                    if len(lst) > SMALL:  # a partition is a leaf: a hand is paid for by the form
                        s.work -= len(lst)
                        if s.work < 0:
                            out_of_work(s, span, "partition")
                    for c in lst:
                        k = col[c]
                        g = groups.get(k)
                        if g is None:
                            groups[k] = [c]
                        else:
                            g.append(c)
                    return Groups(groups.values())

                return partition1
        parts = self.c_loc_list(x.parts, scope)
        key_fn = (lambda s, e: key) if isinstance(key, str) else key

        attrs = card_table.attrs
        const_key = isinstance(key, str)

        def partition(s, e):
            k = key_fn(s, e)
            groups: dict = {}
            lists = parts(s, e)
            total = sum(map(len, lists))
            if total > MAX_COLLECTION:
                rt_error(f"(partition ...) of {total} cards (limit {MAX_COLLECTION})", span, "partition")
            s.work -= total + len(lists)
            if s.work < 0:
                out_of_work(s, span, "partition")
            if const_key:
                col = card_table.column(k)
                for lst in lists:
                    for c in lst:
                        groups.setdefault(col[c], []).append(c)
            else:  # a computed key is looked up card by card: no column per key
                for lst in lists:
                    for c in lst:
                        groups.setdefault(attrs[c].get(k, ""), []).append(c)
            return Groups(groups.values())

        return partition

    @form(
        "tuples",
        "(tuples N LOCATION using POINTS)",
        Kind.GROUPS,
        pure=True,
        expensive=True,
        node=Tuples,
        reads=read_tuples,
    )
    def groups_tuples(self, x: Tuples, scope: Scope) -> Callable:
        """(tuples N LOCATION using POINTS)

        Every N-card combination of cards sharing one score: scores ascending, combinations
        in the location's order."""
        span = x.span
        nf = self.c_int(x.n, scope)
        cards = self.c_cards(x.location, scope)
        pts = self.c_points(x.points, scope)

        def tuples(s, e):
            k = nf(s, e)
            if not 1 <= k <= MAX_TUPLE:
                rt_error(f"(tuples {k} ...): the size of a tuple must be 1..{MAX_TUPLE}", span, "tuples")
            sc = pts(s, e).table
            by_score: dict = {}
            lst = cards(s, e)
            s.work -= len(lst)
            if s.work < 0:
                out_of_work(s, span, "tuples")
            for c in lst:
                by_score.setdefault(sc[c], []).append(c)
            groups = sum(math.comb(len(g), k) for g in by_score.values())
            if groups > MAX_COLLECTION:
                rt_error("tuples would make too many groups", span, "tuples")
            s.work -= groups * k
            if s.work < 0:
                out_of_work(s, span, "tuples")
            out = Groups()
            for score in sorted(by_score):
                for combo in itertools.combinations(by_score[score], k):
                    out.append(list(combo))
                    if len(out) > MAX_COLLECTION:
                        rt_error("tuples would make too many groups", span, "tuples")
            return out

        return tuples

    @form(
        "subsets",
        "(subsets LOCATION)",
        Kind.GROUPS,
        pure=True,
        expensive=True,
        words="subsets {1}",
        node=Subsets,
        reads=read_subsets,
    )
    def groups_subsets(self, x: Subsets, scope: Scope) -> Callable:
        """(subsets LOCATION)

        All 2^n subsets of the location's cards, the empty one included (at most 16 cards)."""
        cards = self.c_cards(x.location, scope)
        span = x.span

        def subsets(s, e):
            lst = cards(s, e)
            if len(lst) > 16:
                rt_error(f"subsets of {len(lst)} cards would make {2 ** len(lst)} groups (limit 2^16)", span, "subsets")
            s.work -= (len(lst) + 2) << max(0, len(lst) - 1)  # 2^n groups of n/2 cards on average
            if s.work < 0:
                out_of_work(s, span, "subsets")
            out = Groups()
            for r in range(len(lst) + 1):
                out.extend(list(c) for c in itertools.combinations(lst, r))
            return out

        return subsets

    @form(
        "runs",
        "(runs largest|all N LOCATION using POINTS)",
        Kind.GROUPS,
        pure=True,
        expensive=True,
        node=Runs,
        reads=read_runs,
    )
    def groups_runs(self, x: Runs, scope: Scope) -> Callable:
        """(runs largest|all N LOCATION using POINTS)

        The runs of at least N cards whose scores rise by exactly 1 (every maximal run, or
        every run), one per choice among cards of equal score."""
        span = x.span
        largest = x.largest
        nf = self.c_int(x.n, scope)
        cards = self.c_cards(x.location, scope)
        pts = self.c_points(x.points, scope)

        def runs(s, e):
            return Groups(find_runs(s, cards(s, e), pts(s, e).table, nf(s, e), largest, span))

        return runs

    @form(
        "let",
        "(let VALUE 'VARIABLE GROUPS)",
        Kind.GROUPS,
        pure=True,
        binds=True,
        node=LetGroups,
        reads=read_let_groups,
    )
    def groups_let(self, x: LetGroups, scope: Scope) -> Callable:
        """(let VALUE 'VARIABLE GROUPS)

        The group list, computed with VALUE (evaluated once) bound to 'VARIABLE."""
        return self.c_let_value(x, scope, self.c_groups)


# -- native writers (a group list is a block of the scratch stack: runtime_groups.py) ---------


@native(Kind.LOC, Pick)
def write_pick(w, x: Pick, sc) -> tuple[str, str]:
    """(top|bottom GROUPS): the first or last group (the opposite ends from a location's)."""
    groups = w.groups_of(x.groups, sc) if x.index in ("top", "bottom") else None
    if groups is None:
        raise NativeUnsupported("(top ...) of this shape as a location", x)
    return VIEW_T, f"group_at(scratch, ctr, {groups}, {0 if x.index == 'top' else -1})"


@native(Kind.GROUPS, Tuples)
def write_tuples(w, x: Tuples, sc) -> str:
    """(tuples N CARDS using POINTS): runtime_groups.tuples_of."""
    return f"tuples_of(scratch, ctr, {w.cards(x.location, sc)}, {w.int_(x.n, sc)}, {w.points_table(x.points, sc)})"


@native(Kind.GROUPS, Runs)
def write_runs(w, x: Runs, sc) -> str:
    """(runs largest|all N CARDS using POINTS): runtime_groups.runs_groups."""
    return (
        f"runs_groups(scratch, ctr, {w.cards(x.location, sc)}, {w.int_(x.n, sc)}, "
        f"{bool(x.largest)}, {w.points_table(x.points, sc)})"
    )


@native(Kind.GROUPS, Subsets)
def write_subsets(w, x: Subsets, sc) -> str:
    """(subsets CARDS): runtime_groups.subsets_of."""
    return f"subsets_of(scratch, ctr, {w.cards(x.location, sc)})"


@native(Kind.GROUPS, Partition)
def write_partition(w, x: Partition, sc) -> str:
    """(partition KEY CARDS) of one location or view, KEY written out."""
    if not isinstance(x.key, Word):
        raise NativeUnsupported("a partition of an unexpected shape", x)
    if not isinstance(x.parts, tuple) or len(x.parts) != 1:
        raise NativeUnsupported("a partition of several locations", x)
    t, code = w.loc(x.parts[0], sc)
    if t == LOC_T:  # a location's cards read where they lie: no snapshot copied first
        return f"partition_loc(locs, lens, scratch, ctr, {code}, {w.column(x.key.value)})"
    return f"partition(scratch, ctr, {w.cards(x.parts[0], sc)}, {w.column(x.key.value)})"
